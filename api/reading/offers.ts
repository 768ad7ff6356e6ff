/**
 * A product page as a set of offers: one per variant (a size, a colour), each with its price,
 * currency, stock, regular (compare-at, was) price and the variant's identity, and the offer the
 * page's address selects. Pure: a page in, offers out.
 *
 * Read from JSON-LD (Offer lists, AggregateOffer's offers, ProductGroup with hasVariant and
 * variesBy) and from the data shop platforms keep for their scripts (platform-offers-*.ts: Shopify,
 * WooCommerce, Magento 2, PrestaShop 1.6 and 1.7, Salesforce Commerce Cloud, BigCommerce, Shopware 6),
 * which also say how the platform's addresses select a variant (variant-address.ts writes them).
 */
import { markedElements } from './marked-elements.ts';
import { hasType, offersOf, parsedJsonLd, PRODUCT_TYPES, productUrls } from './json-ld.ts';
import { declaredCurrency } from './meta-tags.ts';
import { asArray, availabilityOf, currencyCode, isObject, sameUrl, structuredAmount, type JsonObject } from './structured-values.ts';
import type { Document } from './page.ts';
import { text, type OfferVariant, type PageOffer } from './offers-model.ts';
import { PLATFORM_READERS, platformReader } from './platform-offers.ts';

export type { OfferSelection, OfferVariant, PageOffer, Platform } from './offers-model.ts';
export { variantAddress } from './variant-address.ts';

/** A page lists at most this many offers: a product with 1,000 variants is a catalogue. */
const MAX_OFFERS = 500;

const gtinOf = (node: JsonObject) => text(node.gtin14 ?? node.gtin13 ?? node.gtin12 ?? node.gtin8 ?? node.gtin ?? node.barcode);
const LIST_PRICE_TYPE = /ListPrice|StrikethroughPrice|SRP|MSRP/i;

/** `node` is the variant (a ProductGroup's), or the product itself when its offers are the variants (each with its own sku). */
function variantOf(node: JsonObject, offer: JsonObject, options: Record<string, string>, offersAreVariants: boolean): OfferVariant | null {
  const id = offersAreVariants
    ? text(offer['@id'] ?? offer.sku ?? offer.productID)
    : text(node.productID ?? node['@id'] ?? offer['@id'] ?? node.sku ?? offer.sku);
  const variant = {
    id,
    sku: text(offer.sku ?? node.sku),
    gtin: text(gtinOf(offer) ?? gtinOf(node)),
    options,
    url: text(offer.url ?? node.url),
  };
  return variant.id || variant.sku || variant.gtin || variant.url || Object.keys(options).length ? variant : null;
}

function regularOf(offer: JsonObject, price: number, currency: string | null): number | null {
  for (const spec of asArray(offer.priceSpecification).filter(isObject)) {
    if (!LIST_PRICE_TYPE.test(String(spec.priceType ?? ''))) continue;
    const found = structuredAmount(spec.price, currencyCode(spec.priceCurrency) ?? currency);
    if (found && found.amount > price) return found.amount;
  }
  return null;
}

