import { Elysia } from 'elysia';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { authentication } from '../auth/plugin.ts';
import { idOf } from '../http/ids.ts';
import { createUserCache } from '../http/user-cache.ts';
import { queryParam } from '../http/validation.ts';
import { DomainError, handleCommand } from '../../events/decider.ts';
import { appendedCheckpoint, type Checkpoint } from '../../events/store.ts';
import { SOURCE_KINDS } from '../../events/catalogue.ts';
import { ownProductDecider, ownProductStream, OWN_PRODUCT_NOT_FOUND, type OwnProductCommand } from '../../events/own-product.ts';
import { catalogueSettingsDecider, catalogueSettingsStream, sourceDecider, sourceStream, SOURCE_NOT_FOUND } from '../../events/catalogue-source.ts';
import { PRODUCT_NOT_FOUND } from '../../events/product.ts';
import { assertCheckableUrl } from '../products/schemas.ts';
import { effectivePlan, withUserProducts } from '../products/limit.ts';
import { DetailTimeFilter } from '../history/series.ts';
import { readCatalogue, readCatalogueSettings, readPositionSummary } from './read-model.ts';
import { readPositionHistory } from './position-history.ts';
import { linkGtinMatches, readMatches } from './matches.ts';
import { assertStoreSources } from './limit.ts';
import { applyItems, applyRead, readStore, scheduleNextSync, syncSource, PROJECTION_WAIT_MS, type SourceRow } from './sync.ts';
import { readSources } from './sources-list.ts';
import { removeStoreAccess } from './store-access.ts';

const ownIdOf = (id: string) => idOf(id, OWN_PRODUCT_NOT_FOUND);
const sourceIdOf = (id: string) => idOf(id, SOURCE_NOT_FOUND);

export const ConnectSourceBody = z.object({
  kind: z.enum(SOURCE_KINDS, { error: `kind must be one of ${SOURCE_KINDS.join(', ')}` }),
  url: z.string({ error: 'Please enter the address of your store or feed' }).trim().min(1).max(2000),
});
export const MatchDecisionBody = z.object({
  ownProductId: z.string().max(100),
  productId: z.string().max(100),
  decision: z.enum(['accept', 'reject']),
});
export const CatalogueSettingsBody = z.object({
  competitivePercent: z.number().min(0, 'competitivePercent must be from 0 to 20').max(20, 'competitivePercent must be from 0 to 20'),
  autoAcceptGtin: z.boolean(),
  /** Left out: as it was. */
  autoApply: z.boolean().optional(),
  dailyChangeCap: z
    .number()
    .int('dailyChangeCap must be a whole number from 1 to 24')
    .min(1, 'dailyChangeCap must be from 1 to 24')
    .max(24, 'dailyChangeCap must be from 1 to 24')
    .optional(),
});
const ListQuery = z.object({
  band: queryParam(z.enum(['cheapest', 'competitive', 'above', 'unpositioned'])).optional(),
  q: queryParam(z.string().max(200)).optional(),
});

