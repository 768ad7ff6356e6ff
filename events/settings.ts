/**
 * The values a user's settings can take and their defaults (spec section 3). Plain data, no zod,
 * so the browser can import it too: the Settings screen and the server share one definition.
 */
export const CHECK_FREQUENCIES = ['hourly', 'daily', 'weekly'] as const;
export const CURRENCIES = ['GBP', 'USD', 'EUR'] as const;
export const TIMEZONES = ['Europe/London', 'America/New_York', 'Europe/Paris', 'Asia/Tokyo'] as const;

export type SettingsValues = {
  emailNotifications: boolean;
  priceDropAlerts: boolean;
  weeklyReports: boolean;
  checkFrequency: (typeof CHECK_FREQUENCIES)[number];
  currency: (typeof CURRENCIES)[number];
  timezone: (typeof TIMEZONES)[number];
};

export const DEFAULT_SETTINGS: SettingsValues = {
  emailNotifications: true,
  priceDropAlerts: true,
  weeklyReports: false,
  checkFrequency: 'daily',
  currency: 'GBP',
  timezone: 'Europe/London',
};
