/** Pure rules of the Products screen: search, card figures and the dialogs' validation (docs/product.md#products). */
import { formatSignedPercent, relativeTime } from './format';
import { parseManualPrice } from '../../../api/products/manual-price';
import { selectorMissNote, type PriceSource } from '../../../api/reading/price-source';
import { editNeedsCheck, type ReadFrom } from '../../../api/products/recheck';

export { variantLabel } from '../../../domain/variants';

type Searchable = { name: string; url: string };

/** Case-insensitive match on name or url; an empty query keeps everything. */
export function filterProducts<P extends Searchable>(products: readonly P[], query: string): P[] {
  const needle = query.trim().toLowerCase();
  if (!needle) return [...products];
  return products.filter((p) => p.name.toLowerCase().includes(needle) || p.url.toLowerCase().includes(needle));
}

/**
 * The card's 24h Change: '+2.5%', '-1.0%', '0%' when flat, and a dash without a figure (no price
 * yet, or a change from a price of 0, which has no percent).
 */
export function formatChange(changePercent: number | null | undefined): string {
  if (changePercent === null || changePercent === undefined) return formatSignedPercent(null);
  if (Number(changePercent.toFixed(1)) === 0) return '0%';
  return formatSignedPercent(changePercent);
}

export type AlertRule = { kind: 'none' | 'any' | 'drop'; percent?: number };

/** The card's Alert Threshold, or null when no alert is set. */
export function thresholdLabel(rule: AlertRule | null | undefined): string | null {
  if (rule?.kind === 'any') return 'Any change';
  if (rule?.kind === 'drop' && rule.percent !== undefined) return `${Number(rule.percent.toFixed(1))}% drop`;
  return null;
}

/**
 * The card's stock badge: loud when the product is out of stock, quiet for pre-order and
 * backorder; none when in stock or when the page never said.
 */
export function availabilityBadge(availability: string | null | undefined): { label: string; variant: 'danger' | 'outline' } | null {
  switch (availability) {
    case 'OutOfStock':
      return { label: 'Out of stock', variant: 'danger' };
    case 'PreOrder':
      return { label: 'Pre-order', variant: 'outline' };
    case 'BackOrder':
      return { label: 'Backorder', variant: 'outline' };
    default:
      return null;
  }
}

type CheckState = {
  checkStatus: 'pending' | 'ok' | 'failing';
  isActive: boolean;
  lastChecked: string | null;
  lastFailure: { message: string; at: string } | null;
  createdAt: string;
  /** Where the current price came from, and when: a price typed in by hand was not checked. */
  priceSource?: PriceSource | null;
  lastPriceAt?: string | null;
};

/** How long a new product's first check may take before the card stops saying it is running. */
export const FIRST_CHECK_WAIT_MS = 60_000;

export type CheckView = {
  /** The dot: green while checks work, amber after a failed check, red when they keep failing, grey before the first. */
  tone: 'ok' | 'pending' | 'warning' | 'failing';
  /** The dot's label (hover, focus, screen readers). */
  label: string;
  /** The line beside the dot. */
  line: string;
};

/** What the card says about its checks: never healthy while they fail, never failing before the first. */
export function checkView(product: CheckState, now: number = Date.now()): CheckView {
  if (product.checkStatus === 'pending') {
    const running = now - Date.parse(product.createdAt) < FIRST_CHECK_WAIT_MS;
    return { tone: 'pending', label: 'Not checked yet', line: running ? 'First check running…' : 'Waiting for the first check' };
  }
  if (product.checkStatus === 'failing') {
    const reason = product.lastFailure?.message || 'The last price check failed.';
    const when = product.lastFailure?.at ?? product.lastChecked;
    const line = `Last check failed${when ? `: ${relativeTime(when, now)}` : ''}`;
    return product.isActive
      ? { tone: 'warning', label: `The last check failed: ${reason}`, line }
      : { tone: 'failing', label: `Checks keep failing: ${reason}`, line };
  }
  if (product.priceSource === 'manual' && product.lastPriceAt) {
    return { tone: 'ok', label: 'Checks working', line: `Price set by hand: ${relativeTime(product.lastPriceAt, now)}` };
  }
  return { tone: 'ok', label: 'Checks working', line: `Last checked: ${product.lastChecked ? relativeTime(product.lastChecked, now) : 'Never'}` };
}

/** An edit that changed what checks read, waiting for the check it queued: the last check before it, and when. */
export type Recheck = { lastChecked: string | null; since: number };

