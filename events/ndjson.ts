import { transaction, type Sql } from '../api/db.ts';
import { upcastAndValidate } from './catalogue.ts';
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
 */
export async function exportEvents(sql: Sql, sink: Sink, filter: ExportFilter = {}, opts: { pageSize?: number } = {}): Promise<number> {
  const head = await createEventStore(sql).head();
  if (head.position === 0) return 0;
  const params: unknown[] = [];
  const param = (value: unknown) => { params.push(value); return `$${params.length + 5}`; };
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
    FROM events e WHERE ${where('e', 'e', 'e.recorded_at')}${filter.types?.length ? ` AND type = ANY(${param(filter.types)}::text[])` : ''}
    ORDER BY e.transaction_id, e.global_position LIMIT $5`;
  // A repeated check is written whole, as readers see it, with the position of the observation it repeats.
  const repeats = !filter.types?.length || filter.types.includes('PriceObserved') ? `
    UNION ALL (SELECT c.transaction_id, c.global_position, ${line('c.global_position', 'c.observed_at',
      `(b.data || jsonb_build_object('observedAt', to_char(c.observed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'pageHash', replace(c.page_hash::text, '-', '')))`,
      ` || ',"repeats":' || c.repeats`)} AS line
    FROM price_checks c JOIN events b ON b.global_position = c.repeats WHERE ${where('c', 'b', 'c.observed_at')}
    ORDER BY c.transaction_id, c.global_position LIMIT $5)` : '';
  const query = `SELECT transaction_id::text AS tx, global_position AS position, line FROM ((${events})${repeats}) AS log
    ORDER BY log.transaction_id, log.global_position LIMIT $5`;
  const limit = opts.pageSize ?? PAGE;
  let after: Checkpoint = START;
  let total = 0;
  for (;;) {
    const rows = await sql.unsafe<{ tx: string; position: string; line: string }[]>(
      query, [after.transactionId, after.position, head.transactionId, head.position, limit, ...params] as any[]);
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
  position: number; stream: string; version: number; type: string; schemaVersion: number;
  data: unknown; metadata?: Record<string, unknown>; recordedAt: string; repeats?: number;
};

/**
 * Inserts exported events as they were: same positions, stream versions, schema versions, data
 * and times. Rows go in one transaction per run of ascending positions, so the new log's commit
 * order (transaction id, position) is the file's order even where the original's was not the
 * order of positions. Streams get the highest version imported.
 */
export async function insertExported(tx: Sql, exported: readonly ExportedEvent[]) {
  const repeats = exported.filter((e) => e.repeats !== undefined);
  if (repeats.length) {
    await tx`
      INSERT INTO price_checks (global_position, repeats, observed_at, page_hash)
      SELECT * FROM unnest(${repeats.map((e) => e.position)}::bigint[], ${repeats.map((e) => e.repeats!)}::bigint[],
        ${repeats.map((e) => (e.data as { observedAt: string }).observedAt)}::timestamptz[],
        ${repeats.map((e) => pageHashKey((e.data as { pageHash: string }).pageHash))}::uuid[]) ORDER BY 1`;
  }
  const events = repeats.length ? exported.filter((e) => e.repeats === undefined) : exported;
  if (!events.length) return;
  // Times go as text: a client-side Date would drop their microseconds.
  await tx`
    INSERT INTO events (global_position, stream_id, stream_version, type, schema_version, data, metadata, recorded_at)
    OVERRIDING SYSTEM VALUE
    SELECT p, s, v, t, sv, d::jsonb, m::jsonb, r::timestamptz
    FROM unnest(${events.map((e) => e.position)}::bigint[], ${events.map((e) => e.stream)}::text[], ${events.map((e) => e.version)}::bigint[],
                ${events.map((e) => e.type)}::text[], ${events.map((e) => e.schemaVersion)}::int[],
                ${events.map((e) => JSON.stringify(e.data))}::text[], ${events.map((e) => JSON.stringify(e.metadata ?? {}))}::text[],
                ${events.map((e) => e.recordedAt)}::text[]) AS e(p, s, v, t, sv, d, m, r)
    ORDER BY p`;
  await tx`
    INSERT INTO streams (stream_id, version)
    SELECT s, max(v) FROM unnest(${events.map((e) => e.stream)}::text[], ${events.map((e) => e.version)}::bigint[]) AS e(s, v) GROUP BY s
    ON CONFLICT (stream_id) DO UPDATE SET version = greatest(streams.version, EXCLUDED.version)`;
}

/** After inserting with explicit positions: new appends continue after the highest one. */
export async function continuePositions(sql: Sql) {
  await sql`
    SELECT setval(pg_get_serial_sequence('events', 'global_position'), max(global_position))
    FROM (SELECT global_position FROM events UNION ALL SELECT global_position FROM price_checks) AS log HAVING count(*) > 0`;
}

const BATCH = 5_000;

/**
 * Loads an export into an empty log. Every line is checked against the catalogue first (an
 * unknown type or a malformed event stops the import, naming its line).
 */
export async function importEvents(sql: Sql, lines: AsyncIterable<string>, onProgress?: (done: number) => void): Promise<number> {
  const [{ exists }] = await sql<{ exists: boolean }[]>`SELECT exists(SELECT 1 FROM events) AS exists`;
  if (exists) throw new Error('The event log is not empty: import loads an export into an empty database.');
  let batch: ExportedEvent[] = [];
  let done = 0;
  let lineNo = 0;
  const flush = async () => {
    const rows = batch;
    batch = [];
    await transaction(sql, (tx) => insertExported(tx, rows));
    done += rows.length;
    onProgress?.(done);
  };
  for await (const line of lines) {
    lineNo++;
    if (!line.trim()) continue;
    let e: ExportedEvent;
    try {
      e = JSON.parse(line);
      upcastAndValidate(e.type, e.schemaVersion, e.data);
      if (!Number.isInteger(e.position) || !Number.isInteger(e.version) || typeof e.stream !== 'string' || Number.isNaN(Date.parse(e.recordedAt))) {
        throw new Error('position, stream, version and recordedAt are required');
      }
      if (e.repeats !== undefined && (!Number.isInteger(e.repeats) || e.repeats >= e.position || e.type !== 'PriceObserved')) {
        throw new Error('repeats must be the position of an earlier PriceObserved');
      }
    } catch (err) {
      throw new Error(`Line ${lineNo}: ${err instanceof Error ? err.message : err}`);
    }
    const previous = batch[batch.length - 1];
    if (batch.length >= BATCH || (previous && e.position <= previous.position)) await flush();
    batch.push(e);
  }
  if (batch.length) await flush();
  await continuePositions(sql);
  return done;
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
