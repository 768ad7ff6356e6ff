import type { AppContext } from '../context.ts';
import type { Sql } from '../../db/index.ts';
import { handleCommand, handleCommandsOnStreams } from '../../events/decider.ts';
import { appendedCheckpoint, type Checkpoint } from '../../events/store.ts';
import { ownProductDecider, ownProductIdFor, ownProductStream, type OwnItem, type OwnProductCommand } from '../../events/own-product.ts';
import { sourceDecider, sourceStream, type SourceKind } from '../../events/catalogue-source.ts';
import { effectivePlan, withUserProducts } from '../products/limit.ts';
import { readSettings } from '../settings/routes.ts';
import { fetchOptionsFor } from '../checks/check.ts';
import { sharedFetcher, type Fetcher } from '../fetching/fetcher.ts';
import { watchingBlocks } from '../fetching/host-backoff.ts';
import { readSource, type SourceRead } from './sources/read-source.ts';
import type { Skipped } from './sources/item.ts';
import { ownLimitReason, ownProductRoom } from './limit.ts';
import { userCheckMinutes } from './read-model.ts';

/** Own products are appended this many streams per statement: big enough to be quick, small enough for PGlite. */
const APPEND_BATCH = 500;
/** Importing thousands of own products can take longer than the usual wait for the read models. */
export const PROJECTION_WAIT_MS = 60_000;

/** An item to bring in: from a store (its id there) or a CSV row (its SKU); stores do not publish costs. */
export type IncomingItem = Omit<OwnItem, 'cost'> & { cost?: number | null; externalId: string };
export type ApplyOutcome = { imported: number; changed: number; removed: number; skipped: Skipped[]; checkpoint: Checkpoint | null };

