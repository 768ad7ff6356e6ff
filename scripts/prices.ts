/**
 * Prices for analysts.
 *   bun run prices reparse [--product ID] [--since ISO] [--dry-run]
 * Reads every stored observation's evidence again with today's price parser and appends
 * PriceCorrected where the price differs; read models then show the corrected history.
 * Uses DATABASE_URL, else the embedded database under DATA_DIR (stop the server first).
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../api/config.ts';
import { createContext } from '../api/create-context.ts';
import { reparsePrices } from '../api/checks/reparse.ts';

const { values, positionals } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  options: { product: { type: 'string' }, since: { type: 'string' }, 'dry-run': { type: 'boolean' } },
});
if (positionals[0] !== 'reparse') {
  console.error('usage: bun run prices reparse [--product ID] [--since ISO] [--dry-run]');
  process.exit(2);
}
const since = values.since ? new Date(values.since) : undefined;
if (since && Number.isNaN(since.getTime())) {
  console.error(`--since: "${values.since}" is not a date (e.g. 2025-03-01)`);
  process.exit(2);
}

const ctx = await createContext(loadConfig());
try {
  const dryRun = values['dry-run'] ?? false;
  const report = await reparsePrices(ctx.store, {
    productId: values.product,
    since,
    dryRun,
    onCorrection: (c) =>
      console.log(`product ${c.productId} position ${c.correctsPosition}: ${c.previousPrice} -> ${c.price}  (${JSON.stringify(c.matchedText)})`),
  });
  if (!dryRun) await ctx.projections.catchUp();
  console.error(
    `${report.examined} observations read again: ${report.corrected} ${dryRun ? 'would be corrected' : 'corrected'}, ` +
      `${report.unreadable} no longer readable (left as they were), ${report.skipped} of removed products skipped.`,
  );
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
} finally {
  await ctx.close();
}
