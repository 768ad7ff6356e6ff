import type { AppContext } from '../context.ts';
import { findUser } from '../auth/users.ts';
import { DomainError, fold, handleCommand } from '../../events/decider.ts';
import { checkpointOf } from '../../events/store.ts';
import {
  cancellable,
  subscribeIntent,
  subscriptionDecider,
  subscriptionStream,
  type PaidPlanId,
  type SubscriptionCommand,
  type SubscriptionEvent,
  type SubscriptionState,
  type SubscriptionStatus,
} from '../../events/subscription.ts';
import { PLANS, planOf, type CheckFrequency } from './plans.ts';
import { splitByPlan } from '../products/beyond-plan.ts';
import { demoProvider } from './provider.ts';
import { stripeBilling } from './stripe.ts';

/** GET /api/billing/subscription (docs/product.md#billing-and-plans); times in Unix seconds, amount in pence per month. */
export type SubscriptionAnswer = {
  user: {
    subscriptionPlan: string | null;
    planLimits: { maxProducts: number; checkFrequency: CheckFrequency; aiDetection: boolean; apiAccess: boolean };
  };
  subscription: {
    status: SubscriptionStatus;
    trial_end: number | null;
    current_period_end: number;
    cancel_at_period_end: boolean;
    plan: PaidPlanId;
    amount: number;
  } | null;
  /** The 14-day trial is offered once per customer. */
  trialAvailable: boolean;
  /**
   * On the Free plan (after a cancellation takes effect, or now), which products keep being checked
   * and which pause, in the order they were added; null when every product fits. `paused` names
   * the first few; `pausedCount` counts them all.
   */
  productsOnFree: { checked: ProductRef[]; paused: ProductRef[]; pausedCount: number } | null;
  provider: 'stripe' | 'demo';
};

export type ProductRef = { id: string; name: string };

/** Paused products named in the billing answer; the rest are counted. */
export const PAUSED_NAMED = 20;

export type Billing = ReturnType<typeof createBilling>;

const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * The billing commands: each asks the provider first (it holds the money and the truth), then
 * records the provider's answer through the subscription decider and waits until the read
 * models show it, so the next page load sees the change.
 */
export function createBilling(ctx: AppContext) {
  const stripe = ctx.config.billing.provider === 'stripe' ? stripeBilling(ctx.config.billing) : null;
  const provider = stripe?.provider ?? demoProvider();

  async function load(userId: string): Promise<SubscriptionState> {
    const { events } = await ctx.store.readStream(subscriptionStream(userId));
    return fold(subscriptionDecider, events as unknown as SubscriptionEvent[]);
  }

  async function record(userId: string, command: SubscriptionCommand): Promise<SubscriptionState> {
    const { state, appended } = await handleCommand(ctx.store, subscriptionStream(userId), subscriptionDecider, command);
    if (appended) await ctx.projections.waitFor(checkpointOf({ transactionId: appended.transactionId, position: appended.lastPosition }));
    return state;
  }

  /** The user's customer at the provider, created the first time. */
  async function customerOf(userId: string, state: SubscriptionState): Promise<string> {
    const known = state.customers[provider.kind];
    if (known) return known;
    const user = await findUser(ctx, userId);
    if (!user) throw new DomainError('Unauthorized', 401);
    const customerId = await provider.createCustomer({ id: userId, email: user.email });
    // Should a concurrent request have recorded its customer first, that one is kept and used.
    return (await record(userId, { type: 'RecordCustomer', userId, provider: provider.kind, customerId })).customers[provider.kind]!;
  }

  return {
    provider,
    stripe,

    async createSetup(userId: string) {
      const customerId = await customerOf(userId, await load(userId));
      const { clientSecret } = await provider.createSetup(customerId);
      return { clientSecret, provider: provider.kind, publishableKey: provider.publishableKey };
    },

    async subscribe(userId: string, plan: PaidPlanId, paymentMethodId: string) {
      const state = await load(userId);
      const intent = subscribeIntent(state, plan);
      const customerId = await customerOf(userId, state);
      // A repeated request (a double click, a retry) reuses the key, so the provider subscribes once.
      const idempotencyKey = `subscribe-${userId}-${state.subscription?.id ?? 'first'}-${plan}-${paymentMethodId}`;
      const snapshot =
        intent === 'change'
          ? await provider.changePlan({ subscription: state.subscription!, customerId, plan, paymentMethodId, idempotencyKey })
          : await provider.subscribe({ userId, customerId, plan, paymentMethodId, trial: intent === 'trial', idempotencyKey });
      await record(userId, { type: 'RecordSubscription', userId, snapshot, at: nowSeconds() });
    },

    async cancel(userId: string) {
      const snapshot = await provider.cancelAtPeriodEnd(cancellable(await load(userId)));
      await record(userId, { type: 'RecordSubscription', userId, snapshot, at: nowSeconds() });
    },

    async read(userId: string): Promise<SubscriptionAnswer> {
      const [row] = await ctx.sql<
        {
          plan: string;
          subscription_plan: string | null;
          trial_used: boolean | null;
          status: SubscriptionStatus | null;
          sub_plan: PaidPlanId | null;
          amount: number | null;
          trial_end: string | null;
          current_period_end: string | null;
          cancel_at_period_end: boolean | null;
        }[]
      >`
        SELECT u.plan, u.subscription_plan, s.trial_used, s.status, s.plan AS sub_plan, s.amount, s.trial_end, s.current_period_end, s.cancel_at_period_end
        FROM users u LEFT JOIN subscriptions s ON s.user_id = u.id
        WHERE u.id = ${userId}`;
      const limits = planOf(row?.subscription_plan ?? row?.plan);
      // In added order, as the schedule ranks them (products/beyond-plan.ts); a few past the Free limit suffice.
      const products = await ctx.sql<ProductRef[]>`
        SELECT id, name FROM products WHERE user_id = ${userId} ORDER BY created_at, id LIMIT ${PLANS.free.maxProducts + PAUSED_NAMED}`;
      const [{ total }] = await ctx.sql<{ total: number }[]>`SELECT count(*)::int AS total FROM products WHERE user_id = ${userId}`;
      const onFree = splitByPlan(PLANS.free, products);
      // An ended subscription is history: the user is back on the free plan.
      const live = row?.status && row.status !== 'canceled';
      return {
        user: {
          subscriptionPlan: row?.subscription_plan ?? null,
          planLimits: { maxProducts: limits.maxProducts, checkFrequency: limits.checkFrequency, aiDetection: limits.aiDetection, apiAccess: limits.apiAccess },
        },
        subscription: live
          ? {
              status: row.status!,
              trial_end: row.trial_end === null ? null : Number(row.trial_end),
              current_period_end: Number(row.current_period_end),
              cancel_at_period_end: !!row.cancel_at_period_end,
              plan: row.sub_plan!,
              amount: row.amount!,
            }
          : null,
        trialAvailable: !row?.trial_used,
        productsOnFree: onFree.paused.length ? { checked: onFree.checked, paused: onFree.paused, pausedCount: total - onFree.checked.length } : null,
        provider: provider.kind,
      };
    },
  };
}
