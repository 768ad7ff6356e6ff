/** Settings (docs/product.md#settings): the defaults and the choices the Settings screen offers. */
import type { Settings } from './api';

type Choice<V> = { value: V; label: string };

export const CHECK_FREQUENCIES: Choice<Settings['checkFrequency']>[] = [
  { value: 'hourly', label: 'Hourly' },
  { value: 'daily', label: 'Daily' },
  { value: 'weekly', label: 'Weekly' },
];

export const CURRENCIES: Choice<Settings['currency']>[] = [
  { value: 'GBP', label: 'GBP (£)' },
  { value: 'USD', label: 'USD ($)' },
  { value: 'EUR', label: 'EUR (€)' },
];

export const TIMEZONES: Choice<Settings['timezone']>[] = [
  { value: 'Europe/London', label: 'London (GMT/BST)' },
  { value: 'America/New_York', label: 'New York (EST/EDT)' },
  { value: 'Europe/Paris', label: 'Paris (CET/CEST)' },
  { value: 'Asia/Tokyo', label: 'Tokyo (JST)' },
];

/** The settings of a user who has never saved any (GET /api/settings answers them; a 404 still means them). */
export { DEFAULT_SETTINGS } from '../../../events/settings';
