import { useEffect, useState, type ComponentType, type ReactNode } from 'react';
import { useStore } from '@nanostores/react';
import { Brain, CalendarClock, CalendarX, CirclePause, Clock, Gift, Package, PoundSterling, TriangleAlert } from 'lucide-react';
import { CHECK_FREQUENCY_LABEL } from '../../../../api/billing/plans';
import { isUnauthorizedError, type BillingAnswer } from '../../lib/api';
import { currentPlanId, formatBillingDate, formatMonthly, isCanceled, PLANS, productLimitLabel, subscribePath, subscriptionOutlook } from '../../lib/billing';
import { productsAfterEnd } from '../../lib/plan-limits';
import { cn } from '../../lib/utils';
import { loadable, readStore } from '../../stores/query';
import { AppShell } from '../shell/AppShell';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '../ui/Card';
import { Skeleton } from '../ui/Skeleton';
import { CancelSubscriptionDialog } from './CancelSubscriptionDialog';
import { PlanGrid } from './PlanGrid';

export default function BillingScreen() {
  return (
    <AppShell title="Billing" subtitle="Manage your plan and subscription">
      <Billing />
    </AppShell>
  );
}

/** The subscription answer, with up to 3 retries (docs/product.md#how-the-site-talks-to-the-api). */
const $subscription = readStore('billing/subscription');
const $billing = loadable($subscription);

function useSubscription() {
  const { data, error } = useStore($billing);
  return {
    answer: data ?? null,
    setAnswer: (next: BillingAnswer) => $subscription.mutate(next),
    // A 401 has its own toast and redirect.
    failed: !!error && !isUnauthorizedError(error),
    retry: () => $subscription.revalidate(),
  };
}

function Billing() {
  const { answer, setAnswer, failed, retry } = useSubscription();
  const [cancelling, setCancelling] = useState(false);

  // Back from the Subscribe page (/billing?success=true), which has said so already: drop the flag.
  useEffect(() => {
    if (new URLSearchParams(location.search).get('success') === 'true') history.replaceState(history.state, '', location.pathname);
  }, []);

  if (!answer) {
    return failed ? (
      <Card className="mx-auto max-w-xl">
        <CardHeader className="items-center text-center">
          <CardTitle>Billing unavailable</CardTitle>
          <CardDescription>Your plan and subscription could not be loaded.</CardDescription>
          <Button variant="outline" className="mt-3" onClick={retry}>
            Try again
          </Button>
        </CardHeader>
      </Card>
    ) : (
      <BillingSkeleton />
    );
  }

  return (
    <div className="mx-auto max-w-6xl space-y-10">
      <CurrentPlan answer={answer} onCancel={() => setCancelling(true)} />
      <PlanGrid answer={answer} onDowngrade={() => setCancelling(true)} />
      {cancelling && answer.subscription && (
        <CancelSubscriptionDialog
          subscription={answer.subscription}
          productsAfterEnd={productsAfterEnd(answer)}
          onClose={() => setCancelling(false)}
          onCancelled={(next) => {
            setAnswer(next);
            setCancelling(false);
          }}
        />
      )}
    </div>
  );
}

/** What the provider is waiting for, in words; absent while payments are in order. */
const PAYMENT_NOTICE: Record<string, string> = {
  past_due: 'Your last payment did not go through. It will be tried again, and your plan stays active meanwhile.',
  unpaid: 'Your subscription is on hold because a payment did not go through.',
  incomplete: 'Your subscription starts once the first payment goes through.',
  paused: 'Your subscription is paused because no payment method was available when the trial ended.',
};

