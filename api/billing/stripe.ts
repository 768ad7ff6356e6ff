import Stripe from 'stripe';
import { PLAN_IDS, TRIAL_DAYS } from './plans.ts';
import type { StripeConfig } from './config.ts';
import { amountOf, type BillingProvider } from './provider.ts';
import { DomainError } from '../../events/decider.ts';
import type { Payment, PaidPlanId, SubscriptionSnapshot, SubscriptionStatus } from '../../events/subscription.ts';

export type StripeBilling = ReturnType<typeof stripeBilling>;

/** Billing through Stripe: the provider calls, webhook verification, and reading Stripe's objects. */
export function stripeBilling(config: StripeConfig) {
  const stripe = new Stripe(config.secretKey, { ...(config.api ?? {}), telemetry: false });
  const planOfPrice = new Map(Object.entries(config.prices).map(([plan, price]) => [price, plan as PaidPlanId]));

  /** Our snapshot of a Stripe subscription, or null for one that is not for one of our plans. */
  function snapshotOf(sub: Stripe.Subscription): SubscriptionSnapshot | null {
    const item = sub.items?.data?.[0];
    const metadataPlan =
      (PLAN_IDS as readonly string[]).includes(sub.metadata?.plan ?? '') && sub.metadata!.plan !== 'free' ? (sub.metadata!.plan as PaidPlanId) : null;
    const plan = (item && planOfPrice.get(item.price.id)) ?? metadataPlan;
    if (!plan) return null;
    const unit = item?.price.unit_amount;
    // Current API versions keep the period on the items; older ones on the subscription.
    const periodEnd = item?.current_period_end ?? (sub as { current_period_end?: number }).current_period_end ?? sub.trial_end ?? sub.created;
    return {
      id: sub.id,
      provider: 'stripe',
      status: statusOf(sub.status),
      plan,
      amount: unit == null ? amountOf(plan) : unit * (item?.quantity ?? 1),
      trialEnd: sub.trial_end,
      currentPeriodEnd: periodEnd,
      cancelAtPeriodEnd: sub.cancel_at_period_end,
      created: sub.created,
    };
  }

  function answer(sub: Stripe.Subscription): SubscriptionSnapshot {
    const snapshot = snapshotOf(sub);
    if (!snapshot) throw new Error(`Stripe subscription ${sub.id} has a price that is not one of the configured plans`);
    return snapshot;
  }

  const provider: BillingProvider = {
    kind: 'stripe',
    publishableKey: config.publishableKey,

    createCustomer: (user) =>
      calling(async () => (await stripe.customers.create({ email: user.email, metadata: { userId: user.id } }, { idempotencyKey: `customer-${user.id}` })).id),

    createSetup: (customerId) =>
      calling(async () => {
        const intent = await stripe.setupIntents.create({ customer: customerId, usage: 'off_session', automatic_payment_methods: { enabled: true } });
        return { clientSecret: intent.client_secret! };
      }),

    subscribe: ({ userId, customerId, plan, paymentMethodId, trial, idempotencyKey }) =>
      calling(async () => {
        await stripe.customers.update(customerId, { invoice_settings: { default_payment_method: paymentMethodId } });
        const sub = await stripe.subscriptions.create(
          {
            customer: customerId,
            items: [{ price: config.prices[plan] }],
            default_payment_method: paymentMethodId,
            metadata: { userId, plan },
            ...(trial
              ? { trial_period_days: TRIAL_DAYS, trial_settings: { end_behavior: { missing_payment_method: 'cancel' } } }
              : // Without a trial the first payment is taken now: a refused card is an error, not an unpaid subscription.
                { payment_behavior: 'error_if_incomplete' }),
          },
          { idempotencyKey },
        );
        return answer(sub);
      }),

    changePlan: ({ subscription, customerId, plan, paymentMethodId, idempotencyKey }) =>
      calling(async () => {
        await stripe.customers.update(customerId, { invoice_settings: { default_payment_method: paymentMethodId } });
        const current = await stripe.subscriptions.retrieve(subscription.id);
        const sub = await stripe.subscriptions.update(
          subscription.id,
          {
            items: [{ id: current.items.data[0]!.id, price: config.prices[plan] }],
            default_payment_method: paymentMethodId,
            cancel_at_period_end: false,
            metadata: { plan },
          },
          { idempotencyKey },
        );
        return answer(sub);
      }),

    cancelAtPeriodEnd: (subscription) => calling(async () => answer(await stripe.subscriptions.update(subscription.id, { cancel_at_period_end: true }))),
  };

  /**
   * Checks the signature on the raw body and that it was made within the tolerance of now, either
   * way; throws Stripe's StripeSignatureVerificationError. The SDK refuses only old signatures: one
   * dated ahead would let a captured delivery be replayed until long after it was sent.
   */
  async function verify(rawBody: string, signature: string): Promise<Stripe.Event> {
    const event = await stripe.webhooks.constructEventAsync(rawBody, signature, config.webhookSecret);
    const ahead = signedAt(signature) - Math.floor(Date.now() / 1000);
    if (!(ahead <= stripe.webhooks.DEFAULT_TOLERANCE)) {
      throw new Stripe.errors.StripeSignatureVerificationError(signature, rawBody, { message: 'Timestamp outside the tolerance zone' });
    }
    return event;
  }

  return { stripe, provider, verify, snapshotOf };
}