/** The routes of the owner's catalogue (docs/catalogue.md#the-api). */
export function catalogueRoutes(ctx: AppContext) {
  const waitFor = async (checkpoint: Checkpoint | null) => {
    if (checkpoint) await ctx.projections.waitFor(checkpoint, PROJECTION_WAIT_MS);
  };
  // Positions judge freshness by the clock, so a cached answer lives only the cache's few seconds.
  const cached = createUserCache(ctx.sql);

  /** A live tracked product of this user, or 404. */
  async function assertOwnCompetitor(userId: string, productId: string) {
    const [row] = await ctx.sql`SELECT 1 FROM products WHERE id = ${idOf(productId, PRODUCT_NOT_FOUND)} AND user_id = ${userId}`;
    if (!row) throw new DomainError(PRODUCT_NOT_FOUND, 404);
  }
  async function runOwn(command: OwnProductCommand) {
    const { appended } = await handleCommand(ctx.store, ownProductStream(command.ownProductId), ownProductDecider, command);
    await waitFor(appendedCheckpoint(appended));
  }
  async function entry(userId: string, id: string) {
    const [found] = await readCatalogue(ctx.sql, ctx.config, userId, { id });
    if (!found) throw new DomainError(OWN_PRODUCT_NOT_FOUND, 404);
    return found;
  }
  async function ownSource(userId: string, id: string): Promise<SourceRow> {
    const [row] = await ctx.sql<SourceRow[]>`SELECT id, user_id, kind, url FROM catalogue_sources WHERE id = ${sourceIdOf(id)} AND user_id = ${userId}`;
    if (!row) throw new DomainError(SOURCE_NOT_FOUND, 404);
    return row;
  }

  return new Elysia({ prefix: '/api' })
    .use(authentication(ctx))
    .get(
      '/catalogue',
      ({ request, userId, query }) =>
        cached(request, userId, `catalogue ${query.band ?? ''} ${query.q ?? ''}`, () => readCatalogue(ctx.sql, ctx.config, userId, query)),
      { signedIn: true, query: ListQuery },
    )
    .get('/position', ({ request, userId }) => cached(request, userId, 'position', () => readPositionSummary(ctx.sql, ctx.config, userId)), { signedIn: true })

    .get('/catalogue/sources', ({ userId }) => readSources(ctx.sql, userId), { signedIn: true })
    .post(
      '/catalogue/sources',
      async ({ userId, body, set }) => {
        assertStoreSources(await effectivePlan(ctx.sql, userId));
        assertCheckableUrl(ctx.config, body.url);
        const [connected] = await ctx.sql`SELECT 1 FROM catalogue_sources WHERE user_id = ${userId} AND url = ${body.url}`;
        if (connected) throw new DomainError('This store is already connected. Use Sync now to read it again.', 409, 'url');
        const read = await readStore(ctx, userId, body.kind, body.url);
        if (!read.ok) throw new DomainError(read.reason, 422, 'url');
        const sourceId = crypto.randomUUID();
        const outcome = await withUserProducts(ctx.sql, userId, async (tx) => {
          await handleCommand(ctx.store, sourceStream(sourceId), sourceDecider, { type: 'Connect', sourceId, userId, kind: body.kind, url: body.url }, { tx });
          return applyRead(ctx, tx, { userId, sourceId, items: read.items, skipped: read.skipped, removeMissing: false, at: new Date().toISOString() });
        });
        await waitFor(outcome.checkpoint);
        await scheduleNextSync(ctx, { id: sourceId, user_id: userId });
        await linkGtinMatches(ctx, userId);
        set.status = 201;
        return { source: { id: sourceId, kind: body.kind, url: body.url }, imported: outcome.imported, skipped: outcome.skipped };
      },
      { signedIn: true, body: ConnectSourceBody },
    )
    .delete(
      '/catalogue/sources/:id',
      async ({ userId, params }) => {
        const { id } = await ownSource(userId, params.id);
        const checkpoint = await withUserProducts(ctx.sql, userId, async (tx) => {
          const { appended } = await handleCommand(ctx.store, sourceStream(id), sourceDecider, { type: 'Remove', sourceId: id, userId }, { tx });
          // Its products go with it.
          const products = await applyItems(ctx, tx, { userId, sourceId: id, items: [], removeMissing: true, at: new Date().toISOString() });
          return products.checkpoint ?? appendedCheckpoint(appended);
        });
        await ctx.sql`DELETE FROM catalogue_source_schedule WHERE source_id = ${id}`;
        await removeStoreAccess(ctx.sql, id, userId);
        await waitFor(checkpoint);
        return { success: true, id };
      },
      { signedIn: true },
    )
    .post(
      '/catalogue/sources/:id/sync',
      async ({ userId, params }) => {
        const row = await ownSource(userId, params.id);
        const { read, outcome } = await syncSource(ctx, row);
        const source = { id: row.id, kind: row.kind, url: row.url };
        // A store that cannot be read is news recorded on the source, not a refused request (as Check Now answers).
        if (!read.ok || !outcome)
          return { success: false as const, source, error: read.ok ? 'unknown' : read.code, message: read.ok ? 'The store could not be read.' : read.reason };
        await linkGtinMatches(ctx, userId);
        const { checkpoint: _, ...counts } = outcome;
        return { success: true as const, source, ...counts };
      },
      { signedIn: true },
    )

    .get('/catalogue/matches', ({ userId }) => readMatches(ctx.sql, userId), { signedIn: true })
    .post(
      '/catalogue/matches',
      async ({ userId, body }) => {
        const ownProductId = ownIdOf(body.ownProductId);
        await assertOwnCompetitor(userId, body.productId);
        const { productId } = body;
        await runOwn(
          body.decision === 'accept'
            ? { type: 'Link', ownProductId, userId, productId, via: 'suggestion' }
            : { type: 'Reject', ownProductId, userId, productId },
        );
        return entry(userId, ownProductId);
      },
      { signedIn: true, body: MatchDecisionBody },
    )

    .get('/catalogue/settings', ({ userId }) => readCatalogueSettings(ctx.sql, userId), { signedIn: true })
    .put(
      '/catalogue/settings',
      async ({ userId, body }) => {
        const current = await readCatalogueSettings(ctx.sql, userId);
        const settings = { ...current, ...Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) };
        if (settings.autoApply && !current.autoApply && !(await effectivePlan(ctx.sql, userId)).automaticRepricing) {
          throw new DomainError('Automatic repricing is part of the Pro plan. Apply recommendations by hand, or upgrade.', 403, 'autoApply');
        }
        const { appended } = await handleCommand(ctx.store, catalogueSettingsStream(userId), catalogueSettingsDecider, { type: 'Change', userId, settings });
        await waitFor(appendedCheckpoint(appended));
        await linkGtinMatches(ctx, userId);
        return readCatalogueSettings(ctx.sql, userId);
      },
      { signedIn: true, body: CatalogueSettingsBody },
    )

    .get('/catalogue/:id', ({ userId, params }) => entry(userId, ownIdOf(params.id)), { signedIn: true })
    .delete(
      '/catalogue/:id',
      async ({ userId, params }) => {
        const ownProductId = ownIdOf(params.id);
        await runOwn({ type: 'Remove', ownProductId, userId });
        return { success: true, id: ownProductId };
      },
      { signedIn: true },
    )
    .get(
      '/catalogue/:id/position-history',
      async ({ userId, params, query }) => {
        const history = await readPositionHistory(ctx.sql, ctx.config, userId, ownIdOf(params.id), query.timeFilter);
        if (!history) throw new DomainError(OWN_PRODUCT_NOT_FOUND, 404);
        return history;
      },
      { signedIn: true, query: z.object({ timeFilter: queryParam(DetailTimeFilter).default('month') }) },
    )
    .put(
      '/catalogue/:id/competitors/:productId',
      async ({ userId, params }) => {
        const ownProductId = ownIdOf(params.id);
        await assertOwnCompetitor(userId, params.productId);
        await runOwn({ type: 'Link', ownProductId, userId, productId: params.productId, via: 'hand' });
        return entry(userId, ownProductId);
      },
      { signedIn: true },
    )
    .delete(
      '/catalogue/:id/competitors/:productId',
      async ({ userId, params }) => {
        const ownProductId = ownIdOf(params.id);
        await assertOwnCompetitor(userId, params.productId);
        await runOwn({ type: 'Unlink', ownProductId, userId, productId: params.productId });
        return entry(userId, ownProductId);
      },
      { signedIn: true },
    );
}
