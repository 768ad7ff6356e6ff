import { createHash } from 'node:crypto';
import type { EventOf } from '../../events/catalogue.ts';
import { DEFAULT_SETTINGS } from '../../events/settings.ts';
import { appendingTransaction, type RecordedEvent } from '../../events/store.ts';
import type { Projection } from '../../projections/projection.ts';
import { transaction, type Sql } from '../../db/index.ts';
import { outbox, OUTBOX_COLUMNS } from '../outbox.ts';
import { NEWS_MAX_AGE_MS } from '../../domain/alerts.ts';
import type { WeeklyReport } from './email.ts';

/**
 * The e-mail outbox: an operational table of e-mails waiting to go out, filled from the log.
 *
 * The reactor below turns each AlertRaised into one row, in the transaction that moves its
 * checkpoint, so an alert is queued exactly once. Senders (api/alerts/sender.ts) claim due rows
 * under a lease (api/outbox.ts), group a user's waiting alerts into one e-mail (a batch whose id,
 * and so the Message-ID, is fixed at its first claim and kept across retries), and record the
 * outcome and remove the rows in one transaction.
 */
export const OUTBOX_DDL = `
CREATE TABLE IF NOT EXISTS email_outbox (
  id           text PRIMARY KEY,
  user_id      text NOT NULL,
  kind         text NOT NULL,
  to_address   text NOT NULL,
  payload      jsonb NOT NULL,
  batch_id     text,${OUTBOX_COLUMNS}
);
CREATE INDEX IF NOT EXISTS email_outbox_due ON email_outbox (available_at);
CREATE INDEX IF NOT EXISTS email_outbox_by_batch ON email_outbox (batch_id) WHERE batch_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS weekly_reports (
  user_id    text NOT NULL,
  week_of    date NOT NULL,
  queued_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, week_of)
);
`;

export type OutboxKind = 'alerts' | 'weekly' | 'notice';

type Handled = EventOf<'AlertRaised'> | EventOf<'NoticeRaised'> | EventOf<'UserSignedUp'> | EventOf<'UserProfileUpdated'> | EventOf<'SettingsChanged'>;
type Recipient = { user_id: string; email: string | null; email_notifications: boolean };

/** AlertRaised -> one outbox row, unless the user turned e-mail notifications off; NoticeRaised -> one. Never rebuilt. */
export const emailOutboxReactor: Projection = {
  name: 'email-outbox',
  tables: ['mail_recipients'],
  ddl: `
    CREATE TABLE IF NOT EXISTS mail_recipients (
      user_id             text PRIMARY KEY,
      email               text,
      email_notifications boolean NOT NULL
    );`,
  handles: ['UserSignedUp', 'UserProfileUpdated', 'SettingsChanged', 'AlertRaised', 'NoticeRaised'],

  async apply(tx, recorded) {
    const events = recorded as RecordedEvent<Handled>[];
    const userIds = [...new Set(events.map((e) => e.data.userId))];
    const recipients = new Map((await tx<Recipient[]>`SELECT * FROM mail_recipients WHERE user_id = ANY(${userIds}::text[])`).map((r) => [r.user_id, r]));
    const changed = new Set<string>();
    const rows: { id: string; user_id: string; kind: OutboxKind; to_address: string; payload: unknown; batch_id?: string }[] = [];
    const recipient = (userId: string) => {
      let r = recipients.get(userId);
      if (!r) recipients.set(userId, (r = { user_id: userId, email: null, email_notifications: DEFAULT_SETTINGS.emailNotifications }));
      return r;
    };

    for (const e of events) {
      switch (e.type) {
        case 'UserSignedUp':
        case 'UserProfileUpdated':
          recipient(e.data.userId).email = e.data.email;
          changed.add(e.data.userId);
          break;
        case 'SettingsChanged':
          recipient(e.data.userId).email_notifications = e.data.settings.emailNotifications;
          changed.add(e.data.userId);
          break;
        case 'AlertRaised': {
          const r = recipient(e.data.userId);
          // Alerts from backfilled history (the demo account's past week) are shown, not e-mailed.
          const fresh = Date.now() - Date.parse(e.data.trigger.at) <= NEWS_MAX_AGE_MS && !e.metadata.backfill;
          if (r.email && r.email_notifications && fresh) {
            rows.push({ id: e.data.alertId, user_id: r.user_id, kind: 'alerts', to_address: r.email, payload: e.data });
          }
          break;
        }
        case 'NoticeRaised': {
          // Says why alerts stopped reaching the user, so it goes out whatever the alert e-mail setting; alone, at once.
          const r = recipient(e.data.userId);
          if (r.email)
            rows.push({
              id: e.data.alertId,
              user_id: r.user_id,
              kind: 'notice',
              to_address: r.email,
              payload: e.data,
              batch_id: batchIdFor('notice', [e.data.alertId]),
            });
          break;
        }
      }
    }

    const states = [...changed].map((id) => recipients.get(id)!);
    if (states.length) {
      await tx`
        INSERT INTO mail_recipients SELECT * FROM jsonb_populate_recordset(NULL::mail_recipients, ${tx.json(states as never)})
        ON CONFLICT (user_id) DO UPDATE SET email = EXCLUDED.email, email_notifications = EXCLUDED.email_notifications`;
    }
    // The alert id is the row's key: even a second look at the same alert cannot queue a second e-mail.
    if (rows.length) await enqueue(tx, rows);
  },
};