function CurrentPlan({ answer, onCancel }: { answer: BillingAnswer; onCancel: () => void }) {
  const plan = PLANS[currentPlanId(answer)];
  const sub = answer.subscription;
  const limits = answer.user.planLimits;
  const trialing = sub?.status === 'trialing';
  const canceled = isCanceled(sub);
  const outlook = subscriptionOutlook(answer);
  // Once cancelled (or on Free already), which products Free keeps checking and which pause.
  const products = canceled || !sub || !answer.user.subscriptionPlan ? productsAfterEnd(answer) : null;

  return (
    <Card>
      <CardHeader className="gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div className="space-y-1.5">
          <CardTitle>Current Plan</CardTitle>
          <CardDescription>What your plan includes and when you are billed.</CardDescription>
        </div>
        <div className="flex flex-wrap gap-2">
          <Badge className="px-2.5 py-1 text-sm">{plan.name}</Badge>
          {trialing && (
            <Badge variant="success" className="px-2.5 py-1 text-sm">
              <Gift aria-hidden="true" /> Free Trial
            </Badge>
          )}
          {canceled && (
            <Badge variant="warning" className="px-2.5 py-1 text-sm">
              Cancelled
            </Badge>
          )}
        </div>
      </CardHeader>
      <CardContent className="space-y-6">
        {outlook && (
          <p role="status" className={cn('flex items-start gap-3 rounded-lg border p-4 text-sm', canceled ? 'bg-muted/50' : 'border-success/30 bg-success/10')}>
            {canceled ? (
              <CalendarX aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-muted-foreground" />
            ) : (
              <Gift aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-success" />
            )}
            <span>{outlook}</span>
          </p>
        )}
        {products && (
          <p className="flex items-start gap-3 rounded-lg border bg-muted/50 p-4 text-sm">
            <CirclePause aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-muted-foreground" />
            <span>
              {products}{' '}
              <a href="/products" className="font-medium underline underline-offset-4">
                Manage products
              </a>
            </span>
          </p>
        )}
        {sub && PAYMENT_NOTICE[sub.status] && (
          <p role="status" className="flex items-start gap-3 rounded-lg border border-warning/40 bg-warning/10 p-4 text-sm">
            <TriangleAlert aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-warning" />
            <span>{PAYMENT_NOTICE[sub.status]}</span>
          </p>
        )}
        <dl className="grid grid-cols-2 gap-3 sm:gap-4 lg:grid-cols-5">
          <Fact icon={Package} label="Products" value={productLimitLabel(limits.maxProducts)} />
          <Fact icon={Clock} label="Check Frequency" value={CHECK_FREQUENCY_LABEL[limits.checkFrequency]} />
          <Fact icon={Brain} label="AI Detection" value={limits.aiDetection ? 'Yes' : 'No'} />
          <Fact icon={CalendarClock} label={canceled ? 'Access until' : 'Next Billing Date'} value={sub ? formatBillingDate(sub.current_period_end) : '—'} />
          <Fact
            icon={PoundSterling}
            label="Amount"
            value={
              canceled ? (
                'Nothing more'
              ) : (
                <>
                  {formatMonthly(sub?.amount ?? 0)}
                  <span className="text-sm font-normal text-muted-foreground">/month</span>
                </>
              )
            }
          />
        </dl>
      </CardContent>
      <CardFooter className="flex-wrap gap-2">
        {canceled && sub && (
          <Button asChild>
            <a href={subscribePath(sub.plan)}>Resume {PLANS[sub.plan].name}</a>
          </Button>
        )}
        {plan.id === 'free' && answer.trialAvailable ? (
          <Button asChild>
            <a href={subscribePath('starter')}>Start Free Trial</a>
          </Button>
        ) : (
          plan.id !== 'pro' && (
            <Button asChild variant={canceled ? 'outline' : 'default'}>
              <a href={subscribePath('pro')}>Upgrade Plan</a>
            </Button>
          )
        )}
        {answer.user.subscriptionPlan && sub && !canceled && (
          <Button variant="outline" onClick={onCancel}>
            Cancel Subscription
          </Button>
        )}
      </CardFooter>
    </Card>
  );
}

function Fact({ icon: Icon, label, value }: { icon: ComponentType<{ className?: string; 'aria-hidden'?: boolean }>; label: string; value: ReactNode }) {
  return (
    <div className="rounded-lg border bg-muted/30 p-3 sm:p-4">
      <dt className="flex items-center gap-2 text-sm text-muted-foreground">
        <Icon aria-hidden className="size-4" />
        {label}
      </dt>
      <dd className="mt-1 font-semibold sm:text-lg">{value}</dd>
    </div>
  );
}

function BillingSkeleton() {
  return (
    <div className="mx-auto max-w-6xl space-y-10" aria-busy="true">
      <span className="sr-only">Loading billing</span>
      <Card>
        <CardHeader>
          <Skeleton className="h-5 w-32" />
          <Skeleton className="h-4 w-64" />
        </CardHeader>
        <CardContent className="grid grid-cols-2 gap-3 sm:gap-4 lg:grid-cols-5">
          {Array.from({ length: 5 }, (_, i) => (
            <Skeleton key={i} className="h-20" />
          ))}
        </CardContent>
      </Card>
      <div className="grid gap-6 sm:grid-cols-2 lg:grid-cols-4">
        {Array.from({ length: 4 }, (_, i) => (
          <Skeleton key={i} className="h-80 rounded-xl" />
        ))}
      </div>
    </div>
  );
}
