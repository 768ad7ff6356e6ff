/**
 * Prices and availability a page states for machines: JSON-LD, microdata, RDFa, OpenGraph and
 * other meta tags, and the state scripts leave for the page's own code. Pure: a parsed page in.
 */
import { attr, hasAttr, parentOf, textOf, wordsOf, type AnyNode, type Document, type Element } from './page.ts';
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
 * Prices of the page's product in structured data, best first: JSON-LD, microdata, RDFa,
 * OpenGraph, other meta tags, then script state; within each, the offer for `url` if one names
 * it, else the lowest ("from") price. Related products and product lists are left out.
 */
export function structuredDataPrices(document: Document, opts: { url?: string } = {}): StructuredPrice[] {
  const marked = markedElements(document);
  const stated = [
    ...jsonLdPrices(marked.jsonLd, opts.url, parsedJsonLd(marked)),
    ...microdataPrices(marked, opts.url),
    ...rdfaPrices(marked, opts.url),
    ...openGraphPrices(marked),
    ...metaTagPrices(marked),
  ];
  // Script state rarely names its currency; the page's other statements may.
  const pageCurrency = stated.find((price) => price.currency)?.currency ?? null;
  const fromState = scriptStatePrices(document, opts.url).map((price) => ({ ...price, currency: price.currency ?? pageCurrency }));
  return [...stated, ...fromState];
}

// One walk of the tree ---------------------------------------------------------------------------

/**
 * The elements every reader here looks at, found in one walk and kept per document: checks read
 * prices and availability of the same page several times, and each css-select query is a walk
 * of the whole (600 KB) page.
 */
interface MarkedElements {
  jsonLd: string[];
  jsonLdNodes?: JsonObject[];
  scripts: Element[];
  /** Elements with an itemprop, in document order. */
  itemprops: Element[];
  /** Elements with a schema.org RDFa property (price, priceCurrency, availability, url). */
  rdfa: Element[];
  /** meta property/name -> content, first one wins. */
  meta: Map<string, string>;
  /** meta name -> content only (a property="price" is RDFa's). */
  metaNames: Map<string, string>;
  h1s: Element[];
  title: Element | null;
}

const documentCache = new WeakMap<Document, MarkedElements>();

function markedElements(document: Document): MarkedElements {
  const cached = documentCache.get(document);
  if (cached) return cached;
  const marked: MarkedElements = { jsonLd: [], scripts: [], itemprops: [], rdfa: [], meta: new Map(), metaNames: new Map(), h1s: [], title: null };
  let headTitle: Element | null = null;
  const stack: AnyNode[] = [...document.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type !== 'tag' && node.type !== 'script' && node.type !== 'style') continue;
    const element = node as Element;
    const attribs = element.attribs;
    const name = element.name;
    if (name === 'script') {
      marked.scripts.push(element);
      if (/ld\+json/i.test(attribs.type ?? '')) marked.jsonLd.push(textOf(element));
      continue;
    }
    if (attribs.itemprop !== undefined) marked.itemprops.push(element);
    if (attribs.property !== undefined) {
      if (RDFA_TERM.test(attribs.property)) marked.rdfa.push(element);
    }
    if (name === 'meta') {
      const content = attribs.content?.trim();
      if (content) {
        for (const key of [attribs.property, attribs.name]) if (key && !marked.meta.has(key)) marked.meta.set(key, content);
        if (attribs.name && !marked.metaNames.has(attribs.name)) marked.metaNames.set(attribs.name, content);
      }
    } else if (name === 'h1') {
      marked.h1s.push(element);
    } else if (name === 'title') {
      marked.title ??= element;
      if (!headTitle && parentOf(element)?.name === 'head') headTitle = element;
    }
    if (name === 'style') continue;
    for (let i = element.children.length - 1; i >= 0; i--) stack.push(element.children[i]!);
  }
  marked.title = headTitle ?? marked.title;
  documentCache.set(document, marked);
  return marked;
}

