import type { AppContext } from '../context.ts';
import { pollUntilAborted } from '../polling.ts';
import type { Sql } from '../../db/index.ts';
import { claimBatches, retryBatchLater, settleBatch, type Batch } from './outbox.ts';
import { composeAlertEmail, composeNoticeEmail, composeWeeklyEmail, type AlertMail, type NoticeMail, type WeeklyReport } from './email.ts';
import type { Mailer, OutgoingMail } from './mailer.ts';
import { backoff } from '../../domain/backoff.ts';
import { sendEach } from '../outbox.ts';

/**
 * Delivers the outbox: claims due batches, sends each as one e-mail, and records EmailSent (with
 * the server's answer) and removes the batch in one transaction. A refused or unreachable server
 * means another attempt with backoff; a permanent refusal (5xx), or no success within `giveUpMs`,
 * records EmailFailed instead. Any number of senders, in any number of processes, share the work.
 *
 * Exactly once, and its one edge: a batch's Message-ID comes from its contents and never changes.
 * A sender that stops before the server accepted the message leaves the batch leased; the lease
 * runs out and another sender sends it, once. A sender that stops after the server accepted it
 * but before its transaction commits (a window of one round trip to the database) leaves it to be
 * sent again with the same Message-ID, which mail systems use to drop the duplicate. No SMTP
 * sender can close that window: the server's acceptance and our record are two systems.
 */

export type SenderOptions = {
  quietMs?: number;
  maxHoldMs?: number;
  leaseMs?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  giveUpMs?: number;
  pollMs?: number;
  /** E-mails sent at the same time. */
  concurrency?: number;
  /** Called once the server accepted a message, before it is recorded (tests stop a sender here). */
  afterSend?: (batch: Batch) => unknown;
};

const DEFAULTS = {
  quietMs: 750,
  maxHoldMs: 3_000,
  leaseMs: 120_000,
  retryBaseMs: 5_000,
  retryMaxMs: 5 * 60_000,
  giveUpMs: 24 * 3_600_000,
  pollMs: 250,
  concurrency: 8,
};

/** SMTP's 5xx replies are final (no such mailbox, refused); everything else may pass. */
const permanent = (err: unknown) => {
  const code = (err as { responseCode?: number })?.responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
};

const describe = (err: unknown) => (err instanceof Error ? err.message : String(err));

export type OutboxSender = ReturnType<typeof createOutboxSender>;

export function createOutboxSender(ctx: Pick<AppContext, 'sql' | 'store' | 'config'>, mailer: Mailer, options: SenderOptions = {}) {
  const opts = { ...DEFAULTS, ...options };
  const domain = new URL(ctx.config.publicUrl).hostname;

  function compose(batch: Batch): OutgoingMail {
    const { subject, text, html } =
      batch.kind === 'weekly'
        ? composeWeeklyEmail(batch.payloads[0] as WeeklyReport, ctx.config.publicUrl)
        : batch.kind === 'notice'
          ? composeNoticeEmail(batch.payloads[0] as NoticeMail, ctx.config.publicUrl)
          : composeAlertEmail(batch.payloads as AlertMail[], ctx.config.publicUrl);
    return { to: batch.to, subject, text, html, messageId: `<${batch.kind}.${batch.id}@${domain}>` };
  }

  function record(batch: Batch, mail: OutgoingMail, outcome: { response: string } | { error: string }) {
    return (tx: Sql) =>
      ctx.store.append(
        `emails-${batch.userId}`,
        'any',
        [
          {
            ...('response' in outcome
              ? { type: 'EmailSent' as const, data: { ...common(batch, mail), response: outcome.response } }
              : { type: 'EmailFailed' as const, data: { ...common(batch, mail), error: outcome.error, attempts: batch.attempt } }),
          },
        ],
        tx,
      );
  }

  async function deliver(batch: Batch): Promise<void> {
    const mail = compose(batch);
    let response: string;
    try {
      ({ response } = await mailer.send(mail));
    } catch (err) {
      const error = describe(err);
      const delay = backoff(batch.attempt, { baseMs: opts.retryBaseMs, maxMs: opts.retryMaxMs, jitter: 0.2 });
      const outOfTime = Date.now() + delay - batch.firstQueuedAt.getTime() > opts.giveUpMs;
      if (permanent(err) || outOfTime) {
        await settleBatch(ctx.sql, batch, record(batch, mail, { error }));
        console.error(`E-mail ${batch.id} to ${batch.to} given up after ${batch.attempt} attempt(s): ${error}`);
      } else {
        await retryBatchLater(ctx.sql, batch, delay, error);
      }
      return;
    }
    await opts.afterSend?.(batch);
    await settleBatch(ctx.sql, batch, record(batch, mail, { response }));
  }

  /** Sends everything due now; answers how many batches it handled. */
  async function deliverDue(): Promise<number> {
    const batches = await claimBatches(ctx.sql, { quietMs: opts.quietMs, maxHoldMs: opts.maxHoldMs, leaseMs: opts.leaseMs, limit: 500 });
    await sendEach(batches, opts.concurrency, deliver, (batch) => `E-mail ${batch.id}`);
    return batches.length;
  }

  /** Runs until the signal aborts, finishing the work in hand. */
  const run = (signal: AbortSignal) => pollUntilAborted('e-mail sender', deliverDue, { pollMs: opts.pollMs, signal });

  return { deliverDue, run };
}

function common(batch: Batch, mail: OutgoingMail) {
  return {
    userId: batch.userId,
    emailId: batch.id,
    kind: batch.kind,
    alertIds: batch.kind === 'alerts' ? batch.itemIds : [],
    to: batch.to,
    messageId: mail.messageId,
  };
}
