import type { BillingProviderKind, PaidPlanId, Subscription, SubscriptionSnapshot } from '../../events/subscription.ts';
import { DomainError } from '../../events/decider.ts';
import { PLANS, TRIAL_DAYS } from './plans.ts';

/**
 * A payment provider as billing uses it: Stripe, or the local demo provider that answers the same
 * shapes when no Stripe keys are configured. Every call that changes a subscription answers with
 * the provider's snapshot of it, which the subscription decider records.
 */
export type BillingProvider = {
  kind: BillingProviderKind;
  /** What the browser's payment form needs (Stripe's publishable key); null for the demo. */
  publishableKey: string | null;
  createCustomer(user: { id: string; email: string }): Promise<string>;
  /** A setup of a payment method for later payments; the browser confirms it with the client secret. */
  createSetup(customerId: string): Promise<{ clientSecret: string }>;
  subscribe(input: {
    userId: string;
    customerId: string;
    plan: PaidPlanId;
    paymentMethodId: string;
    trial: boolean;
    /** The same key for the same decision, so a repeated request cannot subscribe twice. */
    idempotencyKey: string;
  }): Promise<SubscriptionSnapshot>;
  /** Moves a subscription to another plan (or takes back its cancellation) with a new payment method. */
  changePlan(input: {
    subscription: Subscription;
    customerId: string;
    plan: PaidPlanId;
    paymentMethodId: string;
    idempotencyKey: string;
  }): Promise<SubscriptionSnapshot>;
  cancelAtPeriodEnd(subscription: Subscription): Promise<SubscriptionSnapshot>;
};

/** The monthly price of a plan in pence. */
export const amountOf = (plan: PaidPlanId) => PLANS[plan].priceGbp * 100;

const DAY = 86_400;
const nowSeconds = () => Math.floor(Date.now() / 1000);
const randomId = () => crypto.randomUUID().replaceAll('-', '').slice(0, 24);

/** The demo form's card: no card data is ever entered or sent. */
export const DEMO_PAYMENT_METHOD = /^pm_demo_[A-Za-z0-9]+$/;

function demoCard(paymentMethodId: string) {
  if (!DEMO_PAYMENT_METHOD.test(paymentMethodId)) throw new DomainError('Unknown payment method. Use the demo card.', 400, 'paymentMethodId');
}

function oneMonthAfter(seconds: number): number {
  const d = new Date(seconds * 1000);
  d.setUTCMonth(d.getUTCMonth() + 1);
  return Math.floor(d.getTime() / 1000);
}

const snapshotOf = ({ asOf: _, ...snapshot }: Subscription): SubscriptionSnapshot => snapshot;

/** Local billing for demo mode: trials and subscriptions start at once, nothing is charged. */
export function demoProvider(): BillingProvider {
  return {
    kind: 'demo',
    publishableKey: null,
    async createCustomer() {
      return `demo_cus_${randomId()}`;
    },
    async createSetup() {
      return { clientSecret: `demo_seti_${randomId()}_secret_${randomId()}` };
    },
    async subscribe({ plan, paymentMethodId, trial }) {
      demoCard(paymentMethodId);
      const created = nowSeconds();
      const trialEnd = trial ? created + TRIAL_DAYS * DAY : null;
      return {
        id: `demo_sub_${randomId()}`,
        provider: 'demo',
        status: trial ? 'trialing' : 'active',
        plan,
        amount: amountOf(plan),
        trialEnd,
        currentPeriodEnd: trialEnd ?? oneMonthAfter(created),
        cancelAtPeriodEnd: false,
        created,
      };
    },
    async changePlan({ subscription, plan, paymentMethodId }) {
      demoCard(paymentMethodId);
      return { ...snapshotOf(subscription), plan, amount: amountOf(plan), cancelAtPeriodEnd: false };
    },
    async cancelAtPeriodEnd(subscription) {
      return { ...snapshotOf(subscription), cancelAtPeriodEnd: true };
    },
  };
}