function parsedJsonLd(marked: MarkedElements): JsonObject[] {
  return (marked.jsonLdNodes ??= jsonLdNodes(marked.jsonLd));
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

/** Top-level nodes of every JSON-LD block, with @graph members and a page's main entity. */
function jsonLdNodes(blocks: string[]): JsonObject[] {
  const nodes: JsonObject[] = [];
  // Work to do, last first: values to open, and nodes to take. A stack of its own, since a block
  // can nest @graph or mainEntity thousands deep and a call per level would overflow.
  const work: ({ open: unknown } | { take: JsonObject })[] = blocks.map((block) => ({ open: parseJsonLd(block) })).reverse();
  while (work.length > 0) {
    const next = work.pop()!;
    if ('take' in next) {
      nodes.push(next.take);
      continue;
    }
    const items = asArray(next.open);
    for (let i = items.length - 1; i >= 0; i--) {
      const item = items[i];
      if (!isObject(item)) continue;
      // Graph members come before their container, main entities after it.
      for (const key of ['about', 'mainEntity']) if (isObject(item[key])) work.push({ open: item[key] });
      work.push({ take: item });
      if (item['@graph']) work.push({ open: item['@graph'] });
    }
  }
  return nodes;
}

export function jsonLdPrices(blocks: string[], url: string | undefined, parsed?: JsonObject[]): StructuredPrice[] {
  const nodes = parsed ?? jsonLdNodes(blocks);
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

/** AggregateOffers read inside each other at most: shops nest one or two. */
const MAX_OFFER_NESTING = 3;

function offerPrices(offer: JsonObject, inheritedCurrency: string | null = null, nesting = 0): OfferPrice[] {
  const currency = currencyCode(offer.priceCurrency) ?? inheritedCurrency;
  const url = typeof offer.url === 'string' ? offer.url : null;
  const price = (value: unknown, valueCurrency = currency) => {
    const found = structuredAmount(value, valueCurrency);
    return found ? [{ ...found, url }] : [];
  };
  if (hasType(offer, 'AggregateOffer')) {
    const low = price(offer.lowPrice ?? offer.price);
    if (low.length > 0 || nesting >= MAX_OFFER_NESTING) return low;
    return asArray(offer.offers).filter(isObject).flatMap((inner) => offerPrices(inner, currency, nesting + 1));
  }
  const direct = price(offer.price);
  if (direct.length > 0) return direct;
  const specifications = asArray(offer.priceSpecification).filter(isObject);
  const selling = specifications.filter((spec) => !LIST_PRICE_TYPE.test(String(spec.priceType ?? '')));
  const fromSpecification = selling.flatMap((spec) => price(spec.price, currencyCode(spec.priceCurrency) ?? currency));
  return fromSpecification.length > 0 ? fromSpecification : price(offer.lowPrice);
}

// Microdata and RDFa -----------------------------------------------------------------------------

// A page may hold thousands of offers: asking per offer for its scope or its currency, each a walk
// over the tree or the list, was quadratic. These lookups are built so that each element's chain of
// ancestors is walked once, whatever is asked of it.

/**
 * A lookup of the first of `elements` (document order) passing `test` inside a scope (strictly), or
 * the first at all without one. A walk up stops at an ancestor already given an element: an earlier
 * element is inside it, and so inside all its ancestors, which were given that one already.
 */
function firstInsideOf(elements: Element[], test: (element: Element) => boolean): (scope: Element | null) => Element | null {
  const first = new Map<Element, Element>();
  let overall: Element | null = null;
  for (const element of elements) {
    if (!test(element)) continue;
    overall ??= element;
    for (let parent = parentOf(element); parent && !first.has(parent); parent = parentOf(parent)) first.set(parent, element);
  }
  return (scope) => (scope ? first.get(scope) ?? null : overall);
}

/** A lookup of an element's nearest ancestor that opens a scope (of a type, if given), remembered along each path. */
function scopeFinder(scopeAttribute: 'itemscope' | 'typeof', type?: RegExp): (element: Element) => Element | null {
  const typeAttribute = scopeAttribute === 'itemscope' ? 'itemtype' : 'typeof';
  const opens = (element: Element) => hasAttr(element, scopeAttribute) && (!type || type.test(attr(element, typeAttribute) ?? ''));
  /** For an element: the nearest scope among itself and its ancestors. */
  const nearest = new Map<Element, Element | null>();
  return (element) => {
    const path: Element[] = [];
    let found: Element | null = null;
    for (let at = parentOf(element); at; at = parentOf(at)) {
      const known = nearest.get(at);
      if (known !== undefined) { found = known; break; }
      if (opens(at)) { found = at; break; }
      path.push(at);
    }
    for (const at of path) nearest.set(at, found);
    if (found) nearest.set(found, found);
    return found;
  };
}

const PRODUCT_ITEMTYPE = /Product|Vehicle|Car\b|Book\b/i;

/**
 * Prices inside the page's product: the first product scope not nested in another product
 * (nested ones are related items), or, with no product scope at all, offers on their own.
 */
function scopedPrices(
  priceElements: Element[],
  scopeAttribute: 'itemscope' | 'typeof',
  read: (element: Element, offer: Element | null) => OfferPrice | null,
): OfferPrice[] {
  const productOf = scopeFinder(scopeAttribute, PRODUCT_ITEMTYPE);
  const offerOf = scopeFinder(scopeAttribute);
  const mainProduct = priceElements.map(productOf).find((product) => product && !productOf(product)) ?? null;
  return priceElements
    .filter((element) => productOf(element) === mainProduct)
    .flatMap((element) => read(element, offerOf(element)) ?? []);
}

const hasToken = (value: string | undefined, tokens: RegExp) => !!value && value.split(/\s+/).some((token) => tokens.test(token));

function microdataPrices(marked: MarkedElements, url: string | undefined): StructuredPrice[] {
  const itemprops = marked.itemprops;
  const priceElements = itemprops.filter((element) => hasToken(element.attribs.itemprop, /^(?:price|lowPrice)$/));
  if (priceElements.length === 0) return [];
  const currencyIn = firstInsideOf(itemprops, (element) => hasToken(element.attribs.itemprop, /^priceCurrency$/));
  const urlIn = firstInsideOf(itemprops, (element) => hasToken(element.attribs.itemprop, /^url$/));
  const prices = scopedPrices(priceElements, 'itemscope', (element, offer) => {
    const currencyElement = currencyIn(offer);
    const currency = currencyCode(currencyElement && (attr(currencyElement, 'content') ?? textOf(currencyElement)));
    const value = attr(element, 'content') ?? attr(element, 'value') ?? priceTextOf(element);
    const found = structuredAmount(value, currency);
    const offerUrl = offer && urlIn(offer);
    return found ? { ...found, url: offerUrl ? attr(offerUrl, 'href') ?? attr(offerUrl, 'content') : null } : null;
  });
  return bestFirst(prices, url).map(({ amount, currency, raw }) => ({ source: 'microdata', amount, currency, raw }));
}

/**
 * RDFa terms of schema.org: bare ("price", under vocab="http://schema.org/"), prefixed
 * ("schema:price") or in full. OpenGraph's "product:price:amount" is not one of them.
 */
const RDFA_TERM = /(?:^|\s)(?:(?:schema|s|sdo):|https?:\/\/schema\.org\/)?(?:price|lowPrice|priceCurrency|availability|url)(?:\s|$)/;
const rdfaTerm = (element: Element, term: string) =>
  (element.attribs.property ?? '').split(/\s+/).some((token) => token.replace(/^(?:(?:schema|s|sdo):|https?:\/\/schema\.org\/)/, '') === term);

function rdfaPrices(marked: MarkedElements, url: string | undefined): StructuredPrice[] {
  // Only inside a typed resource: a bare property="price" elsewhere is not a statement about an offer.
  const resourceOf = scopeFinder('typeof');
  const typed = marked.rdfa.filter((element) => resourceOf(element) !== null);
  const priceElements = typed.filter((element) => rdfaTerm(element, 'price') || rdfaTerm(element, 'lowPrice'));
  if (priceElements.length === 0) return [];
  const currencyIn = firstInsideOf(typed, (e) => rdfaTerm(e, 'priceCurrency'));
  const urlIn = firstInsideOf(typed, (e) => rdfaTerm(e, 'url'));
  const prices = scopedPrices(priceElements, 'typeof', (element, offer) => {
    const currencyElement = currencyIn(offer);
    const currency = currencyCode(currencyElement && (attr(currencyElement, 'content') ?? textOf(currencyElement)));
    const found = structuredAmount(attr(element, 'content') ?? priceTextOf(element), currency);
    const offerUrl = offer && urlIn(offer);
    return found ? { ...found, url: offerUrl ? attr(offerUrl, 'href') ?? attr(offerUrl, 'resource') ?? attr(offerUrl, 'content') : null } : null;
  });
  return bestFirst(prices, url).map(({ amount, currency, raw }) => ({ source: 'rdfa', amount, currency, raw }));
}

function rdfaAvailability(marked: MarkedElements): Availability | null {
  const productOf = scopeFinder('typeof', PRODUCT_ITEMTYPE);
  const resourceOf = scopeFinder('typeof');
  const product = marked.rdfa.map(productOf).find((p) => p && !productOf(p)) ?? null;
  const element = marked.rdfa.find((e) => rdfaTerm(e, 'availability') && resourceOf(e) && productOf(e) === product);
  return element ? availabilityOf(attr(element, 'href') ?? attr(element, 'resource') ?? attr(element, 'content') ?? textOf(element)) : null;
}

// OpenGraph and other meta tags ------------------------------------------------------------------

function openGraphPrices(marked: MarkedElements): StructuredPrice[] {
  const meta = (name: string) => marked.meta.get(name) ?? null;
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

/** Labels of Twitter's product cards (label1/data1) that say the data is the price. */
const PRICE_LABEL =
  /^(?:(?:sale |our |current )?price|preis|prix|precio|prezzo|prijs|preço|pris|hinta|cena|ár|fiyat|цена|ціна|τιμή|価格|价格|價格|가격|ราคา|giá|harga|מחיר|السعر)\s*:?$/iu;

function metaTagPrices(marked: MarkedElements): StructuredPrice[] {
  const meta = (name: string) => marked.meta.get(name) ?? null;
  const hint = declaredCurrencyOf(marked) ?? currencyCode(marked.metaNames.get('currency') ?? marked.metaNames.get('priceCurrency'));
  const written: string[] = [];
  const named = marked.metaNames.get('price');
  if (named) written.push(named);
  for (let i = 1; i <= 4; i++) {
    const label = meta(`twitter:label${i}`);
    const data = meta(`twitter:data${i}`);
    if (label && data && PRICE_LABEL.test(label.trim())) written.push(data);
  }
  return written.flatMap((value) => {
    const found = structuredAmount(value, hint);
    return found ? [{ source: 'meta' as const, ...found }] : [];
  });
}

/** The currency the page declares for its prices, even where it gives no amount. */
export function declaredCurrency(document: Document): string | null {
  return declaredCurrencyOf(markedElements(document));
}

function declaredCurrencyOf(marked: MarkedElements): string | null {
  const itemprop = marked.itemprops.find((element) => hasToken(element.attribs.itemprop, /^priceCurrency$/)) ?? null;
  return (
    currencyCode(marked.meta.get('product:price:currency')) ??
    currencyCode(marked.meta.get('og:price:currency')) ??
    currencyCode(itemprop && (attr(itemprop, 'content') ?? textOf(itemprop)))
  );
}

// Script state -----------------------------------------------------------------------------------
//
// Pages leave their data for their own code in scripts: Next.js (__NEXT_DATA__), Nuxt, Redux and
// Apollo stores (window.__X__ = {...}), Shopify's product JSON. Only what is JSON is read, never
// run. The page's product is the object whose name shares the words of the page's h1 and title
// and that has a selling price; when several such objects disagree, nothing is read.

/** JSON read per page at most (characters): the state of a large page is a few hundred KB. */
const MAX_STATE_CHARS = 2_000_000;
/** JSON values walked per page at most. */
const MAX_STATE_NODES = 150_000;
/** A product whose name matches the title this much less than the best one still counts against it. */
const NAME_MARGIN = 0.25;

const STATE_ASSIGNMENT = /(?:__(?:NUXT|INITIAL_STATE|PRELOADED_STATE|APOLLO_STATE)__|\bvar meta)\s*=\s*/g;

type StateBlock = { text: string; cents: boolean; fallback?: () => string | null };

/**
 * Shopify's product JSON (`{{ product | json }}`, data-product-json / ProductJson-* scripts, and
 * the analytics `var meta = {"product": ...}`) gives whole-number prices in cents: "price": 2499
 * is 24.99. Product objects shaped like Shopify's (variants with price_min/price_max or
 * compare_at_price_max) elsewhere are read the same way; decimals and strings are read as written.
 */
function isShopifyProductJson(script: Element): boolean {
  return hasAttr(script, 'data-product-json') || /^ProductJson-/i.test(attr(script, 'id') ?? '');
}

/** Whether a script holds state this reader understands (a selector may name it). */
export function isStateScript(script: Element): boolean {
  if (script.name !== 'script') return false;
  const type = (attr(script, 'type') ?? '').trim().toLowerCase();
  if (/ld\+json/.test(type)) return false;
  if (attr(script, 'id') === '__NEXT_DATA__' || /^(?:application|text)\/json$/.test(type)) return true;
  if (type && !/javascript|ecmascript|^module$/.test(type)) return false;
  if (hasAttr(script, 'src')) return false;
  STATE_ASSIGNMENT.lastIndex = 0;
  return STATE_ASSIGNMENT.test(textOf(script));
}

/** The JSON text of state scripts, marked ones first; what is not JSON is skipped later. */
function stateBlocks(scripts: Element[]): StateBlock[] {
  const marked: StateBlock[] = [];
  const other: StateBlock[] = [];
  for (const script of scripts) {
    if (hasAttr(script, 'src')) continue;
    const type = (attr(script, 'type') ?? '').trim().toLowerCase();
    if (/ld\+json/.test(type)) continue;
    const text = textOf(script);
    // Every price key ends so ("price", "salePrice", "sale_price"...): the cheapest test there is.
    if (!text.includes('rice')) continue;
    if (attr(script, 'id') === '__NEXT_DATA__' || isShopifyProductJson(script)) {
      marked.push({ text, cents: isShopifyProductJson(script) });
    } else if (/^(?:application|text)\/json$/.test(type)) {
      other.push({ text, cents: false });
    } else if (!type || /javascript|ecmascript|^module$/.test(type)) {
      STATE_ASSIGNMENT.lastIndex = 0;
      const matches = [...text.matchAll(STATE_ASSIGNMENT)];
      matches.forEach((match, i) => {
        const start = match.index + match[0].length;
        const cents = match[0].startsWith('var meta');
        // Usually the last assignment runs to the script's last bracket: try that before scanning for its end.
        const last = Math.max(text.lastIndexOf('}'), text.lastIndexOf(']'));
        const bracket = text.charCodeAt(start) === 123 || text.charCodeAt(start) === 91;
        if (i === matches.length - 1 && bracket && last > start && /^[\s;]*$/.test(text.slice(last + 1))) {
          marked.push({ text: text.slice(start, last + 1), cents, fallback: () => assignedJson(text, start) });
        } else {
          const json = assignedJson(text, start);
          if (json) marked.push({ text: json, cents });
        }
      });
    }
  }
  return [...marked, ...other];
}

/** The JSON assigned at `start`: an object or array literal, or JSON.parse("...") of one; null for anything else. */
function assignedJson(text: string, start: number): string | null {
  const first = text.charCodeAt(start);
  if (first === 123 || first === 91) {
    const end = jsonEnd(text, start);
    return end > 0 ? text.slice(start, end) : null;
  }
  const call = /^JSON\.parse\(\s*"/.exec(text.slice(start, start + 20));
  if (!call) return null;
  const quote = start + call[0].length - 1;
  const end = stringEnd(text, quote);
  if (end < 0) return null;
  try {
    const inner = JSON.parse(text.slice(quote, end));
    return typeof inner === 'string' ? inner : null;
  } catch {
    return null;
  }
}

/** End (exclusive) of the double-quoted string starting at `quote`; -1 if it does not end. */
function stringEnd(text: string, quote: number): number {
  for (let i = quote + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 34) return i + 1;
  }
  return -1;
}

/** End (exclusive) of the balanced {...} or [...] at `start`, strings skipped; -1 if unbalanced. */
function jsonEnd(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      i = stringEnd(text, i) - 1;
      if (i < 0) return -1;
    } else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      if (--depth === 0) return i + 1;
    }
  }
  return -1;
}

