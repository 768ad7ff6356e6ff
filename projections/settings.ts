import type { Projection } from './projection.ts';
import { lastBy } from './batch.ts';

/** Each user's saved settings; no row means never saved (the API answers 404, the screen shows defaults). */
export const settingsProjection: Projection = {
  name: 'settings',
  tables: ['user_settings'],
  ddl: `
    CREATE TABLE IF NOT EXISTS user_settings (
      user_id             text PRIMARY KEY,
      email_notifications boolean NOT NULL,
      price_drop_alerts   boolean NOT NULL,
      weekly_reports      boolean NOT NULL,
      check_frequency     text NOT NULL,
      currency            text NOT NULL,
      timezone            text NOT NULL,
      updated_at          timestamptz NOT NULL
    );`,
  handles: ['SettingsChanged'],
  async apply(tx, events) {
    const rows = lastBy(
      events.flatMap((e) => (e.type === 'SettingsChanged' ? [{ ...e.data, at: e.recordedAt }] : [])),
      (d) => d.userId,
    ).map(({ userId, settings: s, at }) => ({
      user_id: userId,
      email_notifications: s.emailNotifications,
      price_drop_alerts: s.priceDropAlerts,
      weekly_reports: s.weeklyReports,
      check_frequency: s.checkFrequency,
      currency: s.currency,
      timezone: s.timezone,
      updated_at: at,
    }));
    if (!rows.length) return;
    await tx`
      INSERT INTO user_settings ${tx(rows)}
      ON CONFLICT (user_id) DO UPDATE SET
        email_notifications = EXCLUDED.email_notifications, price_drop_alerts = EXCLUDED.price_drop_alerts,
        weekly_reports = EXCLUDED.weekly_reports, check_frequency = EXCLUDED.check_frequency,
        currency = EXCLUDED.currency, timezone = EXCLUDED.timezone, updated_at = EXCLUDED.updated_at`;
  },
};
