/**
 * A product page as a set of offers: one per variant (a size, a colour), each with its price,
 * currency, stock, regular (compare-at, was) price and the variant's identity, and the offer the
 * page's address selects. Pure: a page in, offers out.
 *
 * Read from JSON-LD (Offer lists, AggregateOffer's offers, ProductGroup with hasVariant and
 * variesBy), Shopify's product JSON (variants in minor units, `?variant=`) and WooCommerce's
 * `data-product_variations` (`attribute_*` parameters).
 */
import { markedElements } from './marked-elements.ts';
import { hasType, offersOf, parsedJsonLd, PRODUCT_TYPES, productUrls } from './json-ld.ts';
import { asArray, availabilityOf, currencyCode, isObject, sameUrl, structuredAmount, type Availability, type JsonObject } from './structured-values.ts';
import { attr, queryAll, textOf, type Document } from './page.ts';

export type OfferVariant = {
  id: string | null;
  sku: string | null;
  /** As the page writes it (8 to 14 digits). */
  gtin: string | null;
  /** {size: "XL", colour: "Red"}: the options that tell this variant from the others. */
  options: Record<string, string>;
  /** The variant's own address, when it has one. */
  url: string | null;
};

export type PageOffer = {
  /** Where the page states it: JSON-LD, or data the page keeps for its scripts (a platform's variants). */
  source: 'json-ld' | 'script-state';
  price: number;
  currency: string | null;
  availability: Availability | null;
  /** The struck-through, compare-at or list price, when higher than `price`. */
  regularPrice: number | null;
  variant: OfferVariant | null;
};

/** A page lists at most this many offers: a product with 1,000 variants is a catalogue. */
const MAX_OFFERS = 500;

const text = (value: unknown): string | null => (typeof value === 'string' && value.trim() ? value.trim() : typeof value === 'number' ? String(value) : null);
const gtinOf = (node: JsonObject) => text(node.gtin14 ?? node.gtin13 ?? node.gtin12 ?? node.gtin8 ?? node.gtin ?? node.barcode);
const LIST_PRICE_TYPE = /ListPrice|StrikethroughPrice|SRP|MSRP/i;

function variantOf(node: JsonObject, offer: JsonObject, options: Record<string, string>): OfferVariant | null {
  const id = text(node.productID ?? node['@id'] ?? offer['@id'] ?? node.sku ?? offer.sku);
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
        variant: node === main && sources.length === 1 ? null : variantOf(node, offer, options),
      },
    ];
  });
}

function parseJson(source: string): unknown {
  try {
    return JSON.parse(source);
  } catch {
    return null;
  }
}

/** Shopify's product JSON (themes embed it): variants with prices in minor units and the option names. */
function shopifyOffers(document: Document, currency: string | null): PageOffer[] {
  for (const script of markedElements(document).scripts) {
    const id = attr(script, 'id') ?? '';
    if (!id.startsWith('ProductJson') && attr(script, 'data-product-json') === null) continue;
    const product = parseJson(textOf(script));
    if (!isObject(product) || !Array.isArray(product.variants)) continue;
    const names = asArray(product.options).map((o) => (isObject(o) ? text(o.name) : text(o)));
    return product.variants.filter(isObject).flatMap((v) => {
      if (typeof v.price !== 'number') return [];
      const options = Object.fromEntries(
        [v.option1, v.option2, v.option3].flatMap((value, i) => (text(value) && names[i] ? [[names[i]!.toLowerCase(), text(value)!]] : [])),
      );
      const price = v.price / 100;
      const compare = typeof v.compare_at_price === 'number' ? v.compare_at_price / 100 : null;
      return [
        {
          source: 'script-state',
          price,
          currency,
          availability: v.available === false ? 'OutOfStock' : v.available === true ? 'InStock' : null,
          regularPrice: compare !== null && compare > price ? compare : null,
          variant: { id: text(v.id), sku: text(v.sku), gtin: text(v.barcode), options, url: null },
        } satisfies PageOffer,
      ];
    });
  }
  return [];
}

/** WooCommerce's variable products: the form's `data-product_variations`, prices in major units. */
function wooOffers(document: Document, currency: string | null): PageOffer[] {
  for (const form of queryAll(document, 'form.variations_form[data-product_variations]')) {
    const variations = parseJson(attr(form, 'data-product_variations') ?? '');
    if (!Array.isArray(variations)) continue;
    return variations.filter(isObject).flatMap((v) => {
      const price = typeof v.display_price === 'number' ? v.display_price : null;
      if (price === null) return [];
      const regular = typeof v.display_regular_price === 'number' && v.display_regular_price > price ? v.display_regular_price : null;
      const options = isObject(v.attributes)
        ? Object.fromEntries(Object.entries(v.attributes).flatMap(([k, value]) => (text(value) ? [[k.replace(/^attribute_(?:pa_)?/, ''), text(value)!]] : [])))
        : {};
      return [
        {
          source: 'script-state',
          price,
          currency,
          availability: v.is_in_stock === false ? 'OutOfStock' : v.is_in_stock === true ? 'InStock' : null,
          regularPrice: regular,
          variant: { id: text(v.variation_id), sku: text(v.sku), gtin: null, options, url: null },
        } satisfies PageOffer,
      ];
    });
  }
  return [];
}

/**
 * Every offer the page states for its product, from the richest source that has several (a
 * platform's own variant data knows each variant's options), else from JSON-LD.
 */
export function readOffers(document: Document, url?: string, currency: string | null = null): PageOffer[] {
  const stated = jsonLdOffers(document, url);
  const pageCurrency = currency ?? stated.find((o) => o.currency)?.currency ?? null;
  for (const platform of [shopifyOffers(document, pageCurrency), wooOffers(document, pageCurrency)]) {
    if (platform.length > 1 || (platform.length === 1 && stated.length === 0)) return platform.slice(0, MAX_OFFERS);
  }
  return stated.slice(0, MAX_OFFERS);
}

/**
 * The offer the address selects: its variant parameter (Shopify's `variant`, WooCommerce's
 * `attribute_*`), else the variant whose own address is the page's; null when the address selects
 * none (the page's shown price then decides, never the cheapest of a range).
 */
export function pickOffer(offers: readonly PageOffer[], url: string | undefined): PageOffer | null {
  if (offers.length === 1) return offers[0]!;
  if (!url || offers.length === 0) return null;
  let address: URL;
  try {
    address = new URL(url);
  } catch {
    return null;
  }
  const variantId = address.searchParams.get('variant');
  if (variantId) {
    const found = offers.find((o) => o.variant?.id === variantId || o.variant?.id?.endsWith(`/${variantId}`) || o.variant?.sku === variantId);
    if (found) return found;
  }
  const attributes = [...address.searchParams].filter(([key]) => key.startsWith('attribute_'));
  if (attributes.length) {
    const wanted = attributes.map(([key, value]) => [key.replace(/^attribute_(?:pa_)?/, ''), value.toLowerCase()] as const);
    const found = offers.find((o) => wanted.every(([key, value]) => o.variant?.options[key]?.toLowerCase() === value));
    if (found) return found;
  }
  return offers.find((o) => o.variant?.url && sameUrl(o.variant.url, url, true)) ?? null;
}

/** The offer the address chooses among several: what a check of a variant's address must read. */
export function addressSelectedOffer(document: Document, url: string | undefined): PageOffer | null {
  if (!url) return null;
  const offers = readOffers(document, url);
  return offers.length > 1 ? pickOffer(offers, url) : null;
}