function parseStateBlocks(blocks: StateBlock[]): { value: unknown; cents: boolean }[] {
  let budget = MAX_STATE_CHARS;
  const parsed: { value: unknown; cents: boolean }[] = [];
  const parse = (text: string | null) => {
    if (text === null || text.length > budget) return undefined;
    budget -= text.length;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined; // Not JSON (a JavaScript literal): not in scope.
    }
  };
  for (const { text, cents, fallback } of blocks) {
    let value = parse(text);
    if (value === undefined && fallback) value = parse(fallback());
    if (value !== undefined) parsed.push({ value, cents });
  }
  return parsed;
}

/** The words naming the page's product: its h1s, <title> and og:title. */
function titleWordsOf(marked: MarkedElements): Set<string> {
  const texts = [...marked.h1s.map(textOf), marked.title ? textOf(marked.title) : '', marked.meta.get('og:title') ?? ''];
  return wordsOf(texts.join(' '));
}

/** `wholeNumber`: an integer outside Shopify's convention, which may be units or minor units (cents). */
type StatePrice = OfferPrice & { wholeNumber?: boolean };
type StateCandidate = { score: number; price: StatePrice; availability: Availability | null };
type StateProduct = { price: OfferPrice; availability: Availability | null };

const NAME_KEYS = ['name', 'title', 'productName', 'product_name', 'displayName'];
/** Selling prices first; list, regular, original, was, compare-at and MSRP keys are never read. */
const PRICE_KEYS = [
  'salePrice', 'sale_price', 'currentPrice', 'current_price', 'finalPrice', 'final_price', 'sellingPrice', 'selling_price',
  'specialPrice', 'special_price', 'offerPrice', 'offer_price', 'discountedPrice', 'discounted_price', 'priceValue', 'price_value',
  'price', 'prices', 'pricing', 'priceInfo', 'price_min', 'minPrice', 'lowPrice', 'priceRange',
];
/** Inside a price object ({ "current": {...}, "was": {...} }), selling first. */
const INNER_PRICE_KEYS = [
  'sale', 'salePrice', 'current', 'currentPrice', 'final', 'finalPrice', 'selling', 'sellingPrice', 'special', 'specialPrice',
  'offer', 'offerPrice', 'amount', 'value', 'price', 'min', 'minPrice', 'lowPrice', 'minVariantPrice',
];
const CURRENCY_KEYS = ['currency', 'currencyCode', 'priceCurrency', 'currency_code', 'currencyIso', 'currencyIsoCode'];
/** Keys holding a product's own variants, not other products. */
const VARIANT_KEYS = new Set(['variants', 'variations', 'skus', 'options', 'offers']);