/** The `t=` of a Stripe-Signature header, read as the SDK reads it (the last one counts); NaN without one. */
function signedAt(header: string): number {
  let at = Number.NaN;
  for (const item of header.split(',')) {
    const [key, value] = item.split('=');
    if (key === 't') at = parseInt(value ?? '', 10);
  }
  return at;
}

const STATUSES: ReadonlySet<string> = new Set<SubscriptionStatus>(['trialing', 'active', 'past_due', 'unpaid', 'incomplete', 'paused', 'canceled']);

/** Stripe's status; a status this code does not know yet gives no access until Stripe reports another. */
function statusOf(status: Stripe.Subscription.Status): SubscriptionStatus {
  if (status === 'incomplete_expired') return 'canceled';
  return STATUSES.has(status) ? (status as SubscriptionStatus) : 'incomplete';
}

const idOf = (ref: string | { id: string } | null | undefined) => (typeof ref === 'string' ? ref : ref?.id) ?? null;

/** A paid or failed invoice as a payment record; null for invoices that moved no money. */
export function paymentOf(event: Stripe.Event): { customerId: string; payment: Payment; outcome: 'succeeded' | 'failed' } | null {
  if (event.type !== 'invoice.paid' && event.type !== 'invoice.payment_failed') return null;
  const invoice = event.data.object;
  const paid = event.type === 'invoice.paid';
  const amount = paid ? invoice.amount_paid : invoice.amount_due;
  const customerId = idOf(invoice.customer);
  if (!customerId || amount === 0) return null;
  // Current API versions name the subscription under parent; older ones on the invoice.
  const subscriptionId = idOf(invoice.parent?.subscription_details?.subscription) ?? idOf((invoice as { subscription?: string | null }).subscription);
  return {
    customerId,
    outcome: paid ? 'succeeded' : 'failed',
    payment: { subscriptionId, invoiceId: invoice.id!, amount, currency: invoice.currency, attempt: invoice.attempt_count, at: event.created },
  };
}

export const subscriptionOf = (event: Stripe.Event): Stripe.Subscription | null =>
  event.type === 'customer.subscription.created' || event.type === 'customer.subscription.updated' || event.type === 'customer.subscription.deleted'
    ? event.data.object
    : null;

export const customerOf = (sub: Stripe.Subscription) => idOf(sub.customer);

/** Stripe's refusals become answers the screens can show; anything else stays a fault. */
async function calling<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof Stripe.errors.StripeCardError) throw new DomainError(error.message, 402);
    if (error instanceof Stripe.errors.StripeInvalidRequestError) {
      throw new DomainError(
        error.message,
        400,
        error.param === 'default_payment_method' || error.param?.startsWith('invoice_settings') ? 'paymentMethodId' : undefined,
      );
    }
    if (
      error instanceof Stripe.errors.StripeConnectionError ||
      error instanceof Stripe.errors.StripeAPIError ||
      error instanceof Stripe.errors.StripeRateLimitError
    ) {
      throw new DomainError('The payment provider could not be reached. Please try again.', 502);
    }
    throw error;
  }
}
