/**
 * What every reader of a page's offers shares: the offer and variant shapes, the platforms whose
 * own data names variants, and the small readers of that data (JSON a script assigns, amounts).
 */
import { attr, descendants, textOf, type Document, type Element } from './page.ts';
import { markedElements } from './marked-elements.ts';
import { jsonEnd } from './state-json.ts';
import { currencyCode, isObject, structuredAmount, type Availability, type JsonObject } from './structured-values.ts';

export type OfferVariant = {
  id: string | null;
  sku: string | null;
  /** As the page writes it (8 to 14 digits). */
  gtin: string | null;
  /** {size: "XL", colour: "Red"}: the options that tell this variant from the others. */
  options: Record<string, string>;
  /** The variant's own address, when it has one. */
  url: string | null;
};

/** Shop platforms whose own data names a page's variants, each selecting one by address its own way. */
export type Platform = 'shopify' | 'woocommerce' | 'magento' | 'prestashop' | 'sfcc' | 'bigcommerce' | 'shopware';

/**
 * How the platform that stated an offer selects it by address. `params` are the platform's names for
 * the variant, read by its own `pick` and `address` (platform-offers-*.ts): Shopify's `variant`,
 * WooCommerce's `attribute_*`, Magento's attribute ids and codes, PrestaShop's `id_product_attribute`,
 * Salesforce's `dwvar_*`, BigCommerce's `attribute[…]`, Shopware's option ids.
 */
export type OfferSelection = {
  platform: Platform;
  params: Record<string, string>;
  /** The page shows this variant when its address names none (its selected or default variant). */
  current: boolean;
};

export type PageOffer = {
  /** Where the page states it: JSON-LD, or data the page keeps for its scripts (a platform's variants). */
  source: 'json-ld' | 'script-state';
  price: number;
  currency: string | null;
  availability: Availability | null;
  /** The struck-through, compare-at or list price, when higher than `price`. */
  regularPrice: number | null;
  variant: OfferVariant | null;
  /** Present on offers a platform's own data states; JSON-LD alone leaves it out. */
  selection?: OfferSelection;
};

/** What a platform reader knows of the page beyond its own data. */
export type PageContext = {
  /** The currency the page states its prices in, when it says. */
  currency: string | null;
  /** The offers the page's JSON-LD states: single-variant readers take the price from there. */
  stated: PageOffer[];
};

export type PlatformOffers = {
  platform: Platform;
  /**
   * Whether the platform's data describes only the variant the page shows: its other variants are
   * other pages (PrestaShop 1.7, Salesforce, BigCommerce, Shopware), so one offer is all there is.
   */
  shownOnly: boolean;
  /** The offers the platform's data states on this page; none when the page is not the platform's. */
  read(document: Document, page: PageContext): PageOffer[];
  /** The offer the address names the platform's way; null when it names none of them. */
  pick(address: URL, offers: readonly PageOffer[]): PageOffer | null;
  /** The page's address changed to select this offer the platform's way; null when the platform has no such address. */
  address(page: URL, offer: PageOffer, offers: readonly PageOffer[]): URL | null;
};

// Values ---------------------------------------------------------------------------------------

export const text = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() ? value.trim() : typeof value === 'number' && Number.isFinite(value) ? String(value) : null;

export function parseJson(source: string): unknown {
  try {
    return JSON.parse(source);
  } catch {
    return null;
  }
}

/** A machine-written amount (a number, or "89.00"): what platforms keep for their scripts. */
export function amountOf(value: unknown): number | null {
  const found = typeof value === 'number' || typeof value === 'string' ? structuredAmount(value, null) : null;
  return found ? found.amount : null;
}

/** The regular price, when the platform states one higher than the price. */
export const higherThan = (price: number, regular: number | null): number | null => (regular !== null && regular > price + 0.0049 ? regular : null);

/** Rounded as prices are shown: computed prices (a base plus an impact, with tax) carry float noise. */
export const roundPrice = (amount: number): number => Math.round(amount * 100) / 100;

export const optionName = (name: string): string => name.trim().replace(/\s+/g, ' ').toLowerCase();

// Page elements ----------------------------------------------------------------------------------

/**
 * The elements platform readers start from, without a walk of the whole (600 KB) page: PrestaShop's
 * product details, and the add-to-cart forms of Shopify, WooCommerce, BigCommerce and Shopware with
 * what they hold. Found once per page.
 */
