/**
 * Finds a product's price in a fetched page. With the user's CSS selector, the element it names
 * (or, when it matches nothing, the price read as without it). Without one, the page's
 * statements (structured data, meta tags, script state) and its visible price block are weighed
 * together: where they agree the price is certain; where they disagree the visible price block
 * wins only when the stated price appears nowhere on the page. Pure: html in, result out.
 */
import { PRICE_ATTRIBUTES, priceTextOf } from './element-text.ts';
import { attr, parsePage, queryAll, textOf, tooDeep, type Document, type Element } from './page.ts';
import { readPrice, type PriceReading } from './price-text.ts';
import { structuredDataPrices } from './structured-data.ts';
import { jsonLdPrices } from './json-ld.ts';
import { declaredCurrency } from './meta-tags.ts';
import { scriptStatePrices } from './script-state.ts';
import { isStateScript } from './state-json.ts';
import type { Availability, StructuredPrice, StructuredSource } from './structured-values.ts';
import { pageAvailability } from './availability.ts';
import { regionCurrency } from './page-currency.ts';
import { statedPriceShown, visiblePrice } from './visible-price.ts';
import { readIdentifiers, type ProductIdentifiers } from './identifiers.ts';
import { normaliseGtin } from '../../domain/gtin.ts';
import { keepsJsonData } from './marked-elements.ts';
import { regularPriceNear } from './regular-price.ts';
import { pickOffer, readOffers, type OfferVariant, type PageOffer } from './offers.ts';

export type { Availability };

/** `page`: read from the visible price block, found without a selector. */
export type ExtractionSource = 'selector' | 'page' | StructuredSource;
/** `page-too-deep`: the page was not read at all (see page.ts). */
export type ExtractionFailureCode = 'selector-no-match' | 'no-price-in-text' | 'ambiguous' | 'no-price' | 'invalid-selector' | 'page-too-deep';

export interface ExtractedPrice {
  ok: true;
  price: number;
  currency: string | null;
  source: ExtractionSource;
  /** The selector that gave the price; null when the page's statement or price block gave it. */
  selector: string | null;
  /** Evidence: the text the price was read from, so a later parser can read it again. */
  matchedText: string;
  /** Set when the selector failed and the page's statement or price block stood in: why the selector failed. */
  warning: string | null;
  /** Set with `warning`: how the selector failed. */
  selectorFailure?: ExtractionFailureCode;
  availability: Availability | null;
  /** The GTIN, MPN, SKU and brand the page states for the product whose price this is; null when it states none. */
  identifiers: ProductIdentifiers | null;
  /** The variant whose price this is, when the page offers several or names its one; null when it names none. */
  variant?: OfferVariant | null;
  /** The regular (struck-through, compare-at, was) price of the offer read; null when it states none. */
  regularPrice?: number | null;
}

export interface ExtractionFailure {
  ok: false;
  code: ExtractionFailureCode;
  /** A sentence a person can act on. */
  reason: string;
  /** Evidence: the text the selector matched, when it matched something. */
  matchedText: string | null;
  /** A page without a price can still say the product is sold out. */
  availability: Availability | null;
}

export type ExtractionResult = ExtractedPrice | ExtractionFailure;

export interface ExtractOptions {
  selector?: string | null;
  /** The page's address: picks the offer of the product variant the url names. */
  url?: string;
}

export function extractPrice(html: string, opts: ExtractOptions = {}): ExtractionResult {
  return extractPriceFromDocument(parsePage(html), opts);
}

