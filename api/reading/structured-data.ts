/**
 * Prices and availability a page states for machines: JSON-LD, microdata, RDFa, OpenGraph and
 * other meta tags, and the state scripts leave for the page's own code. Pure: a parsed page in.
 */
import { attr, textOf, type Document } from './page.ts';
import { OFFER_TYPES, PRODUCT_TYPES, hasType, jsonLdPrices, offersOf, parsedJsonLd, productUrls } from './json-ld.ts';
import { markedElements } from './marked-elements.ts';
import { metaTagPrices, openGraphPrices } from './meta-tags.ts';
import { hasToken, microdataPrices, rdfaAvailability, rdfaPrices } from './microdata-rdfa.ts';
import { scriptStatePrices, stateProduct } from './script-state.ts';
import { availabilityOf, sameUrl, type Availability, type StructuredPrice } from './structured-values.ts';

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
