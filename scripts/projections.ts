/**
 * Read-model maintenance for operators and analysts.
 *   bun run projections rebuild [name ...]                       rebuild the live read models from zero (all when no name is given)
 *   bun run projections rebuild [name ...] --into SCHEMA         build them into another schema; live tables untouched
 *   bun run projections rebuild [name ...] --as-of ISO --into S  ... from the log as it stood at that moment
 *   bun run projections status                                   checkpoint of every projection
 * Once part of the log is archived (bun run events archive), the live log lacks it: a live rebuild
 * is refused unless --without-archived says to build without it (to rebuild with the archived
 * history, import the archives and an export into another database and rebuild there).
 * Uses DATABASE_URL, else the embedded database under DATA_DIR (stop the server first: the
 * embedded database admits one process).
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../api/config.ts';
import { createContext } from '../api/create-context.ts';
import { chooseProjections, rebuildInto } from '../projections/replay.ts';
import { archivedHistory } from '../events/archive.ts';

const usage = 'usage: bun run projections rebuild [name ...] [--as-of ISO --into SCHEMA] [--without-archived] | status';
const { values, positionals } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  options: { 'as-of': { type: 'string' }, into: { type: 'string' }, 'without-archived': { type: 'boolean' } },
});
const [command, ...names] = positionals;
if (command !== 'rebuild' && command !== 'status') {
  console.error(usage);
  process.exit(2);
}
const asOf = values['as-of'] ? new Date(values['as-of']) : undefined;
if (asOf && Number.isNaN(asOf.getTime())) {
  console.error(`--as-of: "${values['as-of']}" is not a date (e.g. 2025-03-01T12:00:00Z)`);
  process.exit(2);
}
if (asOf && !values.into) {
  // The live read models always show the whole log; the past is built beside them.
  console.error('--as-of needs --into SCHEMA: a past state is built beside the live read models, never in their place.');
  process.exit(2);
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-GB');
const duration = (s: number) => (s >= 90 ? `${Math.floor(s / 60)} min ${Math.round(s % 60)} s` : `${s.toFixed(s < 10 ? 1 : 0)} s`);

/** A progress line at most twice a second: done / total, rate, time left. */
function progress(started: number) {
  let last = 0;
  return (done: number, total: number) => {
    const now = performance.now();
    if (now - last < 500 && done < total) return;
    last = now;
    const rate = done / Math.max((now - started) / 1000, 1e-3);
    const left = rate > 0 ? (total - done) / rate : 0;
    process.stderr.write(`\r${fmt(done)} / ${fmt(total)} events, ${fmt(rate)}/s, ${duration(Math.max(left, 0))} left   `);
  };
}

const ctx = await createContext(loadConfig());
try {
  if (command === 'status') {
    const rows = await ctx.sql`SELECT name, position, updated_at FROM projection_checkpoints ORDER BY name`;
    for (const r of rows) console.log(`${r.name.padEnd(20)} position ${r.position}  updated ${r.updated_at.toISOString()}`);
  } else {
    const chosen = chooseProjections(ctx.projections.projections, names);
    const archived = await archivedHistory(ctx.sql);
    if (archived.events) {
      const lacks = `The log before ${archived.before!.toISOString()} is archived: ${fmt(archived.events)} events (price checks, e-mail and delivery attempts) are only in ${archived.files.length} archive file${archived.files.length > 1 ? 's' : ''}`;
      if (!values.into && !values['without-archived']) {
        throw new Error(
          `${lacks}, and a rebuild of the live read models from the live log would drop them from the screens (price history).\n` +
            'To rebuild with them, import the archives and an export into another database and rebuild there (README, events); to rebuild without them, add --without-archived.',
        );
      }
      console.error(`${lacks}; the rebuilt read models lack them.`);
    }
    const started = performance.now();
    const show = progress(started);
    const done = values.into
      ? await rebuildInto(ctx.store, ctx.projections.projections, { schema: values.into, asOf, names, onProgress: show })
      : await ctx.projections.rebuild(names, show);
    const seconds = (performance.now() - started) / 1000;
    const where = values.into ? ` into schema ${values.into}${asOf ? ` as of ${asOf.toISOString()}` : ''}` : '';
    console.log(`\nRebuilt ${chosen.map((p) => p.name).join(', ')}${where}: ${fmt(done)} events in ${duration(seconds)} (${fmt(done / seconds)}/s)`);
  }
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
} finally {
  await ctx.close();
}