function currencyOfObject(object: JsonObject): string | null {
  for (const key of CURRENCY_KEYS) {
    const code = currencyCode(object[key]);
    if (code) return code;
  }
  return null;
}

function isShopifyShaped(object: JsonObject): boolean {
  return Array.isArray(object.variants) && ('price_min' in object || 'price_max' in object || 'compare_at_price_max' in object);
}

/** A price value: a number or text, or a price object with a selling amount inside. */
function stateAmount(value: unknown, currency: string | null, cents: boolean, refs: JsonObject | null, depth = 0): StatePrice | null {
  value = resolveRef(value, refs);
  if (typeof value === 'number' && cents && Number.isInteger(value)) {
    return value > 0 ? { amount: value / 100, currency, raw: (value / 100).toFixed(2), url: null } : null;
  }
  if (typeof value === 'number' || typeof value === 'string') {
    const found = structuredAmount(value, currency);
    const wholeNumber = typeof value === 'number' ? Number.isInteger(value) : /^\d+$/.test(value.trim());
    return found ? { ...found, url: null, wholeNumber } : null;
  }
  if (!isObject(value) || depth >= 2) return null;
  const inner = currencyOfObject(value) ?? currency;
  // commercetools-style money: { centAmount: 2499, fractionDigits: 2 }.
  if (typeof value.centAmount === 'number') {
    const digits = typeof value.fractionDigits === 'number' ? value.fractionDigits : 2;
    const amount = value.centAmount / 10 ** digits;
    return amount > 0 ? { amount, currency: inner, raw: amount.toFixed(digits), url: null } : null;
  }
  for (const key of INNER_PRICE_KEYS) {
    if (value[key] === undefined || value[key] === null) continue;
    // A bare "value" is a price only where the object says its currency (or holds a money object).
    if (key === 'value' && !currencyOfObject(value) && !isObject(value.value)) continue;
    const found = stateAmount(value[key], inner, cents, refs, depth + 1);
    if (found) return found;
  }
  return null;
}

