import type { Sql } from '../db/index.ts';

/**
 * An outbox: an operational table of messages waiting to go out (e-mails, channel messages), filled
 * by a reactor in the transaction of its checkpoint and drained by any number of senders in any
 * number of processes. A sender claims due rows under a lease (FOR UPDATE SKIP LOCKED, so two
 * never take the same row); only the lease's holder settles them: removes them and records the
 * outcome in one transaction, or puts them back for a later attempt. A sender that dies leaves its
 * rows to whoever claims them once the lease runs out, so every message is sent at least once and
 * recorded exactly once.
 */

/** The columns every outbox table has, after its own. */
export const OUTBOX_COLUMNS = `
  enqueued_at  timestamptz NOT NULL DEFAULT clock_timestamp(),
  available_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  lease_token  text,
  leased_until timestamptz,
  attempts     integer NOT NULL DEFAULT 0,
  last_error   text`;

type Fragment = ReturnType<Sql>;

/** Rows of one claim, with their lease. `attempts` counts this claim. */
export type Claimed<Row> = { rows: (Row & { attempts: number; enqueued_at: Date })[]; leaseToken: string };

/** The rows a settle or retry applies to: one message by id, or a group (an e-mail's batch). */
export type Held = { column: 'id' | 'batch_id'; value: string; leaseToken: string };

export function outbox(table: 'email_outbox' | 'channel_outbox') {
  return {
    /**
     * Leases up to `limit` due rows (available, and not leased or past their lease) that also meet
     * `where`, in `order`; answers them in that order.
     */
    async claim<Row>(tx: Sql, opts: { limit: number; leaseMs: number; order: Fragment; where?: Fragment }): Promise<Claimed<Row>> {
      const leaseToken = crypto.randomUUID();
      const rows = await tx<Claimed<Row>['rows']>`
        WITH due AS (
          SELECT id FROM ${tx(table)}
          WHERE available_at <= now() AND (leased_until IS NULL OR leased_until < now()) ${opts.where ? tx`AND ${opts.where}` : tx``}
          ORDER BY ${opts.order}
          LIMIT ${opts.limit}
          FOR UPDATE SKIP LOCKED),
        claimed AS (
          UPDATE ${tx(table)} o SET lease_token = ${leaseToken}, leased_until = now() + make_interval(secs => ${opts.leaseMs / 1000}), attempts = attempts + 1
          FROM due WHERE o.id = due.id
          RETURNING o.*)
        SELECT * FROM claimed ORDER BY ${opts.order}`;
      return { rows, leaseToken };
    },

    /** Removes rows this sender still holds; false when their lease passed to another sender meanwhile. */
    async settle(tx: Sql, held: Held): Promise<boolean> {
      const gone = await tx`DELETE FROM ${tx(table)} WHERE ${tx(held.column)} = ${held.value} AND lease_token = ${held.leaseToken} RETURNING id`;
      return gone.length > 0;
    },

    /** Puts held rows back until `at`, with the error that kept them; false when no longer held. */
    async retryLater(tx: Sql, held: Held, at: Date, error: string | null): Promise<boolean> {
      const back = await tx`
        UPDATE ${tx(table)} SET available_at = ${at}, lease_token = NULL, leased_until = NULL, last_error = ${error?.slice(0, 2000) ?? null}
        WHERE ${tx(held.column)} = ${held.value} AND lease_token = ${held.leaseToken} RETURNING id`;
      return back.length > 0;
    },
  };
}

/**
 * Sends claimed items, `concurrency` at a time. An item whose sending throws is left leased:
 * another attempt follows once its lease runs out.
 */
export async function sendEach<T>(items: readonly T[], concurrency: number, send: (item: T) => Promise<void>, name: (item: T) => string): Promise<void> {
  const queue = [...items];
  const sender = async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) {
      try {
        await send(item);
      } catch (err) {
        console.error(`${name(item)}:`, err);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, queue.length) }, sender));
}
