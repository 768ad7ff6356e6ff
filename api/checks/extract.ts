/**
 * Finds a product's price in a fetched page: the user's CSS selector first, then the page's
 * structured data (JSON-LD, microdata, OpenGraph). Pure: html in, result out.
 */
import { attr, hasAttr, isElement, parentOf, parsePage, queryAll, queryOne, textOf, type AnyNode, type Document, type Element } from './page.ts';
import { normalizePriceText, readPrice, type PriceReading } from './price-text.ts';

export type StructuredSource = 'json-ld' | 'microdata' | 'rdfa' | 'opengraph' | 'meta' | 'script-state';
/** `page`: read from the visible price block, found without a selector. */
export type ExtractionSource = 'selector' | 'page' | StructuredSource;
/** Whether the page offers the product for sale now (schema.org ItemAvailability); null when it does not say. */
export type Availability = 'InStock' | 'OutOfStock' | 'PreOrder' | 'BackOrder';
export type ExtractionFailureCode = 'selector-no-match' | 'no-price-in-text' | 'ambiguous' | 'no-price' | 'invalid-selector';

export interface ExtractedPrice {
  ok: true;
  price: number;
  currency: string | null;
  source: ExtractionSource;
  /** The selector that gave the price; null when structured data gave it. */
  selector: string | null;
  /** Evidence: the text the price was read from, so a later parser can read it again. */
  matchedText: string;
  /** Set when the selector failed and structured data stood in: why the selector failed. */
  warning: string | null;
  availability: Availability | null;
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

/** A price found in structured data, with its value as written. */
export interface StructuredPrice {
  source: StructuredSource;
  amount: number;
  currency: string | null;
  raw: string;
}

export function extractPrice(html: string, opts: ExtractOptions = {}): ExtractionResult {
  // Without a selector, JSON-LD comes first and needs no DOM: parsing the page is most of the cost.
  if (!opts.selector?.trim()) {
    const fromJsonLd = fromStructuredData(jsonLdPrices(jsonLdBlocksInHtml(html), opts.url));
    if (fromJsonLd) return fromJsonLd;
  }
  return extractPriceFromDocument(parsePage(html), opts);
}

export function extractPriceFromDocument(document: Document, opts: ExtractOptions = {}): ExtractionResult {
  const selector = opts.selector?.trim() || null;
  let structured: StructuredPrice[] | undefined;
  const structuredPrices = () => (structured ??= structuredDataPrices(document, { url: opts.url }));

  if (!selector) {
    return (
      fromStructuredData(structuredPrices()) ??
      failure('no-price', 'No price found in the page’s structured data (JSON-LD, microdata or OpenGraph). Add a CSS selector for the price element.')
    );
  }
  const pageCurrency = () => structuredPrices().find((price) => price.currency)?.currency ?? declaredCurrency(document);
  const bySelector = extractBySelector(document, selector, pageCurrency);
  if (bySelector.ok || bySelector.code === 'invalid-selector') return bySelector;
  const fallback = fromStructuredData(structuredPrices());
  if (fallback) return { ...fallback, warning: `${bySelector.reason} The price was taken from the page’s structured data instead.` };
  return { ...bySelector, reason: `${bySelector.reason} The page has no price in structured data either.` };
}

function failure(code: ExtractionFailureCode, reason: string, matchedText: string | null = null): ExtractionFailure {
  return { ok: false, code, reason, matchedText, availability: null };
}

function fromStructuredData(prices: StructuredPrice[]): ExtractedPrice | null {
  const [best] = prices;
  if (!best) return null;
  return { ok: true, price: best.amount, currency: best.currency, source: best.source, selector: null, matchedText: best.raw, warning: null, availability: null };
}

// ---------------------------------------------------------------------------------------------
// The user's selector

/** Enough for any price block; a selector matching the whole page gives "ambiguous" anyway. */
const MAX_ELEMENTS = 50;
const MAX_TEXT = 5000;
const PRICE_ATTRIBUTES = ['content', 'value', 'data-price-amount', 'data-price'];

function extractBySelector(document: Document, selector: string, pageCurrency: () => string | null): ExtractionResult {
  let elements: Element[];
  try {
    elements = queryAll(document, selector).slice(0, MAX_ELEMENTS);
  } catch (error) {
    const detail = error instanceof Error && error.message.trim() ? ` (${error.message.trim()})` : '';
    return failure('invalid-selector', `The CSS selector “${selector}” is not valid${detail}. Check it for typos or pick the price element again.`);
  }
  if (elements.length === 0) {
    return failure('selector-no-match', `The CSS selector “${selector}” matched nothing on the page. The page may have changed; pick the price element again.`);
  }

  const readings = elements.map((element) => readElement(element, pageCurrency));
  const priced = readings.flatMap(({ text, reading }) => (reading.ok ? [{ text, reading }] : []));
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
  const { text, reading } = priced.find(({ reading }) => reading.currency) ?? priced[0];
  return { ok: true, price: reading.amount, currency: reading.currency, source: 'selector', selector, matchedText: text, warning: null, availability: null };
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

// ---------------------------------------------------------------------------------------------
// An element's text as a price reader needs it

const SKIPPED_TAGS = new Set(['script', 'style', 'template', 'noscript', 'select', 'svg', 'iframe', 'object']);
/** Elements whose text never runs into the text next to them. */
const SEPARATE_TAGS = new Set([
  'address', 'article', 'aside', 'blockquote', 'br', 'dd', 'div', 'dl', 'dt', 'fieldset', 'figcaption', 'figure', 'footer',
  'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p', 'pre', 'section', 'table',
  'tbody', 'td', 'tfoot', 'th', 'thead', 'tr', 'ul', 'sub', 'sup', 'small', 'button', 'label',
]);
const STRUCK_TAGS = new Set(['del', 's', 'strike']);
const WAS_CLASS = /(?:^|[\s_-])(?:old|was|compare|compare-at|rrp|msrp|strike|strikethrough|crossed|line-through|original|before|non-sale|oldprice|wasprice)(?=$|[\s_-])/i;
const REGULAR_CLASS = /(?:^|[\s_-])regular(?=$|[\s_-])/i;
const FRACTION_CLASS = /(?:^|[\s_-])(?:fraction|fractional|cents?|decimals?|pence|minor)(?=$|[\s_-])/i;

/**
 * The element's visible text, with what markup says and text alone would lose: struck-out
 * and old prices are labelled "was", split cents ("24<sup>99</sup>") get their decimal point,
 * and blocks are kept apart ("<div>24.99</div><div>3</div>" is not 24.993).
 */
export function priceTextOf(root: Element): string {
  let text = '';
  const visit = (node: AnyNode, isRoot: boolean) => {
    if (text.length > MAX_TEXT) return;
    if (node.type === 'text') {
      text += node.data;
      return;
    }
    if (!isElement(node)) return;
    const element = node;
    const tag = element.name;
    if (!isRoot && (SKIPPED_TAGS.has(tag) || isHidden(element))) return;

    if (!isRoot && (tag === 'sup' || FRACTION_CLASS.test(classesOf(element)))) {
      const cents = textOf(element).trim();
      const afterWholeNumber = /\d\s*$/.test(text) && !/[.,]\d{1,2}\s*$/.test(text);
      if (/^\d{1,2}$/.test(cents) && afterWholeNumber) {
        text = `${text.trimEnd()}.${cents}`;
        return;
      }
    }
    const label = isRoot ? null : priceLabelOf(element);
    const separate = SEPARATE_TAGS.has(tag);
    if (separate) text += ' ';
    if (label) text += ` ${label} `;
    for (const child of element.children) visit(child, false);
    if (separate || label) text += ' ';
  };
  visit(root, true);
  return normalizePriceText(text);
}

function classesOf(element: Element): string {
  // "oldPrice" reads as "old-Price".
  return (attr(element, 'class') ?? '').replace(/([a-z])([A-Z])/g, '$1-$2');
}

function isHidden(element: Element): boolean {
  return hasAttr(element, 'hidden') || /(?:display\s*:\s*none|visibility\s*:\s*hidden)/i.test(attr(element, 'style') ?? '');
}

/** A label the markup gives a price without writing it: crossed out, "old", "regular". */
function priceLabelOf(element: Element): string | null {
  const classes = classesOf(element);
  if (
    STRUCK_TAGS.has(element.name) ||
    attr(element, 'data-a-strike') === 'true' ||
    attr(element, 'data-price-type') === 'oldPrice' ||
    WAS_CLASS.test(classes)
  ) {
    return 'was';
  }
  return REGULAR_CLASS.test(classes) ? 'regular price' : null;
}

// ---------------------------------------------------------------------------------------------
// Structured data

/**
 * Prices of the page's product in structured data, best first: JSON-LD, then microdata, then
 * OpenGraph; within each, the offer for `url` if one names it, else the lowest ("from") price.
 * Related products and product lists are left out.
 */
export function structuredDataPrices(document: Document, opts: { url?: string } = {}): StructuredPrice[] {
  return [...jsonLdPrices(jsonLdBlocks(document), opts.url), ...microdataPrices(document, opts.url), ...openGraphPrices(document)];
}

interface OfferPrice {
  amount: number;
  currency: string | null;
  raw: string;
  url: string | null;
}

/** Structured amounts are machine-written ("1299.00"); some shops write them like text ("1.299,00"). */
function structuredAmount(value: unknown, currency: string | null): { amount: number; currency: string | null; raw: string } | null {
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

function currencyCode(value: unknown): string | null {
  return typeof value === 'string' && /^[A-Za-z]{3}$/.test(value.trim()) ? value.trim().toUpperCase() : null;
}

/** The offer naming this page's url first, then cheapest first. */
function bestFirst(prices: OfferPrice[], url: string | undefined): OfferPrice[] {
  const forThisUrl = (price: OfferPrice) => (url && price.url && sameUrl(price.url, url, true) ? 0 : 1);
  return [...prices].sort((a, b) => forThisUrl(a) - forThisUrl(b) || a.amount - b.amount);
}

function sameUrl(candidate: string, pageUrl: string, withQuery: boolean): boolean {
  try {
    const a = new URL(candidate, pageUrl);
    const b = new URL(pageUrl);
    const key = (u: URL) => `${u.host}${u.pathname.replace(/\/+$/, '')}${withQuery ? u.search : ''}`;
    return key(a) === key(b);
  } catch {
    return false;
  }
}

// JSON-LD ----------------------------------------------------------------------------------------

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : value === undefined || value === null ? [] : [value];
}

/** "Product", "schema:Product" and "http://schema.org/Product" are all Product. */
function hasType(node: JsonObject, ...types: string[]): boolean {
  return asArray(node['@type']).some((type) => typeof type === 'string' && types.includes(type.split(/[/:#]/).pop()!));
}

const PRODUCT_TYPES = ['Product', 'ProductGroup', 'ProductModel', 'IndividualProduct', 'SomeProducts', 'Vehicle', 'Car', 'Book'];
const OFFER_TYPES = ['Offer', 'AggregateOffer'];

function parseJsonLd(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Common slips in hand-written blocks: HTML comments, CDATA, trailing commas, raw newlines.
    const cleaned = text
      .replace(/^\s*(?:<!--|<!\[CDATA\[)|(?:-->|\]\]>)\s*$/g, '')
      .replace(/,\s*([}\]])/g, '$1')
      .replace(/[\u0000-\u001f]+/g, ' ');
    try {
      return JSON.parse(cleaned);
    } catch {
      return null;
    }
  }
}

function jsonLdBlocks(document: Document): string[] {
  return queryAll(document, 'script')
    .filter((script) => /ld\+json/i.test(attr(script, 'type') ?? ''))
    .map((script) => textOf(script));
}

const JSON_LD_SCRIPT = /<script\b[^>]*?\btype\s*=\s*["']?\s*application\/ld\+json\b[^>]*>([\s\S]*?)<\/script\s*>/gi;

/** The same blocks as `jsonLdBlocks`, found in the markup without building a DOM. */
function jsonLdBlocksInHtml(html: string): string[] {
  const blocks: string[] = [];
  for (const match of html.matchAll(JSON_LD_SCRIPT)) {
    const insideComment = html.lastIndexOf('<!--', match.index) > html.lastIndexOf('-->', match.index);
    if (!insideComment) blocks.push(match[1]);
  }
  return blocks;
}

/** Top-level nodes of every JSON-LD block, with @graph members and a page's main entity. */
function jsonLdNodes(blocks: string[]): JsonObject[] {
  const nodes: JsonObject[] = [];
  const add = (value: unknown) => {
    for (const item of asArray(value)) {
      if (!isObject(item)) continue;
      if (item['@graph']) add(item['@graph']);
      nodes.push(item);
      for (const key of ['mainEntity', 'about']) if (isObject(item[key])) add(item[key]);
    }
  };
  for (const block of blocks) add(parseJsonLd(block));
  return nodes;
}

function jsonLdPrices(blocks: string[], url: string | undefined): StructuredPrice[] {
  const nodes = jsonLdNodes(blocks);
  // Graphs may name an offer by "@id" and describe it elsewhere.
  const byId = new Map(nodes.filter((node) => typeof node['@id'] === 'string').map((node) => [node['@id'] as string, node]));
  const resolve = (node: JsonObject) => (typeof node['@id'] === 'string' && Object.keys(node).length === 1 ? byId.get(node['@id']) ?? node : node);
  const pricesOf = (offers: JsonObject[]) => offers.map(resolve).flatMap((offer) => offerPrices(offer));

  const products = nodes
    .filter((node) => hasType(node, ...PRODUCT_TYPES) || (!node['@type'] && node.offers))
    .map((product) => ({ product, prices: pricesOf(offersOf(product)) }))
    .filter(({ prices }) => prices.length > 0);
  const main = (url && products.find(({ product }) => productUrls(product).some((u) => sameUrl(u, url, false)))) || products[0];
  const prices = main ? main.prices : pricesOf(nodes.filter((node) => hasType(node, ...OFFER_TYPES)));
  return bestFirst(prices, url).map(({ amount, currency, raw }) => ({ source: 'json-ld', amount, currency, raw }));
}

function productUrls(product: JsonObject): string[] {
  return [product.url, product['@id'], ...asArray(product.offers).map((offer) => (isObject(offer) ? offer.url : null))].filter(
    (u): u is string => typeof u === 'string',
  );
}

function offersOf(product: JsonObject): JsonObject[] {
  const variants = asArray(product.hasVariant).filter(isObject).flatMap((variant) => asArray(variant.offers));
  const offers = [...asArray(product.offers), ...variants].filter(isObject);
  return offers.length > 0 || product.price === undefined ? offers : [product];
}

const LIST_PRICE_TYPE = /ListPrice|StrikethroughPrice|SRP|MSRP|InvoicePrice/i;

function offerPrices(offer: JsonObject, inheritedCurrency: string | null = null): OfferPrice[] {
  const currency = currencyCode(offer.priceCurrency) ?? inheritedCurrency;
  const url = typeof offer.url === 'string' ? offer.url : null;
  const price = (value: unknown, valueCurrency = currency) => {
    const found = structuredAmount(value, valueCurrency);
    return found ? [{ ...found, url }] : [];
  };
  if (hasType(offer, 'AggregateOffer')) {
    const low = price(offer.lowPrice ?? offer.price);
    return low.length > 0 ? low : asArray(offer.offers).filter(isObject).flatMap((inner) => offerPrices(inner, currency));
  }
  const direct = price(offer.price);
  if (direct.length > 0) return direct;
  const specifications = asArray(offer.priceSpecification).filter(isObject);
  const selling = specifications.filter((spec) => !LIST_PRICE_TYPE.test(String(spec.priceType ?? '')));
  const fromSpecification = selling.flatMap((spec) => price(spec.price, currencyCode(spec.priceCurrency) ?? currency));
  return fromSpecification.length > 0 ? fromSpecification : price(offer.lowPrice);
}

// Microdata --------------------------------------------------------------------------------------

function itemScopeOf(element: Element, type?: RegExp): Element | null {
  for (let parent = parentOf(element); parent; parent = parentOf(parent)) {
    if (hasAttr(parent, 'itemscope') && (!type || type.test(attr(parent, 'itemtype') ?? ''))) return parent;
  }
  return null;
}

const PRODUCT_ITEMTYPE = /Product|Vehicle|Car\b|Book\b/i;

function microdataPrices(document: Document, url: string | undefined): StructuredPrice[] {
  const priceElements = queryAll(document, '[itemprop]').filter((element) =>
    /(?:^|\s)(?:price|lowPrice)(?:\s|$)/.test(attr(element, 'itemprop') ?? ''),
  );
  if (priceElements.length === 0) return [];
  // The page's product is the first one not nested in another product (those are related items).
  const productOf = (element: Element) => itemScopeOf(element, PRODUCT_ITEMTYPE);
  const mainProduct = priceElements.map(productOf).find((product) => product && !itemScopeOf(product, PRODUCT_ITEMTYPE)) ?? null;
  const prices = priceElements
    .filter((element) => productOf(element) === mainProduct)
    .flatMap((element): OfferPrice[] => {
      const offer = itemScopeOf(element);
      const currencyElement = queryOne(offer ?? document, '[itemprop~="priceCurrency"]');
      const currency = currencyCode(currencyElement && (attr(currencyElement, 'content') ?? textOf(currencyElement)));
      const value = attr(element, 'content') ?? attr(element, 'value') ?? priceTextOf(element);
      const found = structuredAmount(value, currency);
      const offerUrl = offer && queryOne(offer, '[itemprop~="url"]');
      return found ? [{ ...found, url: offerUrl ? attr(offerUrl, 'href') ?? attr(offerUrl, 'content') : null }] : [];
    });
  return bestFirst(prices, url).map(({ amount, currency, raw }) => ({ source: 'microdata', amount, currency, raw }));
}

// OpenGraph --------------------------------------------------------------------------------------

function metaContent(document: Document, name: string): string | null {
  const meta = queryOne(document, `meta[property="${name}"], meta[name="${name}"]`);
  return (meta && attr(meta, 'content')?.trim()) || null;
}

function openGraphPrices(document: Document): StructuredPrice[] {
  const meta = (name: string) => metaContent(document, name);
  const pairs: [string, string][] = [
    ['product:sale_price:amount', 'product:sale_price:currency'],
    ['product:price:amount', 'product:price:currency'],
    ['og:price:amount', 'og:price:currency'],
  ];
  return pairs.flatMap(([amountName, currencyName]) => {
    const found = structuredAmount(meta(amountName), currencyCode(meta(currencyName)));
    return found ? [{ source: 'opengraph' as const, ...found }] : [];
  });
}

/** The currency the page declares for its prices, even where it gives no amount. */
function declaredCurrency(document: Document): string | null {
  const itemprop = queryOne(document, '[itemprop~="priceCurrency"]');
  return (
    currencyCode(metaContent(document, 'product:price:currency')) ??
    currencyCode(metaContent(document, 'og:price:currency')) ??
    currencyCode(itemprop && (attr(itemprop, 'content') ?? textOf(itemprop)))
  );
}
