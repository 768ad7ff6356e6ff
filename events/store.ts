import { transaction, type Sql } from '../db/index.ts';
import { upcastAndValidate, validateForAppend, type DomainEvent, type DomainEventInput } from './catalogue.ts';
import { SCHEMA_LOCK } from './partitions.ts';

/**
 * The append-only event store on PostgreSQL.
 *
 * Global order that is safe for catch-up readers (docs/decisions/0003-commit-safe-read-horizon.md):
 * positions come from a sequence taken before commit, so a lower position can become visible
 * after a reader passed a higher one. Every event carries its writer's transaction id (xid8),
 * and readers order and checkpoint by the pair (transaction_id, global_position).
 *
 * Readers take only rows below a horizon that unfinished appends alone can hold back: every
 * transaction that writes to the log holds the shared advisory lock APPEND_LOCK from before its
 * first write (an append takes it in its own statement; a transaction that writes other tables
 * first opens with appendingTransaction, and one that did not is refused), so the lock table
 * names every append in flight with its transaction id. The horizon is the
 * lowest of those ids, or the snapshot's xmax when there are none; transactions of other
 * applications, databases or forgotten sessions do not hold it back.
 */
const APPEND_LOCK = [1886546275, 1702260340] as const; // two int4 keys: 'pric', 'evnt'

/**
 * The log table: partitioned by month of `recorded_at` (docs/decisions/0006-time-partitioned-log.md;
 * events/partitions.ts creates the months ahead). Positions come from a sequence, not an identity
 * column (PostgreSQL 15 has none on partitioned tables). A unique index on a partitioned table
 * must hold the partition key, so the primary key is (global_position, recorded_at) and the stream
 * index is not unique: stream versions are unique all the same, because every append moves its
 * stream's row in `streams` from the version it expects (a compare-and-set), and two appends
 * cannot both move it from the same version.
 */
const EVENTS_TABLE = `
CREATE SEQUENCE IF NOT EXISTS events_global_position_seq;
CREATE TABLE IF NOT EXISTS events (
  global_position bigint NOT NULL DEFAULT nextval('events_global_position_seq'),
  transaction_id  xid8 NOT NULL DEFAULT pg_current_xact_id(),
  stream_id       text NOT NULL,
  stream_version  bigint NOT NULL,
  type            text NOT NULL,
  schema_version  integer NOT NULL,
  data            jsonb NOT NULL,
  metadata        jsonb NOT NULL DEFAULT '{}',
  recorded_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (global_position, recorded_at)
) PARTITION BY RANGE (recorded_at);
ALTER SEQUENCE events_global_position_seq OWNED BY events.global_position;
CREATE INDEX IF NOT EXISTS events_by_commit_order ON events (transaction_id, global_position);
CREATE INDEX IF NOT EXISTS events_by_stream ON events (stream_id, stream_version);`;

