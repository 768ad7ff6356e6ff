import type { EventOf } from '../../events/catalogue.ts';
import type { RecordedEvent } from '../../events/store.ts';
import type { Projection } from '../../projections/projection.ts';
import { transaction, type Sql } from '../../db/index.ts';
import { outbox, OUTBOX_COLUMNS } from '../outbox.ts';
import { NEWS_MAX_AGE_MS } from '../../domain/alerts.ts';
import { ownProductStream } from '../../events/own-product.ts';
import { applicationIdFor, messageIdFor, type AlertMessage, type AppliedMessage, type ChannelMessage } from './messages.ts';

/**
 * The channel outbox: one row per alert (or applied price recommendation) and channel, waiting to
 * be delivered. Filled by the reactor below in the transaction of its checkpoint (so each is
 * queued once per channel), drained by deliverers (api/channels/deliverer.ts) that claim rows
 * under a lease (api/outbox.ts), and remove or reschedule them in the transaction that records
 * the outcome.
 *
 * `channel_endpoints` holds where each channel delivers (address, token, signing secret): written
 * with the channel's events, in their transaction, but not in the log (docs/decisions/0004-alert-channels.md).
 */
export const CHANNELS_DDL = `
CREATE TABLE IF NOT EXISTS channel_endpoints (
  channel_id        text PRIMARY KEY,
  user_id           text NOT NULL,
  endpoint          jsonb NOT NULL,
  -- As the channel's last ChannelAdded/ChannelChanged says: a switched-off channel's messages are not sent.
  enabled           boolean NOT NULL DEFAULT true,
  -- Failed attempts since the last success, across the channel's messages.
  failures_in_a_row integer NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS channel_outbox (
  id           text PRIMARY KEY,
  channel_id   text NOT NULL,
  user_id      text NOT NULL,
  -- The alert's id, or for an applied recommendation its applicationId.
  alert_id     text NOT NULL,
  -- OutboxPayload: an alert, or an applied recommendation, tagged by its kind (rows from before the tag are alerts).
  payload      jsonb NOT NULL,${OUTBOX_COLUMNS}
);
CREATE INDEX IF NOT EXISTS channel_outbox_due ON channel_outbox (available_at);
CREATE INDEX IF NOT EXISTS channel_outbox_by_channel ON channel_outbox (channel_id);
`;

/**
 * What a row carries: the AlertRaised data, or an applied recommendation, tagged by `kind`. Rows
 * queued before the tag hold an alert's data alone, and read as alerts. Flat rather than nested so
 * that a deliverer from before the tag still reads an alert row as it always did.
 */
export type OutboxPayload = ({ kind: 'alert' } & AlertMessage) | ({ kind: 'applied' } & AppliedMessage) | AlertMessage;

/** The message an outbox row holds. */
export function messageOf(payload: OutboxPayload): Exclude<ChannelMessage, { kind: 'test' }> {
  if ('kind' in payload && payload.kind === 'applied') {
    const { kind: _, ...applied } = payload;
    return { kind: 'applied', applied };
  }
  const { kind: _, ...alert } = payload as { kind?: 'alert' } & AlertMessage;
  return { kind: 'alert', alert };
}

type Handled = EventOf<'ChannelAdded'> | EventOf<'ChannelChanged'> | EventOf<'ChannelRemoved'> | EventOf<'AlertRaised'> | EventOf<'RecommendationApplied'>;
type Route = { channel_id: string; user_id: string; enabled: boolean; alert_types: string[] };
type OwnDetails = Pick<AppliedMessage, 'title' | 'variant' | 'sku' | 'url'>;

/** News is what happened in the last day and is not backfilled history: older news (a replayed log) is shown in the app only. */
const isNews = (e: RecordedEvent, at: string) => !e.metadata.backfill && Date.now() - Date.parse(at) <= NEWS_MAX_AGE_MS;

