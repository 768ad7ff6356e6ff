/**
 * The identifiers a product page states for its product: GTIN, manufacturer part number (MPN),
 * the shop's SKU and the brand, from JSON-LD, microdata and meta tags. Pure: a parsed page in.
 */
import { normaliseGtin } from '../../domain/gtin.ts';
import type { ProductIdentifiers } from '../../events/catalogue.ts';
import { PRODUCT_TYPES, hasType, parsedJsonLd, productUrls } from './json-ld.ts';
import { markedElements, type MarkedElements } from './marked-elements.ts';
import { hasToken, PRODUCT_ITEMTYPE, scopeFinder } from './microdata-rdfa.ts';
import { attr, descendants, hasAttr, textOf, type Document, type Element } from './page.ts';
import { asArray, isObject, sameUrl, structuredAmount, type JsonObject } from './structured-values.ts';

export type { ProductIdentifiers };

export interface IdentifierOptions {
  /** The page's address: the product, or the variant, it names is the one read. */
  url?: string;
  /** The price read from the page: where the page states several products, the one offered at it is the page's. */
  price?: number | null;
}

/** One product (or one variant's offer) a source states, with what tells it apart from the others. */
type Candidate = { ids: ProductIdentifiers; amounts: number[]; urls: string[] };

/** A source's products in page order, each with its variants or offers (the product alone when it has none). */
type Product = { urls: string[]; amounts: number[]; choices: Candidate[] };

type PageIdentifiers = { jsonLd: Product[]; microdata: Product[]; meta: ProductIdentifiers };

const NONE: ProductIdentifiers = { gtin: null, mpn: null, sku: null, brand: null };
const FIELDS = ['gtin', 'mpn', 'sku', 'brand'] as const;

/**
 * The page's product's identifiers, each from the first of JSON-LD, microdata and meta tags that
 * states it; null when the page states none. On a page of several products (a listing, related
 * products beside the product) the one offered at `price` is read, then the one `url` names, else
 * the first.
 */
export function readIdentifiers(document: Document, opts: IdentifierOptions = {}): ProductIdentifiers | null {
  const stated = statedIdentifiers(document);
  const merged = { ...NONE };
  for (const ids of [pickFrom(stated.jsonLd, opts), pickFrom(stated.microdata, opts), stated.meta]) {
    if (!ids) continue;
    for (const field of FIELDS) merged[field] ??= ids[field];
  }
  return FIELDS.some((field) => merged[field] !== null) ? merged : null;
}

// Checks and AI Detect read the same page many times (one price per selector): what the page
// states is gathered once per page, and only the choice among its products is made per price.
const cache = new WeakMap<Document, PageIdentifiers>();

function statedIdentifiers(document: Document): PageIdentifiers {
  const cached = cache.get(document);
  if (cached) return cached;
  const marked = markedElements(document);
  const stated = { jsonLd: jsonLdProducts(marked), microdata: microdataProducts(marked), meta: metaIdentifiers(marked) };
  cache.set(document, stated);
  return stated;
}

function pickFrom(products: Product[], opts: IdentifierOptions): ProductIdentifiers | null {
  const product = narrowed(products, opts, false)[0];
  return product ? (narrowed(product.choices, opts, true)[0]?.ids ?? null) : null;
}

/** The items offered at the price, of those the ones the url names: each step only where some item fits it. */
function narrowed<T extends { amounts: number[]; urls: string[] }>(items: T[], opts: IdentifierOptions, withQuery: boolean): T[] {
  const { price, url } = opts;
  const atPrice = typeof price === 'number' ? items.filter((item) => item.amounts.some((amount) => Math.abs(amount - price) < 1e-9)) : [];
  const fitting = atPrice.length > 0 ? atPrice : items;
  const named = url ? fitting.filter((item) => item.urls.some((u) => sameUrl(u, url, withQuery))) : [];
  return named.length > 0 ? named : fitting;
}

// Values ---------------------------------------------------------------------------------------

const MAX_TEXT = 100;
/**
 * Values shops write where they have none. "Unbranded" and "Generic" are written on products of
 * no brand: as brands they would match unrelated products.
 */
const PLACEHOLDER =
  /^(?:n\/?a|none|null|nil|undefined|unknown|not ?available|not applicable|does not apply|no brand|unbranded|generic|false|true|0+|\[object object\])$/i;
