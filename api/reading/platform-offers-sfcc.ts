/**
 * Salesforce Commerce Cloud (Storefront Reference Architecture). The server renders the variant the
 * address's `dwvar_<masterId>_<attributeId>=<value>` parameters select (ProductVariationModel's
 * urlSelectVariationValue writes them); other variants are other addresses, so the page states only
 * the one it shows. productDetails.isml: `.product-detail[data-pid="<variant id>"]`, each attribute
 * in `[data-attr="<attributeId>"]` with swatches `button.color-attribute[data-url]` >
 * `span[data-attr-value].selected` or a select's `option[data-attr-value][selected]` (values carry
 * Product-Variation urls with the dwvar_ parameters), prices `.prices .sales .value` and the
 * struck-through `.strike-through.list .value` (pricing/formatted.isml, `content` = the decimal
 * price), `.product-availability[data-available]`; structuredDataHelper's JSON-LD Product (sku = the
 * variant id, one Offer).
 */
import { markedElements } from './marked-elements.ts';
import { attr, queryAll, queryOne, textOf, type Document, type Element } from './page.ts';
import { structuredAmount } from './structured-values.ts';
import { higherThan, scriptsMentioning, text, withParams, type PageOffer, type PlatformOffers } from './offers-model.ts';

/** Its scripts come from /on/demandware.static/, or name the platform inline. */
const isSfccPage = (scripts: Element[]) =>
  scripts.some((script) => (attr(script, 'src') ?? '').includes('/demandware.static/')) || scriptsMentioning(scripts, 'demandware').length > 0;

/** The master product's id, from a dwvar_ parameter of a variation url: dwvar_<masterId>_<attributeId>. */
function masterOf(urls: string[], attributeIds: string[]): string | null {
  for (const url of urls) {
    for (const match of url.matchAll(/dwvar_([^=&?#]+)=/g)) {
      const name = match[1]!;
      const attribute = attributeIds.find((id) => name.endsWith(`_${id}`));
      if (attribute) return name.slice(0, -attribute.length - 1);
    }
  }
  return null;
}

function amountIn(elements: Element[], currency: string | null): number | null {
  for (const element of elements) {
    const found = structuredAmount(attr(element, 'content') ?? textOf(element).trim(), currency);
    if (found) return found.amount;
  }
  return null;
}

function read(document: Document, page: { currency: string | null; stated: PageOffer[] }): PageOffer[] {
  // The product block is looked for only on a Salesforce page: it is no form, and a query walks the whole page.
  if (!isSfccPage(markedElements(document).scripts)) return [];
  const product = queryOne(document, '.product-detail[data-pid]');
  if (!product) return [];
  const options: Record<string, string> = {};
  const urls: string[] = [];
  for (const attribute of queryAll(product, '[data-attr]')) {
    const id = attr(attribute, 'data-attr');
    if (!id) continue;
    for (const element of queryAll(attribute, '[data-url], option[value]')) urls.push(attr(element, 'data-url') ?? attr(element, 'value') ?? '');
    const selected = queryAll(attribute, '[data-attr-value].selected, option[data-attr-value][selected]')[0];
    const value = selected ? text(attr(selected, 'data-attr-value')) : null;
    if (value) options[id] = value;
  }
  const master = masterOf(urls, Object.keys(options));
  if (!master || Object.keys(options).length === 0) return [];
  const stated = page.stated.length === 1 ? page.stated[0]! : null;
  const currency = stated?.currency ?? page.currency;
  const price = stated?.price ?? amountIn(queryAll(product, '.prices .sales .value'), currency);
  if (price === null) return [];
  const available = queryAll(product, '.product-availability[data-available]')[0];
  const id = attr(product, 'data-pid');
  return [
    {
      source: stated ? stated.source : 'script-state',
      price,
      currency,
      availability: stated?.availability ?? (available ? (attr(available, 'data-available') === 'false' ? 'OutOfStock' : 'InStock') : null),
      regularPrice: stated?.regularPrice ?? higherThan(price, amountIn(queryAll(product, '.prices .strike-through.list .value'), currency)),
      variant: { id, sku: stated?.variant?.sku ?? id, gtin: stated?.variant?.gtin ?? null, options, url: null },
      selection: {
        platform: 'sfcc',
        params: Object.fromEntries(Object.entries(options).map(([attribute, value]) => [`dwvar_${master}_${attribute}`, value])),
        current: true,
      },
    },
  ];
}

export const sfccOffers: PlatformOffers = {
  platform: 'sfcc',
  shownOnly: true,
  read,
  pick(address, offers) {
    const wanted = [...address.searchParams].filter(([key]) => key.startsWith('dwvar_'));
    if (wanted.length === 0) return null;
    return offers.find((offer) => wanted.every(([key, value]) => offer.selection?.params[key] === value)) ?? null;
  },
  address(page, offer) {
    const params = offer.selection?.params;
    if (!params) return null;
    return withParams(page, Object.entries(params), (key) => key.startsWith('dwvar_'));
  },
};
