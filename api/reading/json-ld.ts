/**
 * Prices and offers a page states in JSON-LD: its blocks parsed (with the usual slips forgiven),
 * @graph members and main entities found, and the page's product and its offers picked out.
 */
import type { MarkedElements } from './marked-elements.ts';
import {
  asArray,
  bestFirst,
  currencyCode,
  isObject,
  sameUrl,
  structuredAmount,
  type JsonObject,
  type OfferPrice,
  type StructuredPrice,
} from './structured-values.ts';

export function parsedJsonLd(marked: MarkedElements): JsonObject[] {
  return (marked.jsonLdNodes ??= jsonLdNodes(marked.jsonLd));
}

/** "Product", "schema:Product" and "http://schema.org/Product" are all Product. */
export function hasType(node: JsonObject, ...types: string[]): boolean {
  return asArray(node['@type']).some((type) => typeof type === 'string' && types.includes(type.split(/[/:#]/).pop()!));
}

export const PRODUCT_TYPES = ['Product', 'ProductGroup', 'ProductModel', 'IndividualProduct', 'SomeProducts', 'Vehicle', 'Car', 'Book'];
export const OFFER_TYPES = ['Offer', 'AggregateOffer'];

function parseJsonLd(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Common slips in hand-written blocks: HTML comments, CDATA, trailing commas, raw newlines.
    const cleaned = text
      .replace(/^\s*(?:<!--|<!\[CDATA\[)|(?:-->|\]\]>)\s*$/g, '')
      .replace(/,\s*([}\]])/g, '$1')
      // biome-ignore lint/suspicious/noControlCharactersInRegex: raw control characters are what breaks shops' JSON-LD, so they are turned into spaces
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
  const resolve = (node: JsonObject) => (typeof node['@id'] === 'string' && Object.keys(node).length === 1 ? (byId.get(node['@id']) ?? node) : node);
  const pricesOf = (offers: JsonObject[]) => offers.map(resolve).flatMap((offer) => offerPrices(offer));

  const products = nodes
    .filter((node) => hasType(node, ...PRODUCT_TYPES) || (!node['@type'] && node.offers))
    .map((product) => ({ product, prices: pricesOf(offersOf(product)) }))
    .filter(({ prices }) => prices.length > 0);
  const main = (url && products.find(({ product }) => productUrls(product).some((u) => sameUrl(u, url, false)))) || products[0];
  const prices = main ? main.prices : pricesOf(nodes.filter((node) => hasType(node, ...OFFER_TYPES)));
  return bestFirst(prices, url).map(({ amount, currency, raw }) => ({ source: 'json-ld', amount, currency, raw }));
}

export function productUrls(product: JsonObject): string[] {
  return [product.url, product['@id'], ...asArray(product.offers).map((offer) => (isObject(offer) ? offer.url : null))].filter(
    (u): u is string => typeof u === 'string',
  );
}

export function offersOf(product: JsonObject): JsonObject[] {
  const variants = asArray(product.hasVariant)
    .filter(isObject)
    .flatMap((variant) => asArray(variant.offers));
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
    return asArray(offer.offers)
      .filter(isObject)
      .flatMap((inner) => offerPrices(inner, currency, nesting + 1));
  }
  const direct = price(offer.price);
  if (direct.length > 0) return direct;
  const specifications = asArray(offer.priceSpecification).filter(isObject);
  const selling = specifications.filter((spec) => !LIST_PRICE_TYPE.test(String(spec.priceType ?? '')));
  const fromSpecification = selling.flatMap((spec) => price(spec.price, currencyCode(spec.priceCurrency) ?? currency));
  return fromSpecification.length > 0 ? fromSpecification : price(offer.lowPrice);
}