/** Apollo's normalised cache names objects by reference: { "__ref": "Price:1" }. */
function resolveRef(value: unknown, refs: JsonObject | null): unknown {
  return refs && isObject(value) && typeof value.__ref === 'string' && isObject(refs[value.__ref]) ? refs[value.__ref] : value;
}

function variantNamedBy(object: JsonObject, url: string | undefined): JsonObject | null {
  if (!url || !Array.isArray(object.variants)) return null;
  let id: string | null = null;
  try {
    id = new URL(url).searchParams.get('variant');
  } catch {
    return null;
  }
  return (id && object.variants.find((variant): variant is JsonObject => isObject(variant) && String(variant.id) === id)) || null;
}

/** The selling price of a product object: its own keys, else its offers, else its cheapest variant. */
function productPrice(object: JsonObject, cents: boolean, refs: JsonObject | null, url: string | undefined): StatePrice | null {
  const currency = currencyOfObject(object);
  const variant = variantNamedBy(object, url);
  const own = (target: JsonObject, targetCurrency: string | null) => {
    for (const key of PRICE_KEYS) {
      if (target[key] === undefined || target[key] === null) continue;
      const found = stateAmount(target[key], targetCurrency, cents, refs);
      if (found) return found;
    }
    return null;
  };
  const fromVariant = variant && own(variant, currencyOfObject(variant) ?? currency);
  if (fromVariant) return fromVariant;
  const direct = own(object, currency);
  if (direct) return direct;
  for (const key of ['offers', 'variants']) {
    const prices = asArray(object[key])
      .map((item) => resolveRef(item, refs))
      .filter(isObject)
      .flatMap((item) => own(item, currencyOfObject(item) ?? currency) ?? []);
    if (prices.length > 0) return prices.reduce((a, b) => (b.amount < a.amount ? b : a));
  }
  return null;
}

