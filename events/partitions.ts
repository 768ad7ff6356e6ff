import { transaction, type Sql } from '../db/index.ts';

/**
 * Time partitions of a log table (docs/decisions/0006-time-partitioned-log.md).
 *
 * A log table is partitioned by range of its time column (`events` by `recorded_at`): one partition
 * a month (UTC), created ahead of time by the server and the workers, and a DEFAULT partition, so
 * that an append never fails for lack of a partition. Nothing here knows the events table: another
 * log table is partitioned the same way by passing its name.
 *
 * Partitions are added with CREATE TABLE + ATTACH PARTITION, which takes only a SHARE UPDATE
 * EXCLUSIVE lock on the parent (CREATE TABLE ... PARTITION OF would take ACCESS EXCLUSIVE and stop
 * every append and reader meanwhile). Rows that were waiting in the DEFAULT partition for the new
 * range move into it in the same transaction, keeping every column (positions and transaction ids
 * included), so readers see each of them exactly once.
 */

/** Serialises changes to the shape of the log (its migration, new partitions, archives) across processes. */
export const SCHEMA_LOCK = [1886546275, 0] as const;

/**
 * Months created ahead of the current one. One is enough with an hourly job (a month's slack), and
 * every partition, even an empty one, costs every read of the whole log a little planning and an
 * index descent.
 */
export const MONTHS_AHEAD = 1;

/** A schema change waits this long for a lock, then gives up (and is tried again later): readers must not queue behind it. */
const LOCK_TIMEOUT = '10s';

export type Partition = {
  name: string;
  /** Inclusive; null for MINVALUE. */
  from: Date | null;
  /** Exclusive; null for MAXVALUE. */
  to: Date | null;
  isDefault: boolean;
};

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;
function identifier(name: string): string {
  if (!IDENTIFIER.test(name)) throw new Error(`"${name}" is not a table name this module handles (lower-case letters, digits, _)`);
  return name;
}

/** The partitions of `table`, oldest first, the DEFAULT partition last. */
export async function listPartitions(sql: Sql, table = 'events'): Promise<Partition[]> {
  // PostgreSQL prints the bounds and reads its own print back: no date format to guess here.
  const rows = await sql<{ name: string; is_default: boolean; from: Date | null; to: Date | null }[]>`
    SELECT c.relname AS name, b.bound = 'DEFAULT' AS is_default,
      substring(b.bound FROM 'FROM \\(''([^'']+)''\\)')::timestamptz AS from,
      substring(b.bound FROM 'TO \\(''([^'']+)''\\)')::timestamptz AS to
    FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid,
      LATERAL (SELECT pg_get_expr(c.relpartbound, c.oid) AS bound) b
    WHERE i.inhparent = ${identifier(table)}::regclass AND c.relkind IN ('r', 'p')`;
  return rows
    .map((r) => ({ name: r.name, from: r.is_default ? null : r.from, to: r.is_default ? null : r.to, isDefault: r.is_default }))
    .sort((a, b) => Number(a.isDefault) - Number(b.isDefault) || (a.from?.getTime() ?? -Infinity) - (b.from?.getTime() ?? -Infinity));
}

/** The column a table is partitioned by. */
async function partitionKey(sql: Sql, table: string): Promise<string> {
  const [row] = await sql<{ key: string }[]>`
    SELECT a.attname AS key FROM pg_partitioned_table p JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0]
    WHERE p.partrelid = ${identifier(table)}::regclass`;
  if (!row) throw new Error(`${table} is not a partitioned table`);
  return row.key;
}

export const monthStart = (d: Date) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
export const addMonths = (d: Date, n: number) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 1));

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** `events_2026_11` for a whole month (UTC), else `events_20261125t120000` after the range's start. */
export function partitionName(table: string, from: Date, to: Date): string {
  const month = monthStart(from);
  if (month.getTime() === from.getTime() && addMonths(month, 1).getTime() === to.getTime()) {
    return `${table}_${from.getUTCFullYear()}_${pad(from.getUTCMonth() + 1)}`;
  }
  return (
    `${table}_${from.getUTCFullYear()}${pad(from.getUTCMonth() + 1)}${pad(from.getUTCDate())}t` +
    `${pad(from.getUTCHours())}${pad(from.getUTCMinutes())}${pad(from.getUTCSeconds())}`
  );
}

