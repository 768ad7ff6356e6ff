import type { Sql } from '../../db/index.ts';
import { DomainError } from '../../events/decider.ts';
import { ConcurrencyError } from '../../events/store.ts';
import { planOf, type Plan } from '../billing/plans.ts';
import { productLimitMessage } from './beyond-plan.ts';

/** The plan that sets the user's limits: an active subscription's plan, else the account's. */
export async function effectivePlan(tx: Sql, userId: string): Promise<Plan> {
  const [user] = await tx<{ plan: string | null; subscription_plan: string | null }[]>`
    SELECT plan, subscription_plan FROM users WHERE id = ${userId}`;
  return planOf(user?.subscription_plan ?? user?.plan);
}

/**
 * The user's live products counted from the event log, the source of truth, not from a read
 * model that may lag behind an add that just committed. A product is removed at most once
 * (the decider refuses the rest), so adds minus removals is exact.
 */
export async function liveProductCount(tx: Sql, userId: string): Promise<number> {
  const [row] = await tx<{ n: number }[]>`
    SELECT (count(*) FILTER (WHERE type = 'ProductAdded') - count(*) FILTER (WHERE type = 'ProductRemoved'))::int AS n
    FROM events
    WHERE data->>'userId' = ${userId} AND type IN ('ProductAdded', 'ProductRemoved')`;
  return row?.n ?? 0;
}

/**
 * Runs `fn` in a transaction holding the user's products lock: a transaction-scoped advisory lock
 * per user that queues that user's adds and edits, so each one reads the log after the previous
 * one committed. `fn` must append in the same transaction; checks of the limit or of an address
 * made inside it then cannot be passed by two requests together. A write that lost a race with
 * a price check appending to the same product is tried again.
 */
export async function withUserProducts<T>(sql: Sql, userId: string, fn: (tx: Sql) => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      // A transaction handle answers the same queries as the pool.
      return (await sql.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(hashtext(${'products:' + userId}))`;
        return fn(tx as unknown as Sql);
      })) as T;
    } catch (err) {
      if (!(err instanceof ConcurrencyError) || attempt >= attempts) throw err;
    }
  }
}

/**
 * 403 when the user is at the plan's product limit. Inside `withUserProducts`, so concurrent
 * adds can never pass the limit together. A downgraded user keeps every product but cannot add more.
 */
export async function assertBelowProductLimit(tx: Sql, userId: string): Promise<void> {
  const plan = await effectivePlan(tx, userId);
  if (plan.maxProducts !== -1 && (await liveProductCount(tx, userId)) >= plan.maxProducts) {
    throw new DomainError(productLimitMessage(plan), 403);
  }
}