export const EVENT_STORE_DDL = `
SELECT pg_advisory_xact_lock(${SCHEMA_LOCK[0]}, ${SCHEMA_LOCK[1]});
CREATE TABLE IF NOT EXISTS streams (
  stream_id   text PRIMARY KEY,
  version     bigint NOT NULL
);
DROP TRIGGER IF EXISTS streams_append_lock ON streams;
DROP TRIGGER IF EXISTS events_append_lock ON events;
DROP FUNCTION IF EXISTS events_append_lock_trigger();
-- A log from before partitioning (a plain table) becomes the first partition, as it is: it covers
-- everything before the month after its newest event (at least up to the current month). Rows,
-- positions, transaction ids and times stay; the next position follows the last one handed out.
-- Its own indexes are renamed, so that the partitioned indexes of the same definition (here and in
-- the other features' DDL) adopt them instead of building them again.
DO $migrate$
DECLARE
  last_position bigint;
  newest timestamptz;
  bound timestamptz;
  part text;
  r record;
BEGIN
  IF (SELECT relkind FROM pg_class WHERE oid = to_regclass('events')) IS DISTINCT FROM 'r' THEN RETURN; END IF;
  SELECT greatest(pg_sequence_last_value(pg_get_serial_sequence('events', 'global_position')::regclass), max(global_position)), max(recorded_at)
    INTO last_position, newest FROM events;
  bound := greatest(date_trunc('month', now() AT TIME ZONE 'UTC'), date_trunc('month', newest AT TIME ZONE 'UTC') + interval '1 month') AT TIME ZONE 'UTC';
  part := 'events_before_' || to_char(bound AT TIME ZONE 'UTC', 'YYYY_MM');
  -- Repeated checks take their positions from the same sequence: they move to the new one with it.
  IF to_regclass('price_checks') IS NOT NULL THEN ALTER TABLE price_checks ALTER COLUMN global_position DROP DEFAULT; END IF;
  ALTER TABLE events ALTER COLUMN global_position DROP IDENTITY IF EXISTS;
  FOR r IN SELECT conname FROM pg_constraint WHERE conrelid = 'events'::regclass AND contype IN ('p', 'u') LOOP
    EXECUTE format('ALTER TABLE events DROP CONSTRAINT %I', r.conname);
  END LOOP;
  FOR r IN SELECT c.relname FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = 'events'::regclass LOOP
    EXECUTE format('ALTER INDEX %I RENAME TO %I', r.relname,
      left(CASE WHEN starts_with(r.relname, 'events_') THEN part || substr(r.relname, 7) ELSE part || '_' || r.relname END, 63));
  END LOOP;
  ALTER TABLE events RENAME TO events_unpartitioned;
  EXECUTE format('ALTER TABLE events_unpartitioned RENAME TO %I', part);
  EXECUTE format('ALTER TABLE %I ADD CONSTRAINT events_before_partitioning CHECK (recorded_at < %L)', part, bound);
  ${EVENTS_TABLE}
  IF last_position IS NOT NULL THEN PERFORM setval('events_global_position_seq', last_position); END IF;
  IF to_regclass('price_checks') IS NOT NULL THEN
    ALTER TABLE price_checks ALTER COLUMN global_position SET DEFAULT nextval('events_global_position_seq');
  END IF;
  EXECUTE format('ALTER TABLE events ATTACH PARTITION %I FOR VALUES FROM (MINVALUE) TO (%L)', part, bound);
  EXECUTE format('ALTER TABLE %I DROP CONSTRAINT events_before_partitioning', part);
END $migrate$;
${EVENTS_TABLE}
-- Rows no partition takes wait here; ensurePartitions moves them into their month.
CREATE TABLE IF NOT EXISTS events_default PARTITION OF events DEFAULT;
-- Taken by every append before its first write, in the same statement (inlined: no call cost).
CREATE OR REPLACE FUNCTION events_take_append_lock() RETURNS void LANGUAGE sql
  AS $$ SELECT pg_advisory_xact_lock_shared(${APPEND_LOCK[0]}, ${APPEND_LOCK[1]}) $$;
-- For a transaction that appends after other statements: it must take the lock before writing.
CREATE OR REPLACE FUNCTION events_append_lock() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  -- A transaction id taken before the lock could fall below a horizon a reader already used.
  IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
    RAISE EXCEPTION 'a transaction that appends events must take the append lock before its first write'
      USING HINT = 'open it with appendingTransaction';
  END IF;
  PERFORM events_take_append_lock();
  PERFORM pg_current_xact_id(); -- readers find the id beside the lock from now on
END $$;
-- A check that read again exactly what the product's last PriceObserved recorded (same price,
-- text, source, address, availability...) is kept here in about 110 bytes instead of a whole event:
-- the position of that observation, when, and which page version (the first 128 bits of the page's
-- SHA-256). Readers get it back as a PriceObserved (docs/decisions/0007-compact-log.md). Positions
-- and transaction ids come from where the events' do, so both tables read as one log in commit order.
CREATE TABLE IF NOT EXISTS price_checks (
  transaction_id  xid8 NOT NULL DEFAULT pg_current_xact_id(),
  global_position bigint NOT NULL DEFAULT nextval('events_global_position_seq'),
  repeats         bigint NOT NULL,
  observed_at     timestamptz NOT NULL,
  page_hash       uuid NOT NULL
);
-- Appends land at the right end of the index: its pages can be filled up.
CREATE INDEX IF NOT EXISTS price_checks_by_commit_order ON price_checks (transaction_id, global_position) WITH (fillfactor = 100);
`;