const IN_STOCK_KEYS = ['inStock', 'isInStock', 'in_stock', 'available', 'isAvailable', 'is_available'];
const SOLD_OUT_KEYS = ['soldOut', 'sold_out', 'isSoldOut', 'outOfStock', 'isOutOfStock', 'out_of_stock'];
const AVAILABILITY_KEYS = ['availability', 'availabilityStatus', 'stockStatus', 'stock_status', 'inventoryStatus', 'stockState', 'stockLevelStatus'];

function ownAvailability(object: JsonObject): Availability | null {
  for (const key of AVAILABILITY_KEYS) {
    const value = object[key];
    const state = availabilityOf(isObject(value) ? value.status ?? value.value ?? value.type : value);
    if (state) return state;
  }
  for (const key of IN_STOCK_KEYS) if (typeof object[key] === 'boolean') return object[key] ? 'InStock' : 'OutOfStock';
  for (const key of SOLD_OUT_KEYS) if (typeof object[key] === 'boolean') return object[key] ? 'OutOfStock' : 'InStock';
  return null;
}

function productAvailability(object: JsonObject, url: string | undefined): Availability | null {
  const variant = variantNamedBy(object, url);
  const named = variant && ownAvailability(variant);
  if (named) return named;
  const own = ownAvailability(object);
  if (own) return own;
  // Variants only: the product can be bought if any of them can.
  const states = asArray(object.variants).filter(isObject).map(ownAvailability).filter((state) => state !== null);
  return states.length > 0 ? states.find((state) => state !== 'OutOfStock') ?? 'OutOfStock' : null;
}

