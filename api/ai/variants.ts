/**
 * The variants AI Detect shows beside its selectors (docs/product.md#variants): each offer the page
 * states, with the address that selects it the platform's own way, and one selector, naming the
 * element that keeps the variants' data, that reads whichever variant an address selects. Pure.
 */
import { extractPriceFromDocument } from '../reading/extract.ts';
import { jsonDataAttribute, keepsJsonData, markedElements } from '../reading/marked-elements.ts';
import { pickOffer, readOffers, variantAddress, type PageOffer } from '../reading/offers.ts';
import { attr, descendants, textOf, type Document, type Element } from '../reading/page.ts';
import type { Availability } from '../reading/structured-values.ts';
import { variantLabel } from '../../domain/variants.ts';
import { stableSelector, type DetectedSelector } from './detect.ts';
import { formatMoney } from '../../domain/money.ts';

export type DetectedVariant = {
  /** "XL · Red", else its SKU, else its place in the list. */
  label: string;
  options: Record<string, string>;
  sku: string | null;
  price: number;
  currency: string | null;
  availability: Availability | null;
  regularPrice: number | null;
  /** The page's address changed to select this variant. */
  url: string;
  /** Whether the address asked about selects it. */
  selected: boolean;
};

export type DetectedVariants = {
  variants: DetectedVariant[];
  /** Reads the variant an address selects; null when no element of the page does (the shown price then decides). */
  selector: string | null;
};

/** A picker of hundreds of variants helps nobody; the first ones are shown. */
const MAX_VARIANTS = 100;
/** Variants a candidate selector is tried on before it is offered: the first, the last and one between. */
const SAMPLED = 3;
/** Elements tried as the keeper of the variants' data. */
const MAX_CANDIDATES = 8;

export function detectVariants(document: Document, url: string): DetectedVariants {
  const offers = readOffers(document, url);
  if (offers.length < 2) return { variants: [], selector: null };
  const picked = pickOffer(offers, url);
  // Platform data often leaves the currency to the page.
  const stated = offers.find((o) => o.currency)?.currency;
  const read = stated ? null : extractPriceFromDocument(document, { url });
  const pageCurrency = stated ?? (read?.ok ? read.currency : null);
  const variants = offers.slice(0, MAX_VARIANTS).flatMap((offer, index): DetectedVariant[] => {
    const address = variantAddress(url, offers, offer);
    if (!address) return [];
    const { variant } = offer;
    return [
      {
        label: variantLabel(variant) ?? `Variant ${index + 1}`,
        options: variant?.options ?? {},
        sku: variant?.sku ?? null,
        price: offer.price,
        currency: offer.currency ?? pageCurrency,
        availability: offer.availability,
        regularPrice: offer.regularPrice,
        url: address,
        selected: offer === picked,
      },
    ];
  });
  return { variants, selector: variants.length > 1 ? variantDataSelector(document, offers, variants) : null };
}

/**
 * AI Detect's suggestions for an address that selects one of the page's variants: when the best one
 * reads another price (the variant the page shows before its scripts run), the selector of the
 * variants' data comes first, since it reads the variant the address selects.
 */
export function addressVariantFirst(suggestions: DetectedSelector[], detected: DetectedVariants): DetectedSelector[] {
  const selected = detected.variants.find((variant) => variant.selected);
  const { selector } = detected;
  if (!selected || !selector || (suggestions[0] && Math.abs(suggestions[0].price - selected.price) < 1e-9)) return suggestions;
  const price = selected.currency ? formatMoney(selected.price, selected.currency) : selected.price.toFixed(2);
  const first: DetectedSelector = {
    selector,
    description: `Price ${price} of the variant the address selects (${selected.label}), in the page's variant data`,
    confidence: VARIANT_DATA_CONFIDENCE,
    price: selected.price,
    currency: selected.currency,
    matchedText: String(selected.price),
  };
  return [first, ...suggestions.filter((suggestion) => suggestion.selector !== selector)];
}
/** Verified on the variants' own addresses, and the only reading of the selected one. */
const VARIANT_DATA_CONFIDENCE = 90;

/**
 * The selector of the element keeping the variants' data, verified as checks would read it: on each
 * sampled variant's address it reads that variant's price.
 */
function variantDataSelector(document: Document, offers: readonly PageOffer[], variants: DetectedVariant[]): string | null {
  const sample = [...new Set([variants[0]!, variants[Math.floor(variants.length / 2)]!, variants.at(-1)!])].slice(0, SAMPLED);
  const reads = (selector: string) =>
    sample.every((v) => {
      const found = extractPriceFromDocument(document, { selector, url: v.url });
      return found.ok && found.source === 'selector' && Math.abs(found.price - v.price) < 1e-9;
    });
  // Only elements that name a variant (its id or SKU) can keep the variants' data; a page has dozens of scripts.
  const marks = offers
    .flatMap((o) => [o.variant?.id, o.variant?.sku])
    .filter((mark): mark is string => !!mark && mark.length > 1)
    .slice(0, 2);
  const names = (element: Element) =>
    marks.length === 0 || marks.some((mark) => textOf(element).includes(mark) || Object.values(element.attribs).some((v) => v.includes(mark)));
  const dataElements = descendants(document).filter((element) => element.name !== 'script' && keepsJsonData(element));
  const candidates = [...markedElements(document).scripts.filter(keepsData), ...dataElements].filter(names).slice(0, MAX_CANDIDATES);
  for (const element of candidates) {
    for (const selector of namesFor(document, element)) if (reads(selector)) return selector;
  }
  return null;
}

/** Selectors naming the element by what it keeps (its JSON attribute, its id, JSON-LD), then the shortest stable one. */
function namesFor(document: Document, element: Element): string[] {
  const names: string[] = [];
  const id = attr(element, 'id');
  if (id && /^[A-Za-z][\w-]*$/.test(id)) names.push(`#${id}`);
  const dataJson = jsonDataAttribute(element);
  if (dataJson && /^[\w-]+$/.test(dataJson)) names.push(`${element.name}[${dataJson}]`);
  if (isJsonLd(element)) names.push('script[type="application/ld+json"]');
  const stable = stableSelector(document, element);
  if (stable) names.push(stable);
  // A script that sets the platform's variables has no name of its own: the page's inline scripts together name it.
  if (element.name === 'script') names.push('script:not([src])');
  return names;
}

const isJsonLd = (element: Element) => /ld\+json/i.test(attr(element, 'type') ?? '');
/** Scripts that can hold a product's variants: JSON-LD, JSON data, or code assigning an object. */
const keepsData = (element: Element) => isJsonLd(element) || /json/i.test(attr(element, 'type') ?? '') || /[{[]/.test(textOf(element).slice(0, 2000));
