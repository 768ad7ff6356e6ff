/**
 * WooCommerce's variable products: the add-to-cart form's `data-product_variations` (prices in major
 * units, `attributes` keyed `attribute_pa_size` or `attribute_size`, "" for any value). The form's
 * selects (`wc_dropdown_variation_attribute_options`) mark `selected` the value the address's
 * `attribute_*` parameter names, else the product's default attribute: that variation is the one
 * the page shows. `?attribute_pa_size=xl` selects a variation.
 */
import { attr, matcher, queryAll, textOf, type Document, type Element } from './page.ts';
import { isObject } from './structured-values.ts';
import { parseJson, platformElements, text, withParams, type PageOffer, type PlatformOffers } from './offers-model.ts';

const isVariationsForm = matcher('form.variations_form[data-product_variations]');

const bareName = (key: string) => key.replace(/^attribute_(?:pa_)?/, '').toLowerCase();

/**
 * The values the form's selects start on (the address's or the product's defaults), and the words
 * they show for each value: a global attribute's value is a slug ("xl"), its option reads "XL".
 */
function selects(form: Element): { chosen: Map<string, string>; labels: Map<string, string> } {
  const chosen = new Map<string, string>();
  const labels = new Map<string, string>();
  for (const select of queryAll(form, 'select[name^="attribute_"]')) {
    const name = bareName(attr(select, 'name')!);
    for (const option of queryAll(select, 'option')) {
      const value = attr(option, 'value')?.toLowerCase();
      if (!value) continue;
      const label = textOf(option).trim();
      if (label) labels.set(`${name}=${value}`, label);
      if (attr(option, 'selected') !== null && !chosen.has(name)) chosen.set(name, value);
    }
  }
  return { chosen, labels };
}

/** Whether a variation's attributes ("" for any value) take these values, every one of them. */
function takes(params: Record<string, string>, values: [string, string][]): boolean {
  const own = new Map(Object.entries(params).map(([key, value]) => [bareName(key), value.toLowerCase()]));
  return values.every(([key, value]) => own.has(key) && (own.get(key) === '' || own.get(key) === value));
}

function read(document: Document, page: { currency: string | null }): PageOffer[] {
  for (const form of platformElements(document, isVariationsForm)) {
    const variations = parseJson(attr(form, 'data-product_variations') ?? '');
    if (!Array.isArray(variations)) continue;
    const { chosen: starting, labels } = selects(form);
    const chosen = [...starting];
    const offers = variations.filter(isObject).flatMap((v): PageOffer[] => {
      const price = typeof v.display_price === 'number' ? v.display_price : null;
      if (price === null) return [];
      const regular = typeof v.display_regular_price === 'number' && v.display_regular_price > price ? v.display_regular_price : null;
      const attributes = isObject(v.attributes) ? Object.entries(v.attributes).map(([key, value]) => [key, text(value) ?? ''] as const) : [];
      const params = Object.fromEntries(attributes);
      const options = Object.fromEntries(
        attributes.flatMap(([key, value]) => (value ? [[bareName(key), labels.get(`${bareName(key)}=${value.toLowerCase()}`) ?? value]] : [])),
      );
      return [
        {
          source: 'script-state',
          price,
          currency: page.currency,
          availability: v.is_in_stock === false ? 'OutOfStock' : v.is_in_stock === true ? 'InStock' : null,
          regularPrice: regular,
          variant: { id: text(v.variation_id), sku: text(v.sku), gtin: null, options, url: null },
          // The page starts on a variation only when every select starts on a value.
          selection: { platform: 'woocommerce', params, current: chosen.length === attributes.length && chosen.length > 0 && takes(params, chosen) },
        },
      ];
    });
    // Several variations may take the defaults (an "any" attribute): the page shows none of them for sure.
    const current = offers.filter((offer) => offer.selection?.current);
    return current.length > 1 ? offers.map((offer) => ({ ...offer, selection: { ...offer.selection!, current: false } })) : offers;
  }
  return [];
}

export const wooCommerceOffers: PlatformOffers = {
  platform: 'woocommerce',
  shownOnly: false,
  read,
  pick(address, offers) {
    const wanted = [...address.searchParams]
      .filter(([key]) => key.startsWith('attribute_'))
      .map(([key, value]) => [bareName(key), value.toLowerCase()] as [string, string]);
    if (wanted.length === 0) return null;
    return offers.find((offer) => offer.selection && takes(offer.selection.params, wanted)) ?? null;
  },
  address(page, offer) {
    const params = offer.selection?.params;
    if (!params) return null;
    // An "any" attribute takes whatever the address says: leaving it out still selects this variation.
    const named = Object.entries(params).filter(([, value]) => value);
    return withParams(page, named, (key) => key.startsWith('attribute_'));
  },
};
