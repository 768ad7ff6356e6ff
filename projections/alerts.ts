import type { RecordedEvent } from '../events/store.ts';
import type { AlertEvent } from '../events/alert.ts';
import type { Projection } from './projection.ts';

/**
 * Alerts as the Alerts screen, the notifications popover and the dashboard show them. An alert
 * and its notification are one row: reading it in either place reads it in both.
 * Alerts stay when their product is removed; they are history. An alert is dated by the price
 * change it reports, not by the moment it was raised (the same within a second, unless the log
 * is replayed into a new database). Notices (NoticeRaised) share the table, with no product.
 */
export const alertsProjection: Projection = {
  name: 'alerts',
  tables: ['alerts'],
  ddl: `
    CREATE TABLE IF NOT EXISTS alerts (
      id                text PRIMARY KEY,
      user_id           text NOT NULL,
      product_id        text NOT NULL,
      type              text NOT NULL,
      product_name      text NOT NULL,
      product_url       text NOT NULL,
      product_image     text,
      message           text NOT NULL,
      previous_price    double precision,
      current_price     double precision,
      currency          text,
      change_percent    double precision,
      threshold_percent double precision,
      trigger_position  bigint NOT NULL,
      is_read           boolean NOT NULL DEFAULT false,
      read_at           timestamptz,
      created_at        timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS alerts_by_user ON alerts (user_id, created_at DESC, id);
    CREATE INDEX IF NOT EXISTS alerts_unread_by_user ON alerts (user_id) WHERE NOT is_read;
    -- Stock alerts may know no price (a sold-out page often shows none).
    ALTER TABLE alerts ALTER COLUMN previous_price DROP NOT NULL;
    ALTER TABLE alerts ALTER COLUMN current_price DROP NOT NULL;
    ALTER TABLE alerts ALTER COLUMN change_percent DROP NOT NULL;
    -- Undercut and cheapest alerts: the owner's product and the competitor it was measured against.
    ALTER TABLE alerts ADD COLUMN IF NOT EXISTS standing jsonb;`,
  handles: ['AlertRaised', 'NoticeRaised', 'AlertRead', 'NotificationRead', 'AllNotificationsRead'],

  async apply(tx, recorded) {
    const events = recorded as RecordedEvent<AlertEvent>[];
    const raised = events.flatMap((e): Record<string, unknown>[] =>
      e.type === 'AlertRaised'
        ? [
            {
              id: e.data.alertId,
              user_id: e.data.userId,
              product_id: e.data.productId,
              type: e.data.type,
              product_name: e.data.productName,
              product_url: e.data.productUrl,
              product_image: e.data.productImage,
              message: e.data.message,
              previous_price: e.data.previousPrice,
              current_price: e.data.currentPrice,
              currency: e.data.currency,
              change_percent: e.data.changePercent,
              threshold_percent: e.data.thresholdPercent,
              trigger_position: e.data.trigger.position,
              is_read: false,
              read_at: null,
              created_at: e.data.trigger.at,
              standing: e.data.standing,
            },
          ]
        : e.type === 'NoticeRaised'
          ? [
              {
                // A notice about the account (a channel turned off) is a row without a product: the
                // notifications list it, the Alerts screen and the dashboard's counts leave it out.
                id: e.data.alertId,
                user_id: e.data.userId,
                product_id: '',
                type: e.data.kind,
                product_name: e.data.title,
                product_url: e.data.link,
                product_image: null,
                message: e.data.message,
                previous_price: null,
                current_price: null,
                currency: null,
                change_percent: null,
                threshold_percent: null,
                trigger_position: e.position,
                is_read: false,
                read_at: null,
                created_at: e.data.at,
                standing: null,
              },
            ]
          : [],
    );
    // A read always follows its alert in the log, so inserting first and reading second keeps the order.
    if (raised.length) {
      await tx`INSERT INTO alerts SELECT * FROM jsonb_populate_recordset(NULL::alerts, ${tx.json(raised as never)}) ON CONFLICT (id) DO NOTHING`;
    }
    const reads = events.flatMap((e) => {
      if (e.type === 'AlertRead' || e.type === 'NotificationRead') return [{ id: e.data.alertId, userId: e.data.userId, at: e.recordedAt }];
      if (e.type === 'AllNotificationsRead') return e.data.alertIds.map((id) => ({ id, userId: e.data.userId, at: e.recordedAt }));
      return [];
    });
    if (reads.length) {
      await tx`
        UPDATE alerts SET is_read = true, read_at = coalesce(alerts.read_at, r.at)
        FROM unnest(${reads.map((r) => r.id)}::text[], ${reads.map((r) => r.userId)}::text[], ${reads.map((r) => r.at.toISOString())}::timestamptz[]) AS r(id, user_id, at)
        WHERE alerts.id = r.id AND alerts.user_id = r.user_id`;
    }
  },
};
