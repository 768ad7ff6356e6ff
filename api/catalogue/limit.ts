import type { Sql } from '../../db/index.ts';
import { DomainError } from '../../events/decider.ts';
import type { Plan } from '../billing/plans.ts';

/**
 * The user's live own products, counted from the event log like competitor products are (an own
 * product is removed at most once per import, so imports minus removals is exact). Called inside
 * `withUserProducts`, the same per-user lock as adds, so two imports cannot pass the limit together.
 */
export async function liveOwnProductCount(tx: Sql, userId: string): Promise<number> {
  const [row] = await tx<{ n: number }[]>`
    SELECT (count(*) FILTER (WHERE type = 'OwnProductImported') - count(*) FILTER (WHERE type = 'OwnProductRemoved'))::int AS n
    FROM events
    WHERE data->>'userId' = ${userId} AND type IN ('OwnProductImported', 'OwnProductRemoved')`;
  return row?.n ?? 0;
}

/** How many more own products the plan has room for; Infinity when unlimited. */
export async function ownProductRoom(tx: Sql, userId: string, plan: Plan): Promise<number> {
  if (plan.maxOwnProducts === -1) return Number.POSITIVE_INFINITY;
  return Math.max(0, plan.maxOwnProducts - (await liveOwnProductCount(tx, userId)));
}

export const ownLimitReason = (plan: Plan) =>
  `Beyond your ${plan.name} plan's ${plan.maxOwnProducts} own product${plan.maxOwnProducts === 1 ? '' : 's'}. Upgrade your plan to bring in more.`;

/** Stores are read on paid plans; Free brings its catalogue in as a CSV file. */
export function assertStoreSources(plan: Plan): void {
  if (!plan.storeSources) {
    throw new DomainError(`Connecting a store needs a paid plan. On the ${plan.name} plan, import your catalogue as a CSV file.`, 403);
  }
}