async function enqueue(tx: Sql, rows: { id: string; user_id: string; kind: OutboxKind; to_address: string; payload: unknown; batch_id?: string }[]) {
  await tx`
    INSERT INTO email_outbox (id, user_id, kind, to_address, payload, batch_id)
    SELECT id, user_id, kind, to_address, payload, batch_id
    FROM jsonb_to_recordset(${tx.json(rows as never)}) AS r(id text, user_id text, kind text, to_address text, payload jsonb, batch_id text)
    ON CONFLICT (id) DO NOTHING`;
}

/** A weekly report goes out alone: it is its own batch from the start. */
export async function enqueueWeeklyReport(tx: Sql, row: { id: string; userId: string; to: string; report: WeeklyReport }) {
  await enqueue(tx, [{ id: row.id, user_id: row.userId, kind: 'weekly', to_address: row.to, payload: row.report, batch_id: batchIdFor('weekly', [row.id]) }]);
}

// ---------------------------------------------------------------------------------------------
// Claiming and settling batches

export type Batch = {
  id: string;
  userId: string;
  kind: OutboxKind;
  to: string;
  /** Alert ids, or the weekly report's id. */
  itemIds: string[];
  payloads: unknown[];
  /** The attempt this claim is, from 1. */
  attempt: number;
  firstQueuedAt: Date;
  leaseToken: string;
};

type Row = { id: string; user_id: string; kind: OutboxKind; to_address: string; payload: unknown; batch_id: string | null };

const emails = outbox('email_outbox');

/** The id of a batch, from its contents: the same alerts always make the same e-mail. */
export function batchIdFor(kind: OutboxKind, itemIds: readonly string[]): string {
  return createHash('sha256')
    .update(`${kind}:${[...itemIds].sort().join(',')}`)
    .digest('hex')
    .slice(0, 32);
}

export type ClaimOptions = {
  /** A user's new alerts wait until none has arrived for this long... */
  quietMs: number;
  /** ...but never longer than this. */
  maxHoldMs: number;
  leaseMs: number;
  limit: number;
};

const seconds = (ms: number) => ms / 1000;

/**
 * Claims due e-mails: batches being retried, and each user's new alerts once they have settled
 * (see ClaimOptions). Answers them grouped into batches, leased to the caller.
 */
export async function claimBatches(sql: Sql, opts: ClaimOptions): Promise<Batch[]> {
  return transaction(sql, async (tx) => {
    const { rows, leaseToken } = await emails.claim<Row>(tx, {
      limit: opts.limit,
      leaseMs: opts.leaseMs,
      order: tx`enqueued_at, id`,
      where: tx`(batch_id IS NOT NULL OR user_id IN (
        SELECT user_id FROM email_outbox WHERE batch_id IS NULL
        GROUP BY user_id
        HAVING max(enqueued_at) <= now() - make_interval(secs => ${seconds(opts.quietMs)})
            OR min(enqueued_at) <= now() - make_interval(secs => ${seconds(opts.maxHoldMs)})))`,
    });
    if (!rows.length) return [];
    const groups = new Map<string, typeof rows>();
    for (const row of rows) {
      const key = row.batch_id ?? `new:${row.user_id}`;
      groups.set(key, [...(groups.get(key) ?? []), row]);
    }
    const batches = [...groups.values()].map((group): Batch => {
      const first = group[0]!;
      const itemIds = group.map((r) => r.id);
      return {
        id: first.batch_id ?? batchIdFor(first.kind, itemIds),
        userId: first.user_id,
        kind: first.kind,
        to: first.to_address,
        itemIds,
        payloads: group.map((r) => r.payload),
        attempt: Math.max(...group.map((r) => r.attempts)),
        firstQueuedAt: new Date(Math.min(...group.map((r) => +r.enqueued_at))),
        leaseToken,
      };
    });
    // A new batch's id is fixed at its first claim, so its retries are the same e-mail.
    const batchOf = new Map(batches.flatMap((b) => b.itemIds.map((id) => [id, b.id] as const)));
    const ids = rows.filter((r) => r.batch_id === null).map((r) => r.id);
    const batchIds = ids.map((id) => batchOf.get(id)!);
    if (ids.length) {
      await tx`
        UPDATE email_outbox SET batch_id = t.batch_id
        FROM unnest(${ids}::text[], ${batchIds}::text[]) AS t(id, batch_id)
        WHERE email_outbox.id = t.id`;
    }
    return batches;
  });
}

/**
 * Removes a batch this sender still holds, and runs `record` in the same transaction. False
 * when the lease passed to another sender meanwhile (that sender records the outcome).
 */
export async function settleBatch(sql: Sql, batch: Batch, record: (tx: Sql) => Promise<unknown>): Promise<boolean> {
  return appendingTransaction(sql, async (tx) => {
    if (!(await emails.settle(tx, { column: 'batch_id', value: batch.id, leaseToken: batch.leaseToken }))) return false;
    await record(tx);
    return true;
  });
}

/** Puts a batch back for another attempt after `delayMs`, keeping its id. */
export async function retryBatchLater(sql: Sql, batch: Batch, delayMs: number, error: string): Promise<void> {
  await emails.retryLater(sql, { column: 'batch_id', value: batch.id, leaseToken: batch.leaseToken }, new Date(Date.now() + delayMs), error);
}
