import type { AppContext } from '../context.ts';
import { pollUntilAborted } from '../polling.ts';
import type { Sql } from '../../db/index.ts';
import { appendingTransaction, type NewEvent } from '../../events/store.ts';
import { handleCommand } from '../../events/decider.ts';
import { alertStream } from '../../events/alert.ts';
import { channelDecider, channelStream, deliveriesStream, DISABLE_AFTER_FAILURES } from '../../events/channel.ts';
import { sharedFetcher, type Fetcher, type FetchFailure } from '../fetching/fetcher.ts';
import { parseRetryAfter } from '../fetching/fetch-errors.ts';
import { planOf } from '../billing/plans.ts';
import { backoff } from '../../domain/backoff.ts';
import { claimMessages, settleMessage, type OutboxMessage } from './outbox.ts';
import { sendEach } from '../outbox.ts';
import { requestFor, subjectOf, type ChannelMessage, type Endpoint } from './messages.ts';

/**
 * Delivers the channel outbox: claims due messages, posts each to its channel, and records the
 * outcome (AlertDelivered, or AlertDeliveryFailed with the time of the next attempt) in the
 * transaction that removes or reschedules the message. Any number of deliverers, in any number
 * of processes, share the work.
 *
 * Exactly once, and its one edge: a message keeps its id (`webhook-id`) on every attempt. A
 * deliverer that stops before the receiver answered leaves the message leased; the lease runs out
 * and another delivers it. One that stops after the receiver accepted it but before its
 * transaction commits leaves it to be sent again with the same id, which receivers use to drop
 * the duplicate (Standard Webhooks asks them to). Slack, Discord and Telegram take no id, so
 * there that window (one database round trip) can show a message twice; it cannot lose one.
 */

export type DelivererOptions = {
  fetcher?: Fetcher;
  leaseMs?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** A message not delivered within this long after it was queued is given up. */
  giveUpMs?: number;
  /** Failed attempts in a row after which the channel is turned off. */
  disableAfter?: number;
  pollMs?: number;
  concurrency?: number;
  /** Called once the receiver accepted a message, before it is recorded (tests stop a deliverer here). */
  afterSend?: (message: OutboxMessage) => unknown;
};

const DEFAULTS = {
  leaseMs: 60_000,
  retryBaseMs: 10_000,
  retryMaxMs: 60 * 60_000,
  giveUpMs: 24 * 3_600_000,
  disableAfter: DISABLE_AFTER_FAILURES,
  pollMs: 200,
  concurrency: 16,
};

/** Short: a receiver that takes longer is not one to wait on; the message is tried again later. */
const SEND_OPTIONS = { timeoutMs: 10_000, connectTimeoutMs: 5_000, maxBytes: 256 * 1024, retries: 0, maxRedirects: 0 };

export type SendOutcome = { delivered: boolean; status: number | null; error: string | null; retryAfterMs: number | null };

/** Posts one message to one endpoint through the same address guard as price checks. */
export async function send(
  ctx: Pick<AppContext, 'config'>,
  fetcher: Fetcher,
  endpoint: Endpoint,
  channelId: string,
  message: ChannelMessage,
  messageId: string,
): Promise<SendOutcome> {
  const request = requestFor(endpoint, channelId, message, {
    messageId,
    now: new Date(),
    publicUrl: ctx.config.publicUrl,
    telegramApiUrl: ctx.config.telegramApiUrl,
  });
  const answer = await fetcher.fetchResource!(
    { url: request.url, method: 'POST', headers: request.headers, body: Buffer.from(request.body), followRedirects: false },
    { ...SEND_OPTIONS, allowPrivate: ctx.config.checkAllowPrivate },
  );
  if (!answer.ok)
    return { delivered: false, status: answer.status ?? null, error: receiverReason(answer, request.url), retryAfterMs: answer.retryAfterMs ?? null };
  if (answer.status >= 200 && answer.status < 300) return { delivered: true, status: answer.status, error: null, retryAfterMs: null };
  return { delivered: false, status: answer.status, error: refusal(answer.status, answer.body), retryAfterMs: parseRetryAfter(answer.headers['retry-after']) };
}