/** What the card says while that check runs: the last result was read with the old address or selector. */
export const RECHECK_VIEW: CheckView = { tone: 'pending', label: 'Checking with your changes', line: 'Check running…' };

/** The check to wait for after an edit (a new address or selector is checked at once), or null when the edit queued none. */
export function recheckAfterEdit(before: ReadFrom & { lastChecked: string | null }, after: ReadFrom, now: number = Date.now()): Recheck | null {
  return editNeedsCheck(before, after) ? { lastChecked: before.lastChecked, since: now } : null;
}

/** Whether that check is still to arrive: the product not checked since the edit, for a minute at most (as a first check). */
export function awaitingRecheck(product: { lastChecked: string | null }, recheck: Recheck | undefined, now: number = Date.now()): boolean {
  return recheck !== undefined && product.lastChecked === recheck.lastChecked && now - recheck.since < FIRST_CHECK_WAIT_MS;
}

type Priced = { checkStatus: CheckState['checkStatus']; selector: string; priceSource: PriceSource | null };

/**
 * The sentence saying the last price did not come from the product's selector (so the selector
 * needs fixing), or null when it did, was typed in, or checks are not finding prices at all.
 * `fromCheck`: Check Now's own sentence, which knows why the selector gave nothing.
 */
export function selectorNote(product: Priced, fromCheck: string | null = null): string | null {
  if (product.checkStatus !== 'ok' || !product.selector.trim() || !product.priceSource) return null;
  return selectorMissNote(product.priceSource) && (fromCheck ?? selectorMissNote(product.priceSource));
}

/** The add dialog's choices; the values are what POST /api/products takes. */
export const ADD_THRESHOLDS = [
  { value: 'none', label: 'No alerts' },
  { value: '-5', label: '5% decrease' },
  { value: '-10', label: '10% decrease' },
  { value: '-15', label: '15% decrease' },
  { value: '-20', label: '20% decrease' },
  { value: 'any', label: 'Any change' },
] as const;

export type AddThreshold = (typeof ADD_THRESHOLDS)[number]['value'];

export type ProductFields = { name: string; url: string; selector: string };
export type FieldErrors<K extends string = string> = Partial<Record<K, string>>;

/** http and https only: the price checker fetches nothing else. */
export function isValidUrl(text: string): boolean {
  try {
    const url = new URL(text.trim());
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

export function validateProduct(fields: ProductFields): FieldErrors<keyof ProductFields> {
  const errors: FieldErrors<keyof ProductFields> = {};
  if (!fields.name.trim()) errors.name = 'Product name is required';
  if (!isValidUrl(fields.url)) errors.url = 'Please enter a valid URL';
  if (!fields.selector.trim()) errors.selector = 'CSS selector is required';
  return errors;
}

/** What is wrong with a price typed in by hand (the server's own rule); null when valid. */
export function validatePrice(text: string): string | null {
  const parsed = parseManualPrice(text);
  return 'error' in parsed ? parsed.error : null;
}

/** The edit dialog's threshold: empty means no alerts (null), else a percent drop of at least 0. */
export function parseEditThreshold(text: string): { value: number | null } | { error: string } {
  if (!text.trim()) return { value: null };
  const percent = Number(text);
  return Number.isFinite(percent) && percent >= 0 ? { value: percent } : { error: 'Threshold must be a positive number' };
}

export type ServerError = { status: number | null; message: string | null; field: string | null };

/**
 * Reads an API error's `${status}: ${body}` message: the server's sentence and, for bad input, the
 * field it is about (without the 'field: ' prefix the server puts before validation messages).
 */
export function serverError(error: unknown): ServerError {
  const match = error instanceof Error ? /^(\d{3}): ([\s\S]*)$/.exec(error.message) : null;
  if (!match) return { status: null, message: null, field: null };
  const status = Number(match[1]);
  let body: unknown;
  try {
    body = JSON.parse(match[2]!);
  } catch {
    return { status, message: match[2] || null, field: null };
  }
  const { message, field } = (body && typeof body === 'object' ? body : {}) as { message?: unknown; field?: unknown };
  const fieldName = typeof field === 'string' && field ? field : null;
  let text = typeof message === 'string' && message ? message : null;
  if (text && fieldName && text.startsWith(`${fieldName}: `)) text = text.slice(fieldName.length + 2);
  return { status, message: text, field: fieldName };
}