/** The parts of [from, to) that no partition covers. */
export function uncovered(from: Date, to: Date, partitions: readonly Partition[]): [Date, Date][] {
  let pieces: [number, number][] = [[from.getTime(), to.getTime()]];
  for (const p of partitions) {
    if (p.isDefault) continue;
    const a = p.from?.getTime() ?? -Infinity,
      b = p.to?.getTime() ?? Infinity;
    pieces = pieces.flatMap(([x, y]): [number, number][] => {
      if (b <= x || a >= y) return [[x, y]];
      return [...(a > x ? [[x, a] as [number, number]] : []), ...(b < y ? [[b, y] as [number, number]] : [])];
    });
  }
  return pieces.map(([x, y]) => [new Date(x), new Date(y)]);
}

/**
 * Builds on `partition` (not attached yet) the indexes of `table` that ATTACH would otherwise
 * build, named after them (`events_2026_11_by_commit_order`, where PostgreSQL would choose
 * `events_2026_11_transaction_id_global_position_idx` or `events_2026_11_expr_idx1`): plans name
 * the partitions' indexes, and these say which index they are. ATTACH adopts them. Indexes of
 * constraints (the primary key) are left to ATTACH, which names them `<partition>_pkey`.
 */
export async function buildIndexesLike(tx: Sql, table: string, partition: string): Promise<void> {
  const indexes = await tx<{ name: string; definition: string }[]>`
    SELECT c.relname AS name, pg_get_indexdef(i.indexrelid) AS definition
    FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
    WHERE i.indrelid = ${identifier(table)}::regclass
      AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)`;
  for (const { name, definition } of indexes) {
    const own = (name.startsWith(`${table}_`) ? `${partition}${name.slice(table.length)}` : `${partition}_${name}`).slice(0, 63);
    const sql = definition.replace(/^CREATE (UNIQUE )?INDEX \S+ ON ONLY \S+ /, (_, unique = '') => `CREATE ${unique}INDEX ${own} ON ${identifier(partition)} `);
    if (sql === definition) throw new Error(`Cannot read the definition of index ${name}: ${definition}`);
    await tx.unsafe(sql);
  }
}

/** Adds [from, to) as a partition in `tx`, which holds SCHEMA_LOCK; `partitions` are the table's, as listed in it. */
async function addPartition(tx: Sql, table: string, partitions: readonly Partition[], from: Date, to: Date, name: string): Promise<string> {
  identifier(name);
  if (!(from < to)) throw new Error(`An empty range: ${from.toISOString()} to ${to.toISOString()}`);
  const clash = partitions.find((p) => !p.isDefault && (p.from === null || p.from < to) && (p.to === null || p.to > from));
  if (clash) throw new Error(`${clash.name} already covers part of ${from.toISOString()} to ${to.toISOString()}`);
  const key = await partitionKey(tx, table);
  const fallback = partitions.find((p) => p.isDefault);
  // The parent first, then the default partition, as ATTACH takes them: no lock is upgraded later.
  await tx.unsafe(`LOCK TABLE ${table} IN SHARE UPDATE EXCLUSIVE MODE`);
  if (fallback) await tx.unsafe(`LOCK TABLE ${fallback.name} IN ACCESS EXCLUSIVE MODE`);
  await tx.unsafe(`CREATE TABLE ${name} (LIKE ${table} INCLUDING DEFAULTS)`);
  const [a, b] = [from.toISOString(), to.toISOString()];
  if (fallback) {
    await tx.unsafe(`WITH moved AS (DELETE FROM ${fallback.name} WHERE ${key} >= '${a}' AND ${key} < '${b}' RETURNING *)
                     INSERT INTO ${name} SELECT * FROM moved`);
  }
  await buildIndexesLike(tx, table, name);
  // A constraint that implies the bounds spares ATTACH its scan of the new table.
  await tx.unsafe(`ALTER TABLE ${name} ADD CONSTRAINT ${name}_range CHECK (${key} >= '${a}' AND ${key} < '${b}')`);
  await tx.unsafe(`ALTER TABLE ${table} ATTACH PARTITION ${name} FOR VALUES FROM ('${a}') TO ('${b}')`);
  await tx.unsafe(`ALTER TABLE ${name} DROP CONSTRAINT ${name}_range`);
  return name;
}