function nameOf(object: JsonObject): string | null {
  for (const key of NAME_KEYS) {
    const value = object[key];
    if (typeof value === 'string' && value.length >= 2 && value.length <= 300) return value;
  }
  // Shopify's analytics meta names only the variants: "Kettle - Black".
  if (Array.isArray(object.variants) && isObject(object.variants[0])) {
    const variant = object.variants[0];
    if (typeof variant.name === 'string') {
      const suffix = typeof variant.public_title === 'string' && variant.public_title ? ` - ${variant.public_title}` : '';
      return suffix && variant.name.endsWith(suffix) ? variant.name.slice(0, -suffix.length) : variant.name;
    }
  }
  return null;
}

/** How much of an object's name the page's title words cover; 0 when too little to count. */
function nameScore(name: string, titleWords: Set<string>): number {
  const words = wordsOf(name);
  if (words.size === 0) return 0;
  let shared = 0;
  for (const word of words) if (titleWords.has(word)) shared++;
  const score = shared / words.size;
  return shared >= Math.min(2, words.size) && score >= 0.5 ? score : 0;
}

function stateCandidates(roots: { value: unknown; cents: boolean }[], titleWords: Set<string>, url: string | undefined): StateCandidate[] {
  const found: StateCandidate[] = [];
  let budget = MAX_STATE_NODES;
  for (const root of roots) {
    const stack: [unknown, boolean, JsonObject | null][] = [[root.value, root.cents, null]];
    while (stack.length > 0 && budget-- > 0) {
      const [value, inCents, inheritedRefs] = stack.pop()!;
      if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--) if (typeof value[i] === 'object' && value[i] !== null) stack.push([value[i], inCents, inheritedRefs]);
        continue;
      }
      const object = value as JsonObject;
      const refs = 'ROOT_QUERY' in object ? object : inheritedRefs;
      const cents = inCents || isShopifyShaped(object);
      const name = nameOf(object);
      const score = name ? nameScore(name, titleWords) : 0;
      const price = score > 0 ? productPrice(object, cents, refs, url) : null;
      if (price) found.push({ score, price, availability: productAvailability(object, url) });
      for (const key in object) {
        if (price && VARIANT_KEYS.has(key)) continue;
        const child = object[key];
        if (typeof child === 'object' && child !== null) stack.push([child, cents, refs]);
      }
    }
  }
  return found;
}

/** The one product the page's state describes, or null where candidates disagree on its price. */
function pickStateProduct(candidates: StateCandidate[]): (StateProduct & { price: StatePrice }) | null {
  if (candidates.length === 0) return null;
  const best = Math.max(...candidates.map((candidate) => candidate.score));
  const contenders = candidates.filter((candidate) => candidate.score > best - NAME_MARGIN);
  const first = contenders.find((candidate) => candidate.score === best)!;
  if (contenders.some((candidate) => Math.abs(candidate.price.amount - first.price.amount) >= 0.005)) return null;
  const currency = first.price.currency ?? contenders.find((candidate) => candidate.price.currency)?.price.currency ?? null;
  const states = new Set(contenders.map((candidate) => candidate.availability).filter((state) => state !== null));
  return { price: { ...first.price, currency }, availability: states.size === 1 ? [...states][0]! : null };
}

function readStateProduct(document: Document, scripts: Element[], url: string | undefined): StateProduct | null {
  const marked = markedElements(document);
  const blocks = stateBlocks(scripts);
  if (blocks.length === 0) return null;
  const titleWords = titleWordsOf(marked);
  if (titleWords.size === 0) return null;
  const product = pickStateProduct(stateCandidates(parseStateBlocks(blocks), titleWords, url));
  if (!product) return null;
  const { wholeNumber, ...price } = product.price;
  if (wholeNumber) {
    const unit = wholeNumberUnit(document, price.amount);
    if (!unit) return null;
    if (unit === 'cents') Object.assign(price, { amount: price.amount / 100, raw: (price.amount / 100).toFixed(2) });
  }
  price.currency ??= declaredCurrencyOf(marked);
  return { price, availability: product.availability };
}

/**
 * Many stores keep prices in minor units (Spryker, commercetools, Redux stores: "price": 1950 for
 * 19.50), others in units ("price": 99 for 99 SAR), and the JSON does not say which. The page's
 * own text does: it shows "19.50" or "1950". Where it shows neither or both, nothing is read.
 */
function wholeNumberUnit(document: Document, amount: number): 'units' | 'cents' | null {
  // Both forms end in the same two digits ("1950", "1'950", "19.50"): only texts holding them are searched.
  const lastDigits = String(amount).slice(-2);
  const texts = shownTexts(document).filter((text) => text.includes(lastDigits));
  const grouped = (whole: number) => String(whole).replace(/\B(?=(\d{3})+$)/g, "[.,'\\s\u00a0\u202f]?");
  const units = new RegExp(`(?<![\\d.,])${grouped(amount)}(?:[.,](?:00|-|–))?(?![\\d]|[.,]\\d)`);
  const cents = amount >= 100 ? new RegExp(`(?<![\\d.,])${grouped(Math.floor(amount / 100))}[.,]${lastDigits}(?!\\d)`) : null;
  const asUnits = texts.some((text) => units.test(text));
  const asCents = !!cents && texts.some((text) => cents.test(text));
  return asUnits === asCents ? null : asUnits ? 'units' : 'cents';
}