/**
 * The horizon: the lowest transaction id of an append in flight in this database, else the
 * snapshot's xmax. The lock table is read after the statement's snapshot was taken, so an append
 * that committed in between got its id below xmax and is visible to the next statement; one that
 * holds the lock but whose id is not in the lock table yet bounds it by the snapshot's xmin.
 * Callers read the log in a later statement (a newer snapshot).
 */
const HORIZON = `
WITH locks AS MATERIALIZED (
  SELECT locktype, database, classid, objid, objsubid, pid, transactionid, mode, granted FROM pg_locks
), appends AS (
  SELECT a.pid, x.transactionid::text::bigint AS xid
  FROM locks a LEFT JOIN locks x ON x.pid = a.pid AND x.locktype = 'transactionid' AND x.mode = 'ExclusiveLock' AND x.granted
  WHERE a.locktype = 'advisory' AND a.classid = ${APPEND_LOCK[0]} AND a.objid = ${APPEND_LOCK[1]} AND a.objsubid = 2
    AND a.database = (SELECT oid FROM pg_database WHERE datname = current_database())
), snapshot AS (
  SELECT pg_snapshot_xmin(s)::text::bigint AS xmin, pg_snapshot_xmax(s)::text::bigint AS xmax FROM pg_current_snapshot() AS s
)
SELECT least(
  snapshot.xmax,
  -- a 32-bit id from the lock table, widened to 64 bits next to xmax
  (SELECT min(snapshot.xmax + (xid - snapshot.xmax % 4294967296 + 6442450944) % 4294967296 - 2147483648) FROM appends WHERE xid IS NOT NULL),
  (SELECT snapshot.xmin FROM appends WHERE xid IS NULL LIMIT 1)
)::text AS horizon FROM snapshot`;

/** Expected version of a stream: a number (0 = must not exist yet), 'no_stream' or 'any'. */
export type ExpectedVersion = number | 'no_stream' | 'any';

export type NewEvent = DomainEventInput & { metadata?: Record<string, unknown> };

export type RecordedEvent<E extends DomainEvent = DomainEvent> = E & {
  position: number;
  transactionId: string;
  streamId: string;
  /** A repeated check (`repeats` set) has no version of its own: it shows the observation's. */
  streamVersion: number;
  /** Set on a PriceObserved kept as a repeat: the position of the observation whose evidence it read again. */
  repeats?: number;
  schemaVersion: number;
  metadata: Record<string, unknown>;
  recordedAt: Date;
};

/** Where a reader stands in the global order: the last (transaction id, position) it has seen. */
export type Checkpoint = { transactionId: string; position: number };
export const START: Checkpoint = { transactionId: '0', position: 0 };

export class ConcurrencyError extends Error {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedVersion,
    readonly actual: number,
  ) {
    super(`Stream ${streamId} was changed by someone else: expected version ${expected}, found ${actual}`);
    this.name = 'ConcurrencyError';
  }
}

export type AppendResult = { nextVersion: number; lastPosition: number; transactionId: string };

type Row = {
  global_position: string;
  transaction_id: string;
  stream_id: string;
  stream_version: string;
  type: string;
  schema_version: number;
  data: unknown;
  metadata: Record<string, unknown>;
  recorded_at: Date;
  /** Repeated checks only: the observation read again, and the page version as a uuid. */
  repeats?: string | null;
  page_hash?: string | null;
};

/** A repeated check as the observation it repeats, at its own time and page version. */
export function repeatedObservation(observation: Record<string, unknown>, observedAt: Date, pageHash: string): Record<string, unknown> {
  return { ...observation, observedAt: observedAt.toISOString(), pageHash: pageHash.replaceAll('-', '') };
}