/** The fetcher words its failures for shop pages; a channel's are about the receiver it posts to. */
function receiverReason(failure: FetchFailure, url: string): string {
  if (failure.code === 'dns') return `The address ${new URL(url).hostname} could not be found. Check it for typos.`;
  return failure.reason
    .replace(/^The shop's server\b/, 'The receiver')
    .replace(/^The shop's\b/, "The receiver's")
    .replace(/^The shop\b/, 'The receiver')
    .replace('before sending the page', 'before answering')
    .replace('so the page cannot be checked safely', 'so nothing was sent')
    .replace('could not download the page', 'could not reach the receiver')
    .replace(/^The page is larger than/, 'The answer is larger than');
}

/** "HTTP 404: no_service": the status and the start of what the receiver said, as one line. */
function refusal(status: number, body: Buffer): string {
  const said = body.subarray(0, 400).toString('utf8').replace(/\s+/g, ' ').trim();
  const reason = said && /^[\x20-\x7e\u00a0-\uffff]+$/.test(said) ? `: ${said.slice(0, 200)}` : '';
  return `HTTP ${status}${reason}`;
}

/**
 * When to try again after a failed attempt, or null to give up: the receiver's Retry-After when
 * it gave one, else doubling backoff with jitter; never past `giveUpMs` after the message was queued.
 */
export function nextAttemptAt(
  failed: { attempt: number; enqueuedAt: Date; retryAfterMs: number | null },
  now: Date,
  opts: { retryBaseMs: number; retryMaxMs: number; giveUpMs: number },
  random = Math.random,
): Date | null {
  const delay = failed.retryAfterMs ?? backoff(failed.attempt, { baseMs: opts.retryBaseMs, maxMs: opts.retryMaxMs, jitter: 0.2 }, random);
  const at = now.getTime() + delay;
  return at - failed.enqueuedAt.getTime() > opts.giveUpMs ? null : new Date(at);
}

export type Attempt = { channelId: string; userId: string; messageId: string; alertId: string | null; productName: string | null; attempt: number };

/** One attempt as the delivery log records it: AlertDelivered, or AlertDeliveryFailed and when the next attempt is. */
export function attemptEvent(attempt: Attempt, outcome: SendOutcome, retryAt: Date | null): NewEvent {
  const data = { ...attempt, status: outcome.status, at: new Date().toISOString() };
  return outcome.delivered
    ? { type: 'AlertDelivered', data: { ...data, status: outcome.status! } }
    : { type: 'AlertDeliveryFailed', data: { ...data, error: outcome.error ?? 'Not delivered', retryAt: retryAt?.toISOString() ?? null } };
}

type Target = { channel_id: string; endpoint: Endpoint; enabled: boolean; plan: string | null; subscription_plan: string | null };

export type ChannelDeliverer = ReturnType<typeof createChannelDeliverer>;

export function createChannelDeliverer(ctx: Pick<AppContext, 'sql' | 'store' | 'config'>, options: DelivererOptions = {}) {
  const opts = { ...DEFAULTS, ...options };
  const fetcher = options.fetcher ?? sharedFetcher;

  /** Records one attempt: the event, the message removed or rescheduled, the channel's run of failures. */
  async function record(message: OutboxMessage, outcome: SendOutcome, retryAt: Date | null, counts: boolean): Promise<void> {
    const attempt: Attempt = {
      channelId: message.channelId,
      userId: message.userId,
      messageId: message.id,
      // An applied recommendation is recorded under its applicationId and the own product's title.
      ...subjectOf(message.content),
      attempt: message.attempt,
    };
    await appendingTransaction(ctx.sql, async (tx) => {
      if (!(await settleMessage(tx, message, { retryAt, error: outcome.error ?? undefined }))) return;
      if (outcome.delivered) {
        await tx`UPDATE channel_endpoints SET failures_in_a_row = 0 WHERE channel_id = ${message.channelId}`;
        await ctx.store.append(deliveriesStream(message.channelId), 'any', [attemptEvent(attempt, outcome, null)], tx);
        return;
      }
      // The failure that turns the channel off is this message's last attempt too.
      const disabled = counts && (await countFailure(tx, message.channelId));
      if (disabled && retryAt) await tx`DELETE FROM channel_outbox WHERE id = ${message.id}`;
      await ctx.store.append(deliveriesStream(message.channelId), 'any', [attemptEvent(attempt, outcome, disabled ? null : retryAt)], tx);
    });
  }

  /**
   * One more failure in a row; at `disableAfter` the channel is turned off and its user told why,
   * by notice and e-mail. Answers whether this failure turned it off.
   */
  async function countFailure(tx: Sql, channelId: string): Promise<boolean> {
    const [row] = await tx<{ failures_in_a_row: number }[]>`
      UPDATE channel_endpoints SET failures_in_a_row = failures_in_a_row + 1 WHERE channel_id = ${channelId} RETURNING failures_in_a_row`;
    if (!row || row.failures_in_a_row < opts.disableAfter) return false;
    const reason = `Turned off after ${row.failures_in_a_row} failed deliveries in a row. Check the address or token, send a test, then switch it on again.`;
    const result = await handleCommand(ctx.store, channelStream(channelId), channelDecider, { type: 'DisableChannel', reason }, { tx });
    if (!result.appended || result.state.status !== 'active') return false;
    const { userId, name } = result.state;
    await ctx.store.append(
      alertStream(userId),
      'any',
      [
        {
          type: 'NoticeRaised',
          data: {
            alertId: crypto.randomUUID(),
            userId,
            kind: 'channel_disabled',
            title: `Alert channel "${name}" turned off`,
            message: `Pricewatch stopped delivering alerts to "${name}" after ${row.failures_in_a_row} failed deliveries in a row. Check its address or token in Settings, send a test, and switch it on again.`,
            link: '/settings#notifications',
            at: new Date().toISOString(),
          },
        },
      ],
      tx,
    );
    await tx`UPDATE channel_endpoints SET enabled = false WHERE channel_id = ${channelId}`;
    return true;
  }

  async function deliver(message: OutboxMessage, target: Target | undefined): Promise<void> {
    if (!target) {
      // The channel was removed: nothing to deliver to, nothing to record.
      await settleMessage(ctx.sql, message, { retryAt: null });
      return;
    }
    const notSent = !target.enabled
      ? 'Not sent: the channel is switched off.'
      : planOf(target.subscription_plan ?? target.plan).id === 'free'
        ? 'Not sent: alert channels come with paid plans, and this account is on Free.'
        : null;
    if (notSent) {
      await record(message, { delivered: false, status: null, error: notSent, retryAfterMs: null }, null, false);
      return;
    }
    const outcome = await send(ctx, fetcher, target.endpoint, message.channelId, message.content, message.id);
    if (outcome.delivered) {
      await opts.afterSend?.(message);
      await record(message, outcome, null, true);
      return;
    }
    const retryAt = nextAttemptAt({ attempt: message.attempt, enqueuedAt: message.enqueuedAt, retryAfterMs: outcome.retryAfterMs }, new Date(), opts);
    await record(message, outcome, retryAt, true);
  }

  /** Delivers everything due now; answers how many messages it handled. */
  async function deliverDue(): Promise<number> {
    const messages = await claimMessages(ctx.sql, { limit: 200, leaseMs: opts.leaseMs });
    if (!messages.length) return 0;
    const targets = new Map(
      (
        await ctx.sql<Target[]>`
      SELECT e.channel_id, e.endpoint, e.enabled, u.plan, u.subscription_plan
      FROM channel_endpoints e LEFT JOIN users u ON u.id = e.user_id
      WHERE e.channel_id = ANY(${[...new Set(messages.map((m) => m.channelId))]}::text[])`
      ).map((t) => [t.channel_id, t]),
    );
    await sendEach(
      messages,
      opts.concurrency,
      (message) => deliver(message, targets.get(message.channelId)),
      (message) => `Channel message ${message.id}`,
    );
    return messages.length;
  }

  /** Runs until the signal aborts, finishing the work in hand. */
  const run = (signal: AbortSignal) => pollUntilAborted('channel deliverer', deliverDue, { pollMs: opts.pollMs, signal });

  return { deliverDue, run };
}
