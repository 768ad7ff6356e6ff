/**
 * Read-model maintenance for operators and analysts.
 *   bun run projections rebuild [name ...]   rebuild from zero (all when no name is given)
 *   bun run projections status               checkpoint of every projection
 * Uses DATABASE_URL, else the embedded database under DATA_DIR (stop the server first: the
 * embedded database admits one process).
 */
import { loadConfig } from '../api/config.ts';
import { createContext } from '../api/context.ts';

const [command, ...names] = process.argv.slice(2);
const usage = 'usage: bun run projections rebuild [name ...] | status';
if (command !== 'rebuild' && command !== 'status') {
  console.error(usage);
  process.exit(2);
}

const ctx = await createContext(loadConfig());
try {
  const known = ctx.projections.projections.map((p) => p.name);
  if (command === 'status') {
    const rows = await ctx.sql`SELECT name, position, updated_at FROM projection_checkpoints ORDER BY name`;
    for (const r of rows) console.log(`${r.name.padEnd(20)} position ${r.position}  updated ${r.updated_at.toISOString()}`);
  } else {
    const unknown = names.filter((n) => !known.includes(n));
    if (unknown.length) throw new Error(`Unknown projection: ${unknown.join(', ')}. Known: ${known.join(', ')}`);
    const [{ total }] = await ctx.sql<{ total: number }[]>`SELECT count(*)::int AS total FROM events`;
    const started = performance.now();
    let last = 0;
    const done = await ctx.projections.rebuild(names, (n) => {
      const now = performance.now();
      if (now - last < 500) return;
      last = now;
      const rate = n / ((now - started) / 1000);
      process.stderr.write(`\r${n.toLocaleString('en-GB')} events applied (${total.toLocaleString('en-GB')} in the log), ${Math.round(rate).toLocaleString('en-GB')}/s   `);
    });
    const seconds = (performance.now() - started) / 1000;
    console.log(`\nRebuilt ${(names.length ? names : known).join(', ')}: ${done.toLocaleString('en-GB')} events applied in ${seconds.toFixed(1)} s`);
  }
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
} finally {
  await ctx.close();
}
