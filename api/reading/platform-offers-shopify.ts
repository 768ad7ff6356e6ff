/**
 * Shopify's variants. Themes embed the product JSON (`{{ product | json }}` in a ProductJson-* or
 * data-product-json script: prices in minor units, option1..3 named by `options`); the product
 * form's `name="id"` field holds the variant the page shows (Debut's `<select name="id">` with
 * `selected` on current_variant, Dawn's hidden input and `data-selected-variant` script of
 * selected_or_first_available_variant). `?variant=<id>` selects a variant.
 */
import { markedElements } from './marked-elements.ts';
import { attr, matcher, queryAll, textOf, type Document, type Element } from './page.ts';
import { asArray, isObject } from './structured-values.ts';
import { optionName, parseJson, platformElements, text, withParams, type PageOffer, type PlatformOffers } from './offers-model.ts';

const isVariantField = matcher('form[action*="/cart/add"] [name="id"]');

function productJson(scripts: Element[]): { product: Record<string, unknown>; selected: string | null } | null {
  let product: Record<string, unknown> | null = null;
  let selected: string | null = null;
  for (const script of scripts) {
    const id = attr(script, 'id') ?? '';
    if (!product && (id.startsWith('ProductJson') || attr(script, 'data-product-json') !== null)) {
      const value = parseJson(textOf(script));
      if (isObject(value) && Array.isArray(value.variants)) product = value;
    } else if (attr(script, 'data-selected-variant') !== null) {
      const value = parseJson(textOf(script));
      if (isObject(value)) selected = text(value.id);
    }
  }
  return product ? { product, selected } : null;
}

/** The variant id the product form submits: the one the page shows. */
function formVariant(document: Document): string | null {
  for (const field of platformElements(document, isVariantField)) {
    if (field.name === 'select') {
      const chosen = queryAll(field, 'option').find((option) => attr(option, 'selected') !== null);
      if (chosen) return attr(chosen, 'value');
    } else if (attr(field, 'value')) return attr(field, 'value');
  }
  return null;
}

function read(document: Document, page: { currency: string | null }): PageOffer[] {
  const found = productJson(markedElements(document).scripts);
  if (!found) return [];
  const { product } = found;
  const names = asArray(product.options).map((o) => (isObject(o) ? text(o.name) : text(o)));
  const offers = (product.variants as unknown[]).filter(isObject).flatMap((v): PageOffer[] => {
    if (typeof v.price !== 'number') return [];
    const options = Object.fromEntries(
      [v.option1, v.option2, v.option3].flatMap((value, i) => (text(value) && names[i] ? [[optionName(names[i]!), text(value)!]] : [])),
    );
    const price = v.price / 100;
    const compare = typeof v.compare_at_price === 'number' ? v.compare_at_price / 100 : null;
    const id = text(v.id);
    return [
      {
        source: 'script-state',
        price,
        currency: page.currency,
        availability: v.available === false ? 'OutOfStock' : v.available === true ? 'InStock' : null,
        regularPrice: compare !== null && compare > price ? compare : null,
        variant: { id, sku: text(v.sku), gtin: text(v.barcode), options, url: null },
        selection: { platform: 'shopify', params: id ? { variant: id } : {}, current: false },
      },
    ];
  });
  const selected = found.selected ?? (offers.length > 1 ? formVariant(document) : null);
  return offers.map((offer) => (selected && offer.variant?.id === selected ? { ...offer, selection: { ...offer.selection!, current: true } } : offer));
}

export const shopifyOffers: PlatformOffers = {
  platform: 'shopify',
  shownOnly: false,
  read,
  pick(address, offers) {
    const wanted = address.searchParams.get('variant');
    return (wanted && offers.find((o) => o.variant?.id === wanted || o.variant?.sku === wanted)) || null;
  },
  address(page, offer) {
    const id = offer.selection?.params.variant;
    if (!id) return null;
    return withParams(page, [['variant', id]], () => false);
  },
};
