import { Elysia } from 'elysia';
import { stringify } from 'csv-stringify/sync';
import { neutralised } from '../products/csv.ts';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { authentication } from '../auth/plugin.ts';
import { idOf } from '../http/ids.ts';
import { parseInput, queryParam } from '../http/validation.ts';
import { DomainError, handleCommand } from '../../events/decider.ts';
import { appendedCheckpoint } from '../../events/store.ts';
import { ownProductDecider, ownProductStream, NO_PRICING_RULE, OWN_PRODUCT_NOT_FOUND, type OwnProductCommand } from '../../events/own-product.ts';
import type { OwnProductRow } from '../../projections/catalogue.ts';
import type { PricingRule } from '../../domain/pricing.ts';
import { PROJECTION_WAIT_MS } from '../catalogue/sync.ts';
import { ApplyBody, BacktestBody, BulkApplyBody, CostBody, RuleBody, ruleFor } from './rule-input.ts';
import { previewRecommendation, readRecommendations } from './read-model.ts';
import { runBacktest } from './backtest.ts';
import { applyWaiting, decideOne, recommendationOf, undoLast } from './apply.ts';

const ownIdOf = (id: string) => idOf(id, OWN_PRODUCT_NOT_FOUND);
/** `include=all`: every product with a rule (held, kept, applied), not only the waiting ones. */
const ListQuery = z.object({ include: queryParam(z.enum(['all'], { error: 'include must be all' })).optional() });
const ExportQuery = z.object({ include: queryParam(z.enum(['waiting'], { error: 'include must be waiting' })).optional() });

/**
 * Pricing rules and recommendations of the owner's catalogue (docs/pricing.md#the-api). Routes on
 * an own product read their body after finding the product, so another user's id (or no id) is 404
 * whatever the body; the fuzz test knows their schemas (api/http/fuzz.test.ts).
 */
