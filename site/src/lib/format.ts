/** Display formats shared by every signed-in screen (spec sections 2, 4 and 9). */

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

const poundFormat = new Intl.NumberFormat('en-GB', {
  style: 'currency',
  currency: 'GBP',
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});

/** '£1,299.99'; a dash when there is no price. Prices arrive as numbers or numeric strings. */
export function formatPrice(value: number | string | null | undefined): string {
  const n = toNumber(value);
  return n === null ? MISSING : poundFormat.format(n);
}

const currencyFormats = new Map<string, Intl.NumberFormat>([['GBP', poundFormat]]);

function currencyFormat(currency: string | null | undefined): Intl.NumberFormat {
  const code = currency?.toUpperCase() || 'GBP';
  let format = currencyFormats.get(code);
  if (!format) {
    try {
      format = new Intl.NumberFormat('en-GB', { style: 'currency', currency: code });
    } catch {
      format = poundFormat; // not an ISO code Intl knows
    }
    currencyFormats.set(code, format);
  }
  return format;
}

/** A price in the currency its shop shows ('€12.50'); pounds when the currency is unknown. */
export function formatPriceIn(value: number | string | null | undefined, currency: string | null | undefined): string {
  const n = toNumber(value);
  return n === null ? MISSING : currencyFormat(currency).format(n);
}

/** The sign prices in this currency are shown with: '£', '€', 'US$'. */
export function currencySymbol(currency: string | null | undefined): string {
  return currencyFormat(currency).formatToParts(0).find((part) => part.type === 'currency')?.value ?? (currency || '£');
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

const MINUTE = 60_000;

const dateTimeFormat: Intl.DateTimeFormatOptions = {
  day: 'numeric',
  month: 'short',
  hour: '2-digit',
  minute: '2-digit',
};

/** 'Just now', 'Nm ago' under an hour, 'Nh ago' under a day, else '5 Mar, 14:30' (local time). */
export function relativeTime(value: string | number | Date, now: number | Date = Date.now()): string {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return MISSING;
  const minutes = Math.floor((+now - date.getTime()) / MINUTE);
  if (minutes < 1) return 'Just now';
  if (minutes < 60) return `${minutes}m ago`;
  if (minutes < 1440) return `${Math.floor(minutes / 60)}h ago`;
  return date.toLocaleString('en-GB', dateTimeFormat);
}

/** '5 Mar 2026, 14:30' in local time; a dash when absent. */
export function formatDateTime(value: string | number | Date | null | undefined): string {
  if (value === null || value === undefined) return MISSING;
  const date = value instanceof Date ? value : new Date(value);
  return Number.isNaN(date.getTime()) ? MISSING : date.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' });
}

/** First and last name, else the e-mail's local part, else 'User'. */
export function displayName(user: Person | null | undefined): string {
  const name = [user?.firstName, user?.lastName].map((part) => part?.trim()).filter(Boolean).join(' ');
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
