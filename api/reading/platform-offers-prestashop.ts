/**
 * PrestaShop's combinations.
 *
 * 1.7 and 8: the product page renders one combination, chosen from the `group[<groupId>]` or
 * `id_product_attribute` request parameter (also in the friendly path, `{id}-{id_product_attribute}-
 * {rewrite}.html`), else the default one (ProductController::getIdProductAttributeByGroupOrRequestOrDefault).
 * `#product-details[data-product]` holds it: `$product.embedded_attributes|json_encode`, whitelisted
 * by ProductLazyArray (id_product, id_product_attribute, price_amount, price_without_reduction,
 * quantity, availability "available"/"last_remaining_items"/"unavailable", attributes {groupId:
 * {id_attribute, id_attribute_group, name, group}}). Its other combinations are other addresses.
 *
 * 1.6: the page keeps every combination for product.js (`{addJsDef combinations=…}`, printed as
 * `var combinationsFromController = {idProductAttribute: {attributes_values, attributes, price (the
 * impact before tax), specific_price, quantity, reference}}`) with the base prices and tax rate that
 * updatePrice() adds them to. product.js selects a combination from the fragment,
 * `#/<id_attribute>-<group><anchor separator><value>/…` (checkUrl, built by getProductAttribute from
 * `attributesCombinations`); the server preselects `group_<groupId>=<id_attribute>` for selects.
 */
import { markedElements } from './marked-elements.ts';
import { attr, matcher, queryAll, type Document, type Element } from './page.ts';
import { asArray, isObject, type Availability, type JsonObject } from './structured-values.ts';
import {
  amountOf,
  codeOf,
  higherThan,
  objectAt,
  optionName,
  parseJson,
  platformElements,
  roundPrice,
  scriptsMentioning,
  assignedValue,
  text,
  type PageOffer,
  type PlatformOffers,
} from './offers-model.ts';

// 1.7 and 8 ---------------------------------------------------------------------------------------

const isProductDetails = matcher('#product-details[data-product]');

function stockOf(product: JsonObject): Availability | null {
  const quantity = typeof product.quantity === 'number' ? product.quantity : Number(product.quantity ?? Number.NaN);
  if (product.availability === 'unavailable') return 'OutOfStock';
  if (product.availability === 'available' || product.availability === 'last_remaining_items') return quantity <= 0 ? 'BackOrder' : 'InStock';
  return Number.isFinite(quantity) ? (quantity > 0 ? 'InStock' : 'OutOfStock') : null;
}

function renderedCombination(document: Document, currency: string | null): PageOffer[] {
  const [details] = platformElements(document, isProductDetails);
  const product = details ? parseJson(attr(details, 'data-product') ?? '') : null;
  if (!isObject(product)) return [];
  const idProductAttribute = text(product.id_product_attribute);
  const price = amountOf(product.price_amount);
  if (!idProductAttribute || idProductAttribute === '0' || price === null) return [];
  const options: Record<string, string> = {};
  const params: Record<string, string> = { id_product_attribute: idProductAttribute };
  if (text(product.id_product)) params.id_product = text(product.id_product)!;
  for (const value of Object.values(isObject(product.attributes) ? product.attributes : {}).filter(isObject)) {
    const group = text(value.group);
    if (group && text(value.name)) options[optionName(group)] = text(value.name)!;
    if (text(value.id_attribute_group) && text(value.id_attribute)) params[`group[${text(value.id_attribute_group)}]`] = text(value.id_attribute)!;
  }
  return [
    {
      source: 'script-state',
      price,
      currency,
      availability: stockOf(product),
      regularPrice: higherThan(price, amountOf(product.regular_price_amount) ?? amountOf(product.price_without_reduction)),
      variant: {
        id: idProductAttribute,
        sku: text(product.reference_to_display) ?? text(product.reference),
        gtin: text(product.ean13),
        options,
        url: null,
      },
      selection: { platform: 'prestashop', params, current: true },
    },
  ];
}

// 1.6 ---------------------------------------------------------------------------------------------

type Prices16 = {
  excluded: number;
  included: number;
  taxRate: number;
  withoutTax: boolean;
  ecotax: number;
  currencyRate: number;
  groupReduction: number;
};

const numberOr = (value: unknown, fallback: number) => amountOf(value) ?? (value === 0 ? 0 : fallback);

