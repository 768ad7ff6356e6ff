import type { EventOf } from '../events/catalogue.ts';
import type { RecordedEvent } from '../events/store.ts';
import type { Projection } from './projection.ts';

type Handled = EventOf<'ChannelAdded'> | EventOf<'ChannelChanged'> | EventOf<'ChannelRemoved'> | EventOf<'AlertDelivered'> | EventOf<'AlertDeliveryFailed'>;

/**
 * A user's alert channels as Settings > Notifications lists them, and each channel's delivery log:
 * every attempt, delivered or not, with the receiver's status or the error. A removed channel's
 * log goes with it.
 */
export const channelsProjection: Projection = {
  name: 'channels',
  tables: ['channels', 'channel_deliveries'],
  ddl: `
    CREATE TABLE IF NOT EXISTS channels (
      id              text PRIMARY KEY,
      user_id         text NOT NULL,
      type            text NOT NULL,
      name            text NOT NULL,
      target          text NOT NULL,
      enabled         boolean NOT NULL,
      alert_types     text[] NOT NULL,
      disabled_reason text,
      created_at      timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS channels_by_user ON channels (user_id, created_at);
    CREATE TABLE IF NOT EXISTS channel_deliveries (
      id           text PRIMARY KEY,
      channel_id   text NOT NULL,
      user_id      text NOT NULL,
      message_id   text NOT NULL,
      alert_id     text,
      product_name text,
      delivered    boolean NOT NULL,
      status       integer,
      error        text,
      attempt      integer NOT NULL,
      retry_at     timestamptz,
      at           timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS channel_deliveries_by_channel ON channel_deliveries (channel_id, at DESC, id);`,
  handles: ['ChannelAdded', 'ChannelChanged', 'ChannelRemoved', 'AlertDelivered', 'AlertDeliveryFailed'],

  async apply(tx, recorded) {
    // Events are applied in order, one statement each: a user changes channels a few times, not thousands.
    for (const e of recorded as RecordedEvent<Handled>[]) {
      const d = e.data;
      switch (e.type) {
        case 'ChannelAdded':
          await tx`
            INSERT INTO channels (id, user_id, type, name, target, enabled, alert_types, disabled_reason, created_at)
            VALUES (${d.channelId}, ${d.userId}, ${e.data.type}, ${e.data.name}, ${e.data.target}, true, ${e.data.alertTypes}::text[], NULL, ${e.recordedAt})
            ON CONFLICT (id) DO NOTHING`;
          break;
        case 'ChannelChanged':
          await tx`
            UPDATE channels SET name = ${e.data.name}, enabled = ${e.data.enabled}, alert_types = ${e.data.alertTypes}::text[], disabled_reason = ${e.data.disabledReason}
            WHERE id = ${d.channelId}`;
          break;
        case 'ChannelRemoved':
          await tx`DELETE FROM channels WHERE id = ${d.channelId}`;
          await tx`DELETE FROM channel_deliveries WHERE channel_id = ${d.channelId}`;
          break;
        case 'AlertDelivered':
        case 'AlertDeliveryFailed': {
          const delivered = e.type === 'AlertDelivered';
          await tx`
            INSERT INTO channel_deliveries (id, channel_id, user_id, message_id, alert_id, product_name, delivered, status, error, attempt, retry_at, at)
            SELECT ${`${e.data.messageId}:${e.data.attempt}`}, ${d.channelId}, ${d.userId}, ${e.data.messageId}, ${e.data.alertId}, ${e.data.productName},
              ${delivered}, ${e.data.status}, ${delivered ? null : (e.data as EventOf<'AlertDeliveryFailed'>['data']).error},
              ${e.data.attempt}, ${delivered ? null : (e.data as EventOf<'AlertDeliveryFailed'>['data']).retryAt}, ${e.data.at}
            WHERE EXISTS (SELECT 1 FROM channels WHERE id = ${d.channelId})
            ON CONFLICT (id) DO NOTHING`;
          break;
        }
      }
    }
  },
};
