import type { Projection } from './projection.ts';

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
  apply(tx, e) {
    if (e.type !== 'SettingsChanged') return;
    const { userId, settings: s } = e.data;
    return tx`
      INSERT INTO user_settings (user_id, email_notifications, price_drop_alerts, weekly_reports, check_frequency, currency, timezone, updated_at)
      VALUES (${userId}, ${s.emailNotifications}, ${s.priceDropAlerts}, ${s.weeklyReports}, ${s.checkFrequency}, ${s.currency}, ${s.timezone}, ${e.recordedAt})
      ON CONFLICT (user_id) DO UPDATE SET
        email_notifications = EXCLUDED.email_notifications, price_drop_alerts = EXCLUDED.price_drop_alerts,
        weekly_reports = EXCLUDED.weekly_reports, check_frequency = EXCLUDED.check_frequency,
        currency = EXCLUDED.currency, timezone = EXCLUDED.timezone, updated_at = EXCLUDED.updated_at`;
  },
};