/**
 * AlertRaised -> one outbox row per enabled channel of the user that takes its type;
 * RecommendationApplied -> one per enabled channel of the owner, whatever alert types it takes
 * (a price of theirs changed, which the owner wants to hear of wherever they listen). Never rebuilt.
 */
export const channelOutboxReactor: Projection = {
  name: 'channel-outbox',
  tables: ['channel_routes'],
  ddl: `
    CREATE TABLE IF NOT EXISTS channel_routes (
      channel_id  text PRIMARY KEY,
      user_id     text NOT NULL,
      enabled     boolean NOT NULL,
      alert_types text[] NOT NULL
    );
    CREATE INDEX IF NOT EXISTS channel_routes_by_user ON channel_routes (user_id);`,
  handles: ['ChannelAdded', 'ChannelChanged', 'ChannelRemoved', 'AlertRaised', 'RecommendationApplied'],

  async apply(tx, recorded) {
    const events = recorded as RecordedEvent<Handled>[];
    const userIds = [...new Set(events.map((e) => e.data.userId))];
    const routes = new Map((await tx<Route[]>`SELECT * FROM channel_routes WHERE user_id = ANY(${userIds}::text[])`).map((r) => [r.channel_id, r]));
    const changed = new Set<string>(),
      removed = new Set<string>();
    const rows: { id: string; channel_id: string; user_id: string; alert_id: string; payload: OutboxPayload }[] = [];
    // Applied recommendations wait for their own products' details, read once for the batch below.
    const applied: { event: RecordedEvent<EventOf<'RecommendationApplied'>>; channelIds: string[] }[] = [];

    for (const e of events) {
      switch (e.type) {
        case 'ChannelAdded':
        case 'ChannelChanged':
          routes.set(e.data.channelId, {
            channel_id: e.data.channelId,
            user_id: e.data.userId,
            alert_types: e.data.alertTypes,
            enabled: e.type === 'ChannelAdded' || e.data.enabled,
          });
          changed.add(e.data.channelId);
          removed.delete(e.data.channelId);
          break;
        case 'ChannelRemoved':
          routes.delete(e.data.channelId);
          removed.add(e.data.channelId);
          break;
        case 'AlertRaised': {
          // As for e-mail: old news (a replayed log, backfilled history) is shown in the app only.
          if (!isNews(e, e.data.trigger.at)) break;
          for (const route of routes.values()) {
            if (route.user_id !== e.data.userId || !route.enabled || !route.alert_types.includes(e.data.type)) continue;
            rows.push({
              id: messageIdFor(e.data.alertId, route.channel_id),
              channel_id: route.channel_id,
              user_id: route.user_id,
              alert_id: e.data.alertId,
              payload: { kind: 'alert', ...e.data },
            });
          }
          break;
        }
        case 'RecommendationApplied': {
          if (!isNews(e, e.data.at)) break;
          const channelIds = [...routes.values()].filter((r) => r.user_id === e.data.userId && r.enabled).map((r) => r.channel_id);
          if (channelIds.length) applied.push({ event: e as RecordedEvent<EventOf<'RecommendationApplied'>>, channelIds });
          break;
        }
      }
    }

    if (removed.size) await tx`DELETE FROM channel_routes WHERE channel_id = ANY(${[...removed]}::text[])`;
    const saved = [...changed].filter((id) => !removed.has(id)).map((id) => routes.get(id)!);
    if (saved.length) {
      await tx`
        INSERT INTO channel_routes SELECT * FROM jsonb_populate_recordset(NULL::channel_routes, ${tx.json(saved as never)})
        ON CONFLICT (channel_id) DO UPDATE SET enabled = EXCLUDED.enabled, alert_types = EXCLUDED.alert_types`;
    }
    if (applied.length) {
      const details = await ownDetails(tx, [...new Set(applied.map((a) => a.event.data.ownProductId))]);
      for (const { event: e, channelIds } of applied) {
        const applicationId = applicationIdFor(e.position);
        const { ownProductId, userId, price, previousPrice, currency, via, evidence, at } = e.data;
        // Always found: a recommendation is applied to a product the log has imported.
        const own = details.get(ownProductId) ?? { title: 'Your product', variant: null, sku: null, url: null };
        const payload: OutboxPayload = { kind: 'applied', applicationId, ownProductId, userId, ...own, price, previousPrice, currency, via, evidence, at };
        for (const channelId of channelIds) {
          rows.push({ id: messageIdFor(applicationId, channelId), channel_id: channelId, user_id: userId, alert_id: applicationId, payload });
        }
      }
    }
    // The message id is the row's key: a second look at the same alert or application cannot queue it twice.
    if (rows.length) {
      await tx`
        INSERT INTO channel_outbox (id, channel_id, user_id, alert_id, payload)
        SELECT id, channel_id, user_id, alert_id, payload
        FROM jsonb_to_recordset(${tx.json(rows as never)}) AS r(id text, channel_id text, user_id text, alert_id text, payload jsonb)
        ON CONFLICT (id) DO NOTHING`;
    }
  },
};