export function extractPriceFromDocument(document: Document, opts: ExtractOptions = {}): ExtractionResult {
  const refused = tooDeep(document);
  if (refused) return failure('page-too-deep', refused.reason);
  const selector = opts.selector?.trim() || null;
  let structured: StructuredPrice[] | undefined;
  const structuredPrices = () => (structured ??= structuredDataPrices(document, { url: opts.url }));
  const availability = pageAvailability(document, { url: opts.url });
  // An address that names one of the page's variants is read as that variant: its price and its stock.
  const offers = readOffers(document, opts.url);
  const chosen = offers.length > 1 ? pickOffer(offers, opts.url) : null;
  const finish = <T extends ExtractionResult>(result: T): T =>
    withOffer(withIdentifiers(withAvailability(result, availability), document, opts.url), offers, chosen, availability);

  const pageCurrency = () => structuredPrices().find((price) => price.currency)?.currency ?? declaredCurrency(document) ?? regionCurrency(document, opts.url);
  // A platform's variant data leaves the currency to the page: stated, else shown with its price.
  const offerCurrency = (offer: PageOffer) => offer.currency ?? pageCurrency() ?? visiblePrice(document, { url: opts.url })?.currency ?? null;
  const chosenPrice = (offer: PageOffer, source: ExtractionSource = offer.source): ExtractedPrice => ({
    ...{ ok: true, price: offer.price, currency: offerCurrency(offer), source },
    ...{ selector: source === 'selector' ? selector : null, matchedText: String(offer.price), warning: null, availability: null, identifiers: null },
  });
  if (!selector) return finish(chosen ? chosenPrice(chosen) : priceWithoutSelector(document, structuredPrices(), opts.url));
  // A selector naming the data the page keeps its variants in reads the variant the address selects.
  if (chosen && namesOfferData(document, selector)) return finish(chosenPrice(chosen, 'selector'));
  const bySelector = extractBySelector(document, selector, pageCurrency, opts.url);
  if (bySelector.ok || bySelector.code === 'invalid-selector') return finish(bySelector);
  // A selector that matches nothing says nothing about the page: it is read as without one. One that
  // matched text without a price, or several prices, named the wrong place; only the page's statement stands in.
  const missed = bySelector.code === 'selector-no-match';
  const fallback = chosen
    ? chosenPrice(chosen)
    : missed
      ? priceWithoutSelector(document, structuredPrices(), opts.url)
      : fromStructuredData(structuredPrices());
  if (fallback?.ok) {
    const where = fallback.source === 'page' ? 'price next to the product title' : 'structured data';
    const warning = `${bySelector.reason} The price was taken from the page’s ${where} instead.`;
    return finish({ ...fallback, warning, selectorFailure: bySelector.code });
  }
  const either = missed
    ? 'Nor does the page state a price in its structured data or show one next to the product title.'
    : 'The page has no price in structured data either.';
  return finish({ ...bySelector, reason: `${bySelector.reason} ${either}` });
}

/** Whether every element the selector matches holds data for the page's scripts: a script, or JSON in a data attribute (a variations form). */
function namesOfferData(document: Document, selector: string): boolean {
  let matched: Element[];
  try {
    matched = queryAll(document, selector).slice(0, MAX_ELEMENTS);
  } catch {
    return false;
  }
  return matched.length > 0 && matched.every((element) => element.name === 'script' || keepsJsonData(element));
}

/** Whether the selector alone reads a price here: the cheap question a render asks while it waits. */
export function selectorReadsPrice(document: Document, selector: string, url?: string): boolean {
  const pageCurrency = () => declaredCurrency(document) ?? regionCurrency(document, url);
  return extractBySelector(document, selector, pageCurrency, url).ok;
}

const NO_PRICE =
  'No price found on the page: neither its structured data (JSON-LD, microdata, meta tags) nor a price block next to the product title. Add a CSS selector for the price element.';

/**
 * The page's price without a selector. A stated price shown on the page is the price; a visible
 * price block that clearly leads stands in where nothing is stated, or where the stated price is
 * shown nowhere (stale markup, a list price, another variant).
 */
function priceWithoutSelector(document: Document, structured: StructuredPrice[], url: string | undefined): ExtractionResult {
  const stated = fromStructuredData(structured);
  const shown = stated && statedPriceShown(document, structured[0]!);
  if (stated && shown) return { ...stated, regularPrice: regularPriceNear(shown, stated.price, stated.currency) };
  const visible = visiblePrice(document, { url, structured });
  if (visible && (!stated || !visible.referenceShown)) {
    return {
      ok: true,
      price: visible.amount,
      currency: visible.currency,
      source: 'page',
      selector: null,
      matchedText: visible.text,
      warning: null,
      availability: null,
      identifiers: null,
      regularPrice: regularPriceNear(visible.element, visible.amount, visible.currency),
    };
  }
  return stated ?? failure('no-price', NO_PRICE);
}