const isPlatformForm = (form: Element) =>
  (attr(form, 'action') ?? '').includes('/cart/add') ||
  ['data-product_variations', 'data-cart-item-add', 'data-variant-switch'].some((name) => attr(form, name) !== null);
const platformElementsCache = new WeakMap<Document, Element[]>();

/** The page's elements a reader starts from that match its test (compiled once: see page.ts's `matcher`). */
export function platformElements(document: Document, test: (element: Element) => boolean): Element[] {
  let found = platformElementsCache.get(document);
  if (!found) {
    const marked = markedElements(document);
    const forms = marked.forms.filter(isPlatformForm).slice(0, MAX_PLATFORM_FORMS);
    found = [...new Set([...marked.productData, ...forms.flatMap((form) => [form, ...descendants(form, MAX_FORM_ELEMENTS)])])];
    platformElementsCache.set(document, found);
  }
  return found.filter(test);
}
/** A product page has an add-to-cart form or two (a sticky bar), each of a few dozen fields. */
const MAX_PLATFORM_FORMS = 10;
const MAX_FORM_ELEMENTS = 5_000;

// Scripts ----------------------------------------------------------------------------------------

const scriptTexts = new WeakMap<Element, string>();

/** A script's text, read once: several readers look through every script of a page. */
function scriptText(script: Element): string {
  let source = scriptTexts.get(script);
  if (source === undefined) scriptTexts.set(script, (source = textOf(script)));
  return source;
}

/**
 * The JSON value a script assigns to a variable (`var combinations = {...};`, `window.BCData = ...`):
 * an object or array literal, or a scalar up to the statement's end. Only JSON is read, never run.
 */
export function assignedValue(source: string, name: string): unknown {
  const pattern = new RegExp(`(?:\\bvar\\s+|\\bwindow\\.|\\blet\\s+|\\bconst\\s+)${name}\\s*=\\s*`, 'g');
  for (const match of source.matchAll(pattern)) {
    const start = match.index + match[0].length;
    const first = source.charCodeAt(start);
    if (first === 123 || first === 91) {
      const end = jsonEnd(source, start);
      if (end > 0) return parseJson(source.slice(start, end));
      continue;
    }
    const statement = /^[^;\n]*/.exec(source.slice(start, start + 200))![0].trim();
    const value = parseJson(statement.replace(/^'(.*)'$/, (_, inner: string) => JSON.stringify(inner)));
    if (value !== null) return value;
  }
  return undefined;
}

/** The inline scripts whose text mentions `marker`, with their text. */
export function scriptsMentioning(scripts: Element[], marker: string): string[] {
  const found: string[] = [];
  for (const script of scripts) {
    if (attr(script, 'src') !== null) continue;
    const source = scriptText(script);
    if (source.includes(marker)) found.push(source);
  }
  return found;
}

/** The first assignment of `name` in scripts mentioning it. */
export function scriptValue(scripts: Element[], name: string): unknown {
  for (const source of scriptsMentioning(scripts, name)) {
    const value = assignedValue(source, name);
    if (value !== undefined) return value;
  }
  return undefined;
}

export const objectAt = (value: unknown, ...path: string[]): JsonObject | null => {
  let node = value;
  for (const key of path) node = isObject(node) ? node[key] : undefined;
  return isObject(node) ? node : null;
};

export const codeOf = (value: unknown): string | null => currencyCode(value);

// Addresses --------------------------------------------------------------------------------------

/** The fragment's `key=value&…` pairs (Magento's swatch selection), or none. */
export function fragmentParams(address: URL): URLSearchParams {
  return new URLSearchParams(address.hash.replace(/^#/, ''));
}

/**
 * The address with the parameters of a selection replaced: those already there keep their place,
 * the others named `replaced` go, the rest are added.
 */
export function withParams(page: URL, params: [string, string][], replaced: (key: string) => boolean): URL {
  const address = new URL(page);
  const wanted = new Map(params);
  for (const key of [...new Set(address.searchParams.keys())]) if (replaced(key) && !wanted.has(key)) address.searchParams.delete(key);
  for (const [key, value] of wanted) address.searchParams.set(key, value);
  return address;
}

export const sameText = (a: string | null | undefined, b: string | null | undefined): boolean =>
  a !== null && a !== undefined && b !== null && b !== undefined && a.trim().toLowerCase() === b.trim().toLowerCase();
