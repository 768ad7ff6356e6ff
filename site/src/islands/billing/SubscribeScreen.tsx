import { useEffect, useRef, useState, type FormEvent } from 'react';
import { ArrowLeft, Check, Gift } from 'lucide-react';
import { api, isUnauthorizedError, type BillingAnswer, type PaidPlanId, type TrialSetup } from '../../lib/api';
import {
  BILLING_SUCCESS_PATH,
  currentPlanId,
  errorMessage,
  formatBillingDate,
  formatPlanPrice,
  isCanceled,
  PLANS,
  subscribeMode,
  subscribePlan,
  SUCCESS_REDIRECT_MS,
  TRIAL_DAYS,
  withRetries,
  type SubscribeMode,
} from '../../lib/billing';
import { toast } from '../../stores/toast';
import { AppShell } from '../shell/AppShell';
import { Button } from '../ui/Button';
import { Card, CardContent, CardDescription, CardFooter, CardHeader, CardTitle } from '../ui/Card';
import { Skeleton } from '../ui/Skeleton';
import { Spinner } from '../ui/Spinner';
import { PaymentMethod, type PaymentMethodHandle } from './PaymentMethod';

export default function SubscribeScreen() {
  const asked = new URLSearchParams(location.search).get('plan');
  const plan = subscribePlan(asked);
  return (
    <AppShell title="Subscribe" subtitle={plan ? `${PLANS[plan].name} plan` : 'Choose a plan'}>
      <Subscribe plan={plan} asked={asked ?? ''} />
    </AppShell>
  );
}

type Mode = SubscribeMode;

const DAY_MS = 86_400_000;

/** The words of each way of subscribing: card title, button, busy button, success toast. */
function wording(mode: Exclude<Mode, 'current'>, plan: PaidPlanId) {
  const name = PLANS[plan].name;
  switch (mode) {
    case 'trial':
      return { title: `${TRIAL_DAYS}-Day Free Trial`, button: 'Start Free Trial', busy: 'Setting Up Trial...', done: 'Free Trial Started!' };
    case 'paid':
      return { title: `Subscribe to ${name}`, button: 'Subscribe', busy: 'Subscribing...', done: 'Subscription Started' };
    case 'change':
      return { title: `Switch to ${name}`, button: `Switch to ${name}`, busy: 'Switching Plan...', done: 'Plan Changed' };
    case 'resume':
      return { title: `Resume ${name}`, button: `Resume ${name}`, busy: 'Resuming...', done: 'Subscription Resumed' };
  }
}

/** A plan to subscribe to, or what to say instead: the Free plan needs no setup, and an unknown name is no plan. */
function Subscribe({ plan, asked }: { plan: PaidPlanId | 'free' | null; asked: string }) {
  const [answer, setAnswer] = useState<BillingAnswer | null>(null);
  const [setup, setSetup] = useState<TrialSetup | null>(null);
  const [failed, setFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);

  // The page loads a payment setup as it opens (docs/product.md#billing-and-plans).
  useEffect(() => {
    let live = true;
    setFailed(false);
    withRetries(api.billing.subscription)
      .then(async (loaded) => {
        if (!live) return;
        setAnswer(loaded);
        if (plan && plan !== 'free' && subscribeMode(plan, loaded) !== 'current') {
          const created = await api.billing.createTrialSetup();
          if (live) setSetup(created);
        }
      })
      .catch((error) => {
        if (!live || isUnauthorizedError(error)) return;
        setFailed(true);
        toast({ title: 'Setup Failed', description: errorMessage(error), variant: 'destructive' });
      });
    return () => {
      live = false;
    };
  }, [attempt]);

  return (
    <div className="mx-auto max-w-4xl space-y-6">
      <Button asChild variant="ghost" size="sm" className="-ml-3">
        <a href="/billing">
          <ArrowLeft aria-hidden="true" /> Back to Billing
        </a>
      </Button>
      {failed ? (
        <Card>
          <CardHeader>
            <CardTitle>Payment setup unavailable</CardTitle>
            <CardDescription>The payment form could not be prepared. Nothing has been charged.</CardDescription>
          </CardHeader>
          <CardFooter>
            <Button variant="outline" onClick={() => setAttempt((n) => n + 1)}>
              Try again
            </Button>
          </CardFooter>
        </Card>
      ) : !answer ? (
        <SubscribeSkeleton />
      ) : plan === null ? (
        <NothingToSetUp title={`There is no “${asked}” plan`} text="Choose one of the plans on the Billing page." />
      ) : plan === 'free' ? (
        <NothingToSetUp {...freePlanWords(answer)} />
      ) : subscribeMode(plan, answer) === 'current' ? (
        <NothingToSetUp
          title={`You are on the ${PLANS[plan].name} plan`}
          text="There is nothing to set up. Choose another plan on the Billing page to switch."
        />
      ) : (
        <SubscribeForm plan={plan} answer={answer} setup={setup} />
      )}
    </div>
  );
}