/** Template markers left unfilled: {{product.sku}}, ${sku}, <%= sku %>. */
const TEMPLATE = /\{\{|\}\}|\$\{|<%|%>/;

/** JSON-LD is script text, so entities some shops write in it are not decoded by the parser. */
const ENTITIES: Record<string, string> = { amp: '&', quot: '"', apos: "'", lt: '<', gt: '>', nbsp: ' ' };
const decodeEntities = (text: string) =>
  text.replace(/&(?:#(\d{1,7})|#x([\da-f]{1,6})|(amp|quot|apos|lt|gt|nbsp));/gi, (whole, dec?: string, hex?: string, named?: string) => {
    const code = dec ? Number(dec) : hex ? Number.parseInt(hex, 16) : null;
    if (code === null) return ENTITIES[named!.toLowerCase()] ?? whole;
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });

/** A value as text: trimmed, its whitespace collapsed, capped; null for nothing or a placeholder. */
function identifierText(value: unknown): string | null {
  const first = Array.isArray(value) ? value[0] : value;
  if (typeof first !== 'string' && typeof first !== 'number') return null;
  const text = decodeEntities(String(first)).replace(/\s+/g, ' ').trim();
  if (!text || PLACEHOLDER.test(text) || TEMPLATE.test(text) || !/[\p{L}\p{N}]/u.test(text)) return null;
  if (text.length <= MAX_TEXT) return text;
  // A cut must not leave half of a surrogate pair behind.
  return text
    .slice(0, MAX_TEXT)
    .replace(/[\ud800-\udbff]$/, '')
    .trimEnd();
}

/** The first of the values that is a valid GTIN, as 14 digits; GS1 Digital Link addresses give theirs. */
function gtinOf(values: unknown[]): string | null {
  for (const value of values) {
    const text = identifierText(value);
    const digitalLink = text?.match(/^https?:\/\/[^/]+\/(?:.*\/)?01\/(\d{8,14})(?:[/?#]|$)/);
    const gtin = normaliseGtin(digitalLink ? digitalLink[1] : text);
    if (gtin) return gtin;
  }
  return null;
}

// JSON-LD --------------------------------------------------------------------------------------

const GTIN_KEYS = ['gtin', 'gtin13', 'gtin14', 'gtin12', 'gtin8', 'isbn'];

function jsonLdIdentifiers(node: JsonObject): ProductIdentifiers {
  return { gtin: gtinOf(GTIN_KEYS.map((key) => node[key])), mpn: identifierText(node.mpn), sku: identifierText(node.sku), brand: brandOf(node.brand) };
}

/** A brand as a name, a Brand or Organization with a name, or a list of them (the first that names one). */
function brandOf(value: unknown): string | null {
  for (const brand of asArray(value)) {
    const name = isObject(brand) ? identifierText(brand.name) : identifierText(brand);
    if (name) return name;
  }
  return null;
}

/** Fields of the more specific node first, the rest from the less specific ones (a variant, then its group). */
function merge(...layers: ProductIdentifiers[]): ProductIdentifiers {
  const merged = { ...NONE };
  for (const layer of layers) for (const field of FIELDS) merged[field] ??= layer[field];
  return merged;
}

function jsonLdProducts(marked: MarkedElements): Product[] {
  const nodes = parsedJsonLd(marked);
  // Graphs may name an offer or a variant by "@id" and describe it elsewhere.
  const byId = new Map(nodes.filter((node) => typeof node['@id'] === 'string').map((node) => [node['@id'] as string, node]));
  const resolve = (node: JsonObject) => (typeof node['@id'] === 'string' && Object.keys(node).length === 1 ? (byId.get(node['@id']) ?? node) : node);
  const objects = (value: unknown) => asArray(value).filter(isObject).map(resolve);
  const offerChoices = (node: JsonObject, around: ProductIdentifiers[], urls: string[]): Candidate[] => {
    const offers = objects(node.offers);
    if (offers.length === 0) return [{ ids: merge(...around), amounts: amountsOf(node), urls }];
    return offers.flatMap((offer) => {
      const layers = [jsonLdIdentifiers(offer), ...around];
      const offerUrls = [offer.url, ...urls].filter((u): u is string => typeof u === 'string');
      // An AggregateOffer's own offers stand in its place: each may carry its variant's GTIN.
      const inner = objects(offer.offers);
      if (inner.length === 0) return [{ ids: merge(...layers), amounts: amountsOf(offer), urls: offerUrls }];
      return inner.map((one) => ({
        ids: merge(jsonLdIdentifiers(one), ...layers),
        amounts: amountsOf(one),
        urls: [one.url, ...offerUrls].filter((u): u is string => typeof u === 'string'),
      }));
    });
  };

  return nodes
    .filter((node) => hasType(node, ...PRODUCT_TYPES) || (!node['@type'] && node.offers))
    .map((product) => {
      const own = jsonLdIdentifiers(product);
      const variants = objects(product.hasVariant);
      const choices =
        variants.length > 0
          ? variants.flatMap((variant) => offerChoices(variant, [jsonLdIdentifiers(variant), own], nodeUrls(variant)))
          : offerChoices(product, [own], []);
      return { urls: productUrls(product), amounts: choices.flatMap((choice) => choice.amounts), choices };
    });
}

const nodeUrls = (node: JsonObject) => [node.url, node['@id']].filter((u): u is string => typeof u === 'string');

/** The amounts an offer (or a product written as one) is offered at, to tell which product a price is of. */
function amountsOf(offer: JsonObject): number[] {
  const specifications = asArray(offer.priceSpecification).filter(isObject);
  return [offer.price, offer.lowPrice, offer.highPrice, ...specifications.map((spec) => spec.price)].flatMap((value) => {
    const found = structuredAmount(value, null);
    return found ? [found.amount] : [];
  });
}

// Microdata ------------------------------------------------------------------------------------

const IDENTIFIER_PROP = /^(?:gtin(?:8|12|13|14)?|isbn|mpn|sku|brand)$/;

/**
 * Microdata's products: the page's product scopes not nested in another product (nested ones are
 * related items), each with the identifiers inside it (its offers' too). Identifiers outside any
 * product stand for the page's where no product scope states any.
 */
function microdataProducts(marked: MarkedElements): Product[] {
  const productOf = scopeFinder('itemscope', PRODUCT_ITEMTYPE);
  const groups = new Map<Element | null, Element[]>();
  for (const element of marked.itemprops) {
    if (!hasToken(element.attribs.itemprop, IDENTIFIER_PROP) && !hasToken(element.attribs.itemprop, /^(?:price|lowPrice|url)$/)) continue;
    const product = productOf(element);
    // Inside a product nested in another: a related item's.
    if (product && productOf(product)) continue;
    const group = groups.get(product);
    if (group) group.push(element);
    else groups.set(product, [element]);
  }
  const products = [...groups].map(([scope, elements]) => {
    const ids = microdataIdentifiers(elements.filter((element) => hasToken(element.attribs.itemprop, IDENTIFIER_PROP)));
    const amounts = elements
      .filter((element) => hasToken(element.attribs.itemprop, /^(?:price|lowPrice)$/))
      .flatMap((element) => structuredAmount(attr(element, 'content') ?? attr(element, 'value') ?? textOf(element), null)?.amount ?? []);
    const urls = elements
      .filter((element) => hasToken(element.attribs.itemprop, /^url$/))
      .flatMap((element) => attr(element, 'href') ?? attr(element, 'content') ?? []);
    const candidate = { ids, amounts, urls };
    return { scope, product: { ...candidate, choices: [candidate] } };
  });
  const stating = (product: Product) => FIELDS.some((field) => product.choices[0]!.ids[field] !== null);
  // Identifiers outside any product scope stand in only where no product scope states any.
  const scoped = products.filter(({ scope }) => scope !== null);
  const read = scoped.some(({ product }) => stating(product)) ? scoped : products.filter(({ scope }) => scope === null);
  return read.map(({ product }) => product);
}

function microdataIdentifiers(elements: Element[]): ProductIdentifiers {
  const withProp = (prop: RegExp) => elements.filter((element) => hasToken(element.attribs.itemprop, prop));
  const propValue = (element: Element) => attr(element, 'content') ?? attr(element, 'value') ?? textOf(element);
  const firstText = (prop: RegExp) =>
    withProp(prop)
      .map(propValue)
      .map(identifierText)
      .find((text) => text !== null) ?? null;
  return {
    gtin: gtinOf(withProp(/^(?:gtin(?:8|12|13|14)?|isbn)$/).map(propValue)),
    mpn: firstText(/^mpn$/),
    sku: firstText(/^sku$/),
    brand:
      withProp(/^brand$/)
        .map(brandElementName)
        .find((name) => name !== null) ?? null,
  };
}

/** A brand element's name: its own itemprop="name" when it is a Brand scope, else its content or text. */
function brandElementName(element: Element): string | null {
  if (hasAttr(element, 'itemscope')) {
    const name = descendants(element).find((inner) => hasToken(inner.attribs.itemprop, /^name$/));
    const named = name && identifierText(attr(name, 'content') ?? textOf(name));
    if (named) return named;
    if (attr(element, 'content') === null) return null;
  }
  return identifierText(attr(element, 'content') ?? textOf(element));
}

// Meta tags ------------------------------------------------------------------------------------

/** OpenGraph product tags (Facebook's catalogue) and the names shops use beside them. */
const META = {
  gtin: [
    'product:gtin',
    'product:ean',
    'product:upc',
    'product:isbn',
    'og:gtin',
    'og:ean',
    'og:upc',
    'product:gtin13',
    'product:gtin14',
    'product:gtin12',
    'product:gtin8',
  ],
  mpn: ['product:mfr_part_no', 'product:mpn', 'og:mpn'],
  sku: ['product:retailer_item_id', 'product:sku', 'og:sku'],
  brand: ['product:brand', 'og:brand'],
};

function metaIdentifiers(marked: MarkedElements): ProductIdentifiers {
  const first = (names: string[]) => names.map((name) => identifierText(marked.meta.get(name))).find((text) => text !== null) ?? null;
  return { gtin: gtinOf(META.gtin.map((name) => marked.meta.get(name))), mpn: first(META.mpn), sku: first(META.sku), brand: first(META.brand) };
}
