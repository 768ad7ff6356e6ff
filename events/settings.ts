/**
 * The values a user's settings can take and their defaults (docs/product.md#settings). Plain data, no zod,
 * so the browser can import it too: the Settings screen and the server share one definition.
 */
export const CHECK_FREQUENCIES = ['hourly', 'daily', 'weekly'] as const;
export type CheckFrequencySetting = (typeof CHECK_FREQUENCIES)[number];
export const CURRENCIES = ['GBP', 'USD', 'EUR'] as const;
export const TIMEZONES = ['Europe/London', 'America/New_York', 'Europe/Paris', 'Asia/Tokyo'] as const;

export type SettingsValues = {
  emailNotifications: boolean;
  priceDropAlerts: boolean;
  weeklyReports: boolean;
  checkFrequency: CheckFrequencySetting;
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

/** Minutes between checks each frequency setting asks for. */
export const CHECK_FREQUENCY_MINUTES: Record<CheckFrequencySetting, number> = { hourly: 60, daily: 1440, weekly: 10_080 };

/**
 * The frequencies a plan that checks every `planMinutes` lets a user choose, fastest first: none
 * faster than the plan, since the schedule would only run it at the plan's pace anyway.
 */
export const frequenciesWithin = (planMinutes: number): CheckFrequencySetting[] => CHECK_FREQUENCIES.filter((f) => CHECK_FREQUENCY_MINUTES[f] >= planMinutes);

/**
 * What a saved frequency comes to on a plan: itself when the plan allows it, else the plan's
 * fastest (a frequency saved before a downgrade is read, never refused).
 */
export function effectiveFrequency(saved: CheckFrequencySetting, planMinutes: number): CheckFrequencySetting {
  const allowed = frequenciesWithin(planMinutes);
  return allowed.includes(saved) ? saved : (allowed[0] ?? 'weekly');
}