/** Which of these own products are live now, from the log (the source of truth under the lock). */
export async function liveIds(tx: Sql, ids: readonly string[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const rows = await tx<{ stream_id: string; type: string }[]>`
    SELECT DISTINCT ON (stream_id) stream_id, type FROM events
    WHERE stream_id = ANY(${ids.map(ownProductStream)}::text[]) AND type IN ('OwnProductImported', 'OwnProductRemoved')
    ORDER BY stream_id, stream_version DESC`;
  return new Set(rows.filter((r) => r.type === 'OwnProductImported').map((r) => r.stream_id.slice('own-product-'.length)));
}

/**
 * Brings items into the owner's catalogue, inside the caller's `withUserProducts` transaction:
 * new ones are imported while the plan has room (the rest are skipped with the reason), known
 * ones record what changed, and with `removeMissing` (a store's read) own products the source no
 * longer lists are removed. `partial: false` refuses the whole lot instead when it does not fit.
 */
export async function applyItems(
  ctx: AppContext,
  tx: Sql,
  args: { userId: string; sourceId: string | null; items: readonly IncomingItem[]; removeMissing: boolean; at: string; metadata?: Record<string, unknown> },
): Promise<ApplyOutcome> {
  const { userId, sourceId, at } = args;
  const skipped: Skipped[] = [];
  const seen = new Map<string, IncomingItem>();
  for (const item of args.items) {
    if (seen.has(item.externalId)) skipped.push({ id: item.externalId, reason: 'Listed more than once; the first is kept.' });
    else seen.set(item.externalId, item);
  }
  const ids = new Map([...seen.keys()].map((externalId) => [externalId, ownProductIdFor(userId, sourceId, externalId)]));
  const live = await liveIds(tx, [...ids.values()]);
  const plan = await effectivePlan(tx, userId);
  let room = await ownProductRoom(tx, userId, plan);

  const commands: OwnProductCommand[] = [];
  for (const [externalId, item] of seen) {
    const ownProductId = ids.get(externalId)!;
    if (!live.has(ownProductId)) {
      if (room <= 0) {
        skipped.push({ id: externalId, reason: ownLimitReason(plan) });
        continue;
      }
      room--;
    }
    const { externalId: _, cost = null, ...details } = item;
    commands.push({ type: 'Import', ownProductId, userId, sourceId, externalId, item: { ...details, cost }, at });
  }
  if (args.removeMissing && sourceId) {
    const kept = new Set(ids.values());
    const listed = await tx<{ id: string }[]>`SELECT id FROM own_products WHERE source_id = ${sourceId}`;
    const candidates = listed.map((r) => r.id).filter((id) => !kept.has(id));
    // The read model may lag behind the log: only what is live there is removed.
    for (const id of await liveIds(tx, candidates)) commands.push({ type: 'Remove', ownProductId: id, userId });
  }

  let checkpoint: Checkpoint | null = null;
  const counts = { imported: 0, changed: new Set<string>(), removed: 0 };
  for (let i = 0; i < commands.length; i += APPEND_BATCH) {
    const batch = commands.slice(i, i + APPEND_BATCH);
    const result = await handleCommandsOnStreams(ctx.store, ownProductDecider, (c) => ownProductStream(c.ownProductId), batch, tx, args.metadata);
    checkpoint = result.checkpoint ?? checkpoint;
    for (const e of result.events) {
      if (e.type === 'OwnProductImported') counts.imported++;
      else if (e.type === 'OwnProductRemoved') counts.removed++;
      else counts.changed.add(e.data.ownProductId);
    }
  }
  return { imported: counts.imported, changed: counts.changed.size, removed: counts.removed, skipped, checkpoint };
}

export type SourceRow = { id: string; user_id: string; kind: SourceKind; url: string };

/** Reads a store with the fetcher, guard and politeness of price checks. */
export async function readStore(ctx: AppContext, userId: string, kind: SourceKind, url: string, fetcher: Fetcher = sharedFetcher): Promise<SourceRead> {
  const { currency } = await readSettings(ctx.sql, userId);
  return readSource(kind, url, { fetcher: watchingBlocks(ctx.sql, fetcher), fetchOptions: fetchOptionsFor(ctx.config, url), fallbackCurrency: currency });
}

/**
 * Inside the caller's `withUserProducts` transaction: brings a store's items in (applyItems) and
 * records the read on the source. `skipped`: what the reader left out already.
 */
export async function applyRead(
  ctx: AppContext,
  tx: Sql,
  args: {
    userId: string;
    sourceId: string;
    items: readonly IncomingItem[];
    skipped?: readonly Skipped[];
    removeMissing: boolean;
    at: string;
    metadata?: Record<string, unknown>;
  },
): Promise<ApplyOutcome> {
  const applied = await applyItems(ctx, tx, args);
  const skipped = [...(args.skipped ?? []), ...applied.skipped];
  const counts = { imported: applied.imported, changed: applied.changed, removed: applied.removed, skipped: skipped.length, at: args.at };
  const { appended } = await handleCommand(
    ctx.store,
    sourceStream(args.sourceId),
    sourceDecider,
    { type: 'RecordSync', sourceId: args.sourceId, counts },
    { tx },
  );
  return { ...applied, skipped, checkpoint: appendedCheckpoint(appended) ?? applied.checkpoint };
}

/** Records a read of a connected store: its items, or why it failed. Answers what changed. */
export async function recordRead(ctx: AppContext, source: SourceRow, read: SourceRead, at = new Date().toISOString()): Promise<ApplyOutcome | null> {
  const outcome = await withUserProducts(ctx.sql, source.user_id, async (tx) => {
    if (!read.ok) {
      const failure = { code: read.code, reason: read.reason, httpStatus: read.httpStatus, at };
      const command = { type: 'RecordFailure' as const, sourceId: source.id, failure };
      const { appended } = await handleCommand(ctx.store, sourceStream(source.id), sourceDecider, command, { tx });
      return { outcome: null, checkpoint: appendedCheckpoint(appended) };
    }
    const applied = await applyRead(ctx, tx, {
      userId: source.user_id,
      sourceId: source.id,
      items: read.items,
      skipped: read.skipped,
      removeMissing: true,
      at,
    });
    // An unchanged read records no event, yet it tells an applied price that the store still shows another.
    await tx`
      INSERT INTO catalogue_source_schedule (source_id, user_id, next_sync_at, read_at) VALUES (${source.id}, ${source.user_id}, ${at}, ${at})
      ON CONFLICT (source_id) DO UPDATE SET read_at = EXCLUDED.read_at`;
    return { outcome: applied, checkpoint: applied.checkpoint };
  });
  if (outcome.checkpoint) await ctx.projections.waitFor(outcome.checkpoint, PROJECTION_WAIT_MS);
  return outcome.outcome;
}

/** Reads a connected store again ("Sync now", and the schedule), and plans its next read. */
export async function syncSource(ctx: AppContext, source: SourceRow, fetcher?: Fetcher): Promise<{ read: SourceRead; outcome: ApplyOutcome | null }> {
  const read = await readStore(ctx, source.user_id, source.kind, source.url, fetcher);
  const outcome = await recordRead(ctx, source, read);
  await scheduleNextSync(ctx, source);
  return { read, outcome };
}

/** Operational state, outside the log: when each connected store is read next. */
export const SYNC_SCHEDULE_DDL = `
  CREATE TABLE IF NOT EXISTS catalogue_source_schedule (
    source_id     text PRIMARY KEY,
    user_id       text NOT NULL,
    next_sync_at  timestamptz NOT NULL,
    running_until timestamptz
  );
  -- When it was last read successfully, changed or not.
  ALTER TABLE catalogue_source_schedule ADD COLUMN IF NOT EXISTS read_at timestamptz;
  CREATE INDEX IF NOT EXISTS catalogue_source_schedule_due ON catalogue_source_schedule (next_sync_at);`;

/** A store is read on its owner's check schedule: the plan's interval, or the slower one the owner chose. */
export async function scheduleNextSync(ctx: AppContext, source: Pick<SourceRow, 'id' | 'user_id'>): Promise<void> {
  const minutes = await userCheckMinutes(ctx.sql, ctx.config, source.user_id);
  const next = new Date(Date.now() + minutes * 60_000);
  await ctx.sql`
    INSERT INTO catalogue_source_schedule (source_id, user_id, next_sync_at) VALUES (${source.id}, ${source.user_id}, ${next})
    ON CONFLICT (source_id) DO UPDATE SET next_sync_at = EXCLUDED.next_sync_at, running_until = NULL`;
}

/** A read that takes longer than this is taken over by the next run. */
const SYNC_LEASE_MINUTES = 15;

/** The scheduled reads that are due, a few at a time; several servers never read one store at once. */
export async function syncDueSources(ctx: AppContext, limit = 10): Promise<number> {
  const due = await ctx.sql<SourceRow[]>`
    WITH claimed AS (
      UPDATE catalogue_source_schedule SET running_until = now() + make_interval(mins => ${SYNC_LEASE_MINUTES})
      WHERE source_id IN (
        SELECT source_id FROM catalogue_source_schedule
        WHERE next_sync_at <= now() AND (running_until IS NULL OR running_until < now())
        ORDER BY next_sync_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
      RETURNING source_id)
    SELECT s.id, s.user_id, s.kind, s.url FROM catalogue_sources s JOIN claimed c ON c.source_id = s.id`;
  for (const source of due) {
    try {
      await syncSource(ctx, source);
    } catch (err) {
      console.error(`catalogue: reading store ${source.id} failed:`, err);
    }
  }
  // A removed store's schedule goes too.
  await ctx.sql`DELETE FROM catalogue_source_schedule c WHERE NOT EXISTS (SELECT 1 FROM catalogue_sources s WHERE s.id = c.source_id)
    AND c.next_sync_at < now() - interval '1 hour'`;
  return due.length;
}
