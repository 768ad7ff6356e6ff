import type Stripe from 'stripe';
import type { AppContext } from '../context.ts';
import type { Sql } from '../../db/index.ts';
import { handleCommand } from '../../events/decider.ts';
import { appendingTransaction, checkpointOf, ConcurrencyError } from '../../events/store.ts';
import { subscriptionDecider, subscriptionStream, type SubscriptionCommand } from '../../events/subscription.ts';
import { customerOf, paymentOf, subscriptionOf, type StripeBilling } from './stripe.ts';

/**
 * Stripe events already handled (an operational table, like sessions): a redelivered event is
 * answered without being applied again, and a subscription's newest event time tells a late,
 * older event from a newer one. The index finds the user of a Stripe customer in the event log.
 */
export const BILLING_DDL = `
CREATE TABLE IF NOT EXISTS billing_webhook_events (
  id          text PRIMARY KEY,
  type        text NOT NULL,
  object_id   text,
  created     bigint NOT NULL,
  received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS billing_webhook_events_by_object ON billing_webhook_events (object_id, created);
CREATE INDEX IF NOT EXISTS events_by_billing_customer ON events ((data->>'customerId')) WHERE type = 'BillingCustomerCreated';
`;

export type WebhookOutcome = 'recorded' | 'unchanged' | 'duplicate' | 'stale' | 'ignored';

/** The user a provider's customer id belongs to, from the log (the source of truth, never behind). */
async function userOfCustomer(sql: Sql, customerId: string): Promise<string | null> {
  const [row] = await sql<{ user_id: string }[]>`
    SELECT data->>'userId' AS user_id FROM events
    WHERE type = 'BillingCustomerCreated' AND data->>'customerId' = ${customerId} LIMIT 1`;
  return row?.user_id ?? null;
}

/** What a Stripe event asks of a user's subscription stream, or null for events billing does not follow. */
function commandOf(billing: StripeBilling, event: Stripe.Event) {
  const sub = subscriptionOf(event);
  if (sub) {
    const snapshot = billing.snapshotOf(sub);
    const customerId = customerOf(sub);
    if (!snapshot || !customerId) return null;
    return {
      customerId,
      objectId: sub.id,
      command: (userId: string): SubscriptionCommand => ({ type: 'RecordSubscription', userId, snapshot, at: event.created }),
    };
  }
  const paid = paymentOf(event);
  if (paid) {
    const { customerId, outcome, payment } = paid;
    return { customerId, objectId: payment.invoiceId, command: (userId: string): SubscriptionCommand => ({ type: 'RecordPayment', userId, outcome, payment }) };
  }
  return null;
}

/**
 * Applies one verified Stripe event exactly once: the event id is claimed in the same transaction
 * that appends its events, so a failure leaves both undone and Stripe's retry applies it then.
 */
export async function receiveStripeEvent(ctx: AppContext, billing: StripeBilling, event: Stripe.Event): Promise<WebhookOutcome> {
  const wanted = commandOf(billing, event);
  if (!wanted) return 'ignored';
  const userId = await userOfCustomer(ctx.sql, wanted.customerId);
  if (!userId) return 'ignored'; // a customer of the same Stripe account that is not one of ours

  for (let attempt = 1; ; attempt++) {
    try {
      const { outcome, appended } = await appendingTransaction(ctx.sql, async (tx) => {
        const claimed = await tx`
          INSERT INTO billing_webhook_events (id, type, object_id, created) VALUES (${event.id}, ${event.type}, ${wanted.objectId}, ${event.created})
          ON CONFLICT (id) DO NOTHING RETURNING id`;
        if (!claimed.length) return { outcome: 'duplicate' as const, appended: null };
        if (subscriptionOf(event)) {
          const newer = await tx`SELECT 1 FROM billing_webhook_events WHERE object_id = ${wanted.objectId} AND created > ${event.created} LIMIT 1`;
          if (newer.length) return { outcome: 'stale' as const, appended: null };
        }
        const result = await handleCommand(ctx.store, subscriptionStream(userId), subscriptionDecider, wanted.command(userId), {
          tx,
          metadata: { stripeEventId: event.id },
        });
        return { outcome: result.appended ? ('recorded' as const) : ('unchanged' as const), appended: result.appended };
      });
      if (appended) await ctx.projections.waitFor(checkpointOf({ transactionId: appended.transactionId, position: appended.lastPosition }));
      return outcome;
    } catch (error) {
      // Someone else appended to the stream meanwhile: decide again on the newer state.
      if (!(error instanceof ConcurrencyError) || attempt >= 3) throw error;
    }
  }
}
