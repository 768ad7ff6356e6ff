import { Elysia } from 'elysia';
import type { AppContext } from '../context.ts';
import { authentication } from '../auth/plugin.ts';
import { readCsvImport } from '../http/csv-import.ts';
import type { CsvProblem } from '../http/csv-table.ts';
import { uncheckableUrlReason } from '../fetching/address-guard.ts';
import { fetchOptionsFor } from '../checks/check.ts';
import { queueChecksPolitely } from '../checks/queue.ts';
import { handleProductCommands, type ProductCommand } from '../../events/product.ts';
import type { Checkpoint } from '../../events/store.ts';
import { readProductsCsv, validateRows, withoutDuplicates, type CsvRow, type Duplicate } from './csv.ts';
import { effectivePlan, liveProductCount, withUserProducts } from './limit.ts';
import { liveProducts } from './same-page.ts';

/** New products are appended this many per statement, all in one transaction. */
const APPEND_BATCH = 500;
/** Projecting thousands of new products can take longer than the usual wait. */
const PROJECTION_WAIT_MS = 60_000;

/** `preview` (the first rows as read) comes with a dry run only. */
export type ImportAnswer =
  | { created: number; skipped: number; duplicates: Duplicate[] }
  | { dryRun: true; created: number; skipped: number; duplicates: Duplicate[]; preview: CsvRow[] };
type Refusal = { status: 400 | 403; message: string; errors?: CsvProblem[]; remaining?: number; preview?: CsvRow[] };

const fitMessage = (planName: string, remaining: number, adding: number) =>
  `Your ${planName} plan has room for ${remaining} more product${remaining === 1 ? '' : 's'}, and this file would add ${adding}. ` +
  'Nothing was imported. Remove some rows or upgrade your plan.';

/**
 * POST /api/products/import: products from a CSV file (api/products/csv.ts), all or nothing.
 * Reads its body itself (CSV, up to 2 MB), so it is added before the JSON-only rules; still
 * signed in and origin-checked. `?dryRun=1` answers the same checks without writing, for the
 * dialog's preview.
 */
export function productImportRoutes(ctx: AppContext) {
  const uncheckable = (url: string) => uncheckableUrlReason(url, fetchOptionsFor(ctx.config, url));

  return new Elysia({ prefix: '/api/products' }).use(authentication(ctx)).post(
    '/import',
    async ({ request, userId, set }) => {
      const refuse = (refusal: Refusal) => {
        set.status = refusal.status;
        const { status: _, ...body } = refusal;
        return body;
      };
      const upload = await readCsvImport(request, readProductsCsv, (rows) => validateRows(rows, uncheckable));
      if (!upload.ok) return refuse({ status: 400, ...upload.refusal });
      const { dryRun, valid, preview } = upload;

      // Under the user's products lock: two imports (or an import and an add) cannot pass the limit together.
      const outcome = await withUserProducts(ctx.sql, userId, async (tx) => {
        const tracked = (await liveProducts(tx, userId)).flatMap((p) => (p.url === null ? [] : [p.url]));
        const { create, duplicates } = withoutDuplicates(valid, tracked);
        const plan = await effectivePlan(tx, userId);
        if (plan.maxProducts !== -1) {
          const remaining = Math.max(0, plan.maxProducts - (await liveProductCount(tx, userId)));
          if (create.length > remaining) {
            const refused: Refusal = { status: 403, message: fitMessage(plan.name, remaining, create.length), remaining, preview };
            return { refused, create: [], duplicates: [], added: [], checkpoint: null };
          }
        }
        if (dryRun) return { refused: null, create, duplicates, added: [], checkpoint: null };
        const added: { productId: string; url: string }[] = [];
        let checkpoint: Checkpoint | null = null;
        for (let i = 0; i < create.length; i += APPEND_BATCH) {
          const commands: ProductCommand[] = create.slice(i, i + APPEND_BATCH).map((row) => {
            // Time-ordered ids: products added in the same millisecond still list and export in the file's order.
            const productId = Bun.randomUUIDv7();
            added.push({ productId, url: row.url });
            return { type: 'Add', productId, userId, details: { name: row.name, url: row.url, selector: row.selector, alertRule: row.alertRule } };
          });
          checkpoint = (await handleProductCommands(ctx.store, commands, tx)).checkpoint ?? checkpoint;
        }
        return { refused: null, create, duplicates, added, checkpoint };
      });
      if (outcome.refused) return refuse(outcome.refused);

      const { create, duplicates, added, checkpoint } = outcome;
      if (checkpoint) await ctx.projections.waitFor(checkpoint, PROJECTION_WAIT_MS);
      await queueChecksPolitely(ctx.sql, userId, added);
      set.status = !dryRun && added.length ? 201 : 200;
      const counts = { created: create.length, skipped: duplicates.length, duplicates };
      const answer: ImportAnswer = dryRun ? { dryRun: true, ...counts, preview } : counts;
      return answer;
    },
    { signedIn: true, parse: 'none' },
  );
}
