import type { Projection } from './projection.ts';
import type { Sql } from '../db/index.ts';
import type { RecordedEvent } from '../events/store.ts';
import {
  subscriptionDecider,
  type BillingProviderKind,
  type PaidPlanId,
  type SubscriptionEvent,
  type SubscriptionState,
  type SubscriptionStatus,
} from '../events/subscription.ts';

/**
 * Each user's newest subscription as the Billing page shows it. A row is the subscription
 * aggregate's own fold, so the read model can never disagree with what commands decide on.
 */
export const billingProjection: Projection = {
  name: 'billing',
  tables: ['subscriptions'],
  ddl: `
    CREATE TABLE IF NOT EXISTS subscriptions (
      user_id              text PRIMARY KEY,
      stripe_customer_id   text,
      demo_customer_id     text,
      trial_used           boolean NOT NULL DEFAULT false,
      provider             text,
      subscription_id      text,
      status               text,
      plan                 text,
      amount               integer,
      trial_end            bigint,
      current_period_end   bigint,
      cancel_at_period_end boolean NOT NULL DEFAULT false,
      created              bigint,
      as_of                bigint,
      updated_at           timestamptz NOT NULL
    );`,
  handles: [
    'BillingCustomerCreated',
    'TrialStarted',
    'SubscriptionActivated',
    'SubscriptionPlanChanged',
    'SubscriptionPeriodChanged',
    'SubscriptionCanceled',
    'SubscriptionResumed',
    'SubscriptionAwaitingPayment',
    'SubscriptionEnded',
  ],
  async apply(tx, events) {
    // Fold each user's events of the batch onto their stored row, then write every row once.
    const byUser = new Map<string, RecordedEvent[]>();
    for (const e of events) {
      const userId = (e.data as { userId: string }).userId;
      byUser.set(userId, [...(byUser.get(userId) ?? []), e]);
    }
    const stored = await readRows(tx, [...byUser.keys()]);
    const rows = [...byUser].map(([userId, list]) => {
      const state = list.reduce(
        (s, e) => subscriptionDecider.evolve(s, e as unknown as SubscriptionEvent),
        stored.get(userId) ?? subscriptionDecider.initialState(),
      );
      return toRow(userId, state, list[list.length - 1]!.recordedAt);
    });
    await tx`
      INSERT INTO subscriptions ${tx(rows)}
      ON CONFLICT (user_id) DO UPDATE SET
        stripe_customer_id = EXCLUDED.stripe_customer_id, demo_customer_id = EXCLUDED.demo_customer_id, trial_used = EXCLUDED.trial_used,
        provider = EXCLUDED.provider, subscription_id = EXCLUDED.subscription_id, status = EXCLUDED.status, plan = EXCLUDED.plan,
        amount = EXCLUDED.amount, trial_end = EXCLUDED.trial_end, current_period_end = EXCLUDED.current_period_end,
        cancel_at_period_end = EXCLUDED.cancel_at_period_end, created = EXCLUDED.created, as_of = EXCLUDED.as_of,
        updated_at = EXCLUDED.updated_at`;
  },
};

type Row = {
  user_id: string;
  stripe_customer_id: string | null;
  demo_customer_id: string | null;
  trial_used: boolean;
  provider: string | null;
  subscription_id: string | null;
  status: string | null;
  plan: string | null;
  amount: number | null;
  trial_end: number | null;
  current_period_end: number | null;
  cancel_at_period_end: boolean;
  created: number | null;
  as_of: number | null;
  updated_at: Date;
};

function toRow(userId: string, { customers, trialUsed, subscription: s }: SubscriptionState, updatedAt: Date): Row {
  return {
    user_id: userId,
    stripe_customer_id: customers.stripe ?? null,
    demo_customer_id: customers.demo ?? null,
    trial_used: trialUsed,
    provider: s?.provider ?? null,
    subscription_id: s?.id ?? null,
    status: s?.status ?? null,
    plan: s?.plan ?? null,
    amount: s?.amount ?? null,
    trial_end: s?.trialEnd ?? null,
    current_period_end: s?.currentPeriodEnd ?? null,
    cancel_at_period_end: s?.cancelAtPeriodEnd ?? false,
    created: s?.created ?? null,
    as_of: s?.asOf ?? null,
    updated_at: updatedAt,
  };
}

async function readRows(tx: Sql, userIds: string[]): Promise<Map<string, SubscriptionState>> {
  const rows = await tx<Row[]>`SELECT * FROM subscriptions WHERE user_id = ANY(${userIds}::text[])`;
  return new Map(
    rows.map((r) => [
      r.user_id,
      {
        customers: { ...(r.stripe_customer_id ? { stripe: r.stripe_customer_id } : {}), ...(r.demo_customer_id ? { demo: r.demo_customer_id } : {}) },
        trialUsed: r.trial_used,
        subscription: r.subscription_id
          ? {
              id: r.subscription_id,
              provider: r.provider as BillingProviderKind,
              status: r.status as SubscriptionStatus,
              plan: r.plan as PaidPlanId,
              amount: r.amount!,
              trialEnd: r.trial_end === null ? null : Number(r.trial_end),
              currentPeriodEnd: Number(r.current_period_end),
              cancelAtPeriodEnd: r.cancel_at_period_end,
              created: Number(r.created),
              asOf: Number(r.as_of),
            }
          : null,
      },
    ]),
  );
}
