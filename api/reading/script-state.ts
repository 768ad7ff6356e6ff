/**
 * The page's product in the state its scripts leave for their own code.
 *
 * Pages leave their data for their own code in scripts: Next.js (__NEXT_DATA__), Nuxt, Redux and
 * Apollo stores (window.__X__ = {...}), Shopify's product JSON. Only what is JSON is read, never
 * run. The page's product is the object whose name shares the words of the page's h1 and title
 * and that has a selling price; when several such objects disagree, nothing is read.
 */
import { textOf, wordsOf, type AnyNode, type Document, type Element } from './page.ts';
import { markedElements, type MarkedElements } from './marked-elements.ts';
import { declaredCurrencyOf } from './meta-tags.ts';
import { parseStateBlocks, stateBlocks } from './state-json.ts';
import {
  asArray,
  availabilityOf,
  currencyCode,
  isObject,
  structuredAmount,
  type Availability,
  type JsonObject,
  type OfferPrice,
  type StructuredPrice,
} from './structured-values.ts';

/** JSON values walked per page at most. */
const MAX_STATE_NODES = 150_000;
/** A product whose name matches the title this much less than the best one still counts against it. */
const NAME_MARGIN = 0.25;

/** The words naming the page's product: its h1s, <title> and og:title. */
function titleWordsOf(marked: MarkedElements): Set<string> {
  const texts = [...marked.h1s.map(textOf), marked.title ? textOf(marked.title) : '', marked.meta.get('og:title') ?? ''];
  return wordsOf(texts.join(' '));
}

/** `wholeNumber`: an integer outside Shopify's convention, which may be units or minor units (cents). */
type StatePrice = OfferPrice & { wholeNumber?: boolean };
/** `inUrl`: the object's id (or the key it is kept under) is in the page's address. */
type StateCandidate = { score: number; price: StatePrice; availability: Availability | null; inUrl: boolean };
type StateProduct = { price: OfferPrice; availability: Availability | null };

const NAME_KEYS = ['name', 'title', 'productName', 'product_name', 'displayName'];
/** Selling prices first; list, regular, original, was, compare-at and MSRP keys are never read. */
const PRICE_KEYS = [
  'salePrice',
  'sale_price',
  'currentPrice',
  'current_price',
  'finalPrice',
  'final_price',
  'sellingPrice',
  'selling_price',
  'specialPrice',
  'special_price',
  'offerPrice',
  'offer_price',
  'discountedPrice',
  'discounted_price',
  'priceValue',
  'price_value',
  'price',
  'prices',
  'pricing',
  'priceInfo',
  'price_min',
  'minPrice',
  'lowPrice',
  'priceRange',
];
/** Inside a price object ({ "current": {...}, "was": {...} }), selling first. */
const INNER_PRICE_KEYS = [
  'sale',
  'salePrice',
  'current',
  'currentPrice',
  'final',
  'finalPrice',
  'selling',
  'sellingPrice',
  'special',
  'specialPrice',
  'offer',
  'offerPrice',
  'amount',
  'value',
  'price',
  'min',
  'minPrice',
  'lowPrice',
  'minVariantPrice',
];
const CURRENCY_KEYS = ['currency', 'currencyCode', 'priceCurrency', 'currency_code', 'currencyIso', 'currencyIsoCode'];
/** Keys holding a product's own variants, not other products. */
const VARIANT_KEYS = new Set(['variants', 'variations', 'skus', 'options', 'offers']);

function currencyOfObject(object: JsonObject): string | null {
  for (const key of CURRENCY_KEYS) {
    const code = currencyCode(object[key]);
    if (code) return code;
  }
  return null;
}

function isShopifyShaped(object: JsonObject): boolean {
  return Array.isArray(object.variants) && ('price_min' in object || 'price_max' in object || 'compare_at_price_max' in object);
}

/** A price value: a number or text, or a price object with a selling amount inside. */
function stateAmount(value: unknown, currency: string | null, cents: boolean, refs: JsonObject | null, depth = 0): StatePrice | null {
  value = resolveRef(value, refs);
  if (typeof value === 'number' && cents && Number.isInteger(value)) {
    return value > 0 ? { amount: value / 100, currency, raw: (value / 100).toFixed(2), url: null } : null;
  }
  if (typeof value === 'number' || typeof value === 'string') {
    const found = structuredAmount(value, currency);
    const wholeNumber = typeof value === 'number' ? Number.isInteger(value) : /^\d+$/.test(value.trim());
    return found ? { ...found, url: null, wholeNumber } : null;
  }
  if (!isObject(value) || depth >= 2) return null;
  const inner = currencyOfObject(value) ?? currency;
  // commercetools-style money: { centAmount: 2499, fractionDigits: 2 }.
  if (typeof value.centAmount === 'number') {
    const digits = typeof value.fractionDigits === 'number' ? value.fractionDigits : 2;
    const amount = value.centAmount / 10 ** digits;
    return amount > 0 ? { amount, currency: inner, raw: amount.toFixed(digits), url: null } : null;
  }
  for (const key of INNER_PRICE_KEYS) {
    if (value[key] === undefined || value[key] === null) continue;
    // A bare "value" is a price only where the object says its currency (or holds a money object).
    if (key === 'value' && !currencyOfObject(value) && !isObject(value.value)) continue;
    const found = stateAmount(value[key], inner, cents, refs, depth + 1);
    if (found) return found;
  }
  return null;
}

