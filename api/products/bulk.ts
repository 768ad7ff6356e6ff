import { Elysia } from 'elysia';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { authentication } from '../auth/plugin.ts';
import { DomainError } from '../../events/decider.ts';
import { isId } from '../http/ids.ts';
import { queueChecksPolitely } from '../checks/queue.ts';
import { hostOf } from '../../domain/shops.ts';
import { handleProductCommands, PRODUCT_NOT_FOUND, type ProductCommand } from '../../events/product.ts';
import type { AlertRule } from '../../events/catalogue.ts';
import { editThreshold } from './schemas.ts';
import { withUserProducts } from './limit.ts';
import { productsBeyondPlan } from './beyond-plan.ts';

export const MAX_BULK_IDS = 1000;
export const BULK_ACTIONS = ['delete', 'set-threshold', 'check-now'] as const;

/** The threshold takes what the edit dialog sends: a drop percent, null or 'none' (no alerts), 'any'. */
export const BulkBody = z
  .object({
    action: z.enum(BULK_ACTIONS, { error: `Action must be one of ${BULK_ACTIONS.join(', ')}` }),
    ids: z
      .array(z.string({ error: 'ids must be product ids' }), { error: 'ids must be a list of product ids' })
      .min(1, 'Choose at least one product')
      .max(MAX_BULK_IDS, `At most ${MAX_BULK_IDS.toLocaleString('en-GB')} products at once`),
    threshold: editThreshold,
  })
  .superRefine((body, ctx) => {
    if (body.action === 'set-threshold' && body.threshold === undefined) ctx.addIssue({ code: 'custom', path: ['threshold'], message: 'Choose a threshold' });
  });

export type BulkAnswer =
  | { action: 'delete'; count: number }
  | { action: 'set-threshold'; count: number; changed: number }
  /**
   * `paused`: products of shops that turned checks away lately; they are checked once the shop's rest ends.
   * `beyondPlan`: products beyond the plan's limit, not queued (products/beyond-plan.ts).
   */
  | { action: 'check-now'; count: number; queued: number; paused: number; beyondPlan: number };

/**
 * POST /api/products/bulk: one action on up to 1,000 of the user's products, in one transaction.
 * An id that is not one of the user's live products answers 404 (naming none) and nothing changes.
 * "Check now" queues the checks (politely, per shop) rather than fetching pages in the request.
 */
export function productBulkRoutes(ctx: AppContext) {
  /** Runs one command per product, all or nothing, and waits until the read models show them. */
  async function runAll(userId: string, commands: ProductCommand[]): Promise<number> {
    const { count, checkpoint } = await withUserProducts(ctx.sql, userId, (tx) => handleProductCommands(ctx.store, commands, tx));
    if (checkpoint) await ctx.projections.waitFor(checkpoint);
    return count;
  }

  return new Elysia({ prefix: '/api/products' }).use(authentication(ctx)).post(
    '/bulk',
    async ({ userId, body }): Promise<BulkAnswer> => {
      const ids = [...new Set(body.ids)];
      // An id that cannot be one of ours is simply not found, without a query.
      if (!ids.every(isId)) throw new DomainError(PRODUCT_NOT_FOUND, 404);
      switch (body.action) {
        case 'delete':
          await runAll(
            userId,
            ids.map((productId) => ({ type: 'Remove', productId, userId })),
          );
          return { action: 'delete', count: ids.length };
        case 'set-threshold': {
          const alertRule = body.threshold as AlertRule;
          const changed = await runAll(
            userId,
            ids.map((productId) => ({ type: 'SetAlertRule', productId, userId, alertRule })),
          );
          return { action: 'set-threshold', count: ids.length, changed };
        }
        case 'check-now': {
          const chosen = await ctx.sql<{ productId: string; url: string; beyondPlan: boolean }[]>`
            SELECT p.id AS "productId", p.url, paused.id IS NOT NULL AS "beyondPlan" FROM products p
            LEFT JOIN (${productsBeyondPlan(ctx.sql, userId)}) paused ON paused.id = p.id
            WHERE p.user_id = ${userId} AND p.id = ANY(${ids}::text[])`;
          if (chosen.length !== ids.length) throw new DomainError(PRODUCT_NOT_FOUND, 404);
          const products = chosen.filter((p) => !p.beyondPlan).map(({ productId, url }) => ({ productId, url }));
          const queued = await queueChecksPolitely(ctx.sql, userId, products);
          const hosts = [...new Set(products.map((p) => hostOf(p.url)))];
          const resting = new Set(
            (
              await ctx.sql<{ host: string }[]>`
            SELECT host FROM host_backoff WHERE host = ANY(${hosts}::text[]) AND until > now()`
            ).map((r) => r.host),
          );
          const paused = products.filter((p) => resting.has(hostOf(p.url) ?? '')).length;
          return { action: 'check-now', count: ids.length, queued, paused, beyondPlan: chosen.length - products.length };
        }
      }
    },
    { signedIn: true, body: BulkBody },
  );
}
