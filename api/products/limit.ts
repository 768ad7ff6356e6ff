import type { Sql } from '../db.ts';
import { DomainError } from '../../events/decider.ts';
import { planOf, type Plan } from '../billing/plans.ts';

export const productLimitMessage = (plan: Plan) =>
  `Your ${plan.name} plan allows ${plan.maxProducts} product${plan.maxProducts === 1 ? '' : 's'}. Upgrade your plan to add more.`;

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
 * Runs `add` in a transaction only while the user is below the plan's product limit (403 otherwise).
 * A transaction-scoped advisory lock per user queues that user's adds: each counts after the
 * previous one committed, and `add` must append in the same transaction, so concurrent adds
 * can never pass the limit together. A downgraded user keeps every product but cannot add more.
 */
export async function withinProductLimit<T>(sql: Sql, userId: string, add: (tx: Sql) => Promise<T>): Promise<T> {
  const locked = async (tx: Sql) => {
    await tx`SELECT pg_advisory_xact_lock(hashtext(${'products:' + userId}))`;
    const plan = await effectivePlan(tx, userId);
    if (plan.maxProducts !== -1 && (await liveProductCount(tx, userId)) >= plan.maxProducts) {
      throw new DomainError(productLimitMessage(plan), 403);
    }
    return add(tx);
  };
  // A transaction handle answers the same queries as the pool.
  return (await sql.begin((tx) => locked(tx as unknown as Sql))) as T;
}