/** Apollo's normalised cache names objects by reference: { "__ref": "Price:1" }. */
function resolveRef(value: unknown, refs: JsonObject | null): unknown {
  return refs && isObject(value) && typeof value.__ref === 'string' && isObject(refs[value.__ref]) ? refs[value.__ref] : value;
}

function variantNamedBy(object: JsonObject, url: string | undefined): JsonObject | null {
  if (!url || !Array.isArray(object.variants)) return null;
  let id: string | null = null;
  try {
    id = new URL(url).searchParams.get('variant');
  } catch {
    return null;
  }
  return (id && object.variants.find((variant): variant is JsonObject => isObject(variant) && String(variant.id) === id)) || null;
}

/** The selling price of a product object: its own keys, else its offers, else its cheapest variant. */
function productPrice(object: JsonObject, cents: boolean, refs: JsonObject | null, url: string | undefined): StatePrice | null {
  const currency = currencyOfObject(object);
  const variant = variantNamedBy(object, url);
  const own = (target: JsonObject, targetCurrency: string | null) => {
    for (const key of PRICE_KEYS) {
      if (target[key] === undefined || target[key] === null) continue;
      const found = stateAmount(target[key], targetCurrency, cents, refs);
      if (found) return found;
    }
    return null;
  };
  const fromVariant = variant && own(variant, currencyOfObject(variant) ?? currency);
  if (fromVariant) return fromVariant;
  const direct = own(object, currency);
  if (direct) return direct;
  for (const key of ['offers', 'variants']) {
    const prices = asArray(object[key])
      .map((item) => resolveRef(item, refs))
      .filter(isObject)
      .flatMap((item) => own(item, currencyOfObject(item) ?? currency) ?? []);
    if (prices.length > 0) return prices.reduce((a, b) => (b.amount < a.amount ? b : a));
  }
  return null;
}

const IN_STOCK_KEYS = ['inStock', 'isInStock', 'in_stock', 'available', 'isAvailable', 'is_available'];
const SOLD_OUT_KEYS = ['soldOut', 'sold_out', 'isSoldOut', 'outOfStock', 'isOutOfStock', 'out_of_stock'];
const AVAILABILITY_KEYS = ['availability', 'availabilityStatus', 'stockStatus', 'stock_status', 'inventoryStatus', 'stockState', 'stockLevelStatus'];

function ownAvailability(object: JsonObject): Availability | null {
  for (const key of AVAILABILITY_KEYS) {
    const value = object[key];
    const state = availabilityOf(isObject(value) ? (value.status ?? value.value ?? value.type) : value);
    if (state) return state;
  }
  for (const key of IN_STOCK_KEYS) if (typeof object[key] === 'boolean') return object[key] ? 'InStock' : 'OutOfStock';
  for (const key of SOLD_OUT_KEYS) if (typeof object[key] === 'boolean') return object[key] ? 'OutOfStock' : 'InStock';
  return null;
}

function productAvailability(object: JsonObject, url: string | undefined): Availability | null {
  const variant = variantNamedBy(object, url);
  const named = variant && ownAvailability(variant);
  if (named) return named;
  const own = ownAvailability(object);
  if (own) return own;
  // Variants only: the product can be bought if any of them can.
  const states = asArray(object.variants)
    .filter(isObject)
    .map(ownAvailability)
    .filter((state) => state !== null);
  return states.length > 0 ? (states.find((state) => state !== 'OutOfStock') ?? 'OutOfStock') : null;
}

function nameOf(object: JsonObject): string | null {
  for (const key of NAME_KEYS) {
    const value = object[key];
    if (typeof value === 'string' && value.length >= 2 && value.length <= 300) return value;
  }
  // Shopify's analytics meta names only the variants: "Kettle - Black".
  if (Array.isArray(object.variants) && isObject(object.variants[0])) {
    const variant = object.variants[0];
    if (typeof variant.name === 'string') {
      const suffix = typeof variant.public_title === 'string' && variant.public_title ? ` - ${variant.public_title}` : '';
      return suffix && variant.name.endsWith(suffix) ? variant.name.slice(0, -suffix.length) : variant.name;
    }
  }
  return null;
}

