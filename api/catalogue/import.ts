import { Elysia } from 'elysia';
import type { AppContext } from '../context.ts';
import { authentication } from '../auth/plugin.ts';
import { START, type EventStore } from '../../events/store.ts';
import { ownProductIdFor } from '../../events/own-product.ts';
import { readCsvImport } from '../http/csv-import.ts';
import type { CsvProblem } from '../http/csv-table.ts';
import { effectivePlan, withUserProducts } from '../products/limit.ts';
import { readCatalogueCsv, validateCatalogueRows, type CatalogueCsvRow } from './csv.ts';
import { ownProductRoom } from './limit.ts';
import { linkGtinMatches } from './matches.ts';
import { applyItems, liveIds, PROJECTION_WAIT_MS } from './sync.ts';

/**
 * As the products import answers, with `updated`: own products the file changed. A SKU twice in
 * the file is an error rather than a duplicate to skip, so nothing is ever skipped here.
 */
type Counts = { created: number; updated: number; skipped: 0; duplicates: [] };
export type CatalogueImportAnswer = Counts | ({ dryRun: true; preview: CatalogueCsvRow[] } & Counts);
type Refusal = { status: 400 | 403; message: string; errors?: CsvProblem[]; remaining?: number; preview?: CatalogueCsvRow[] };

const fitMessage = (planName: string, remaining: number, adding: number) =>
  `Your ${planName} plan has room for ${remaining} more own product${remaining === 1 ? '' : 's'}, and this file would add ${adding}. ` +
  'Nothing was imported. Remove some rows or upgrade your plan.';

/** The store as a dry run sees it: commands are decided on the log as it is, and nothing is appended. */
const appendingNothing = (store: EventStore): EventStore => ({ ...store, appendToStreams: async () => START });

/**
 * POST /api/catalogue/import: own products from a CSV file (api/catalogue/csv.ts), all or nothing.
 * A row's SKU is its key, so importing a file again updates what it imported. Reads its body
 * itself (CSV, up to 2 MB), so it is added before the JSON-only rules; still signed in and
 * origin-checked. `?dryRun=1` answers the same checks and counts without writing.
 */
export function catalogueImportRoutes(ctx: AppContext) {
  return new Elysia({ prefix: '/api/catalogue' }).use(authentication(ctx)).post(
    '/import',
    async ({ request, userId, set }) => {
      const refuse = (refusal: Refusal) => {
        set.status = refusal.status;
        const { status: _, ...body } = refusal;
        return body;
      };
      const upload = await readCsvImport(request, readCatalogueCsv, validateCatalogueRows);
      if (!upload.ok) return refuse({ status: 400, ...upload.refusal });
      const { dryRun, valid, preview } = upload;

      // Under the user's products lock: two imports (or an import and a store's read) cannot pass the limit together.
      const outcome = await withUserProducts(ctx.sql, userId, async (tx) => {
        // applyItems would import what fits and skip the rest; a file goes in whole or not at all.
        const ids = valid.map((row) => ownProductIdFor(userId, null, row.item.externalId));
        const live = await liveIds(tx, ids);
        const adding = ids.filter((id) => !live.has(id)).length;
        const plan = await effectivePlan(tx, userId);
        const room = await ownProductRoom(tx, userId, plan);
        if (adding > room) return { refused: { status: 403, message: fitMessage(plan.name, room, adding), remaining: room, preview } satisfies Refusal };
        const at = new Date().toISOString();
        const applying = dryRun ? { ...ctx, store: appendingNothing(ctx.store) } : ctx;
        const applied = await applyItems(applying, tx, { userId, sourceId: null, items: valid.map((row) => row.item), removeMissing: false, at });
        return { refused: null, applied };
      });
      if (outcome.refused) return refuse(outcome.refused);

      const { imported, changed, checkpoint } = outcome.applied;
      const counts: Counts = { created: imported, updated: changed, skipped: 0, duplicates: [] };
      if (dryRun) return { dryRun: true, ...counts, preview } satisfies CatalogueImportAnswer;
      if (checkpoint) await ctx.projections.waitFor(checkpoint, PROJECTION_WAIT_MS);
      await linkGtinMatches(ctx, userId);
      set.status = imported ? 201 : 200;
      return counts satisfies CatalogueImportAnswer;
    },
    { signedIn: true, parse: 'none' },
  );
}
