import type { Sql } from '../../db/index.ts';
import { PLANS, type Plan } from '../billing/plans.ts';

/**
 * Products beyond the plan (docs/decisions/0010-products-beyond-the-plan.md). An account can hold
 * more products than its plan allows: a subscription ended, or moved to a smaller plan. Then the
 * products first added, up to the plan's limit, keep being checked, and the rest pause: kept with
 * their history and alerts, shown, editable, but not checked, until the owner upgrades or removes
 * others. Nothing is recorded for it: it follows from the plan and the order products were added
 * (`created_at`, then id), so it undoes itself as soon as either changes.
 */

/** Whether the product at `place` (1 for the first added) of its owner's products is beyond the plan. */
export const isBeyondPlan = (plan: Pick<Plan, 'maxProducts'>, place: number): boolean => plan.maxProducts !== -1 && place > plan.maxProducts;

/** The owner's products, given in added order, split into those the plan checks and those it pauses. */
export function splitByPlan<P>(plan: Pick<Plan, 'maxProducts'>, productsInAddedOrder: readonly P[]): { checked: P[]; paused: P[] } {
  const checked = productsInAddedOrder.filter((_, i) => !isBeyondPlan(plan, i + 1));
  return { checked, paused: productsInAddedOrder.slice(checked.length) };
}

/** Why no product can be added at the limit: the server's refusal and the Products screen say the same. */
export const productLimitMessage = (plan: Pick<Plan, 'name' | 'maxProducts'>): string =>
  `Your ${plan.name} plan allows ${plan.maxProducts} product${plan.maxProducts === 1 ? '' : 's'}. Upgrade your plan to add more.`;

/** Why a paused product is not checked, for its card and for Check Now. */
export const pausedReason = (plan: Pick<Plan, 'name' | 'maxProducts'>): string =>
  `Your ${plan.name} plan checks the first ${plan.maxProducts} products you added. Upgrade, or remove another product, to check this one again.`;

const LIMITS = Object.values(PLANS).map((plan) => [plan.id, plan.maxProducts] as const);

/**
 * The ids of the products beyond their owner's plan, of one user or of everyone (`userId` null),
 * as a subquery. A product whose owner is not (yet) in the users read model is never paused:
 * checks stop only on a plan that is known. Mirrors `isBeyondPlan` over the added order.
 */
export function productsBeyondPlan(sql: Sql, userId: string | null) {
  return sql`
    SELECT ranked.id FROM (
      SELECT p.id, row_number() OVER (PARTITION BY p.user_id ORDER BY p.created_at, p.id) AS place,
             coalesce(l.max_products, ${PLANS.free.maxProducts}) AS max_products
      FROM products p
      JOIN users u ON u.id = p.user_id
      LEFT JOIN unnest(${LIMITS.map(([id]) => id)}::text[], ${LIMITS.map(([, max]) => max)}::int[]) AS l(plan, max_products)
        ON l.plan = coalesce(u.subscription_plan, u.plan)
      WHERE coalesce(l.max_products, ${PLANS.free.maxProducts}) <> -1 ${userId === null ? sql`` : sql`AND p.user_id = ${userId}`}
    ) ranked
    WHERE ranked.place > ranked.max_products`;
}
