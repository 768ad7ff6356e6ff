/** Display formats shared by every signed-in screen (docs/product.md#figures-currencies-and-times). */
import { formatMoney } from '../../../domain/money.ts';

type Person = {
  firstName?: string | null;
  lastName?: string | null;
  email?: string | null;
};

type PlanHolder = {
  subscriptionPlan?: string | null;
  plan?: string | null;
};

const MISSING = '—';

function toNumber(value: number | string | null | undefined): number | null {
  if (value === null || value === undefined || value === '') return null;
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isFinite(n) ? n : null;
}

/**
 * A price in its own currency: '£1,299.99', '€12.50', 'US$5.00', 'JP¥1,280'; a dash when there is no
 * price. Every screen prints prices through this one function, so the currency is never left out.
 * Prices arrive as numbers or numeric strings; currencies as ISO 4217 codes.
 */
export function formatPrice(value: number | string | null | undefined, currency: string): string {
  const n = toNumber(value);
  return n === null ? MISSING : formatMoney(n, currency);
}

/** '5.3%', as given (callers pass Math.abs for unsigned badges). */
export function formatPercent(value: number | string | null | undefined): string {
  const n = toNumber(value);
  return n === null ? MISSING : `${n.toFixed(1)}%`;
}

/** '+5.3%', '-2.0%', '0.0%': the sign follows the rounded figure, so no '+0.0%' or '-0.0%'. */
export function formatSignedPercent(value: number | string | null | undefined): string {
  const n = toNumber(value);
  if (n === null) return MISSING;
  const rounded = Number(n.toFixed(1));
  if (rounded === 0) return '0.0%';
  return `${rounded > 0 ? '+' : ''}${rounded.toFixed(1)}%`;
}

// ---------------------------------------------------------------------------------------------
// Times. Every time on every screen is shown in the user's time zone setting (the browser's own
// until the user is known), through the functions below.

let timeZone: string | undefined;

/** Sets the zone times are shown in: an IANA name ('Europe/Paris'); anything else means the browser's. */
export function setDisplayTimeZone(zone: string | null | undefined): void {
  try {
    timeZone = zone ? new Intl.DateTimeFormat('en-GB', { timeZone: zone }).resolvedOptions().timeZone : undefined;
  } catch {
    timeZone = undefined;
  }
}

/** The zone times are shown in (undefined: the browser's). */
export const displayTimeZone = (): string | undefined => timeZone;

const toDate = (value: string | number | Date) => (value instanceof Date ? value : new Date(value));

/** British style date and time parts in the display zone: '5 Mar, 14:30', '5 Mar 2026', ... */
export function formatInZone(value: string | number | Date, options: Intl.DateTimeFormatOptions): string {
  const date = toDate(value);
  return Number.isNaN(date.getTime()) ? MISSING : date.toLocaleString('en-GB', { ...options, timeZone });
}

/**
 * The wall-clock time of the display zone as a Date whose local fields read it: what uPlot's
 * `tzDate` option wants, so a chart's ticks fall on the user's midnights and hours.
 */
export function zonedDate(seconds: number): Date {
  const date = new Date(seconds * 1000);
  if (!timeZone) return date;
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    })
      .formatToParts(date)
      .map((p) => [p.type, Number(p.value)]),
  );
  return new Date(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!, date.getMilliseconds());
}

const MINUTE = 60_000;

/** 'Just now', 'Nm ago' under an hour, 'Nh ago' under a day, else '5 Mar, 14:30'. */
export function relativeTime(value: string | number | Date, now: number | Date = Date.now()): string {
  const date = toDate(value);
  if (Number.isNaN(date.getTime())) return MISSING;
  const minutes = Math.floor((+now - date.getTime()) / MINUTE);
  if (minutes < 1) return 'Just now';
  if (minutes < 60) return `${minutes}m ago`;
  if (minutes < 1440) return `${Math.floor(minutes / 60)}h ago`;
  return formatInZone(date, { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
}

/** '5 Mar 2026, 14:30'; a dash when absent. */
export function formatDateTime(value: string | number | Date | null | undefined): string {
  return value === null || value === undefined ? MISSING : formatInZone(value, { dateStyle: 'medium', timeStyle: 'short' });
}

/** '5 Mar 2026'; a dash when absent. */
export function formatDate(value: string | number | Date | null | undefined): string {
  return value === null || value === undefined ? MISSING : formatInZone(value, { day: 'numeric', month: 'short', year: 'numeric' });
}

/** '14:30' today, else '5 Mar, 14:30', in the display zone. */
export function formatTimeOrDay(value: string | number | Date, now: number | Date = Date.now()): string {
  const day = (d: string | number | Date) => formatInZone(d, { year: 'numeric', month: 'numeric', day: 'numeric' });
  const time = formatInZone(value, { hour: '2-digit', minute: '2-digit' });
  return day(value) === day(now) ? time : `${formatInZone(value, { day: 'numeric', month: 'short' })}, ${time}`;
}

/** First and last name, else the e-mail's local part, else 'User'. */
export function displayName(user: Person | null | undefined): string {
  const name = [user?.firstName, user?.lastName]
    .map((part) => part?.trim())
    .filter(Boolean)
    .join(' ');
  return name || user?.email?.split('@')[0] || 'User';
}

/** The letter shown when there is no profile image. */
export function avatarLetter(user: Person | null | undefined): string {
  const source = user?.firstName?.trim() || user?.email?.trim();
  return source ? source[0].toUpperCase() : 'U';
}

/** 'Starter Plan': the subscription's plan, else the account plan, else Free. */
export function planLabel(user: PlanHolder | null | undefined): string {
  const id = user?.subscriptionPlan || user?.plan || 'free';
  return `${id[0].toUpperCase()}${id.slice(1)} Plan`;
}

/** The bell's unread badge: the count, capped at '9+'. */
export function badgeCount(unread: number): string {
  return unread > 9 ? '9+' : String(unread);
}

/** 'shop.example.com' for 'https://www.shop.example.com/p/1'; the input itself if it is not a URL. */
export function hostWithoutWww(url: string): string {
  try {
    return new URL(url).hostname.replace(/^www\./, '');
  } catch {
    return url;
  }
}
