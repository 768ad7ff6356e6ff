import type { FetchFailure } from '../../../domain/check-failures.ts';
import { normaliseGtin } from '../../../domain/gtin.ts';
import { validateTargetUrl } from '../../fetching/address-guard.ts';
import type { Fetcher, FetchOptions } from '../../fetching/fetcher.ts';

export { normaliseGtin };

/** `fallbackCurrency`: the owner's currency, for a source that does not state its own. */
export type SourceDeps = { fetcher: Fetcher; fetchOptions: FetchOptions; fallbackCurrency: string };

export type Availability = 'InStock' | 'OutOfStock' | 'PreOrder' | 'BackOrder';
export type CatalogueItem = {
  /** The item's id in its source: Shopify variant id, WooCommerce product or variation id, Merchant feed g:id. */
  externalId: string;
  title: string;
  /** The variant's own name ("XL / Red"); null when the product has no variants. */
  variant: string | null;
  sku: string | null;
  /** 14 digits (domain/gtin.ts normaliseGtin). */
  gtin: string | null;
  mpn: string | null;
  brand: string | null;
  /** What a buyer pays now: the sale price when on sale. */
  price: number;
  /** ISO 4217, upper case. */
  currency: string;
  /** The compare-at or regular price when it is higher than `price`. */
  regularPrice: number | null;
  /** What the owner pays for it, when the source states it (a Merchant feed's cost_of_goods_sold). */
  cost?: number | null;
  /** Absolute http(s) address of the product (variant) page. */
  url: string | null;
  imageUrl: string | null;
  availability: Availability | null;
};
export type Skipped = { id: string; reason: string };
export type SourceFailure = { ok: false; code: string; reason: string; httpStatus: number | null };
export type SourceRead = { ok: true; items: CatalogueItem[]; skipped: Skipped[] } | SourceFailure;

/** The most entries read from one source: more fail the read rather than import part of it. */
export const MAX_SOURCE_ITEMS = 20_000;

/** Lengths as the own-product events accept them (events/catalogue.ts). */
export const TEXT_LIMITS = { externalId: 200, title: 300, variant: 200, sku: 100, mpn: 100, brand: 100, url: 2000 } as const;

// ---------------------------------------------------------------------------------------
// Values

/** Trimmed, whitespace collapsed, control characters dropped, capped at `max`; null when empty. */
export function cleanText(value: unknown, max: number): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) value = String(value);
  if (typeof value !== 'string') return null;
  const text = value
    .replace(/\p{Cc}+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (!text) return null;
  if (text.length <= max) return text;
  // Never leave half of a surrogate pair at the end.
  const cut = text.slice(0, max);
  return /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/** An absolute http(s) address (relative ones resolved against `base`), or null. */
export function webUrl(value: unknown, base?: string): string | null {
  if (typeof value !== 'string' || !value.trim()) return null;
  try {
    const text = value.trim();
    // Most addresses are absolute: parsing the base for them too would double the work.
    const url = /^https?:\/\//i.test(text) ? new URL(text) : new URL(text, base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return url.href.length <= TEXT_LIMITS.url ? url.href : null;
  } catch {
    return null;
  }
}

export function currencyCode(value: unknown): string | null {
  return typeof value === 'string' && /^[A-Za-z]{3}$/.test(value.trim()) ? value.trim().toUpperCase() : null;
}

/** A decimal amount written by a machine ("19.99", 19.99); null for anything else. */
export function decimalAmount(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value !== 'string' || !/^\s*\d+(?:\.\d+)?\s*$/.test(value)) return null;
  return Number(value);
}

/** Rounds away binary noise (19.990000000000002) without touching real decimals. */
export const roundAmount = (amount: number) => Math.round(amount * 1e6) / 1e6;

// ---------------------------------------------------------------------------------------
// Items, checked one by one

export type ItemDraft = {
  externalId: unknown;
  title: unknown;
  variant?: unknown;
  sku?: unknown;
  gtin?: string | null;
  mpn?: unknown;
  brand?: unknown;
  /** Null when the source gave no price; `priceText` then tells what it gave, if anything. */
  price: number | null;
  priceText?: string | null;
  currency: string | null;
  regularPrice?: number | null;
  cost?: number | null;
  url?: string | null;
  imageUrl?: string | null;
  availability?: Availability | null;
};

const quoted = (text: string) => `“${text.length > 40 ? `${text.slice(0, 39)}…` : text}”`;

/** Gathers a source's items; an entry that is not a usable item is kept as skipped, with why. */
export class ItemCollector {
  readonly items: CatalogueItem[] = [];
  readonly skipped: Skipped[] = [];
  private readonly ids = new Set<string>();

  /** Entries read so far, kept or skipped: the count MAX_SOURCE_ITEMS limits. */
  get count(): number {
    return this.items.length + this.skipped.length;
  }

  get overLimit(): boolean {
    return this.count > MAX_SOURCE_ITEMS;
  }

  skip(id: unknown, reason: string): void {
    this.skipped.push({ id: cleanText(id, TEXT_LIMITS.externalId) ?? '(no id)', reason });
  }

