/**
 * The event log for analysts.
 *   bun run events export [--from ISO] [--to ISO] [--type T ...] [--stream S] [--user EMAIL] > log.ndjson
 *   bun run events import < log.ndjson      into an empty database (same positions, streams and order)
 *   bun run events import FILE ...          the same from files in order (archives, then an export); .gz or plain
 *   bun run events archive --before ISO [--dir DIR]   months ended by then to DIR (default DATA_DIR/archive)
 *   bun run events stats                    events per type and per day
 * --stream takes a stream id or a prefix ending in * (product-*). Uses DATABASE_URL, else the
 * embedded database under DATA_DIR (stop the server first).
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../api/config.ts';
import { createContext } from '../api/create-context.ts';
import type { Sql } from '../db/index.ts';
import { join } from 'node:path';
import { eventStats, exportEvents, importEvents, linesOf, linesOfFiles, streamSink, type ExportFilter } from '../events/ndjson.ts';
import { archivePartitions } from '../events/archive.ts';

const usage = `usage: bun run events export [--from ISO] [--to ISO] [--type T ...] [--stream S] [--user EMAIL]
       bun run events import < file.ndjson | bun run events import FILE[.gz] ...
       bun run events archive --before ISO [--dir DIR]
       bun run events stats`;

const { values, positionals } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  options: {
    from: { type: 'string' },
    to: { type: 'string' },
    type: { type: 'string', multiple: true },
    stream: { type: 'string' },
    user: { type: 'string' },
    before: { type: 'string' },
    dir: { type: 'string' },
  },
});
const [command, ...files] = positionals;
if (!['export', 'import', 'archive', 'stats'].includes(command ?? '') || (command === 'archive' && !values.before)) {
  console.error(usage);
  process.exit(2);
}

function date(flag: string, value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw new Error(`--${flag}: "${value}" is not a date (e.g. 2025-03-01 or 2025-03-01T12:00:00Z)`);
  return d;
}

/** A user's id by e-mail, from the log itself (the read model may not be built). */
async function userIdOf(sql: Sql, email: string): Promise<string> {
  const [row] = await sql<{ id: string }[]>`
    SELECT data->>'userId' AS id FROM events
    WHERE type IN ('UserSignedUp', 'UserProfileUpdated') AND lower(data->>'email') = lower(${email})
    ORDER BY global_position DESC LIMIT 1`;
  if (!row) throw new Error(`No user with e-mail ${email}`);
  return row.id;
}

const fmt = (n: number) => n.toLocaleString('en-GB');

const config = loadConfig();
const ctx = await createContext(config);
try {
  if (command === 'export') {
    const filter: ExportFilter = {
      from: date('from', values.from),
      to: date('to', values.to),
      types: values.type,
      stream: values.stream,
      userId: values.user ? await userIdOf(ctx.sql, values.user) : undefined,
    };
    const started = performance.now();
    const n = await exportEvents(ctx.sql, streamSink(process.stdout), filter);
    const seconds = (performance.now() - started) / 1000;
    console.error(`Exported ${fmt(n)} events in ${seconds.toFixed(1)} s`);
  } else if (command === 'import') {
    const started = performance.now();
    let skipped = 0;
    const n = await importEvents(ctx.sql, files.length ? linesOfFiles(files) : linesOf(process.stdin), (done, left) => {
      skipped = left;
      process.stderr.write(`\r${fmt(done)} events imported`);
    });
    // Imported history is not news: reactors (alerts, e-mails) start after it.
    const head = await ctx.store.head();
    await ctx.sql`UPDATE reactor_checkpoints SET transaction_id = ${head.transactionId}::xid8, position = ${head.position}, updated_at = now()`;
    const twice = skipped ? ` (${fmt(skipped)} held by two files were loaded once)` : '';
    console.error(
      `\nImported ${fmt(n)} events${twice} in ${((performance.now() - started) / 1000).toFixed(1)} s. Read models catch up when the server starts (or: bun run projections rebuild).`,
    );
  } else if (command === 'archive') {
    const before = date('before', values.before)!;
    const dir = values.dir ?? join(config.dataDir, 'archive');
    const archived = await archivePartitions(ctx.sql, {
      before,
      dir,
      onArchived: (a) =>
        console.log(
          a.file
            ? `${a.partition}: ${fmt(a.events)} events to ${a.file} (${fmt(a.bytes)} bytes); ${fmt(a.kept)} stay in the live log`
            : `${a.partition}: no events; partition dropped`,
        ),
    });
    console.log(
      archived.length
        ? `Archived ${archived.length} partition${archived.length > 1 ? 's' : ''}: ${fmt(archived.reduce((n, a) => n + a.events - a.kept, 0))} events left the live log.`
        : `Nothing to archive: no partition of the log ends by ${before.toISOString()} that is not archived already.`,
    );
  } else {
    const { byType, byDay } = await eventStats(ctx.sql);
    const width = Math.max(4, ...byType.map((r) => r.type.length));
    console.log(`${'type'.padEnd(width)}  ${'events'.padStart(10)}  first recorded            last recorded`);
    for (const r of byType) console.log(`${r.type.padEnd(width)}  ${fmt(r.events).padStart(10)}  ${r.first.toISOString()}  ${r.last.toISOString()}`);
    console.log(`${'total'.padEnd(width)}  ${fmt(byType.reduce((s, r) => s + r.events, 0)).padStart(10)}`);
    console.log(`\n${'day (UTC)'.padEnd(10)}  ${'events'.padStart(10)}`);
    for (const r of byDay) console.log(`${r.day.padEnd(10)}  ${fmt(r.events).padStart(10)}`);
  }
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exitCode = 1;
} finally {
  await ctx.close();
}