/** A transaction that changes the shape of the log: it holds SCHEMA_LOCK and waits at most LOCK_TIMEOUT for any other lock. */
export function schemaTransaction<T>(sql: Sql, fn: (tx: Sql) => Promise<T>): Promise<T> {
  return transaction(sql, async (tx) => {
    await tx.unsafe(`SET LOCAL lock_timeout = '${LOCK_TIMEOUT}'`);
    await tx`SELECT pg_advisory_xact_lock(${SCHEMA_LOCK[0]}, ${SCHEMA_LOCK[1]})`;
    return fn(tx);
  });
}

/**
 * Adds the partition [from, to) to `table` (any range, not only a month), moving the rows of that
 * range out of the DEFAULT partition into it. Refused when a partition covers part of the range.
 */
export function createPartition(sql: Sql, table: string, from: Date, to: Date, name = partitionName(table, from, to)): Promise<string> {
  identifier(table);
  return schemaTransaction(sql, async (tx) => addPartition(tx, table, await listPartitions(tx, table), from, to, name));
}

export type EnsureOptions = {
  table?: string;
  /** Months after the current one; MONTHS_AHEAD by default. */
  ahead?: number;
  /** Also cover the months from `from` to `to` (an import of older events). */
  from?: Date;
  to?: Date;
};

/**
 * Creates the partitions of the current month and the next `ahead` months, of the months between
 * `from` and `to`, and of every month that has rows waiting in the DEFAULT partition (those rows
 * move into it), wherever no partition covers them yet. Answers the partitions created. Safe to
 * run from several processes at once: each month is settled under SCHEMA_LOCK.
 */
export async function ensurePartitions(sql: Sql, now: Date = new Date(), opts: EnsureOptions = {}): Promise<string[]> {
  const table = identifier(opts.table ?? 'events');
  let partitions = await listPartitions(sql, table);
  const months = new Map<number, Date>();
  const add = (from: Date, to: Date) => {
    for (let m = monthStart(from); m <= to; m = addMonths(m, 1)) months.set(m.getTime(), m);
  };
  add(now, addMonths(now, opts.ahead ?? MONTHS_AHEAD));
  if (opts.from) add(opts.from, opts.to ?? opts.from);
  const fallback = partitions.find((p) => p.isDefault);
  if (fallback) {
    const key = await partitionKey(sql, table);
    const waiting = await sql.unsafe<{ month: Date }[]>(
      `SELECT DISTINCT date_trunc('month', ${key} AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS month FROM ${fallback.name}`,
    );
    for (const { month } of waiting) add(month, month);
  }
  const created: string[] = [];
  for (const month of [...months.values()].sort((a, b) => a.getTime() - b.getTime())) {
    const end = addMonths(month, 1);
    if (!uncovered(month, end, partitions).length) continue;
    // Listed again under the lock: another process may have just added it.
    partitions = await schemaTransaction(sql, async (tx) => {
      const current = await listPartitions(tx, table);
      for (const [from, to] of uncovered(month, end, current)) {
        const name = await addPartition(tx, table, current, from, to, partitionName(table, from, to));
        current.push({ name, from, to, isDefault: false });
        created.push(name);
      }
      return current;
    });
  }
  return created;
}

/** A try that failed (it gave way to a busy table, say) is told, and the next one makes them. */
export function reportPartitionFailure(err: unknown): void {
  console.error('event log partitions:', err instanceof Error ? err.message : err);
}
