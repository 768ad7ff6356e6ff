import { transaction, type Sql } from '../db/index.ts';
import { START, checkpointOf, reached, takeAppendLock, type Checkpoint, type EventStore } from '../events/store.ts';
import type { Projection } from './projection.ts';
import { chooseProjections, replay, type Progress } from './replay.ts';

const checkpointsDdl = (table: string) => `
CREATE TABLE IF NOT EXISTS ${table} (
  name           text PRIMARY KEY,
  transaction_id xid8 NOT NULL DEFAULT '0',
  position       bigint NOT NULL DEFAULT 0,
  updated_at     timestamptz NOT NULL DEFAULT now()
);
`;

const BATCH = 2000;

/**
 * Keeps read models up to date: each projection reads the log after its own checkpoint and applies
 * a batch and the new checkpoint in one transaction. An advisory lock keeps two processes from
 * projecting the same read model at once; the checkpoint compare-and-set is the backstop.
 */
export function createProjectionRunner(
  store: EventStore,
  projections: readonly Projection[],
  options: { pollMs?: number; onError?: (err: unknown, name: string) => void; checkpoints?: string } = {},
) {
  const sql = store.sql;
  // Reactors keep theirs apart: the answer cache waits for every read model in projection_checkpoints.
  const table = options.checkpoints ?? 'projection_checkpoints';
  const checkpoints = sql(table);
  const pollMs = options.pollMs ?? 250;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = true;
  const waiters = new Set<{ target: Checkpoint; resolve: () => void }>();
  const positions = new Map<string, Checkpoint>();

  async function setup(db: Sql = sql) {
    await db.unsafe(checkpointsDdl(table));
    for (const p of projections) {
      await db.unsafe(p.ddl);
      await db`INSERT INTO ${checkpoints} (name) VALUES (${p.name}) ON CONFLICT DO NOTHING`;
    }
  }

  /** Applies one batch to one projection: how many events it applied and whether its checkpoint moved. */
  async function step(p: Projection, db: Sql = sql): Promise<{ applied: number; moved: boolean }> {
    const run = async (tx: Sql) => {
      const [lock] = await tx<{ ok: boolean }[]>`SELECT pg_try_advisory_xact_lock(hashtext(${'projection:' + p.name})) AS ok`;
      if (!lock?.ok) return { applied: 0, moved: false };
      const [row] = await tx<{ transaction_id: string; position: string }[]>`
        SELECT transaction_id::text, position FROM ${checkpoints} WHERE name = ${p.name}`;
      const from: Checkpoint = row ? { transactionId: row.transaction_id, position: Number(row.position) } : START;
      // Read only the types this projection handles, but move the checkpoint up to the head
      // read before them, so it also passes events of other types (read-your-writes waits on it).
      const head = await store.head(tx);
      if (reached(from, head)) {
        positions.set(p.name, from);
        return { applied: 0, moved: false };
      }
      const batch = await store.readAll(from, BATCH, { types: p.handles, upTo: head, tx });
      if (batch.length) {
        if (p.appends) await takeAppendLock(tx);
        await p.apply(tx, batch);
      }
      const to = batch.length === BATCH ? checkpointOf(batch[batch.length - 1]!) : head;
      await tx`UPDATE ${checkpoints} SET transaction_id = ${to.transactionId}::xid8, position = ${to.position}, updated_at = now()
               WHERE name = ${p.name}`;
      positions.set(p.name, to);
      return { applied: batch.length, moved: true };
    };
    return db === sql ? transaction(sql, run) : run(db);
  }

  /**
   * Runs every projection until none has anything left to read. With `isolate`, a projection that
   * fails is reported and skipped for this round, so one broken read model cannot stall the others.
   */
  async function catchUp(opts: { isolate?: boolean } = {}): Promise<number> {
    let total = 0;
    const failed = new Set<string>();
    for (;;) {
      let moved = false;
      // One cheap look at the log's head spares a transaction per read model that is already there.
      const head = await store.head();
      for (const p of projections) {
        if (failed.has(p.name)) continue;
        const at = positions.get(p.name);
        if (at && reached(at, head)) continue;
        try {
          const r = await step(p);
          total += r.applied;
          moved ||= r.moved;
        } catch (err) {
          if (!opts.isolate) throw err;
          failed.add(p.name);
          options.onError?.(err, p.name);
        }
      }
      if (!moved) return total;
    }
  }

  function resolveWaiters(caughtUp: boolean) {
    for (const w of waiters) {
      if (caughtUp || projections.every((p) => reached(positions.get(p.name) ?? START, w.target))) {
        waiters.delete(w);
        w.resolve();
      }
    }
  }

  /** Runs a catch-up now (or right after the one in progress). */
  function poke(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        try {
          await catchUp({ isolate: true });
        } catch (err) {
          options.onError?.(err, 'runner');
        }
      } while (again);
    })().finally(() => {
      running = null;
      resolveWaiters(false);
      schedule();
    });
    return running;
  }

  function schedule() {
    if (timer) clearTimeout(timer);
    timer = stopped ? null : setTimeout(poke, waiters.size ? 10 : pollMs);
  }

  /**
   * Resolves once every projection has passed `target` (read-your-writes for the API), normally
   * within milliseconds, or after `timeoutMs`: an append held open holds every reader back, and
   * answers then show the last projected state.
   */
  function waitFor(target: Checkpoint, timeoutMs = 10_000): Promise<void> {
    if (projections.every((p) => reached(positions.get(p.name) ?? START, target))) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const w = { target, resolve };
      waiters.add(w);
      setTimeout(() => {
        if (waiters.delete(w)) resolve();
      }, timeoutMs);
      void poke();
    });
  }

  /**
   * Rebuilds read models from zero in one transaction: users keep seeing the old tables until
   * the new ones are complete. The log is read once for all of them (projections/replay.ts);
   * returns the number of events read.
   */
  async function rebuild(names?: readonly string[], onProgress?: Progress): Promise<number> {
    const chosen = chooseProjections(projections, names);
    // Fresh statistics keep the ordered read of the log on its index; without them a large,
    // newly loaded log is read by sorting everything after the checkpoint, batch after batch.
    await sql`ANALYZE events`;
    try {
      return await transaction(sql, async (tx) => {
        for (const p of chosen) {
          // Wait for a live runner to finish its batch; the lock is then ours until commit.
          await tx`SELECT pg_advisory_xact_lock(hashtext(${'projection:' + p.name}))`;
          await tx.unsafe(`TRUNCATE ${p.tables.join(', ')}`);
        }
        const head = await store.head(tx);
        const { done } = await replay(store, tx, chosen, { upTo: head, onProgress });
        await tx`UPDATE ${checkpoints} SET transaction_id = ${head.transactionId}::xid8, position = ${head.position}, updated_at = now()
                 WHERE name = ANY(${chosen.map((p) => p.name)}::text[])`;
        return done;
      });
    } finally {
      positions.clear(); // known again after the next step of each read model
    }
  }

  return {
    projections,
    setup,
    catchUp,
    waitFor,
    rebuild,
    poke,
    start() {
      stopped = false;
      schedule();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      timer = null;
      await running;
    },
  };
}

export type ProjectionRunner = ReturnType<typeof createProjectionRunner>;