/**
 * Own products' title, variant, SKU and address as the catalogue shows them now; for one the
 * catalogue's read model does not hold (yet, or any more), as its stream last stated them.
 */
async function ownDetails(tx: Sql, ids: string[]): Promise<Map<string, OwnDetails>> {
  const found = new Map(
    (await tx<(OwnDetails & { id: string })[]>`SELECT id, title, variant, sku, url FROM own_products WHERE id = ANY(${ids}::text[])`).map(
      ({ id, ...d }) => [id, d] as const,
    ),
  );
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length) {
    const streams = new Map(missing.map((id) => [ownProductStream(id), id]));
    const stated = await tx<(OwnDetails & { stream_id: string })[]>`
      SELECT DISTINCT ON (stream_id) stream_id, data->>'title' AS title, data->>'variant' AS variant, data->>'sku' AS sku, data->>'url' AS url
      FROM events
      WHERE stream_id = ANY(${[...streams.keys()]}::text[]) AND type IN ('OwnProductImported', 'OwnProductChanged')
      ORDER BY stream_id, stream_version DESC`;
    for (const { stream_id, ...d } of stated) found.set(streams.get(stream_id)!, d);
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// Claiming and settling

export type OutboxMessage = {
  id: string;
  channelId: string;
  userId: string;
  /** What to deliver: an alert or an applied recommendation. */
  content: Exclude<ChannelMessage, { kind: 'test' }>;
  /** The attempt this claim is, from 1. */
  attempt: number;
  enqueuedAt: Date;
  leaseToken: string;
};

type Row = { id: string; channel_id: string; user_id: string; payload: OutboxPayload };

const messages = outbox('channel_outbox');

/** Claims up to `limit` due messages, leased to the caller for `leaseMs`. */
export async function claimMessages(sql: Sql, opts: { limit: number; leaseMs: number }): Promise<OutboxMessage[]> {
  const { rows, leaseToken } = await transaction(sql, (tx) => messages.claim<Row>(tx, { ...opts, order: tx`available_at, id` }));
  return rows.map((r) => ({
    id: r.id,
    channelId: r.channel_id,
    userId: r.user_id,
    content: messageOf(r.payload),
    attempt: r.attempts,
    enqueuedAt: r.enqueued_at,
    leaseToken,
  }));
}

/**
 * Removes the message (or, with `retryAt`, puts it back until then) in the caller's transaction, if
 * this deliverer still holds it. False when the lease passed to another deliverer.
 */
export async function settleMessage(tx: Sql, message: OutboxMessage, outcome: { retryAt: Date | null; error?: string }): Promise<boolean> {
  const held = { column: 'id' as const, value: message.id, leaseToken: message.leaseToken };
  return outcome.retryAt ? messages.retryLater(tx, held, outcome.retryAt, outcome.error ?? null) : messages.settle(tx, held);
}