export function pricingRoutes(ctx: AppContext) {
  async function ownRow(userId: string, id: string): Promise<OwnProductRow & { linked: string[] }> {
    const [row] = await ctx.sql<(OwnProductRow & { linked: string[] })[]>`
      SELECT o.*, coalesce((SELECT array_agg(l.product_id) FROM own_product_links l WHERE l.own_product_id = o.id), '{}') AS linked
      FROM own_products o WHERE o.id = ${ownIdOf(id)} AND o.user_id = ${userId}`;
    if (!row) throw new DomainError(OWN_PRODUCT_NOT_FOUND, 404);
    return row;
  }
  async function savedRule(id: string): Promise<PricingRule | null> {
    const [row] = await ctx.sql<{ rule: PricingRule }[]>`SELECT rule FROM pricing_rules WHERE own_product_id = ${id}`;
    return row?.rule ?? null;
  }
  async function run(command: OwnProductCommand) {
    const { appended } = await handleCommand(ctx.store, ownProductStream(command.ownProductId), ownProductDecider, command);
    const checkpoint = appendedCheckpoint(appended);
    if (checkpoint) await ctx.projections.waitFor(checkpoint, PROJECTION_WAIT_MS);
  }

  return new Elysia({ prefix: '/api/catalogue' })
    .use(authentication(ctx))
    .get(
      '/recommendations',
      async ({ userId, query }) => {
        const entries = await readRecommendations(ctx.sql, ctx.config, userId);
        return query.include === 'all' ? entries : entries.filter((e) => e.waiting);
      },
      { signedIn: true, query: ListQuery },
    )
    .post('/recommendations/apply', async ({ userId, body }) => ({ applied: await applyWaiting(ctx, userId, { ids: body?.ids?.map(ownIdOf) }) }), {
      signedIn: true,
      body: BulkApplyBody,
    })
    .get(
      '/recommendations/export.csv',
      async ({ userId, query }) => {
        const entries = await readRecommendations(ctx.sql, ctx.config, userId);
        const rows = entries.flatMap((e) => {
          if (!e.sku) return [];
          const applied = e.store?.state === 'pending' || e.store?.state === 'differs' || e.store?.state === 'failed' ? e.decision!.price : null;
          const price = applied ?? (query.include === 'waiting' && e.waiting ? e.recommendation.price : null);
          return price === null
            ? []
            : [
                [
                  neutralised(e.sku),
                  price.toFixed(2),
                  e.recommendation.currency,
                  neutralised(e.title),
                  neutralised(e.variant ?? ''),
                  e.recommendation.currentPrice,
                ],
              ];
        });
        const csv = stringify(rows, { header: true, columns: ['SKU', 'Regular price', 'Currency', 'Title', 'Variant', 'Previous price'] });
        return new Response(csv, {
          headers: {
            'content-type': 'text/csv; charset=utf-8',
            'content-disposition': `attachment; filename="pricewatch-new-prices-${new Date().toISOString().slice(0, 10)}.csv"`,
            'cache-control': 'no-store',
          },
        });
      },
      { signedIn: true, query: ExportQuery },
    )

    .patch(
      '/:id',
      async ({ userId, params, body }) => {
        const own = await ownRow(userId, params.id);
        const { cost } = parseInput(CostBody, body);
        await run({ type: 'SetCost', ownProductId: own.id, userId, cost, at: new Date().toISOString() });
        return { id: own.id, cost };
      },
      { signedIn: true },
    )
    .get(
      '/:id/rule',
      async ({ userId, params }) => {
        const own = await ownRow(userId, params.id);
        const rule = await savedRule(own.id);
        if (!rule) throw new DomainError(NO_PRICING_RULE, 404);
        return rule;
      },
      { signedIn: true },
    )
    .put(
      '/:id/rule',
      async ({ userId, params, body }) => {
        const own = await ownRow(userId, params.id);
        const rule = ruleFor(parseInput(RuleBody, body), { cost: own.cost, linked: own.linked });
        await run({ type: 'SetRule', ownProductId: own.id, userId, rule, at: new Date().toISOString() });
        return rule;
      },
      { signedIn: true },
    )
    .delete(
      '/:id/rule',
      async ({ userId, params }) => {
        const own = await ownRow(userId, params.id);
        await run({ type: 'RemoveRule', ownProductId: own.id, userId, at: new Date().toISOString() });
        return { success: true, id: own.id };
      },
      { signedIn: true },
    )
    .post(
      '/:id/rule/backtest',
      async ({ userId, params, body }) => {
        const own = await ownRow(userId, params.id);
        const input = parseInput(BacktestBody, body ?? {});
        const rule = input.rule ? ruleFor(input.rule, { cost: own.cost, linked: own.linked }) : await savedRule(own.id);
        if (!rule) throw new DomainError('rule: this product has no pricing rule yet: send the rule to try', 400, 'rule');
        const now = new Date();
        const [result, recommendation] = await Promise.all([
          runBacktest(ctx.sql, ctx.config, own, rule, input.timeFilter, now),
          previewRecommendation(ctx.sql, ctx.config, own, rule, now),
        ]);
        return { ...result, recommendation };
      },
      { signedIn: true },
    )
    .get(
      '/:id/recommendation',
      async ({ userId, params }) => {
        const { recommendation, ...rest } = await recommendationOf(ctx, userId, ownIdOf(params.id));
        const { target: _, cheapest: _c, average: _a, ...answer } = recommendation;
        return { ...answer, waiting: rest.waiting, decision: rest.decision, store: rest.store };
      },
      { signedIn: true },
    )
    .post(
      '/:id/recommendation/apply',
      async ({ userId, params, body }) => {
        await decideOne(ctx, userId, ownIdOf(params.id), 'apply', parseInput(ApplyBody, body)?.price);
        return recommendationOf(ctx, userId, ownIdOf(params.id));
      },
      { signedIn: true },
    )
    .post(
      '/:id/recommendation/dismiss',
      async ({ userId, params, body }) => {
        await decideOne(ctx, userId, ownIdOf(params.id), 'dismiss', parseInput(ApplyBody, body)?.price);
        return recommendationOf(ctx, userId, ownIdOf(params.id));
      },
      { signedIn: true },
    )
    .post(
      '/:id/recommendation/undo',
      async ({ userId, params }) => {
        await undoLast(ctx, userId, ownIdOf(params.id));
        return recommendationOf(ctx, userId, ownIdOf(params.id));
      },
      { signedIn: true },
    );
}
