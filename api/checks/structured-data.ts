/**
 * Prices and availability a page states for machines: JSON-LD, microdata, RDFa, OpenGraph and
 * other meta tags, and the state scripts leave for the page's own code. Pure: a parsed page in.
 */
import { attr, hasAttr, parentOf, queryAll, queryOne, textOf, type Document, type Element } from './page.ts';
import { readPrice } from './price-text.ts';
import { priceTextOf } from './element-text.ts';

export type StructuredSource = 'json-ld' | 'microdata' | 'rdfa' | 'opengraph' | 'meta' | 'script-state';

/** A price found in structured data, with its value as written. */
export interface StructuredPrice {
  source: StructuredSource;
  amount: number;
  currency: string | null;
  raw: string;
}


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

export function currencyCode(value: unknown): string | null {
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
export function jsonLdBlocksInHtml(html: string): string[] {
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

export function jsonLdPrices(blocks: string[], url: string | undefined): StructuredPrice[] {
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
export function declaredCurrency(document: Document): string | null {
  const itemprop = queryOne(document, '[itemprop~="priceCurrency"]');
  return (
    currencyCode(metaContent(document, 'product:price:currency')) ??
    currencyCode(metaContent(document, 'og:price:currency')) ??
    currencyCode(itemprop && (attr(itemprop, 'content') ?? textOf(itemprop)))
  );
}


// Availability -----------------------------------------------------------------------------------

export type StatedAvailability = 'InStock' | 'OutOfStock' | 'PreOrder' | 'BackOrder';

/** schema.org ItemAvailability values (and the words meta tags use) as the four states offers can be in. */
export function availabilityOf(value: unknown): StatedAvailability | null {
  if (typeof value !== 'string') return null;
  const word = value.trim().split(/[/:#]/).pop()!.replace(/[\s_-]+/g, '').toLowerCase();
  if (/^(?:instock|limitedavailability|onlineonly|instoreonly|available|availablefororder|yes|true|1)$/.test(word)) return 'InStock';
  if (/^(?:outofstock|soldout|discontinued|oos|unavailable|notavailable|no|false|0)$/.test(word)) return 'OutOfStock';
  if (/^(?:preorder|presale)$/.test(word)) return 'PreOrder';
  if (/^(?:backorder|madetoorder)$/.test(word)) return 'BackOrder';
  return null;
}

/** The availability the page states for its product: its JSON-LD offer, microdata, then meta tags. */
export function statedAvailability(document: Document, url: string | undefined): StatedAvailability | null {
  const nodes = jsonLdNodes(jsonLdBlocks(document));
  const products = nodes.filter((node) => hasType(node, ...PRODUCT_TYPES));
  const main = (url && products.find((product) => productUrls(product).some((u) => sameUrl(u, url, false)))) || products[0];
  const offers = main ? offersOf(main) : nodes.filter((node) => hasType(node, ...OFFER_TYPES));
  const forUrl = url ? offers.find((offer) => typeof offer.url === 'string' && sameUrl(offer.url, url, true)) : undefined;
  const offerStates = (forUrl ? [forUrl] : offers).map((offer) => availabilityOf(offer.availability)).filter((state) => state !== null);
  // Several offers (variants): the product can be bought if any of them can.
  if (offerStates.length > 0) return offerStates.find((state) => state !== 'OutOfStock') ?? 'OutOfStock';

  const itemprop = queryOne(document, '[itemprop~="availability"]');
  const fromMicrodata = itemprop && availabilityOf(attr(itemprop, 'href') ?? attr(itemprop, 'content') ?? textOf(itemprop));
  if (fromMicrodata) return fromMicrodata;
  return availabilityOf(metaContent(document, 'product:availability') ?? metaContent(document, 'og:availability'));
}
