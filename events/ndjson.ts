import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { transaction, type Sql } from '../db/index.ts';
import { upcastAndValidate } from './catalogue.ts';
import { ensurePartitions } from './partitions.ts';
import { createEventStore, pageHashKey, START, type Checkpoint } from './store.ts';

/**
 * The log as NDJSON, one event a line, in commit-safe order:
 *   {"position":1,"stream":"user-…","version":1,"type":"UserSignedUp","schemaVersion":1,"data":{…},"metadata":{},"recordedAt":"…Z"}
 * Data is written as stored (with its schema version), so an import gives back the same log and
 * readers upcast it as they would the original.
 */
export type ExportFilter = {
  /** Recorded at or after. */
  from?: Date;
  /** Recorded before. */
  to?: Date;
  types?: readonly string[];
  /** A stream id, or a prefix ending in `*` (`product-*`). */
  stream?: string;
  userId?: string;
};

/** Where export lines go; resolves when the consumer can take more (backpressure). */
export type Sink = (chunk: string) => Promise<void> | void;

/** A sink on a Node-style writable (stdout, a file): waits for 'drain' when its buffer is full. */
export function streamSink(out: NodeJS.WritableStream): Sink {
  return (chunk) => (out.write(chunk) ? undefined : new Promise<void>((resolve) => out.once('drain', () => resolve())));
}

const PAGE = 10_000;

/**
 * Writes the events matching `filter` to `sink`, page after page (keyset pages on the commit-order
 * index, so memory stays one page whatever the log's size). The export ends at the head of the log
 * as it was when it started: events appended meanwhile are left for the next export.
 * PostgreSQL builds each line, so the events are never parsed and written again here.
 * `table` reads the events of one partition instead of all of them (an archive; repeated checks
 * are chosen by `from` and `to` as always).
 */