/** The page version kept for a repeated check: the first 128 bits of the page's SHA-256, as a uuid. */
export function pageHashKey(pageHash: string): string {
  const h = pageHash.slice(0, 32).padEnd(32, '0');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

function toRecorded(row: Row): RecordedEvent {
  const repeated = row.repeats != null;
  const data = repeated ? repeatedObservation(row.data as Record<string, unknown>, row.recorded_at, row.page_hash!) : row.data;
  return {
    type: row.type,
    data: upcastAndValidate(row.type, row.schema_version, data),
    position: Number(row.global_position),
    transactionId: row.transaction_id,
    streamId: row.stream_id,
    streamVersion: Number(row.stream_version),
    ...(repeated ? { repeats: Number(row.repeats) } : {}),
    schemaVersion: row.schema_version,
    metadata: row.metadata,
    recordedAt: row.recorded_at,
  } as RecordedEvent;
}

const COLUMNS = 'global_position, transaction_id::text AS transaction_id, stream_id, stream_version, type, schema_version, data, metadata, recorded_at';
const LOG_COLUMNS = 'global_position, transaction_id, stream_id, stream_version, type, schema_version, data, metadata, recorded_at';
/** The same columns for repeated checks (`c`), read through the observation they repeat (`b`). */
const REPEAT_COLUMNS = `c.global_position, c.transaction_id, b.stream_id, b.stream_version, b.type, b.schema_version, b.data, b.metadata,
  c.observed_at AS recorded_at, c.repeats, c.page_hash`;

/** A check that read again what an earlier observation recorded (see price_checks). */
export type RepeatedCheck = { repeats: number; observedAt: string; pageHash: string };

export type EventStore = ReturnType<typeof createEventStore>;

export type ReadAllOptions = {
  /** Only these event types. */
  types?: readonly string[];
  /** Only events of this stream. */
  streamId?: string;
  /** Only events about this user (every event names its user in `data.userId`). */
  userId?: string;
  /** Only events recorded at or before this moment: the log as it stood then. */
  recordedUpTo?: Date;
  /** Stop at this checkpoint (inclusive). */
  upTo?: Checkpoint;
  tx?: Sql;
};

export function createEventStore(sql: Sql) {
  /**
   * Appends events to one stream in a single statement (one round trip): the stream row is
   * created or moved to its new version only if it stands at the expected version, and the
   * events are inserted from arrays. Zero rows back means someone else got there first.
   * Pass `tx` to append inside a caller's transaction.
   */
  async function append(streamId: string, expected: ExpectedVersion, newEvents: NewEvent[], tx: Sql = sql): Promise<AppendResult> {
    if (newEvents.length === 0) throw new Error('append needs at least one event');
    const n = newEvents.length;
    const types: string[] = [],
      versions: number[] = [],
      datas: string[] = [],
      metas: string[] = [];
    for (const e of newEvents) {
      const v = validateForAppend(e.type, e.data);
      types.push(e.type);
      versions.push(v.schemaVersion);
      datas.push(JSON.stringify(v.data));
      metas.push(JSON.stringify(e.metadata ?? {}));
    }
    // Inside a caller's transaction, the first append checks that nothing was written before it.
    if (tx !== sql) await takeAppendLock(tx);
    const moveStream =
      expected === 'any'
        ? tx`INSERT INTO streams (stream_id, version) SELECT ${streamId}, ${n} FROM lock
             ON CONFLICT (stream_id) DO UPDATE SET version = streams.version + ${n} RETURNING version`
        : expected === 'no_stream' || expected === 0
          ? tx`INSERT INTO streams (stream_id, version) SELECT ${streamId}, ${n} FROM lock
               ON CONFLICT (stream_id) DO NOTHING RETURNING version`
          : tx`UPDATE streams SET version = version + ${n} FROM lock
               WHERE stream_id = ${streamId} AND version = ${expected} RETURNING version`;
    // The append lock is taken before the stream row is written, which gives the transaction its id.
    const rows = await tx<{ position: string; version: string; tx: string }[]>`
      WITH lock AS MATERIALIZED (SELECT events_take_append_lock()), moved AS (${moveStream})
      INSERT INTO events (stream_id, stream_version, type, schema_version, data, metadata)
      SELECT ${streamId}, moved.version - ${n} + e.ord, e.type, e.schema_version, e.data::jsonb, e.metadata::jsonb
      FROM moved, unnest(${types}::text[], ${versions}::int[], ${datas}::text[], ${metas}::text[])
        WITH ORDINALITY AS e(type, schema_version, data, metadata, ord)
      RETURNING global_position AS position, stream_version AS version, transaction_id::text AS tx`;
    if (rows.length === 0) {
      const [current] = await tx<{ version: string }[]>`SELECT version FROM streams WHERE stream_id = ${streamId}`;
      throw new ConcurrencyError(streamId, expected, current ? Number(current.version) : 0);
    }
    const last = rows[rows.length - 1]!;
    return { nextVersion: Number(last.version), lastPosition: Number(last.position), transactionId: last.tx };
  }

  /**
   * Appends to many streams in one statement, all or nothing: each stream must stand at its
   * expected version (a number, 0 or 'no_stream' for a new stream), else ConcurrencyError and
   * nothing is written. In a caller's transaction (`tx`), like `append`. Events are inserted in
   * the order given, so a batch of new products reads back in that order. Answers the checkpoint
   * of the last event, for waiting on the read models.
   */
  async function appendToStreams(batch: { streamId: string; expected: number | 'no_stream'; events: NewEvent[] }[], tx: Sql): Promise<Checkpoint> {
    if (batch.length === 0 || batch.some((b) => b.events.length === 0)) throw new Error('appendToStreams needs at least one event per stream');
    if (new Set(batch.map((b) => b.streamId)).size !== batch.length) throw new Error('appendToStreams takes each stream once');
    const streamIds: string[] = [],
      types: string[] = [],
      versions: number[] = [],
      datas: string[] = [],
      metas: string[] = [];
    for (const { streamId, events } of batch) {
      for (const e of events) {
        const v = validateForAppend(e.type, e.data);
        streamIds.push(streamId);
        types.push(e.type);
        versions.push(v.schemaVersion);
        datas.push(JSON.stringify(v.data));
        metas.push(JSON.stringify(e.metadata ?? {}));
      }
    }
    const expected = batch.map((b) => (b.expected === 'no_stream' ? 0 : b.expected));
    if (tx !== sql) await takeAppendLock(tx);
    // New streams are inserted, existing ones moved only from their expected version; a stream
    // that did not move leaves its events out, and the count below tells.
    const rows = await tx<{ stream_id: string; position: string; tx: string }[]>`
      WITH lock AS MATERIALIZED (SELECT events_take_append_lock()),
      wanted AS (
        SELECT w.stream_id, w.expected, count(*) AS n FROM unnest(${batch.map((b) => b.streamId)}::text[], ${expected}::bigint[]) AS w(stream_id, expected)
        JOIN unnest(${streamIds}::text[]) AS e(stream_id) ON e.stream_id = w.stream_id GROUP BY w.stream_id, w.expected
      ),
      created AS (
        INSERT INTO streams (stream_id, version) SELECT stream_id, n FROM wanted, lock WHERE expected = 0
        ON CONFLICT (stream_id) DO NOTHING RETURNING stream_id, version
      ),
      updated AS (
        UPDATE streams s SET version = s.version + w.n FROM wanted w, lock
        WHERE w.expected > 0 AND s.stream_id = w.stream_id AND s.version = w.expected RETURNING s.stream_id, s.version
      ),
      moved AS (SELECT * FROM created UNION ALL SELECT * FROM updated),
      input AS (
        SELECT e.*, row_number() OVER (PARTITION BY e.stream_id ORDER BY e.ord) AS nth, count(*) OVER (PARTITION BY e.stream_id) AS n
        FROM unnest(${streamIds}::text[], ${types}::text[], ${versions}::int[], ${datas}::text[], ${metas}::text[])
          WITH ORDINALITY AS e(stream_id, type, schema_version, data, metadata, ord)
      )
      INSERT INTO events (stream_id, stream_version, type, schema_version, data, metadata)
      SELECT i.stream_id, moved.version - i.n + i.nth, i.type, i.schema_version, i.data::jsonb, i.metadata::jsonb
      FROM input i JOIN moved ON moved.stream_id = i.stream_id
      ORDER BY i.ord
      RETURNING stream_id, global_position AS position, transaction_id::text AS tx`;
    if (rows.length !== types.length) {
      const written = new Set(rows.map((r) => r.stream_id));
      const stale = batch.find((b) => !written.has(b.streamId))!;
      const [current] = await tx<{ version: string }[]>`SELECT version FROM streams WHERE stream_id = ${stale.streamId}`;
      throw new ConcurrencyError(stale.streamId, stale.expected, current ? Number(current.version) : 0);
    }
    const last = rows.reduce((a, b) => (Number(b.position) > Number(a.position) ? b : a));
    return { transactionId: last.tx, position: Number(last.position) };
  }

  /** All events of one stream in order, with the stream's version (0 when it does not exist). */
  async function readStream(streamId: string, tx: Sql = sql): Promise<{ version: number; events: RecordedEvent[] }> {
    const rows = await tx.unsafe<Row[]>(`SELECT ${COLUMNS} FROM events WHERE stream_id = $1 ORDER BY stream_version`, [streamId]);
    const events = rows.map(toRecorded);
    return { version: events.length ? events[events.length - 1]!.streamVersion : 0, events };
  }

  /** The transaction id below which every event of the log is committed and visible from now on. */
  async function horizon(db: Sql): Promise<string> {
    const [row] = await db.unsafe<{ horizon: string }[]>(HORIZON);
    return row!.horizon;
  }

  /**
   * Events after a checkpoint in commit-safe global order: only events of transactions below the
   * horizon, so nothing can later appear behind the returned ones. With `upTo` (a checkpoint
   * from `head`, which is below the horizon already) the horizon is not looked up again.
   */
  async function readAll(after: Checkpoint = START, limit = 1000, opts: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const db = opts.tx ?? sql;
    const params: unknown[] = [after.transactionId, after.position, limit];
    const param = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    // The same filters for events (e) and for repeated checks (c), read through the observation they repeat (b).
    const where = (e: string, b: string) => {
      let filters = `(${e}.transaction_id, ${e}.global_position) > ($1::xid8, $2::bigint)`;
      if (opts.streamId) filters += ` AND ${b}.stream_id = ${param(opts.streamId)}`;
      if (opts.userId) filters += ` AND ${b}.data->>'userId' = ${param(opts.userId)}`;
      if (opts.recordedUpTo) filters += ` AND ${e === b ? 'recorded_at' : `${e}.observed_at`} <= ${param(opts.recordedUpTo)}`;
      filters += opts.upTo
        ? ` AND (${e}.transaction_id, ${e}.global_position) <= (${param(opts.upTo.transactionId)}::xid8, ${param(opts.upTo.position)}::bigint)`
        : ` AND ${e}.transaction_id < ${horizonParam}::xid8`;
      return filters;
    };
    const horizonParam = opts.upTo ? '' : param(await horizon(db));
    const events = `SELECT ${LOG_COLUMNS}, NULL::bigint AS repeats, NULL::uuid AS page_hash
      FROM events e WHERE ${where('e', 'e')}${opts.types ? ` AND type = ANY(${param(opts.types)}::text[])` : ''}
      ORDER BY e.transaction_id, e.global_position LIMIT $3`;
    const repeats =
      !opts.types || opts.types.includes('PriceObserved')
        ? `
      UNION ALL (SELECT ${REPEAT_COLUMNS} FROM price_checks c JOIN events b ON b.global_position = c.repeats
        WHERE ${where('c', 'b')} ORDER BY c.transaction_id, c.global_position LIMIT $3)`
        : '';
    const rows = await db.unsafe<Row[]>(
      `
      SELECT global_position, transaction_id::text AS transaction_id, stream_id, stream_version, type, schema_version, data, metadata, recorded_at, repeats, page_hash
      FROM ((${events})${repeats}) AS log ORDER BY log.transaction_id, log.global_position LIMIT $3`,
      params as any[],
    );
    return rows.map(toRecorded);
  }

  /** The last event a reader may safely see now (commit-safe order), or START for an empty log. */
  async function head(tx: Sql = sql): Promise<Checkpoint> {
    const below = await horizon(tx);
    const [row] = await tx<{ transaction_id: string; position: string }[]>`
      SELECT transaction_id::text, position FROM (
        (SELECT transaction_id, global_position AS position FROM events WHERE transaction_id < ${below}::xid8
         ORDER BY transaction_id DESC, global_position DESC LIMIT 1)
        UNION ALL
        (SELECT transaction_id, global_position FROM price_checks WHERE transaction_id < ${below}::xid8
         ORDER BY transaction_id DESC, global_position DESC LIMIT 1)) AS last
      ORDER BY last.transaction_id DESC, last.position DESC LIMIT 1`; // by the xid8s, not their text (999 < 1000)
    return row ? { transactionId: row.transaction_id, position: Number(row.position) } : START;
  }

  /**
   * Records checks that read again exactly what an earlier PriceObserved recorded, in a caller's
   * appending transaction: one small row each instead of an event (see price_checks). Answers the
   * checkpoint of the last one.
   */
  async function appendRepeats(checks: readonly RepeatedCheck[], tx: Sql): Promise<Checkpoint | null> {
    if (!checks.length) return null;
    await takeAppendLock(tx);
    const rows = await tx<{ position: string; tx: string }[]>`
      INSERT INTO price_checks (repeats, observed_at, page_hash)
      SELECT * FROM unnest(${checks.map((c) => c.repeats)}::bigint[], ${checks.map((c) => c.observedAt)}::timestamptz[],
        ${checks.map((c) => pageHashKey(c.pageHash))}::uuid[])
      RETURNING global_position AS position, transaction_id::text AS tx`;
    const last = rows.reduce((a, b) => (Number(b.position) > Number(a.position) ? b : a));
    return { transactionId: last.tx, position: Number(last.position) };
  }

  return { sql, append, appendToStreams, appendRepeats, readStream, readAll, head };
}

/** Transactions that took (or are taking) the append lock. */
const appendLocks = new WeakMap<Sql, Promise<unknown>>();

/**
 * Takes the append lock in a transaction that has not written anything yet, and gives it its
 * transaction id; refused (an error) when it already wrote. Appends in a caller's transaction
 * call it themselves (once per transaction); one that writes other tables before appending
 * calls it first.
 */
export function takeAppendLock(tx: Sql): Promise<unknown> {
  let taken = appendLocks.get(tx);
  if (!taken) appendLocks.set(tx, (taken = tx`SELECT events_append_lock()`));
  return taken;
}

/** A transaction that may append events after other writes: it takes the append lock first. */
export function appendingTransaction<T>(sql: Sql, fn: (tx: Sql) => Promise<T>): Promise<T> {
  return transaction(sql, async (tx) => {
    await takeAppendLock(tx);
    return fn(tx);
  });
}

export function checkpointOf(e: { transactionId: string; position: number }): Checkpoint {
  return { transactionId: e.transactionId, position: e.position };
}

/** Where an append's last event stands, to wait for the read models on; null when nothing was appended. */
export const appendedCheckpoint = (a: AppendResult | null): Checkpoint | null => a && { transactionId: a.transactionId, position: a.lastPosition };

/** Whether checkpoint a has reached b in commit order. */
export function reached(a: Checkpoint, b: Checkpoint): boolean {
  const ta = BigInt(a.transactionId),
    tb = BigInt(b.transactionId);
  return ta > tb || (ta === tb && a.position >= b.position);
}