const shownTextCache = new WeakMap<Document, string[]>();

/** The page's text nodes outside scripts and styles, once per page. */
function shownTexts(document: Document): string[] {
  const cached = shownTextCache.get(document);
  if (cached) return cached;
  const texts: string[] = [];
  const stack: AnyNode[] = [...document.children];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'text') {
      if (/\d/.test(node.data)) texts.push(node.data);
    } else if (node.type === 'tag' && !/^(?:template|noscript|svg|head)$/.test((node as Element).name)) {
      const children = (node as Element).children;
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
    }
  }
  shownTextCache.set(document, texts);
  return texts;
}

const stateCache = new WeakMap<Document, Map<string, StateProduct | null>>();

/** The page's product in its script state, read once per page and address. */
function stateProduct(document: Document, url: string | undefined): StateProduct | null {
  let byUrl = stateCache.get(document);
  if (!byUrl) stateCache.set(document, (byUrl = new Map()));
  const key = url ?? '';
  if (!byUrl.has(key)) byUrl.set(key, readStateProduct(document, markedElements(document).scripts, url));
  return byUrl.get(key)!;
}

/**
 * The price of the page's product in its script state: all of the page's scripts, or only
 * `scripts` (the ones a selector names).
 */
export function scriptStatePrices(document: Document, url: string | undefined, scripts?: Element[]): StructuredPrice[] {
  const product = scripts ? readStateProduct(document, scripts, url) : stateProduct(document, url);
  if (!product) return [];
  const { amount, currency, raw } = product.price;
  return [{ source: 'script-state', amount, currency, raw }];
}

// Availability -----------------------------------------------------------------------------------

/** Whether the page offers the product for sale now (schema.org ItemAvailability); null where it does not say. */
export type Availability = 'InStock' | 'OutOfStock' | 'PreOrder' | 'BackOrder';

/** schema.org ItemAvailability values (and the words meta tags use) as the four states offers can be in. */
export function availabilityOf(value: unknown): Availability | null {
  if (typeof value !== 'string') return null;
  const word = value.trim().split(/[/:#]/).pop()!.replace(/[\s_-]+/g, '').toLowerCase();
  if (/^(?:instock|limitedavailability|onlineonly|instoreonly|available|availablefororder|yes|true|1)$/.test(word)) return 'InStock';
  if (/^(?:outofstock|soldout|discontinued|oos|unavailable|notavailable|no|false|0)$/.test(word)) return 'OutOfStock';
  if (/^(?:preorder|presale)$/.test(word)) return 'PreOrder';
  if (/^(?:backorder|madetoorder)$/.test(word)) return 'BackOrder';
  return null;
}

/**
 * The availability the page states for its product: its JSON-LD offer, microdata, RDFa, meta
 * tags, then its script state.
 */
export function statedAvailability(document: Document, url: string | undefined): Availability | null {
  const marked = markedElements(document);
  const nodes = parsedJsonLd(marked);
  const products = nodes.filter((node) => hasType(node, ...PRODUCT_TYPES));
  const main = (url && products.find((product) => productUrls(product).some((u) => sameUrl(u, url, false)))) || products[0];
  const offers = main ? offersOf(main) : nodes.filter((node) => hasType(node, ...OFFER_TYPES));
  const forUrl = url ? offers.find((offer) => typeof offer.url === 'string' && sameUrl(offer.url, url, true)) : undefined;
  const offerStates = (forUrl ? [forUrl] : offers).map((offer) => availabilityOf(offer.availability)).filter((state) => state !== null);
  // Several offers (variants): the product can be bought if any of them can.
  if (offerStates.length > 0) return offerStates.find((state) => state !== 'OutOfStock') ?? 'OutOfStock';

  const itemprop = marked.itemprops.find((element) => hasToken(element.attribs.itemprop, /^availability$/)) ?? null;
  const fromMicrodata = itemprop && availabilityOf(attr(itemprop, 'href') ?? attr(itemprop, 'content') ?? textOf(itemprop));
  if (fromMicrodata) return fromMicrodata;
  const fromRdfa = rdfaAvailability(marked);
  if (fromRdfa) return fromRdfa;
  const fromMeta = availabilityOf(marked.meta.get('product:availability') ?? marked.meta.get('og:availability'));
  if (fromMeta) return fromMeta;
  return stateProduct(document, url)?.availability ?? null;
}