/** How much of an object's name the page's title words cover; 0 when too little to count. */
function nameScore(name: string, titleWords: Set<string>): number {
  const words = wordsOf(name);
  if (words.size === 0) return 0;
  let shared = 0;
  for (const word of words) if (titleWords.has(word)) shared++;
  const score = shared / words.size;
  return shared >= Math.min(2, words.size) && score >= 0.5 ? score : 0;
}

const ID_KEYS = ['id', 'sku', 'productId', 'product_id', 'itemId', 'item_id', 'code', 'productCode', 'slug', 'handle', 'articleNumber'];
/** Unnamed product objects looked at, at most: one alone is the page's product, more say nothing. */
const MAX_UNNAMED = 2;

/** The address's path segments and query values that may be a product's id ("8841", "sku-4471"), lower-cased. */
function urlTokens(url: string | undefined): Set<string> {
  const tokens = new Set<string>();
  if (!url) return tokens;
  try {
    const { pathname, searchParams } = new URL(url);
    const parts = [...pathname.split('/'), ...searchParams.values()].map((part) => decodeURIComponent(part).replace(/\.html?$/, ''));
    for (const part of parts) {
      // "8841-trail-runner": the number in a slug too. As written and lower-cased: ids are compared as they are.
      for (const token of [part, ...part.split(/[-_.,]/).filter((piece) => /\d/.test(piece))]) {
        if (token.length < 3) continue;
        tokens.add(token);
        tokens.add(token.toLowerCase());
      }
    }
  } catch {}
  return tokens;
}

function idInUrl(object: JsonObject, key: string | null, tokens: Set<string>): boolean {
  if (tokens.size === 0) return false;
  if (key && tokens.has(key)) return true;
  for (const idKey of ID_KEYS) {
    const id = object[idKey];
    if ((typeof id === 'string' || typeof id === 'number') && tokens.has(String(id))) return true;
  }
  return false;
}

/**
 * Product objects in the state: named like the page's h1 and title, or kept under (or with) the id
 * the address names. Objects with a name and a price that match neither are kept apart: where the
 * state holds exactly one, it is the page's product.
 */
function stateCandidates(
  roots: { value: unknown; cents: boolean }[],
  titleWords: Set<string>,
  url: string | undefined,
): { candidates: StateCandidate[]; unnamed: StateCandidate[] } {
  const found: StateCandidate[] = [];
  const unnamed: StateCandidate[] = [];
  const tokens = urlTokens(url);
  let budget = MAX_STATE_NODES;
  for (const root of roots) {
    const stack: [unknown, boolean, JsonObject | null, string | null][] = [[root.value, root.cents, null, null]];
    while (stack.length > 0 && budget-- > 0) {
      const [value, inCents, inheritedRefs, parentKey] = stack.pop()!;
      if (Array.isArray(value)) {
        for (let i = value.length - 1; i >= 0; i--) if (typeof value[i] === 'object' && value[i] !== null) stack.push([value[i], inCents, inheritedRefs, null]);
        continue;
      }
      const object = value as JsonObject;
      const refs = 'ROOT_QUERY' in object ? object : inheritedRefs;
      const cents = inCents || isShopifyShaped(object);
      const name = nameOf(object);
      const score = name ? nameScore(name, titleWords) : 0;
      const inUrl = idInUrl(object, parentKey, tokens);
      const looked = score > 0 || inUrl || (name !== null && unnamed.length <= MAX_UNNAMED && PRICE_KEYS.some((key) => key in object));
      const price = looked ? productPrice(object, cents, refs, url) : null;
      if (price) (score > 0 || inUrl ? found : unnamed).push({ score, price, availability: productAvailability(object, url), inUrl });
      for (const key in object) {
        if (price && VARIANT_KEYS.has(key)) continue;
        const child = object[key];
        if (typeof child === 'object' && child !== null) stack.push([child, cents, refs, key]);
      }
    }
  }
  return { candidates: found, unnamed };
}

