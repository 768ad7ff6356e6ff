/**
 * Prices and availability a page states in microdata (itemprop) and RDFa (property, typeof),
 * inside the page's own product rather than related ones.
 */
import { attr, hasAttr, parentOf, textOf, type Element } from './page.ts';
import { priceTextOf } from './element-text.ts';
import type { MarkedElements } from './marked-elements.ts';
import { availabilityOf, bestFirst, currencyCode, structuredAmount, type Availability, type OfferPrice, type StructuredPrice } from './structured-values.ts';

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
  return (scope) => (scope ? (first.get(scope) ?? null) : overall);
}

/** A lookup of an element's nearest ancestor that opens a scope (of a type, if given), remembered along each path. */
export function scopeFinder(scopeAttribute: 'itemscope' | 'typeof', type?: RegExp): (element: Element) => Element | null {
  const typeAttribute = scopeAttribute === 'itemscope' ? 'itemtype' : 'typeof';
  const opens = (element: Element) => hasAttr(element, scopeAttribute) && (!type || type.test(attr(element, typeAttribute) ?? ''));
  /** For an element: the nearest scope among itself and its ancestors. */
  const nearest = new Map<Element, Element | null>();
  return (element) => {
    const path: Element[] = [];
    let found: Element | null = null;
    for (let at = parentOf(element); at; at = parentOf(at)) {
      const known = nearest.get(at);
      if (known !== undefined) {
        found = known;
        break;
      }
      if (opens(at)) {
        found = at;
        break;
      }
      path.push(at);
    }
    for (const at of path) nearest.set(at, found);
    if (found) nearest.set(found, found);
    return found;
  };
}

export const PRODUCT_ITEMTYPE = /Product|Vehicle|Car\b|Book\b/i;

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
  return priceElements.filter((element) => productOf(element) === mainProduct).flatMap((element) => read(element, offerOf(element)) ?? []);
}

export const hasToken = (value: string | undefined, tokens: RegExp) => !!value && value.split(/\s+/).some((token) => tokens.test(token));

export function microdataPrices(marked: MarkedElements, url: string | undefined): StructuredPrice[] {
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
    return found ? { ...found, url: offerUrl ? (attr(offerUrl, 'href') ?? attr(offerUrl, 'content')) : null } : null;
  });
  return bestFirst(prices, url).map(({ amount, currency, raw }) => ({ source: 'microdata', amount, currency, raw }));
}

const rdfaTerm = (element: Element, term: string) =>
  (element.attribs.property ?? '').split(/\s+/).some((token) => token.replace(/^(?:(?:schema|s|sdo):|https?:\/\/schema\.org\/)/, '') === term);

export function rdfaPrices(marked: MarkedElements, url: string | undefined): StructuredPrice[] {
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
    return found ? { ...found, url: offerUrl ? (attr(offerUrl, 'href') ?? attr(offerUrl, 'resource') ?? attr(offerUrl, 'content')) : null } : null;
  });
  return bestFirst(prices, url).map(({ amount, currency, raw }) => ({ source: 'rdfa', amount, currency, raw }));
}

export function rdfaAvailability(marked: MarkedElements): Availability | null {
  const productOf = scopeFinder('typeof', PRODUCT_ITEMTYPE);
  const resourceOf = scopeFinder('typeof');
  const product = marked.rdfa.map(productOf).find((p) => p && !productOf(p)) ?? null;
  const element = marked.rdfa.find((e) => rdfaTerm(e, 'availability') && resourceOf(e) && productOf(e) === product);
  return element ? availabilityOf(attr(element, 'href') ?? attr(element, 'resource') ?? attr(element, 'content') ?? textOf(element)) : null;
}