/** The property names a ProductGroup varies by ("https://schema.org/size" → size). */
const variesBy = (group: JsonObject) =>
  asArray(group.variesBy)
    .map((v) => (typeof v === 'string' ? v.split(/[/:#]/).pop()! : null))
    .filter((v): v is string => !!v);

function jsonLdOffers(document: Document, url: string | undefined): PageOffer[] {
  const nodes = parsedJsonLd(markedElements(document));
  const products = nodes.filter((node) => hasType(node, ...PRODUCT_TYPES));
  const main =
    (url && products.find((p) => productUrls(p).some((u) => sameUrl(u, url, false)))) || products.find((p) => hasType(p, 'ProductGroup')) || products[0];
  if (!main) return [];
  const keys = variesBy(main);
  const sources: { node: JsonObject; offer: JsonObject }[] = [];
  for (const variant of asArray(main.hasVariant).filter(isObject)) {
    for (const offer of asArray(variant.offers).filter(isObject)) sources.push({ node: variant, offer });
  }
  if (sources.length === 0) {
    for (const offer of offersOf(main)) {
      const inner = hasType(offer, 'AggregateOffer') ? asArray(offer.offers).filter(isObject) : [];
      for (const each of inner.length ? inner : [offer]) sources.push({ node: main, offer: each });
    }
  }
  return sources.flatMap(({ node, offer }) => {
    const currency = currencyCode(offer.priceCurrency);
    const found = structuredAmount(offer.price ?? (hasType(offer, 'AggregateOffer') ? undefined : offer.lowPrice), currency);
    if (!found) return [];
    const options = Object.fromEntries(keys.flatMap((key) => (text(node[key]) ? [[key, text(node[key])!]] : [])));
    return [
      {
        source: 'json-ld' as const,
        price: found.amount,
        currency: found.currency,
        availability: availabilityOf(offer.availability),
        regularPrice: regularOf(offer, found.amount, found.currency),
        variant: node === main && sources.length === 1 ? null : variantOf(node, offer, options, node === main),
      },
    ];
  });
}

/** The currency JSON-LD names for the product's offers, an AggregateOffer's range without a price of its own included. */
function statedCurrency(document: Document): string | null {
  for (const product of parsedJsonLd(markedElements(document)).filter((node) => hasType(node, ...PRODUCT_TYPES))) {
    const named = offersOf(product)
      .map((offer) => currencyCode(offer.priceCurrency))
      .find((code) => code);
    if (named) return named;
  }
  return null;
}

/** Offers read per page and address: a check reads them again for the offer its price came from. */
const readCache = new WeakMap<Document, Map<string, PageOffer[]>>();

/**
 * Every offer the page states for its product. A platform's data names every variant with its
 * options, so it wins when it has several; data that describes only the variant shown wins over
 * JSON-LD's one offer of it, not over JSON-LD's several.
 */
export function readOffers(document: Document, url?: string, currency: string | null = null): PageOffer[] {
  const key = `${url ?? ''} ${currency ?? ''}`;
  const cached = readCache.get(document)?.get(key);
  if (cached) return cached;
  const stated = jsonLdOffers(document, url);
  const page = { currency: currency ?? stated.find((o) => o.currency)?.currency ?? statedCurrency(document) ?? declaredCurrency(document), stated };
  let offers = stated;
  for (const platform of PLATFORM_READERS) {
    const found = platform.read(document, page);
    if (found.length > 1 || (found.length === 1 && stated.length <= (platform.shownOnly ? 1 : 0))) {
      offers = found;
      break;
    }
  }
  offers = offers.slice(0, MAX_OFFERS);
  if (!readCache.has(document)) readCache.set(document, new Map());
  readCache.get(document)!.set(key, offers);
  return offers;
}

/** The offer a variant parameter names when no platform's data says how: JSON-LD's variants. */
function pickStated(address: URL, offers: readonly PageOffer[]): PageOffer | null {
  const variantId = address.searchParams.get('variant');
  if (variantId) {
    const found = offers.find((o) => o.variant?.id === variantId || o.variant?.id?.endsWith(`/${variantId}`) || o.variant?.sku === variantId);
    if (found) return found;
  }
  const attributes = [...address.searchParams].filter(([key]) => key.startsWith('attribute_'));
  if (attributes.length === 0) return null;
  const wanted = attributes.map(([key, value]) => [key.replace(/^attribute_(?:pa_)?/, ''), value.toLowerCase()] as const);
  return offers.find((o) => wanted.every(([key, value]) => o.variant?.options[key]?.toLowerCase() === value)) ?? null;
}

/**
 * The offer the address selects: its variant parameter or fragment, read the way the page's
 * platform writes it; else the variant whose own address is the page's; else the variant the page
 * itself shows (its selected or default one). Null when none of these says: the page's shown price
 * then decides, never the cheapest of a range.
 */
export function pickOffer(offers: readonly PageOffer[], url: string | undefined): PageOffer | null {
  if (offers.length <= 1) return offers[0] ?? null;
  const address = url ? parsedUrl(url) : null;
  if (address) {
    const platform = offers.find((o) => o.selection)?.selection?.platform;
    const named = platform ? platformReader(platform).pick(address, offers) : pickStated(address, offers);
    if (named) return named;
    const ownAddress = offers.find((o) => o.variant?.url && sameUrl(o.variant.url, address.href, true));
    if (ownAddress) return ownAddress;
  }
  const shown = offers.filter((o) => o.selection?.current);
  return shown.length === 1 ? shown[0]! : null;
}

function parsedUrl(url: string): URL | null {
  try {
    return new URL(url);
  } catch {
    return null;
  }
}
