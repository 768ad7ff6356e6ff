import { createHash } from 'node:crypto';
import { closeSync, createWriteStream, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createGzip } from 'node:zlib';
import type { Sql } from '../db/index.ts';
import { exportEvents, linesOfFiles, parseExportedLine, streamSink } from './ndjson.ts';
import { buildIndexesLike, ensurePartitions, listPartitions, schemaTransaction, type Partition } from './partitions.ts';

/**
 * Archives of the log (docs/decisions/0006-time-partitioned-log.md): a month of events, once every
 * read model has passed it, goes to a gzip-compressed NDJSON file in the format of `events export`,
 * read back and checked, and leaves the database with its partition.
 *
 * Not every event leaves: the write side still reads some old events. Commands on users,
 * subscriptions, channels and alerts fold their whole stream, and the product limit, the page
 * already tracked and the billing customer are looked up in the log. So an archive takes out only
 * the events no decision reads (ARCHIVED_TYPES: price observations and check results, e-mail and
 * delivery attempts, the bulk of the log), and the others stay in the live log, in a new partition
 * for the same month; the file holds them all, so archives plus an export of the live log are the
 * whole log (an import loads the events both hold once).
 *
 * Checks kept as repeats of an observation (price_checks, not partitioned yet) belong to the month
 * they were observed in: they go to that month's file and leave the live log with it. The
 * observations they repeat stay while a repeat left in the live log reads through them, and so does
 * each product's last observation of the month, the only one a check appended meanwhile can repeat.
 */

/**
 * Events no decision and no query of the live log reads: products' commands fold only their
 * lifecycle and take the stream's version from `streams`; e-mail and delivery attempts go to
 * streams nobody folds.
 */
export const ARCHIVED_TYPES = [
  'PriceObserved',
  'PriceCheckFailed',
  'PriceManuallySet',
  'PriceCorrected',
  'EmailSent',
  'EmailFailed',
  'AlertDelivered',
  'AlertDeliveryFailed',
] as const;

/** What was archived where: an operational table, so that an archived month is not archived twice and a rebuild knows what it lacks. */
export const EVENT_ARCHIVES_DDL = `
CREATE TABLE IF NOT EXISTS event_archives (
  partition   text PRIMARY KEY,
  range_from  timestamptz,
  range_to    timestamptz NOT NULL,
  file        text,
  events      bigint NOT NULL,
  kept        bigint NOT NULL,
  bytes       bigint NOT NULL,
  checksum    text NOT NULL,
  archived_at timestamptz NOT NULL DEFAULT now()
);
`;

export type ArchivedPartition = {
  partition: string;
  /** null: everything before `to` (the log from before partitions). */
  from: Date | null;
  to: Date;
  /** null when the partition held no events. */
  file: string | null;
  events: number;
  /** Events that stay in the live log (also in the file). */
  kept: number;
  bytes: number;
};

/** Count and MD5 of the positions in commit order, joined by commas: what a file must hold. */
type Digest = { events: number; checksum: string };

/** `column` within the partition's range. */
const within = (p: Partition, column: string) => `${p.from ? `${column} >= '${p.from.toISOString()}' AND ` : ''}${column} < '${p.to!.toISOString()}'`;

/** What the month's file holds: the partition's events and the checks repeated in its range. */
const entriesOf = (p: Partition) => `
  SELECT transaction_id, global_position FROM ${p.name}
  UNION ALL SELECT transaction_id, global_position FROM price_checks WHERE ${within(p, 'observed_at')}`;

async function digestOf(sql: Sql, entries: string): Promise<Digest> {
  const [row] = await sql.unsafe<{ events: number; checksum: string }[]>(
    `SELECT count(*)::int AS events, md5(coalesce(string_agg(global_position::text, ',' ORDER BY transaction_id, global_position), '')) AS checksum
     FROM (${entries}) AS log`,
  );
  return { events: row!.events, checksum: row!.checksum };
}

/**
 * Reads an archive back as `events import` would: every line checked against the catalogue.
 * Answers its digest, that of its events alone, and the positions of its repeated checks.
 */
export async function digestOfFile(path: string): Promise<Digest & { own: Digest; repeats: number[] }> {
  const all = createHash('md5'),
    own = createHash('md5');
  let events = 0,
    owned = 0,
    lineNo = 0;
  const repeats: number[] = [];
  for await (const line of linesOfFiles([path])) {
    lineNo++;
    if (!line.trim()) continue;
    const e = parseExportedLine(line, lineNo);
    all.update(events++ ? `,${e.position}` : String(e.position));
    if (e.repeats !== undefined) repeats.push(e.position);
    else own.update(owned++ ? `,${e.position}` : String(e.position));
  }
  return { events, checksum: all.digest('hex'), own: { events: owned, checksum: own.digest('hex') }, repeats };
}