export async function exportEvents(sql: Sql, sink: Sink, filter: ExportFilter = {}, opts: { pageSize?: number; table?: string } = {}): Promise<number> {
  const table = opts.table ?? 'events';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(table)) throw new Error(`"${table}" is not a table of the log`);
  const head = await createEventStore(sql).head();
  if (head.position === 0) return 0;
  const params: unknown[] = [];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length + 5}`;
  };
  // The same filters on events (e) and on repeated checks (c), read through the observation they repeat (b).
  const where = (e: string, b: string, at: string) => {
    let where = `(${e}.transaction_id, ${e}.global_position) > ($1::xid8, $2::bigint) AND (${e}.transaction_id, ${e}.global_position) <= ($3::xid8, $4::bigint)`;
    if (filter.from) where += ` AND ${at} >= ${param(filter.from)}`;
    if (filter.to) where += ` AND ${at} < ${param(filter.to)}`;
    if (filter.stream) {
      where += filter.stream.endsWith('*')
        ? ` AND starts_with(${b}.stream_id, ${param(filter.stream.slice(0, -1))})`
        : ` AND ${b}.stream_id = ${param(filter.stream)}`;
    }
    if (filter.userId) where += ` AND ${b}.data->>'userId' = ${param(filter.userId)}`;
    return where;
  };
  const line = (position: string, at: string, data: string, repeats = '') => `
    '{"position":' || ${position} || ',"stream":' || to_json(stream_id) || ',"version":' || stream_version${repeats}
      || ',"type":' || to_json(type) || ',"schemaVersion":' || schema_version || ',"data":' || ${data}
      || ',"metadata":' || metadata || ',"recordedAt":"' || to_char(${at} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') || '"}'`;
  const events = `SELECT e.transaction_id, e.global_position, ${line('e.global_position', 'e.recorded_at', 'e.data')} AS line
    FROM ${table} e WHERE ${where('e', 'e', 'e.recorded_at')}${filter.types?.length ? ` AND type = ANY(${param(filter.types)}::text[])` : ''}
    ORDER BY e.transaction_id, e.global_position LIMIT $5`;
  // A repeated check is written whole, as readers see it, with the position of the observation it repeats.
  const repeats =
    !filter.types?.length || filter.types.includes('PriceObserved')
      ? `
    UNION ALL (SELECT c.transaction_id, c.global_position, ${line(
      'c.global_position',
      'c.observed_at',
      `(b.data || jsonb_build_object('observedAt', to_char(c.observed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'pageHash', replace(c.page_hash::text, '-', '')))`,
      ` || ',"repeats":' || c.repeats`,
    )} AS line
    FROM price_checks c JOIN events b ON b.global_position = c.repeats WHERE ${where('c', 'b', 'c.observed_at')}
    ORDER BY c.transaction_id, c.global_position LIMIT $5)`
      : '';
  const query = `SELECT transaction_id::text AS tx, global_position AS position, line FROM ((${events})${repeats}) AS log
    ORDER BY log.transaction_id, log.global_position LIMIT $5`;
  const limit = opts.pageSize ?? PAGE;
  let after: Checkpoint = START;
  let total = 0;
  for (;;) {
    const rows = await sql.unsafe<{ tx: string; position: string; line: string }[]>(query, [
      after.transactionId,
      after.position,
      head.transactionId,
      head.position,
      limit,
      ...params,
    ] as any[]);
    if (rows.length === 0) return total;
    let chunk = '';
    for (const row of rows) chunk += row.line + '\n';
    await sink(chunk);
    total += rows.length;
    const last = rows[rows.length - 1]!;
    after = { transactionId: last.tx, position: Number(last.position) };
    if (rows.length < limit) return total;
  }
}

/** One exported event; `repeats` marks a repeated check (see price_checks in store.ts), `version` then is its observation's. */
export type ExportedEvent = {
  position: number;
  stream: string;
  version: number;
  type: string;
  schemaVersion: number;
  data: unknown;
  metadata?: Record<string, unknown>;
  recordedAt: string;
  repeats?: number;
};

/**
 * Inserts exported events as they were: same positions, stream versions, schema versions, data
 * and times. Rows go in one transaction per run of ascending positions, so the new log's commit
 * order (transaction id, position) is the file's order even where the original's was not the
 * order of positions. Streams get the highest version imported. An event already in the log (the
 * same position and time: one that an archive and a later export both hold) is left as it is;
 * repeated checks go to price_checks (no file shares them with another: an archive takes its
 * month's out of the live log). Answers how many were inserted.
 */
export async function insertExported(tx: Sql, exported: readonly ExportedEvent[]): Promise<number> {
  const repeats = exported.filter((e) => e.repeats !== undefined);
  if (repeats.length) {
    await tx`
      INSERT INTO price_checks (global_position, repeats, observed_at, page_hash)
      SELECT * FROM unnest(${repeats.map((e) => e.position)}::bigint[], ${repeats.map((e) => e.repeats!)}::bigint[],
        ${repeats.map((e) => (e.data as { observedAt: string }).observedAt)}::timestamptz[],
        ${repeats.map((e) => pageHashKey((e.data as { pageHash: string }).pageHash))}::uuid[]) ORDER BY 1`;
  }
  const events = repeats.length ? exported.filter((e) => e.repeats === undefined) : exported;
  if (!events.length) return repeats.length;
  // Times go as text: a client-side Date would drop their microseconds.
  const [{ inserted }] = await tx<{ inserted: number }[]>`
    WITH inserted AS (
      INSERT INTO events (global_position, stream_id, stream_version, type, schema_version, data, metadata, recorded_at)
      SELECT p, s, v, t, sv, d::jsonb, m::jsonb, r::timestamptz
      FROM unnest(${events.map((e) => e.position)}::bigint[], ${events.map((e) => e.stream)}::text[], ${events.map((e) => e.version)}::bigint[],
                  ${events.map((e) => e.type)}::text[], ${events.map((e) => e.schemaVersion)}::int[],
                  ${events.map((e) => JSON.stringify(e.data))}::text[], ${events.map((e) => JSON.stringify(e.metadata ?? {}))}::text[],
                  ${events.map((e) => e.recordedAt)}::text[]) AS e(p, s, v, t, sv, d, m, r)
      ORDER BY p
      ON CONFLICT DO NOTHING
      RETURNING 1
    )
    SELECT count(*)::int AS inserted FROM inserted`;
  if (inserted < events.length) {
    // Left out as already there: it must be the same event, not another one with its position.
    const [clash] = await tx<{ position: string }[]>`
      SELECT e.p AS position FROM unnest(${events.map((e) => e.position)}::bigint[], ${events.map((e) => e.stream)}::text[], ${events.map((e) => e.version)}::bigint[],
                  ${events.map((e) => e.type)}::text[], ${events.map((e) => JSON.stringify(e.data))}::text[], ${events.map((e) => e.recordedAt)}::text[]) AS e(p, s, v, t, d, r)
      JOIN events x ON x.global_position = e.p AND x.recorded_at = e.r::timestamptz
      WHERE (x.stream_id, x.stream_version, x.type, x.data) IS DISTINCT FROM (e.s, e.v, e.t, e.d::jsonb)
      LIMIT 1`;
    if (clash) throw new Error(`Position ${clash.position} is already in the log as another event: these files are not from the same log.`);
  }
  await tx`
    INSERT INTO streams (stream_id, version)
    SELECT s, max(v) FROM unnest(${events.map((e) => e.stream)}::text[], ${events.map((e) => e.version)}::bigint[]) AS e(s, v) GROUP BY s
    ON CONFLICT (stream_id) DO UPDATE SET version = greatest(streams.version, EXCLUDED.version)`;
  return repeats.length + inserted;
}

/** After inserting with explicit positions: new appends continue after the highest one. */
export async function continuePositions(sql: Sql) {
  await sql`
    SELECT setval(pg_get_serial_sequence('events', 'global_position'), max(global_position))
    FROM (SELECT global_position FROM events UNION ALL SELECT global_position FROM price_checks) AS log HAVING count(*) > 0`;
}

const BATCH = 5_000;

/** One line of an export, checked against the catalogue (an unknown type or a malformed event names its line). */
export function parseExportedLine(line: string, lineNo: number): ExportedEvent {
  try {
    const e: ExportedEvent = JSON.parse(line);
    upcastAndValidate(e.type, e.schemaVersion, e.data);
    if (!Number.isInteger(e.position) || !Number.isInteger(e.version) || typeof e.stream !== 'string' || Number.isNaN(Date.parse(e.recordedAt))) {
      throw new Error('position, stream, version and recordedAt are required');
    }
    if (e.repeats !== undefined && (!Number.isInteger(e.repeats) || e.repeats >= e.position || e.type !== 'PriceObserved')) {
      throw new Error('repeats must be the position of an earlier PriceObserved');
    }
    return e;
  } catch (err) {
    throw new Error(`Line ${lineNo}: ${err instanceof Error ? err.message : err}`);
  }
}

const monthOf = (iso: string) => iso.slice(0, 7);

/**
 * Loads an export into an empty log: one file, or several in order (archives, oldest first, then
 * an export of the live log). Every line is checked against the catalogue first. An event that
 * two files hold (an archive and an export of the live log both hold the events the live log
 * keeps) is loaded once. The partitions of the months imported are made before their rows go in.
 * `onProgress` hears the events imported and those left out as already loaded.
 */
export async function importEvents(sql: Sql, lines: AsyncIterable<string>, onProgress?: (done: number, skipped: number) => void): Promise<number> {
  const [{ exists }] = await sql<{ exists: boolean }[]>`SELECT exists(SELECT 1 FROM events) AS exists`;
  if (exists) throw new Error('The event log is not empty: import loads an export into an empty database.');
  let batch: ExportedEvent[] = [];
  let done = 0;
  let skipped = 0;
  let lineNo = 0;
  const months = new Set<string>();
  const flush = async () => {
    const rows = batch;
    batch = [];
    const times = rows.map((e) => new Date(e.recordedAt).toISOString()).sort();
    if (times.some((t) => !months.has(monthOf(t)))) {
      await ensurePartitions(sql, new Date(), { from: new Date(times[0]!), to: new Date(times[times.length - 1]!) });
      for (const t of times) months.add(monthOf(t));
    }
    const inserted = await transaction(sql, (tx) => insertExported(tx, rows));
    done += inserted;
    skipped += rows.length - inserted;
    onProgress?.(done, skipped);
  };
  for await (const line of lines) {
    lineNo++;
    if (!line.trim()) continue;
    const e = parseExportedLine(line, lineNo);
    const previous = batch[batch.length - 1];
    if (batch.length >= BATCH || (previous && e.position <= previous.position)) await flush();
    batch.push(e);
  }
  if (batch.length) await flush();
  await continuePositions(sql);
  return done;
}

/**
 * The lines of export files, one after the other: plain NDJSON or gzip-compressed (an archive),
 * told apart by their first bytes. Line numbers in errors count across the files.
 */
export async function* linesOfFiles(paths: readonly string[]): AsyncIterable<string> {
  for (const path of paths) {
    const handle = await open(path, 'r');
    const magic = Buffer.alloc(2);
    try {
      await handle.read(magic, 0, 2, 0);
    } finally {
      await handle.close();
    }
    const raw = createReadStream(path);
    yield* linesOf(magic[0] === 0x1f && magic[1] === 0x8b ? raw.pipe(createGunzip()) : raw);
  }
}

/** Lines of a text stream (stdin), without holding more than a chunk in memory. */
export async function* linesOf(input: AsyncIterable<Uint8Array | string>): AsyncIterable<string> {
  const decoder = new TextDecoder();
  let rest = '';
  for await (const chunk of input) {
    rest += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    const lines = rest.split('\n');
    rest = lines.pop()!;
    yield* lines;
  }
  rest += decoder.decode();
  if (rest) yield rest;
}

/** Events per type and per day (UTC); repeated checks count apart, as 'PriceObserved (repeat)'. */
export async function eventStats(sql: Sql) {
  const log = sql`(SELECT type, recorded_at FROM events UNION ALL SELECT 'PriceObserved (repeat)', observed_at FROM price_checks)`;
  const byType = await sql<{ type: string; events: number; first: Date; last: Date }[]>`
    SELECT type, count(*)::int AS events, min(recorded_at) AS first, max(recorded_at) AS last
    FROM ${log} AS log GROUP BY type ORDER BY count(*) DESC, type`;
  const byDay = await sql<{ day: string; events: number }[]>`
    SELECT to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS events
    FROM ${log} AS log GROUP BY 1 ORDER BY 1`;
  return { byType, byDay };
}