/** A page that sells its product at a price and says nothing of stock is taken to have it in stock. */
function withAvailability<T extends ExtractionResult>(result: T, availability: Availability | null): T {
  return { ...result, availability: availability ?? (result.ok ? 'InStock' : null) };
}

/** The identifiers of the product whose price was read: on a page of several products, the price tells which. */
function withIdentifiers<T extends ExtractionResult>(result: T, document: Document, url: string | undefined): T {
  return result.ok ? { ...result, identifiers: readIdentifiers(document, { url, price: result.price }) } : result;
}

/**
 * The offer whose price was read: the one the address selects, else the page's only offer at that
 * price. Its variant and regular price travel with the observation, and the variant's stock is the
 * product's (a sold-out size is out of stock while other sizes are not).
 */
function withOffer<T extends ExtractionResult>(result: T, offers: readonly PageOffer[], chosen: PageOffer | null, pageRead: Availability | null): T {
  if (!result.ok) return result;
  const samePrice = (offer: PageOffer) => Math.abs(offer.price - result.price) < 1e-9;
  const atPrice = chosen ? [chosen].filter(samePrice) : offers.filter(samePrice);
  const read = atPrice.length === 1 ? atPrice[0]! : null;
  if (!read) return { ...result, variant: null, regularPrice: result.regularPrice ?? null };
  const identifiers = identifiersOf(result.identifiers, read.variant, offers.length > 1);
  // A lone offer's stock is the statement the page's own reading already weighed against its buy button and stock notice.
  const availability = offers.length === 1 && pageRead !== null ? pageRead : (read.availability ?? result.availability);
  // A platform's variant data knows the variant's compare-at price, or that it has none; JSON-LD often leaves it out.
  const regularPrice = read.selection ? read.regularPrice : (read.regularPrice ?? result.regularPrice ?? null);
  return { ...result, availability, variant: read.variant, regularPrice, identifiers };
}

/** A variant's GTIN and SKU name the item sold; among several variants the page's own may be another variant's. */
function identifiersOf(page: ProductIdentifiers | null, variant: OfferVariant | null, amongSeveral: boolean): ProductIdentifiers | null {
  if (!variant) return page;
  const base = page ?? { gtin: null, mpn: null, sku: null, brand: null };
  const ids = {
    ...base,
    gtin: normaliseGtin(variant.gtin ?? '') ?? (amongSeveral ? null : base.gtin),
    sku: variant.sku ?? (amongSeveral ? null : base.sku),
  };
  return Object.values(ids).some((value) => value !== null) ? ids : null;
}

function failure(code: ExtractionFailureCode, reason: string, matchedText: string | null = null): ExtractionFailure {
  return { ok: false, code, reason, matchedText, availability: null };
}

function fromStructuredData(prices: StructuredPrice[]): ExtractedPrice | null {
  const [best] = prices;
  if (!best) return null;
  return {
    ok: true,
    price: best.amount,
    currency: best.currency,
    source: best.source,
    selector: null,
    matchedText: best.raw,
    warning: null,
    availability: null,
    identifiers: null,
  };
}

// ---------------------------------------------------------------------------------------------
// The user's selector

/** Enough for any price block; a selector matching the whole page gives "ambiguous" anyway. */
const MAX_ELEMENTS = 50;

/** A price the selector's script (structured data, or a script's state) states, read as the selector's. */
const statedBySelector = (stated: { amount: number; currency: string | null; raw: string }, selector: string): ExtractionResult => ({
  ok: true,
  price: stated.amount,
  currency: stated.currency,
  source: 'selector',
  selector,
  matchedText: stated.raw,
  warning: null,
  availability: null,
  identifiers: null,
});