async function writeArchive(sql: Sql, p: Partition, path: string): Promise<void> {
  const partial = `${path}.partial`;
  const out = createWriteStream(partial);
  const gzip = createGzip();
  const written = new Promise<void>((resolve, reject) => {
    out.on('finish', resolve);
    out.on('error', reject);
    gzip.on('error', reject);
  });
  gzip.pipe(out);
  try {
    await exportEvents(sql, streamSink(gzip), { from: p.from ?? undefined, to: p.to! }, { table: p.name });
    gzip.end();
    await written;
    const fd = openSync(partial, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(partial, path);
  } catch (err) {
    gzip.destroy();
    out.destroy();
    rmSync(partial, { force: true });
    throw err;
  }
}

/** Read models and reactors that have not passed the month's last entry yet. */
async function readersBehind(sql: Sql, p: Partition): Promise<string[]> {
  const [last] = await sql.unsafe<{ tx: string; position: string }[]>(
    `SELECT transaction_id::text AS tx, global_position AS position FROM (${entriesOf(p)}) AS log ORDER BY transaction_id DESC, global_position DESC LIMIT 1`,
  );
  if (!last) return [];
  const behind: string[] = [];
  for (const checkpoints of ['projection_checkpoints', 'reactor_checkpoints']) {
    const [{ exists }] = await sql<{ exists: boolean }[]>`SELECT to_regclass(${checkpoints}) IS NOT NULL AS exists`;
    if (!exists) continue;
    const rows = await sql.unsafe<{ name: string }[]>(
      `SELECT name FROM ${checkpoints} WHERE (transaction_id, position) < ($1::xid8, $2::bigint) ORDER BY name`,
      [last.tx, last.position],
    );
    behind.push(...rows.map((r) => r.name));
  }
  return behind;
}

async function columnsOf(sql: Sql, table: string): Promise<string> {
  const rows = await sql<{ name: string }[]>`
    SELECT attname AS name FROM pg_attribute WHERE attrelid = ${table}::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum`;
  return rows.map((r) => r.name).join(', ');
}

/**
 * Swaps the partition for one holding only the events that stay, and takes the month's repeated
 * checks out of price_checks, in one transaction, after checking under a lock that the partition
 * still holds exactly the events of the file. The partition itself is dropped: the file, read back,
 * is its copy.
 */
async function swapOut(sql: Sql, p: Partition, file: { own: Digest; repeats: number[]; digest: Digest; path: string | null; bytes: number }): Promise<number> {
  return schemaTransaction(sql, async (tx) => {
    // Writers of the partition wait from here (a late append, recorded before the month ended);
    // readers do not.
    await tx.unsafe(`LOCK TABLE ${p.name} IN SHARE MODE`);
    const now = await digestOf(tx, `SELECT transaction_id, global_position FROM ${p.name}`);
    if (now.events !== file.own.events || now.checksum !== file.own.checksum) {
      throw new Error(`${p.name} changed while it was archived (${file.own.events} events then, ${now.events} now): run the archive again.`);
    }
    // Exactly the repeated checks of the file; one appended since (observed late) stays in the live log.
    const removed = await tx.unsafe(`DELETE FROM price_checks WHERE ${within(p, 'observed_at')} AND global_position = ANY($1::bigint[])`, [file.repeats]);
    if (removed.count !== file.repeats.length) throw new Error(`Repeated checks of ${p.name} changed while it was archived: run the archive again.`);
    const columns = await columnsOf(tx, 'events');
    const keep = `${p.name}_kept`;
    const bounds = `FROM (${p.from ? `'${p.from.toISOString()}'` : 'MINVALUE'}) TO ('${p.to!.toISOString()}')`;
    // Built before the partition is detached, so the parent is locked for moments only.
    await tx.unsafe(`CREATE TABLE ${keep} (LIKE events INCLUDING DEFAULTS)`);
    const [{ kept }] = await tx.unsafe<{ kept: number }[]>(
      `
      WITH last_of_stream AS (
        SELECT global_position FROM (SELECT DISTINCT ON (stream_id) global_position, type FROM ${p.name} ORDER BY stream_id, stream_version DESC) AS l
        WHERE type = 'PriceObserved'),
      kept AS (
        INSERT INTO ${keep} (${columns}) SELECT ${columns} FROM ${p.name}
        WHERE type <> ALL($1::text[])
          OR global_position IN (SELECT repeats FROM price_checks)
          OR global_position IN (SELECT global_position FROM last_of_stream)
        ORDER BY transaction_id, global_position
        RETURNING 1)
      SELECT count(*)::int AS kept FROM kept`,
      [ARCHIVED_TYPES as unknown as string[]],
    );
    if (kept) {
      await tx.unsafe(`ALTER TABLE ${keep} ADD CONSTRAINT ${keep}_range CHECK (${within(p, 'recorded_at')})`);
      await buildIndexesLike(tx, 'events', keep);
    } else {
      await tx.unsafe(`DROP TABLE ${keep}`);
    }
    await tx.unsafe(`ALTER TABLE events DETACH PARTITION ${p.name}`);
    await tx.unsafe(`DROP TABLE ${p.name}`);
    if (kept) {
      await tx.unsafe(`ALTER TABLE ${keep} RENAME TO ${p.name}`);
      const indexes = await tx<
        { name: string }[]
      >`SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = ${p.name}::regclass`;
      for (const { name } of indexes) await tx.unsafe(`ALTER INDEX ${name} RENAME TO ${p.name}${name.slice(keep.length)}`);
      await tx.unsafe(`ALTER TABLE events ATTACH PARTITION ${p.name} FOR VALUES ${bounds}`);
      await tx.unsafe(`ALTER TABLE ${p.name} DROP CONSTRAINT ${keep}_range`);
    }
    await tx`INSERT INTO event_archives (partition, range_from, range_to, file, events, kept, bytes, checksum)
             VALUES (${p.name}, ${p.from}, ${p.to}, ${file.path}, ${file.digest.events}, ${kept}, ${file.bytes}, ${file.digest.checksum})`;
    return kept;
  });
}

export type ArchiveOptions = {
  /** Partitions that end at or before this moment. */
  before: Date;
  /** Where the files go. */
  dir: string;
  /** Hears each partition as soon as it is archived. */
  onArchived?: (a: ArchivedPartition) => void;
};

/**
 * Archives every partition of the log that ends at or before `before` (and before now): export
 * to `<dir>/<partition>.ndjson.gz` (its events and the checks repeated in its range), read back
 * and compared with the database (count and checksum of the positions in commit order), then the
 * partition leaves the database but for the events that stay. Read models are tables of their own and do not change. Refused for a partition a
 * read model or reactor has not passed yet. An existing file is never overwritten.
 */
export async function archivePartitions(sql: Sql, opts: ArchiveOptions): Promise<ArchivedPartition[]> {
  // Rows waiting in the DEFAULT partition go to their month first, so they are archived with it.
  await ensurePartitions(sql);
  const [{ now }] = await sql<{ now: Date }[]>`SELECT now()`;
  const done = new Set((await sql<{ partition: string }[]>`SELECT partition FROM event_archives`).map((r) => r.partition));
  const due = (await listPartitions(sql, 'events')).filter((p) => !p.isDefault && p.to !== null && p.to <= opts.before && p.to <= now && !done.has(p.name));
  const dir = resolve(opts.dir);
  const archived: ArchivedPartition[] = [];
  for (const p of due) {
    const behind = await readersBehind(sql, p);
    if (behind.length) {
      throw new Error(
        `Not archived: ${p.name} holds events that ${behind.join(', ')} ${behind.length > 1 ? 'have' : 'has'} not read yet. Start the server and let them catch up first.`,
      );
    }
    const digest = await digestOf(sql, entriesOf(p));
    let path: string | null = null,
      bytes = 0;
    let read: Awaited<ReturnType<typeof digestOfFile>> = { ...digest, own: digest, repeats: [] };
    if (digest.events) {
      mkdirSync(dir, { recursive: true });
      path = join(dir, `${p.name}.ndjson.gz`);
      if (existsSync(path)) throw new Error(`${path} exists already: move it away (or archive into another --dir) and run again.`);
      await writeArchive(sql, p, path);
      const back = await digestOfFile(path).catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
      if (back instanceof Error || back.events !== digest.events || back.checksum !== digest.checksum) {
        rmSync(path, { force: true });
        throw new Error(
          `The archive of ${p.name} did not read back as written (${digest.events} events, ${back instanceof Error ? back.message : `${back.events} read`}): nothing was removed.`,
        );
      }
      read = back;
      bytes = statSync(path).size;
    }
    // Should the swap fail (a lock not had in time, a late append), the database keeps the
    // month whole, and the file goes: the next run writes it again.
    const kept = await swapOut(sql, p, { ...read, digest, path, bytes }).catch((err) => {
      if (path) rmSync(path, { force: true });
      throw err;
    });
    const a: ArchivedPartition = { partition: p.name, from: p.from, to: p.to!, file: path, events: digest.events, kept, bytes };
    archived.push(a);
    opts.onArchived?.(a);
  }
  return archived;
}

/** What the log lacks for a rebuild: archived events (not kept in the live log), and up to when. */
export async function archivedHistory(sql: Sql): Promise<{ events: number; before: Date | null; files: string[] }> {
  const [{ exists }] = await sql<{ exists: boolean }[]>`SELECT to_regclass('event_archives') IS NOT NULL AS exists`;
  if (!exists) return { events: 0, before: null, files: [] };
  const rows = await sql<
    { file: string | null; events: string; kept: string; range_to: Date }[]
  >`SELECT file, events, kept, range_to FROM event_archives ORDER BY range_to`;
  return {
    events: rows.reduce((n, r) => n + Number(r.events) - Number(r.kept), 0),
    before: rows.length ? rows[rows.length - 1]!.range_to : null,
    files: rows.flatMap((r) => (r.file ? [r.file] : [])),
  };
}
