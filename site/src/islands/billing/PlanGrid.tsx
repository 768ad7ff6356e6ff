import { Check, FlaskConical } from 'lucide-react';
import type { BillingAnswer } from '../../lib/api';
import { formatPlanPrice, planAction, PLAN_IDS, PLANS, TRIAL_DAYS } from '../../lib/billing';
import { cn } from '../../lib/utils';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';

type PlanGridProps = { answer: BillingAnswer; onDowngrade: () => void };

/** The four plans from the plan table, each with its button for this user (docs/product.md#billing-and-plans). */
export function PlanGrid({ answer, onDowngrade }: PlanGridProps) {
  return (
    <section aria-labelledby="plans-title" className="space-y-6">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div className="space-y-1">
          <h2 id="plans-title" className="text-xl font-semibold tracking-tight">
            Plans
          </h2>
          <p className="text-sm text-muted-foreground">Prices in GBP, billed monthly. Cancel any time.</p>
        </div>
        {answer.provider === 'demo' && (
          <Badge variant="warning" className="px-2.5 py-1 text-sm" title="No payment provider is configured: nothing is charged">
            <FlaskConical aria-hidden="true" /> Demo billing: no real payments
          </Badge>
        )}
      </div>
      <ul className="grid gap-6 pt-3 sm:grid-cols-2 lg:grid-cols-4">
        {PLAN_IDS.map((id) => {
          const plan = PLANS[id];
          const action = planAction(id, answer);
          return (
            <li
              key={id}
              aria-label={`${plan.name} plan`}
              className={cn(
                'relative flex flex-col rounded-xl border bg-card p-6 text-card-foreground',
                plan.popular ? 'border-brand shadow-lg shadow-brand/10 ring-1 ring-brand' : 'shadow-sm',
                action.kind === 'none' && 'bg-muted/40',
              )}
            >
              {plan.popular && (
                <p className="absolute -top-3 left-1/2 -translate-x-1/2 whitespace-nowrap rounded-full bg-primary px-3 py-1 text-xs font-semibold text-primary-foreground">
                  Most Popular
                </p>
              )}
              <h3 className="text-lg font-semibold">{plan.name}</h3>
              <p className="mt-3 flex items-baseline gap-1">
                <span className="text-4xl font-bold tracking-tight">{formatPlanPrice(id)}</span>
                <span className="text-sm text-muted-foreground">/month</span>
              </p>
              {answer.trialAvailable && (
                <p className={cn('mt-2 h-5 text-sm font-medium text-success', plan.priceGbp === 0 && 'invisible')} aria-hidden={plan.priceGbp === 0}>
                  {TRIAL_DAYS}-Day Free Trial
                </p>
              )}
              <ul className="mt-5 grid flex-1 content-start gap-3 text-sm">
                {plan.features.map((feature) => (
                  <li key={feature} className="flex gap-2">
                    <Check aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-brand" />
                    {feature}
                  </li>
                ))}
              </ul>
              <div className="mt-8">
                {action.kind === 'none' ? (
                  <Button variant="outline" className="w-full" disabled>
                    Current Plan
                  </Button>
                ) : action.kind === 'cancel' ? (
                  <Button variant="outline" className="w-full" disabled={action.disabled} onClick={onDowngrade}>
                    Downgrade
                  </Button>
                ) : (
                  <Button asChild variant={plan.popular ? 'default' : 'outline'} className="w-full">
                    <a
                      href={action.href}
                      aria-label={
                        action.label === 'Upgrade' || action.label === 'Downgrade'
                          ? `${action.label} to the ${plan.name} plan`
                          : `${action.label} with the ${plan.name} plan`
                      }
                    >
                      {action.label}
                    </a>
                  </Button>
                )}
              </div>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