/** The one product the page's state describes, or null where candidates disagree on its price. */
function pickStateProduct({
  candidates: named,
  unnamed,
}: {
  candidates: StateCandidate[];
  unnamed: StateCandidate[];
}): (StateProduct & { price: StatePrice }) | null {
  // The address's id outweighs names (variants share theirs); a lone priced product stands in for none.
  const inUrl = named.filter((candidate) => candidate.inUrl);
  const candidates = inUrl.length > 0 ? inUrl : named.length > 0 ? named : unnamed.length === 1 ? unnamed : [];
  if (candidates.length === 0) return null;
  const best = Math.max(...candidates.map((candidate) => candidate.score));
  const contenders = candidates.filter((candidate) => candidate.score > best - NAME_MARGIN);
  const first = contenders.find((candidate) => candidate.score === best)!;
  if (contenders.some((candidate) => Math.abs(candidate.price.amount - first.price.amount) >= 0.005)) return null;
  const currency = first.price.currency ?? contenders.find((candidate) => candidate.price.currency)?.price.currency ?? null;
  const states = new Set(contenders.map((candidate) => candidate.availability).filter((state) => state !== null));
  return { price: { ...first.price, currency }, availability: states.size === 1 ? [...states][0]! : null };
}

function readStateProduct(document: Document, scripts: Element[], url: string | undefined): StateProduct | null {
  const marked = markedElements(document);
  const blocks = stateBlocks(scripts);
  if (blocks.length === 0) return null;
  const titleWords = titleWordsOf(marked);
  if (titleWords.size === 0) return null;
  const product = pickStateProduct(stateCandidates(parseStateBlocks(blocks), titleWords, url));
  if (!product) return null;
  const { wholeNumber, ...price } = product.price;
  if (wholeNumber) {
    const unit = wholeNumberUnit(document, price.amount);
    if (!unit) return null;
    if (unit === 'cents') Object.assign(price, { amount: price.amount / 100, raw: (price.amount / 100).toFixed(2) });
  }
  price.currency ??= declaredCurrencyOf(marked);
  return { price, availability: product.availability };
}

/**
 * Many stores keep prices in minor units (Spryker, commercetools, Redux stores: "price": 1950 for
 * 19.50), others in units ("price": 99 for 99 SAR), and the JSON does not say which. The page's
 * own text does: it shows "19.50" or "1950". Where it shows neither or both, nothing is read.
 */
function wholeNumberUnit(document: Document, amount: number): 'units' | 'cents' | null {
  // Both forms end in the same two digits ("1950", "1'950", "19.50"): only texts holding them are searched.
  const lastDigits = String(amount).slice(-2);
  const texts = shownTexts(document).filter((text) => text.includes(lastDigits));
  const grouped = (whole: number) => String(whole).replace(/\B(?=(\d{3})+$)/g, "[.,'\\s\u00a0\u202f]?");
  const units = new RegExp(`(?<![\\d.,])${grouped(amount)}(?:[.,](?:00|-|–))?(?![\\d]|[.,]\\d)`);
  const cents = amount >= 100 ? new RegExp(`(?<![\\d.,])${grouped(Math.floor(amount / 100))}[.,]${lastDigits}(?!\\d)`) : null;
  const asUnits = texts.some((text) => units.test(text));
  const asCents = !!cents && texts.some((text) => cents.test(text));
  return asUnits === asCents ? null : asUnits ? 'units' : 'cents';
}

const shownTextCache = new WeakMap<Document, string[]>();

/** The page's text nodes outside scripts and styles, once per page. */
function shownTexts(document: Document): string[] {
  const cached = shownTextCache.get(document);
  if (cached) return cached;
  const texts: string[] = [];
  const stack: AnyNode[] = [...document.children];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type === 'text') {
      if (/\d/.test(node.data)) texts.push(node.data);
    } else if (node.type === 'tag' && !/^(?:template|noscript|svg|head)$/.test((node as Element).name)) {
      const children = (node as Element).children;
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
    }
  }
  shownTextCache.set(document, texts);
  return texts;
}

const stateCache = new WeakMap<Document, Map<string, StateProduct | null>>();

/** The page's product in its script state, read once per page and address. */
export function stateProduct(document: Document, url: string | undefined): StateProduct | null {
  let byUrl = stateCache.get(document);
  if (!byUrl) stateCache.set(document, (byUrl = new Map()));
  const key = url ?? '';
  if (!byUrl.has(key)) byUrl.set(key, readStateProduct(document, markedElements(document).scripts, url));
  return byUrl.get(key)!;
}

/**
 * The price of the page's product in its script state: all of the page's scripts, or only
 * `scripts` (the ones a selector names).
 */
export function scriptStatePrices(document: Document, url: string | undefined, scripts?: Element[]): StructuredPrice[] {
  const product = scripts ? readStateProduct(document, scripts, url) : stateProduct(document, url);
  if (!product) return [];
  const { amount, currency, raw } = product.price;
  return [{ source: 'script-state', amount, currency, raw }];
}
