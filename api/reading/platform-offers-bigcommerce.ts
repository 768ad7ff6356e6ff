/**
 * BigCommerce (Stencil). The page prints the state of the product as rendered, options at their
 * defaults, for its scripts: `var BCData = {"product_attributes": {"sku", "upc", "gtin", "base"
 * (true while no variant is chosen), "price": {"with_tax"|"without_tax": {"value", "currency"},
 * "non_sale_price_…", "rrp_…"}, "stock", "instock", "purchasable"}}`. The options are the cart
 * form's `attribute[<optionId>]` fields (cornerstone's components/products/options: radios
 * `checked`, select options `selected`); other choices are fetched by script, so the page states
 * only the variant it shows.
 */
import { markedElements } from './marked-elements.ts';
import { attr, matcher, parentOf, queryAll, textOf, type Document, type Element } from './page.ts';
import { isObject, type JsonObject } from './structured-values.ts';
import {
  amountOf,
  codeOf,
  higherThan,
  objectAt,
  optionName,
  platformElements,
  scriptValue,
  text,
  type PageOffer,
  type PlatformOffers,
} from './offers-model.ts';

const isOptionField = matcher('form[data-cart-item-add] [name^="attribute["]');

/** The option's name as its field's label writes it ("Size:", a required marker, a slot for the chosen value). */
function fieldName(field: Element): string | null {
  let node: Element | null = field;
  while (node && !(attr(node, 'class') ?? '').split(/\s+/).includes('form-field')) node = parentOf(node);
  const label = node ? queryAll(node, '.form-label')[0] : null;
  if (!label) return null;
  const own = queryAll(label, 'small, [data-option-value], .required').reduce((rest, inner) => rest.replace(textOf(inner), ''), textOf(label));
  const name = own.replace(/[*:]/g, '').trim();
  return name ? optionName(name) : null;
}

/** The options the cart form starts on: {name: label} and {attribute[id]: value id}. */
function chosenOptions(document: Document): { options: Record<string, string>; params: Record<string, string> } {
  const options: Record<string, string> = {};
  const params: Record<string, string> = {};
  const fields = platformElements(document, isOptionField).filter(
    (field) => field.name === 'select' || (field.name === 'input' && attr(field, 'checked') !== null),
  );
  for (const field of fields) {
    const name = attr(field, 'name')!;
    let value: string | null = null;
    let label: string | null = null;
    if (field.name === 'select') {
      const option = queryAll(field, 'option').find((o) => attr(o, 'selected') !== null && attr(o, 'value'));
      value = option ? attr(option, 'value') : null;
      label = option ? textOf(option).trim() : null;
    } else {
      value = attr(field, 'value');
      const id = attr(field, 'id');
      const labelled = id ? queryAll(document, `label[for="${id.replace(/["\\]/g, '')}"]`)[0] : undefined;
      label = labelled ? textOf(labelled).trim() : null;
    }
    if (!value) continue;
    params[name] = value;
    const option = fieldName(field);
    if (option && label) options[option] = label;
  }
  return { options, params };
}

const priceOf = (prices: JsonObject, kind: string) =>
  amountOf(objectAt(prices, `${kind}with_tax`)?.value) ?? amountOf(objectAt(prices, `${kind}without_tax`)?.value);

function read(document: Document, page: { currency: string | null }): PageOffer[] {
  const data = objectAt(scriptValue(markedElements(document).scripts, 'BCData'), 'product_attributes');
  // `base`: no variant chosen, the product's own price.
  if (data?.base !== false) return [];
  const prices = isObject(data.price) ? data.price : {};
  const price = priceOf(prices, '');
  if (price === null) return [];
  const { options, params } = chosenOptions(document);
  const inStock = data.instock === false || data.purchasable === false ? false : data.instock === true ? true : null;
  return [
    {
      source: 'script-state',
      price,
      currency: codeOf(objectAt(prices, 'with_tax')?.currency) ?? codeOf(objectAt(prices, 'without_tax')?.currency) ?? page.currency,
      availability: inStock === null ? null : inStock ? 'InStock' : 'OutOfStock',
      regularPrice: higherThan(price, priceOf(prices, 'non_sale_price_') ?? priceOf(prices, 'rrp_')),
      variant: { id: null, sku: text(data.sku), gtin: text(data.gtin) ?? text(data.upc), options, url: null },
      selection: { platform: 'bigcommerce', params, current: true },
    },
  ];
}

export const bigCommerceOffers: PlatformOffers = {
  platform: 'bigcommerce',
  shownOnly: true,
  read,
  pick(address, offers) {
    const wanted = [...address.searchParams].filter(([key]) => /^attribute\[\d+\]$/.test(key));
    if (wanted.length === 0) return null;
    return offers.find((offer) => wanted.every(([key, value]) => offer.selection?.params[key] === value)) ?? null;
  },
  // No address of its own selects a variant server-side: the page's own address is the one that shows its variant.
  address: (page, offer) => (offer.selection?.current ? new URL(page) : null),
};