function extractBySelector(document: Document, selector: string, pageCurrency: () => string | null, url: string | undefined): ExtractionResult {
  let matched: Element[];
  try {
    matched = queryAll(document, selector);
  } catch (error) {
    const detail = error instanceof Error && error.message.trim() ? ` (${error.message.trim()})` : '';
    return failure('invalid-selector', `The CSS selector “${selector}” is not valid${detail}. Check it for typos or pick the price element again.`);
  }
  const elements = matched.slice(0, MAX_ELEMENTS);
  if (elements.length === 0) {
    return failure('selector-no-match', `The CSS selector “${selector}” matched nothing on the page. The page may have changed; pick the price element again.`);
  }
  // A selector may name the page's structured data itself (AI Detect offers it where no price is shown as text).
  if (elements.every((element) => element.name === 'script' && /ld\+json/i.test(attr(element, 'type') ?? ''))) {
    const [stated] = jsonLdPrices(elements.map(textOf), url);
    if (!stated) return failure('no-price-in-text', `The CSS selector “${selector}” matched the page's structured data, but it states no price.`);
    return statedBySelector(stated, selector);
  }
  // Or the state the page's scripts keep (all of them: a page has many scripts); the page's title picks the product in it.
  if (matched.every((element) => element.name === 'script') && matched.some(isStateScript)) {
    const [stated] = scriptStatePrices(document, url, matched);
    if (!stated)
      return failure('no-price-in-text', `The CSS selector “${selector}” matched the page's script data, but no price of this product could be read from it.`);
    return statedBySelector(stated, selector);
  }

  const readings = elements.map((element) => ({ element, ...readElement(element, pageCurrency) }));
  const priced = readings.flatMap(({ element, text, reading }) => (reading.ok ? [{ element, text, reading }] : []));
  if (priced.length === 0) {
    const [{ text, reading }] = readings;
    const code = !reading.ok && reading.code === 'ambiguous' ? 'ambiguous' : 'no-price-in-text';
    return failure(code, `The CSS selector “${selector}” matched, but ${reading.ok ? '' : reading.reason}`, text);
  }
  const amounts = new Map<number, string>();
  for (const { reading } of priced) if (!amounts.has(reading.amount)) amounts.set(reading.amount, reading.mention.text);
  if (amounts.size > 1) {
    const listed = [...amounts.values()].slice(0, 5).join(', ');
    return failure(
      'ambiguous',
      `The CSS selector “${selector}” matches ${priced.length} elements with different prices (${listed}). Use a selector that matches only this product’s price.`,
      priced[0].text,
    );
  }
  const { element, text, reading } = priced.find(({ reading }) => reading.currency) ?? priced[0];
  return {
    ok: true,
    price: reading.amount,
    currency: reading.currency,
    source: 'selector',
    selector,
    matchedText: text,
    warning: null,
    availability: null,
    identifiers: null,
    regularPrice: regularPriceNear(element, reading.amount, reading.currency),
  };
}

/** The price in an element's text, else in its content/value attributes. */
function readElement(element: Element, pageCurrency: () => string | null): { text: string; reading: PriceReading } {
  const text = priceTextOf(element);
  const fromText = { text, reading: readWithPageCurrency(text, pageCurrency) };
  if (fromText.reading.ok) return fromText;
  for (const attribute of PRICE_ATTRIBUTES) {
    const value = attr(element, attribute)?.trim();
    if (!value) continue;
    const reading = readWithPageCurrency(value, pageCurrency);
    if (reading.ok) return { text: value, reading };
  }
  return fromText;
}

/** Reads the text alone, then with the page's currency when the text leaves it open. */
function readWithPageCurrency(text: string, pageCurrency: () => string | null): PriceReading {
  const reading = readPrice(text);
  const currencyOpen = reading.ok ? !reading.mention.currencyCertain : reading.code === 'ambiguous';
  const hint = currencyOpen ? pageCurrency() : null;
  return hint ? readPrice(text, { currencyHint: hint }) : reading;
}