/** The shown and regular price of a combination, as product.js's updatePrice() computes them. */
function combinationPrice(combination: JsonObject, base: Prices16): { price: number; regular: number } {
  const tax = 1 + base.taxRate / 100;
  const impact = Number(combination.price) || 0;
  let withoutTax = base.excluded + impact + base.ecotax;
  let withTax = base.included + impact * tax + base.ecotax;
  const regular = base.withoutTax ? withoutTax : withTax;
  const special = isObject(combination.specific_price) ? combination.specific_price : null;
  const reduction = special ? Number(special.reduction) || 0 : 0;
  if (special && reduction > 0 && special.reduction_type === 'percentage') {
    withoutTax *= 1 - reduction;
    withTax *= 1 - reduction;
  } else if (special && reduction > 0 && special.reduction_tax === '0') {
    const amount = Number(special.id_currency) === 0 ? reduction * base.currencyRate * (1 - base.groupReduction) : reduction;
    withoutTax -= amount;
    withTax -= amount * tax;
  }
  let price = base.withoutTax ? withoutTax : withTax;
  // An amount given after tax is taken off the shown price.
  if (special && reduction > 0 && special.reduction_type === 'amount' && special.reduction_tax !== '0') price -= reduction * (1 - base.groupReduction);
  return { price: roundPrice(Math.max(price, 0)), regular: roundPrice(regular) };
}

/** The combination the page's attribute fields start on (each group's default), as ids of attributes. */
function startingAttributes(document: Document): Set<string> {
  const fields = queryAll(document, '#attributes select option[selected], #attributes input[type="radio"][checked], #attributes input.color_pick_hidden');
  return new Set(fields.map((field) => attr(field, 'value') ?? '').filter((value) => value && value !== '0'));
}

function allCombinations(document: Document, scripts: Element[], currency: string | null): PageOffer[] {
  const [source] = scriptsMentioning(scripts, 'combinationsFromController');
  if (!source) return [];
  const combinations = assignedValue(source, 'combinationsFromController') ?? assignedValue(source, 'combinations');
  const value = (name: string) => assignedValue(source, name);
  const excluded = amountOf(value('productPriceTaxExcluded'));
  if (!isObject(combinations) || excluded === null) return [];
  const taxRate = numberOr(value('taxRate'), 0);
  const ecotax = numberOr(value('default_eco_tax'), 0) * (1 + numberOr(value('ecotaxTax_rate'), 0) / 100);
  const base: Prices16 = {
    excluded,
    included: amountOf(value('productPriceTaxIncluded')) ?? excluded * (1 + taxRate / 100),
    taxRate,
    withoutTax: value('noTaxForThisProduct') === true || value('customerGroupWithoutTax') === true,
    ecotax,
    currencyRate: numberOr(value('currencyRate'), 1),
    groupReduction: numberOr(value('groupReduction') ?? value('group_reduction'), 0),
  };
  const backorders = value('allowBuyWhenOutOfStock') === true;
  // {id_attribute, id_attribute_group, group, attribute}: the names the fragment uses.
  const anchors = asArray(value('attributesCombinations')).filter(isObject);
  const separator = text(value('attribute_anchor_separator')) ?? '-';
  const starting = startingAttributes(document);
  const shown = amountOf(value('productPrice'));
  const offers = Object.entries(combinations).flatMap(([id, combination]): PageOffer[] => {
    if (!isObject(combination)) return [];
    const attributeIds = asArray(combination.attributes).map(String);
    const options: Record<string, string> = {};
    const params: Record<string, string> = { id_product_attribute: id };
    for (const [groupId, name] of Object.entries(isObject(combination.attributes_values) ? combination.attributes_values : {})) {
      const anchor = anchors.find((a) => text(a.id_attribute_group) === groupId && attributeIds.includes(text(a.id_attribute) ?? ''));
      if (text(name)) options[optionName(text(anchor?.group) ?? groupId)] = text(name)!;
      if (anchor) params[`group[${groupId}]`] = text(anchor.id_attribute)!;
    }
    const fragment = anchors
      .filter((a) => attributeIds.includes(text(a.id_attribute) ?? ''))
      .map((a) => `/${text(a.id_attribute)}-${text(a.group)}${separator}${text(a.attribute)}`)
      .join('');
    if (fragment) params.anchor = fragment;
    const { price, regular } = combinationPrice(combination, base);
    const quantity = Number(combination.quantity);
    const current = attributeIds.length > 0 && attributeIds.length === starting.size && attributeIds.every((a) => starting.has(a));
    return [
      {
        source: 'script-state',
        price,
        currency,
        availability: quantity > 0 ? 'InStock' : backorders ? 'BackOrder' : 'OutOfStock',
        regularPrice: higherThan(price, regular),
        variant: { id, sku: text(combination.reference), gtin: text(combination.ean13), options, url: null },
        // A combination computed to another price than the one the page shows is not taken for it.
        selection: { platform: 'prestashop', params, current: current && (shown === null || Math.abs(shown - price) < 0.011) },
      },
    ];
  });
  return offers;
}