  /** `label` names an entry that has no id of its own ("item 12"). */
  add(draft: ItemDraft, label: string): void {
    const externalId = cleanText(draft.externalId, TEXT_LIMITS.externalId);
    const title = cleanText(draft.title, TEXT_LIMITS.title);
    const currency = currencyCode(draft.currency);
    const problem = this.problem(draft, externalId, title, currency);
    if (problem || !externalId || !title || !currency || draft.price === null) {
      this.skip(externalId ?? (title ? `${label} (${title})` : label), problem ?? 'It cannot be read.');
      return;
    }
    this.ids.add(externalId);
    const price = roundAmount(draft.price);
    const regular = draft.regularPrice ?? null;
    this.items.push({
      externalId,
      title,
      variant: cleanText(draft.variant, TEXT_LIMITS.variant),
      sku: cleanText(draft.sku, TEXT_LIMITS.sku),
      gtin: normaliseGtin(draft.gtin),
      mpn: cleanText(draft.mpn, TEXT_LIMITS.mpn),
      brand: cleanText(draft.brand, TEXT_LIMITS.brand),
      price,
      currency,
      regularPrice: regular !== null && Number.isFinite(regular) && roundAmount(regular) > price ? roundAmount(regular) : null,
      ...(draft.cost != null && Number.isFinite(draft.cost) && draft.cost >= 0 ? { cost: roundAmount(draft.cost) } : {}),
      url: webUrl(draft.url),
      imageUrl: webUrl(draft.imageUrl),
      availability: draft.availability ?? null,
    });
  }

  /** Why an entry is not a usable item, or null. */
  private problem(draft: ItemDraft, externalId: string | null, title: string | null, currency: string | null): string | null {
    if (!externalId) return 'It has no id.';
    if (!title) return 'It has no title.';
    if (draft.price === null || !Number.isFinite(draft.price) || draft.price < 0) {
      const given = draft.priceText?.trim();
      return given ? `Its price ${quoted(given)} cannot be read.` : 'It has no price.';
    }
    if (draft.price === 0) return 'Its price is 0, which cannot be compared with other shops.';
    if (!currency) return 'Its currency is not stated as a currency code (such as GBP).';
    if (this.ids.has(externalId)) return 'Its id is listed more than once; the first one was kept.';
    return null;
  }

  result(): SourceRead {
    return { ok: true, items: this.items, skipped: this.skipped };
  }
}

// ---------------------------------------------------------------------------------------
// Failures

export const sourceFailures = {
  /** The fetcher's code and reason, as a price check would report them. */
  fetch: (failure: FetchFailure): SourceFailure => ({ ok: false, code: failure.code, reason: failure.reason, httpStatus: failure.status ?? null }),
  /** `platform`: "a Shopify store"; `detail` says what came instead and what to do. */
  notACatalogue: (address: string, platform: string, detail: string, httpStatus: number | null = null): SourceFailure => ({
    ok: false,
    code: 'not-a-catalogue',
    reason: `${address} does not answer like ${platform}: ${detail}`,
    httpStatus,
  }),
  tooManyItems: (): SourceFailure => ({
    ok: false,
    code: 'too-many-items',
    reason: `The catalogue has more than ${MAX_SOURCE_ITEMS.toLocaleString('en-GB')} items, the most Pricewatch reads from one source. Split it into smaller feeds, or import the products you want to watch as a CSV file.`,
    httpStatus: null,
  }),
};

/** What came instead of a catalogue, in words: "a web page (text/html)". */
export function describeAnswer(doc: SourceDocument): string {
  const type = doc.mediaType ?? 'no content type';
  return looksLikeHtml(doc) ? `a web page (${type})` : `a file of type ${type}`;
}

export function looksLikeHtml(doc: SourceDocument): boolean {
  if (doc.mediaType === 'text/html' || doc.mediaType === 'application/xhtml+xml') return true;
  return /^\s*(?:<!doctype html|<html[\s>])/i.test(doc.text.slice(0, 512));
}

/** A document's JSON, or what is wrong with it in words that follow "does not answer like ...: ". */
export function jsonOf(doc: SourceDocument): { ok: true; value: unknown } | { ok: false; detail: string } {
  if (looksLikeHtml(doc)) return { ok: false, detail: `it sent ${describeAnswer(doc)} where its product list should be.` };
  try {
    return { ok: true, value: JSON.parse(doc.text) };
  } catch (error) {
    const why = cleanText(error instanceof Error ? error.message : String(error), 120);
    return { ok: false, detail: `its product list is not valid JSON${why ? ` (${why})` : ''}.` };
  }
}

// ---------------------------------------------------------------------------------------
// Fetching

/** The address the owner gave, with https:// added when it was left out ("myshop.com"). */
export function sourceAddress(input: string): URL | SourceFailure {
  const text = input.trim();
  const checked = validateTargetUrl(/^[a-z][a-z\d+.-]*:/i.test(text) && !/^[^:/]+:\d/.test(text) ? text : `https://${text}`);
  return checked.ok ? checked.url : sourceFailures.fetch(checked);
}

export type SourceDocument = {
  /** Where the document was finally served from, after redirects. */
  url: string;
  status: number;
  mediaType: string | null;
  headers: Record<string, string>;
  text: string;
};

/**
 * GETs one document of a source through the fetcher price checks use: the same address guard
 * (every redirect hop too), host politeness, retries, size limit, bot-wall and failure reasons.
 */
export async function fetchSourceDocument(url: string, deps: SourceDeps, maxBytes: number): Promise<SourceDocument | SourceFailure> {
  const page = await deps.fetcher.fetchPage(url, { ...deps.fetchOptions, maxBytes, data: true });
  if (!page.ok) return sourceFailures.fetch(page);
  return {
    url: page.url,
    status: page.status,
    mediaType: page.contentType?.split(';')[0]?.trim().toLowerCase() || null,
    headers: page.headers,
    text: page.body,
  };
}
