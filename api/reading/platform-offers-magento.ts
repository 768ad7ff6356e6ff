/**
 * Magento 2's configurable products. The product page initialises its swatches or dropdowns from a
 * `text/x-magento-init` script: `"[data-role=swatch-options]": {"Magento_Swatches/js/swatch-renderer":
 * {"jsonConfig": …}}` or `"#product_addtocart_form": {"configurable": {"spConfig": …}}`, the JSON of
 * ConfigurableProduct's Block\Product\View\Type\Configurable::getJsonConfig():
 *   attributes {id: {id, code, label, options: [{id, label, products: [childId]}]}},
 *   optionPrices {childId: {oldPrice, basePrice, finalPrice: {amount}}}, index {childId: {attributeId: optionId}},
 *   salable {attributeId: {optionId: [childId]}} with canDisplayShowOutOfStockStatus (2.4),
 *   defaultValues {attributeId: optionId} for a preconfigured product, and in some shops a `sku` map.
 * swatch-renderer.js selects from the fragment, `#<attributeId>=<optionId>&…` (_getSelectedAttributes),
 * and from the query, `?<attributeCode>=<optionId>` (_EmulateSelected($.parseQuery())).
 */
import { markedElements } from './marked-elements.ts';
import { attr, textOf, type Document } from './page.ts';
import { asArray, isObject, type JsonObject } from './structured-values.ts';
import { amountOf, fragmentParams, higherThan, parseJson, sameText, text, withParams, type PageOffer, type PlatformOffers } from './offers-model.ts';

type Attribute = { id: string; code: string; options: { id: string; label: string; products: string[] }[] };

/** The configurable's JSON config among the page's magento-init scripts. */
function jsonConfig(document: Document): JsonObject | null {
  for (const script of markedElements(document).scripts) {
    if ((attr(script, 'type') ?? '').trim().toLowerCase() !== 'text/x-magento-init') continue;
    const source = textOf(script);
    if (!source.includes('jsonConfig') && !source.includes('spConfig')) continue;
    const init = parseJson(source);
    if (!isObject(init)) continue;
    for (const target of Object.values(init).filter(isObject)) {
      for (const component of Object.values(target).filter(isObject)) {
        const config = component.jsonConfig ?? component.spConfig;
        if (isObject(config) && isObject(config.attributes) && isObject(config.optionPrices)) return config;
      }
    }
  }
  return null;
}

function attributesOf(config: JsonObject): Attribute[] {
  return Object.values(config.attributes as JsonObject)
    .filter(isObject)
    .flatMap((a) => {
      const id = text(a.id);
      const code = text(a.code) ?? id;
      if (!id || !code) return [];
      const options = asArray(a.options)
        .filter(isObject)
        .flatMap((o) => (text(o.id) ? [{ id: text(o.id)!, label: text(o.label) ?? text(o.id)!, products: asArray(o.products).map(String) }] : []));
      return [{ id, code, options }];
    });
}

/**
 * Children listed as salable under every attribute: in Magento 2.4's `salable` map, else in the
 * options' product lists (which then hold only salable children).
 */
function salableChildren(config: JsonObject, attributes: Attribute[]): Set<string> {
  const salable = isObject(config.salable) ? Object.values(config.salable).filter(isObject) : [];
  const perAttribute = (salable.length > 0 ? salable.map((byOption) => Object.values(byOption)) : attributes.map((a) => a.options.map((o) => o.products))).map(
    (lists) => new Set(lists.flatMap((list) => asArray(list).map(String))),
  );
  const [first, ...rest] = perAttribute;
  return new Set([...(first ?? [])].filter((child) => rest.every((listed) => listed.has(child))));
}

function read(document: Document, page: { currency: string | null }): PageOffer[] {
  const config = jsonConfig(document);
  if (!config) return [];
  const attributes = attributesOf(config);
  const prices = config.optionPrices as JsonObject;
  const index = isObject(config.index) ? config.index : {};
  const children = Object.keys(index).length > 0 ? Object.keys(index) : Object.keys(prices);
  const salable = salableChildren(config, attributes);
  const skus = isObject(config.sku) ? config.sku : isObject(config.skus) ? config.skus : {};
  const defaults = isObject(config.defaultValues) ? config.defaultValues : {};
  return children.flatMap((child): PageOffer[] => {
    const price = isObject(prices[child]) ? prices[child] : {};
    const final = amountOf(isObject(price.finalPrice) ? price.finalPrice.amount : null);
    if (final === null) return [];
    const options: Record<string, string> = {};
    const params: Record<string, string> = {};
    let isDefault = attributes.length > 0;
    for (const attribute of attributes) {
      const chosen = text(isObject(index[child]) ? index[child][attribute.id] : null);
      const option = attribute.options.find((o) => (chosen ? o.id === chosen : o.products.includes(child)));
      if (!option) continue;
      options[attribute.code] = option.label;
      // The id is what the fragment carries; the code is what the query may carry instead.
      params[attribute.id] = option.id;
      params[attribute.code] = option.id;
      isDefault &&= text(defaults[attribute.id]) === option.id;
    }
    return [
      {
        source: 'script-state',
        price: final,
        currency: page.currency,
        availability: salable.has(child) ? 'InStock' : 'OutOfStock',
        regularPrice: higherThan(final, amountOf(isObject(price.oldPrice) ? price.oldPrice.amount : null)),
        variant: { id: child, sku: text(skus[child]), gtin: null, options, url: null },
        selection: { platform: 'magento', params, current: isDefault },
      },
    ];
  });
}

/** Whether the address names this option of the attribute: by the option's id, or by its label. */
const names = (offer: PageOffer, key: string, value: string) =>
  offer.selection!.params[key] === value || sameText(offer.variant?.options[key], value.replace(/\+/g, ' '));

export const magentoOffers: PlatformOffers = {
  platform: 'magento',
  shownOnly: false,
  read,
  pick(address, offers) {
    const known = new Set(offers.flatMap((offer) => Object.keys(offer.selection?.params ?? {})));
    // The renderer applies the query's selection, then the fragment's over it.
    const fromFragment = [...fragmentParams(address)].filter(([key]) => known.has(key));
    const wanted = fromFragment.length > 0 ? fromFragment : [...address.searchParams].filter(([key]) => known.has(key));
    if (wanted.length === 0) return null;
    return offers.find((offer) => offer.selection && wanted.every(([key, value]) => names(offer, key, value))) ?? null;
  },
  address(page, offer, offers) {
    const params = offer.selection?.params;
    if (!params) return null;
    const known = new Set(offers.flatMap((o) => Object.keys(o.selection?.params ?? {})));
    // The fragment says it all: the query's own selection would be read first and contradict it.
    const address = withParams(page, [], (key) => known.has(key));
    // Attribute ids are numbers, codes are words: the fragment carries the ids.
    const ids = Object.entries(params).filter(([key]) => /^\d+$/.test(key));
    address.hash = ids.map(([key, value]) => `${key}=${encodeURIComponent(value)}`).join('&');
    return address;
  },
};