/** The currency 1.7 gives its scripts (`var prestashop = {"currency": {"iso_code": …}}`), printed on every page. */
function scriptCurrency(scripts: Element[]): string | null {
  const [source] = scriptsMentioning(scripts, 'var prestashop');
  return source ? codeOf(objectAt(assignedValue(source, 'prestashop'), 'currency')?.iso_code) : null;
}

// Addresses ---------------------------------------------------------------------------------------

/** `/{id}-{id_product_attribute}-{rewrite}.html`: the friendly path names a combination too. */
const pathCombination = (address: URL, idProduct: string | undefined) =>
  idProduct ? new RegExp(`/${idProduct}-(\\d+)-[^/]*$`).exec(address.pathname)?.[1] : undefined;

function pick(address: URL, offers: readonly PageOffer[]): PageOffer | null {
  const params = (offer: PageOffer) => offer.selection?.params ?? {};
  const byId = (id: string | null | undefined) => (id ? (offers.find((offer) => params(offer).id_product_attribute === id) ?? null) : null);
  // The server reads group[…] before id_product_attribute; 1.6 preselects group_<id> fields.
  const groups = [...address.searchParams].flatMap(([key, value]) => {
    const group = /^group(?:\[(\d+)\]|_(\d+))$/.exec(key);
    return group ? [[`group[${group[1] ?? group[2]}]`, value] as const] : [];
  });
  if (groups.length > 0) {
    const found = offers.find((offer) => groups.every(([key, value]) => params(offer)[key] === value));
    if (found) return found;
  }
  const found = byId(address.searchParams.get('id_product_attribute')) ?? byId(pathCombination(address, params(offers[0]!).id_product));
  if (found) return found;
  // `#/1-size-s/8-color-white`: each step starts with an attribute's id.
  const steps = address.hash
    .replace(/^#\/?/, '')
    .split('/')
    .map((step) => /^(\d+)-/.exec(step)?.[1])
    .filter((id): id is string => !!id);
  if (steps.length === 0) return null;
  return offers.find((offer) => steps.every((id) => Object.entries(params(offer)).some(([key, value]) => key.startsWith('group[') && value === id))) ?? null;
}

function address(page: URL, offer: PageOffer): URL | null {
  const params = offer.selection?.params;
  if (!params?.id_product_attribute) return null;
  const next = new URL(page);
  for (const key of [...next.searchParams.keys()]) if (/^(?:group(?:\[\d+\]|_\d+)|id_product_attribute)$/.test(key)) next.searchParams.delete(key);
  // 1.6 selects by the fragment its script reads; 1.7 renders the combination its address names.
  if (params.anchor) {
    next.hash = `#${params.anchor}`;
    return next;
  }
  next.hash = '';
  const inPath = pathCombination(next, params.id_product);
  if (inPath)
    next.pathname = next.pathname.replace(new RegExp(`/${params.id_product}-${inPath}-([^/]*)$`), `/${params.id_product}-${params.id_product_attribute}-$1`);
  else next.searchParams.set('id_product_attribute', params.id_product_attribute);
  return next;
}

/** 1.6: every combination, from the page's script variables. */
export const prestaShop16Offers: PlatformOffers = {
  platform: 'prestashop',
  shownOnly: false,
  read: (document, page) => allCombinations(document, markedElements(document).scripts, page.currency),
  pick,
  address,
};

/** 1.7 and 8: the combination the page renders; the others are other addresses. */
export const prestaShop17Offers: PlatformOffers = {
  platform: 'prestashop',
  shownOnly: true,
  read(document, page) {
    const scripts = markedElements(document).scripts;
    // `var prestashop = {…}` is printed for its scripts on every page: no page without it is looked through.
    if (scriptsMentioning(scripts, 'var prestashop').length === 0) return [];
    return renderedCombination(document, page.currency ?? scriptCurrency(scripts));
  },
  pick,
  address,
};
