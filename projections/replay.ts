import { transaction, type Sql } from '../db/index.ts';
import { START, checkpointOf, type Checkpoint, type EventStore } from '../events/store.ts';
import type { Projection } from './projection.ts';

/**
 * Large batches while replaying: a rebuild runs in one transaction, where every rewrite of a row
 * (a product's current price, a user's read version) leaves a version that cannot be cleaned up
 * before commit, and lookups walk them all. Fewer, larger batches rewrite each row fewer times.
 */
const BATCH = 50_000;

export function chooseProjections(projections: readonly Projection[], names?: readonly string[]): readonly Projection[] {
  const unknown = names?.filter((n) => !projections.some((p) => p.name === n)) ?? [];
  if (unknown.length) throw new Error(`Unknown projection: ${unknown.join(', ')}. Known: ${projections.map((p) => p.name).join(', ')}`);
  return names?.length ? projections.filter((p) => names.includes(p.name)) : projections;
}

export type Progress = (done: number, total: number) => void;

/**
 * Applies the log from its start up to `upTo` (and only events recorded by `asOf`) to empty read
 * models, in `tx`. The log is read once: each batch goes to every projection that handles some
 * of it. Returns the number of events read.
 */
export async function replay(
  store: EventStore,
  tx: Sql,
  projections: readonly Projection[],
  opts: { upTo: Checkpoint; asOf?: Date; onProgress?: Progress },
): Promise<{ done: number; applied: Map<string, number> }> {
  const types = [...new Set(projections.flatMap((p) => p.handles))];
  const { upTo, asOf } = opts;
  const [{ total }] = await tx<{ total: number }[]>`
    SELECT count(*)::int AS total FROM events
    WHERE type = ANY(${types}::text[]) AND (transaction_id, global_position) <= (${upTo.transactionId}::xid8, ${upTo.position}::bigint)
      ${asOf ? tx`AND recorded_at <= ${asOf}` : tx``}`;
  const applied = new Map(projections.map((p) => [p.name, 0]));
  const read = (after: Checkpoint) => {
    const batch = store.readAll(after, BATCH, { types, upTo, recordedUpTo: asOf, tx });
    batch.catch(() => {}); // awaited below; a failed apply must not leave it unhandled
    return batch;
  };
  let done = 0;
  opts.onProgress?.(0, total);
  let next = read(START);
  for (;;) {
    const batch = await next;
    if (!batch.length) break;
    const more = batch.length === BATCH;
    // The next batch is read (and checked against the catalogue) while the database applies this one.
    if (more) next = read(checkpointOf(batch[batch.length - 1]!));
    for (const p of projections) {
      const mine = batch.filter((e) => p.handles.includes(e.type));
      if (!mine.length) continue;
      await p.apply(tx, mine);
      applied.set(p.name, applied.get(p.name)! + mine.length);
    }
    done += batch.length;
    opts.onProgress?.(done, total);
    if (!more) break;
  }
  return { done, applied };
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const RESERVED = new Set(['public', 'information_schema']);

export type RebuildIntoOptions = {
  /** Schema to build into; created if missing. Never the live one. */
  schema: string;
  /** Only events recorded at or before this moment: the read models as they stood then. */
  asOf?: Date;
  /** Projection names; all when empty. */
  names?: readonly string[];
  onProgress?: Progress;
};

/**
 * Builds read models from zero into a separate schema, optionally from the log as it stood at
 * a past moment, so analysts can query the past beside the present. Each projection's own DDL
 * and handler run with the search path set to that schema (the log is still found in public);
 * the live tables and their checkpoints are never touched. One transaction: the schema shows the
 * previous build until the new one is complete. A `replay_info` table records what was built.
 */
export async function rebuildInto(store: EventStore, projections: readonly Projection[], opts: RebuildIntoOptions): Promise<number> {
  const { schema, asOf } = opts;
  if (!SCHEMA_NAME.test(schema) || RESERVED.has(schema) || schema.startsWith('pg_')) {
    throw new Error(`"${schema}" cannot be used: pick a new lower-case schema name (letters, digits, _), not public.`);
  }
  const chosen = chooseProjections(projections, opts.names);
  const sql = store.sql;
  await sql`ANALYZE events`;
  return transaction(sql, async (tx) => {
    await tx.unsafe(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    const [clash] = await tx<{ name: string }[]>`
      SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ${schema} AND table_name IN ('events', 'streams')`;
    if (clash) throw new Error(`Schema ${schema} has a table named ${clash.name}; it would hide the event log.`);
    await tx.unsafe(`SET LOCAL search_path TO ${schema}, public`);
    await tx.unsafe(`
      CREATE TABLE IF NOT EXISTS replay_info (
        projection text PRIMARY KEY, as_of timestamptz, head_position bigint NOT NULL, events integer NOT NULL, built_at timestamptz NOT NULL
      )`);
    for (const p of chosen) {
      await tx.unsafe(p.ddl);
      await tx.unsafe(`TRUNCATE ${p.tables.join(', ')}`);
    }
    const head = await store.head(tx);
    const { done, applied } = await replay(store, tx, chosen, { upTo: head, asOf, onProgress: opts.onProgress });
    const info = chosen.map((p) => ({
      projection: p.name,
      as_of: asOf ?? null,
      head_position: head.position,
      events: applied.get(p.name)!,
      built_at: new Date(),
    }));
    await tx`INSERT INTO replay_info ${tx(info)} ON CONFLICT (projection) DO UPDATE SET
      as_of = EXCLUDED.as_of, head_position = EXCLUDED.head_position, events = EXCLUDED.events, built_at = EXCLUDED.built_at`;
    return done;
  });
}