function NothingToSetUp({ title, text }: { title: string; text: string }) {
  return (
    <Card>
      <CardHeader>
        <CardTitle>{title}</CardTitle>
        <CardDescription>{text}</CardDescription>
      </CardHeader>
      <CardFooter>
        <Button asChild>
          <a href="/billing">Back to Billing</a>
        </Button>
      </CardFooter>
    </Card>
  );
}

/** The Free plan is not subscribed to: a paying user moves to it by cancelling. */
function freePlanWords(answer: BillingAnswer): { title: string; text: string } {
  const sub = answer.subscription;
  if (!sub || !answer.user.subscriptionPlan) return { title: 'You are on the Free plan', text: 'It needs no setup and costs nothing.' };
  const name = PLANS[currentPlanId(answer)].name;
  const ends = formatBillingDate(sub.status === 'trialing' ? sub.trial_end : sub.current_period_end);
  return isCanceled(sub)
    ? {
        title: 'Moving to the Free plan',
        text: `Your ${name} subscription is cancelled: your account moves to the Free plan on ${ends}, and nothing more will be charged.`,
      }
    : {
        title: 'Moving to the Free plan',
        text: `To move to Free, cancel your ${name} subscription on the Billing page. You keep ${name} until ${ends}, and nothing more will be charged.`,
      };
}

