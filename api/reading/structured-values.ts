/**
 * What every reader of structured data shares: the price it reports, amounts and currency codes as
 * structured data writes them, the order of offers, JSON values, and the availability words.
 */
import { readPrice } from './price-text.ts';

export type StructuredSource = 'json-ld' | 'microdata' | 'rdfa' | 'opengraph' | 'meta' | 'script-state';

/** A price found in structured data, with its value as written. */
export interface StructuredPrice {
  source: StructuredSource;
  amount: number;
  currency: string | null;
  raw: string;
}

export interface OfferPrice {
  amount: number;
  currency: string | null;
  raw: string;
  url: string | null;
}

/** Structured amounts are machine-written ("1299.00"); some shops write them like text ("1.299,00"). */
export function structuredAmount(value: unknown, currency: string | null): { amount: number; currency: string | null; raw: string } | null {
  if (typeof value !== 'number' && typeof value !== 'string') return null;
  const raw = String(value).trim();
  const machineWritten = typeof value === 'number' || /^\d+(?:\.\d+)?$/.test(raw);
  if (machineWritten) {
    const amount = Number(raw);
    return Number.isFinite(amount) && amount > 0 ? { amount, currency, raw } : null;
  }
  const reading = readPrice(raw, { currencyHint: currency });
  return reading.ok ? { amount: reading.amount, currency: reading.currency ?? currency, raw } : null;
}

export function currencyCode(value: unknown): string | null {
  return typeof value === 'string' && /^[A-Za-z]{3}$/.test(value.trim()) ? value.trim().toUpperCase() : null;
}

/** The offer naming this page's url first, then cheapest first. */
export function bestFirst(prices: OfferPrice[], url: string | undefined): OfferPrice[] {
  const forThisUrl = (price: OfferPrice) => (url && price.url && sameUrl(price.url, url, true) ? 0 : 1);
  return [...prices].sort((a, b) => forThisUrl(a) - forThisUrl(b) || a.amount - b.amount);
}

export function sameUrl(candidate: string, pageUrl: string, withQuery: boolean): boolean {
  try {
    const a = new URL(candidate, pageUrl);
    const b = new URL(pageUrl);
    const key = (u: URL) => `${u.host}${u.pathname.replace(/\/+$/, '')}${withQuery ? u.search : ''}`;
    return key(a) === key(b);
  } catch {
    return false;
  }
}

// JSON values ------------------------------------------------------------------------------------

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
}

// Availability -----------------------------------------------------------------------------------

/** Whether the page offers the product for sale now (schema.org ItemAvailability); null where it does not say. */
export type Availability = 'InStock' | 'OutOfStock' | 'PreOrder' | 'BackOrder';

/** schema.org ItemAvailability values (and the words meta tags use) as the four states offers can be in. */
export function availabilityOf(value: unknown): Availability | null {
  if (typeof value !== 'string') return null;
  const word = value
    .trim()
    .split(/[/:#]/)
    .pop()!
    .replace(/[\s_-]+/g, '')
    .toLowerCase();
  if (/^(?:instock|limitedavailability|onlineonly|instoreonly|available|availablefororder|yes|true|1)$/.test(word)) return 'InStock';
  if (/^(?:outofstock|soldout|discontinued|oos|unavailable|notavailable|no|false|0)$/.test(word)) return 'OutOfStock';
  if (/^(?:preorder|presale)$/.test(word)) return 'PreOrder';
  if (/^(?:backorder|madetoorder)$/.test(word)) return 'BackOrder';
  return null;
}