function SubscribeForm({ plan, answer, setup }: { plan: PaidPlanId; answer: BillingAnswer; setup: TrialSetup | null }) {
  const mode = subscribeMode(plan, answer) as Exclude<Mode, 'current'>;
  const words = wording(mode, plan);
  const details = PLANS[plan];
  const payment = useRef<PaymentMethodHandle>(null);
  const [ready, setReady] = useState(false);
  const [busy, setBusy] = useState(false);

  async function subscribe(confirm: () => Promise<string>) {
    setBusy(true);
    let paymentMethodId: string;
    try {
      paymentMethodId = await confirm();
    } catch (error) {
      toast({ title: 'Setup Failed', description: errorMessage(error), variant: 'destructive' });
      setBusy(false);
      return;
    }
    try {
      await api.billing.createSubscription({ plan, paymentMethodId });
    } catch (error) {
      if (!isUnauthorizedError(error)) {
        toast({ title: 'Subscription Failed', description: 'Failed to create subscription. Please try again.', variant: 'destructive' });
      }
      setBusy(false);
      return;
    }
    const description =
      mode === 'trial'
        ? `Your ${TRIAL_DAYS}-day free trial of ${details.name} has started.`
        : mode === 'resume'
          ? `Your ${details.name} subscription continues.`
          : `You are now on the ${details.name} plan.`;
    // Said here only: the Billing page it opens next does not say it again.
    toast({ title: words.done, description });
    // Stays busy until the Billing page opens.
    setTimeout(() => location.assign(BILLING_SUCCESS_PATH), SUCCESS_REDIRECT_MS);
  }

  // Back from a payment method that confirms on the provider's own page.
  useEffect(() => {
    const params = new URLSearchParams(location.search);
    const secret = params.get('setup_intent_client_secret');
    if (!ready || !secret) return;
    history.replaceState(history.state, '', `${location.pathname}?plan=${plan}`);
    void subscribe(() => payment.current!.confirmed(secret));
  }, [ready]);

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!busy && ready) void subscribe(() => payment.current!.confirm());
  }

  const price = `${formatPlanPrice(plan)}/month`;
  const trialEnds = formatBillingDate((Date.now() + TRIAL_DAYS * DAY_MS) / 1000);
  const sub = answer.subscription;
  const currentTrialEnd = sub?.status === 'trialing' ? formatBillingDate(sub.trial_end) : null;
  // Subscribing while cancelled takes the cancellation back: say so, and when charges start again.
  const takesBack = isCanceled(sub) ? 'This takes back your cancellation. ' : '';
  const summary = {
    trial: `Try ${details.name} free for ${TRIAL_DAYS} days, then ${price}. Cancel before ${trialEnds} and you will not be charged.`,
    paid: `${price}, charged today. Your free trial has already been used.`,
    change:
      takesBack +
      (currentTrialEnd
        ? `Your free trial continues until ${currentTrialEnd}, then ${details.name} is ${price}.`
        : `${details.name} is ${price} from now on; the difference for this month is settled on your next invoice.`),
    resume: currentTrialEnd
      ? `Your trial is cancelled and ends on ${currentTrialEnd}. Resume it to keep ${details.name}: from ${currentTrialEnd} it is ${price}.`
      : `Your subscription is cancelled and ends on ${formatBillingDate(sub?.current_period_end)}. Resume it to keep ${details.name} at ${price}.`,
  }[mode];

  return (
    <form onSubmit={submit} className="grid gap-6 md:grid-cols-5">
      <Card className="md:col-span-2">
        <CardHeader>
          <p className="flex items-center gap-2 text-sm font-medium text-success">
            <Gift aria-hidden="true" className="size-4" />
            {mode === 'paid' ? `${details.name} plan` : 'No charge today'}
          </p>
          <CardTitle className="text-2xl">{words.title}</CardTitle>
          <CardDescription>{summary}</CardDescription>
        </CardHeader>
        <CardContent>
          <p className="flex items-baseline gap-1">
            <span className="text-3xl font-bold tracking-tight">{formatPlanPrice(plan)}</span>
            <span className="text-sm text-muted-foreground">/month{mode === 'trial' ? ` after ${TRIAL_DAYS} days` : ''}</span>
          </p>
          <ul className="mt-5 grid gap-2.5 text-sm">
            {details.features.map((feature) => (
              <li key={feature} className="flex gap-2">
                <Check aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-brand" />
                {feature}
              </li>
            ))}
          </ul>
        </CardContent>
      </Card>

      <Card className="md:col-span-3">
        <CardHeader>
          <CardTitle>Payment method</CardTitle>
          <CardDescription>
            {mode === 'trial' ? 'Add a payment method to start your trial. You will not be charged until it ends.' : 'The payment method for this plan.'}
          </CardDescription>
        </CardHeader>
        <CardContent>
          {setup ? (
            <PaymentMethod ref={payment} setup={setup} returnUrl={`${location.origin}/subscribe?plan=${plan}`} onReady={setReady} />
          ) : (
            <Skeleton className="h-44 w-full" />
          )}
        </CardContent>
        <CardFooter className="flex-col items-stretch gap-3">
          <Button type="submit" size="lg" disabled={busy || !ready}>
            {busy && <Spinner className="size-4 text-current" label={words.busy} />}
            {busy ? words.busy : words.button}
          </Button>
          <p className="text-center text-xs text-muted-foreground">Cancel any time from the Billing page.</p>
        </CardFooter>
      </Card>
    </form>
  );
}

function SubscribeSkeleton() {
  return (
    <div className="grid gap-6 md:grid-cols-5" aria-busy="true">
      <span className="sr-only">Loading payment setup</span>
      <Skeleton className="h-96 rounded-xl md:col-span-2" />
      <Skeleton className="h-96 rounded-xl md:col-span-3" />
    </div>
  );
}
