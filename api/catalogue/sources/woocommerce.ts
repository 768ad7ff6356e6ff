// A WooCommerce store's catalogue from its public Store API (/wp-json/wc/store/v1/products).
// Prices there are integer strings in the currency's minor unit ("1299" with minor unit 2 is
// 12.99). A variable product is not an item itself: each of its variations is, and they are read
// from the one paged listing of all variations (`type=variation`), not one request per product.

import { DomUtils, parseDocument } from 'htmlparser2';
import { z } from 'zod';
import type { Availability } from './item.ts';
import {
  currencyCode,
  fetchSourceDocument,
  ItemCollector,
  jsonOf,
  MAX_SOURCE_ITEMS,
  type SourceFailure,
  sourceAddress,
  sourceFailures,
  type SourceRead,
} from './item.ts';
import type { SourceDeps } from './item.ts';

/** The most products the Store API lists on one page. */
export const WOO_PAGE_SIZE = 100;
const MAX_PAGES = Math.ceil(MAX_SOURCE_ITEMS / WOO_PAGE_SIZE) + 1;
const PAGE_BYTES = 8 * 1024 * 1024;
const PLATFORM = 'a WooCommerce store';
const API_ROUTE = '/wc/store/v1/products';

const text = z.string().nullish().catch(null);
const flag = z.boolean().nullish().catch(null);
const amount = z.union([z.string(), z.number()]).nullish().catch(null);
const Named = z.object({ name: z.string() });
const Prices = z.object({
  price: amount,
  regular_price: amount,
  currency_code: text,
  currency_minor_unit: z.number().int().min(0).max(8).nullish().catch(null),
});
const Attribute = z.object({ name: z.string(), terms: z.array(z.object({ name: z.string(), slug: z.string().nullish() })).nullish() });
const VariationRef = z.object({ id: z.number(), attributes: z.array(z.object({ name: z.string(), value: z.string().nullish() })).nullish() });
const Product = z.object({
  id: z.number(),
  name: text,
  parent: z.number().nullish().catch(null),
  type: text,
  variation: text,
  permalink: text,
  sku: text,
  prices: Prices.nullish().catch(null),
  images: z
    .array(z.object({ src: z.string() }))
    .nullish()
    .catch(null),
  brands: z.array(Named).nullish().catch(null),
  attributes: z.array(Attribute).nullish().catch(null),
  variations: z.array(VariationRef).nullish().catch(null),
  is_in_stock: flag,
  is_on_backorder: flag,
  stock_availability: z.object({ class: text }).nullish().catch(null),
});
type Product = z.infer<typeof Product>;

type Page = { entries: unknown[]; total: number | null; totalPages: number | null };
type Endpoint = (query: string) => string;

export async function readWooCommerce(storeUrl: string, deps: SourceDeps): Promise<SourceRead> {
  const address = sourceAddress(storeUrl);
  if (!('href' in address)) return address;
  const found = await findStoreApi(address, deps);
  if ('ok' in found) return found;
  const collector = new ItemCollector();

  const products = await listAll(found.endpoint, '', found.first, deps, collector);
  if (!Array.isArray(products)) return products;
  const parents = new Map(products.filter((product) => product.type === 'variable').map((product) => [product.id, product]));
  const variations = new Map<number, Product[]>();
  if (parents.size > 0) {
    const items = products.length - parents.size;
    const listed = await listAll(found.endpoint, 'type=variation&', null, deps, collector, items);
    if (!Array.isArray(listed)) return listed;
    for (const variation of listed) {
      // Variations of a product the store does not show (hidden, draft) are left out with it.
      const parent = variation.parent ? parents.get(variation.parent) : undefined;
      if (!parent) continue;
      const siblings = variations.get(parent.id);
      if (siblings) siblings.push(variation);
      else variations.set(parent.id, [variation]);
    }
  }

  for (const product of products) {
    if (product.type === 'grouped') continue; // its products are listed by themselves
    if (product.type !== 'variable') {
      addItem(collector, product, null, deps);
      continue;
    }
    const listed = variations.get(product.id) ?? [];
    for (const variation of listed) addItem(collector, variation, product, deps);
    const listedIds = new Set(listed.map((variation) => variation.id));
    const missing = (product.variations ?? []).filter((ref) => !listedIds.has(ref.id));
    for (const ref of missing) collector.skip(ref.id, `The store did not list this variation of “${htmlText(product.name) ?? product.id}”.`);
    if (listed.length === 0 && missing.length === 0) collector.skip(product.id, 'It is a variable product without any variation for sale.');
    if (collector.overLimit) return sourceFailures.tooManyItems();
  }
  return collector.result();
}

/**
 * The Store API's first page. WordPress may live below the address given (https://shop.com/blog)
 * or at its root (an owner pasting https://shop.com/shop/), and sites without pretty permalinks
 * answer only at ?rest_route=: each is tried in turn while the answer is "not here".
 */
async function findStoreApi(address: URL, deps: SourceDeps): Promise<{ endpoint: Endpoint; first: Page } | SourceFailure> {
  const path = address.pathname.replace(/\/+$/, '');
  const roots = path ? [`${address.origin}${path}`, address.origin] : [address.origin];
  const endpoints: Endpoint[] = [
    ...roots.map((root) => (query: string) => `${root}/wp-json${API_ROUTE}?${query}`),
    ...roots.map((root) => (query: string) => `${root}/?rest_route=${API_ROUTE}&${query}`),
  ];
  let firstFailure: SourceFailure | null = null;
  for (const endpoint of endpoints) {
    const first = await listingPage(endpoint, '', 1, deps);
    if (!('ok' in first)) return { endpoint, first };
    const notHere = first.code === 'not-a-catalogue' || first.httpStatus === 404;
    if (!notHere) return first;
    firstFailure ??= first;
  }
  if (firstFailure?.code === 'not-a-catalogue') return firstFailure;
  return sourceFailures.notACatalogue(
    address.origin,
    PLATFORM,
    `it has no WooCommerce Store API at /wp-json${API_ROUTE} (HTTP ${firstFailure?.httpStatus ?? 404}). ${CHECK_ADDRESS}`,
    firstFailure?.httpStatus ?? null,
  );
}

const CHECK_ADDRESS = "Check that this is the shop's own address and that WooCommerce is active and up to date.";

/** Every entry of one listing, page after page, as far as X-WP-TotalPages says. */
async function listAll(
  endpoint: Endpoint,
  filter: string,
  first: Page | null,
  deps: SourceDeps,
  collector: ItemCollector,
  before = 0,
): Promise<Product[] | SourceFailure> {
  const entries: Product[] = [];
  let page = first ?? (await listingPage(endpoint, filter, 1, deps));
  for (let number = 1; ; number++) {
    if ('ok' in page) return page;
    if (page.total !== null && before + page.total > MAX_SOURCE_ITEMS) return sourceFailures.tooManyItems();
    for (const [index, raw] of page.entries.entries()) {
      const parsed = Product.safeParse(raw);
      if (parsed.success) entries.push(parsed.data);
      else collector.skip(rawId(raw) ?? `entry ${(number - 1) * WOO_PAGE_SIZE + index + 1}`, 'The store lists it without an id.');
    }
    if (before + entries.length + collector.count > MAX_SOURCE_ITEMS) return sourceFailures.tooManyItems();
    const last = page.totalPages !== null ? number >= page.totalPages : page.entries.length < WOO_PAGE_SIZE;
    if (last || page.entries.length === 0) return entries;
    if (number >= MAX_PAGES) return sourceFailures.tooManyItems();
    page = await listingPage(endpoint, filter, number + 1, deps);
  }
}

async function listingPage(endpoint: Endpoint, filter: string, page: number, deps: SourceDeps): Promise<Page | SourceFailure> {
  const url = endpoint(`${filter}per_page=${WOO_PAGE_SIZE}&page=${page}`);
  const doc = await fetchSourceDocument(url, deps, PAGE_BYTES);
  if ('ok' in doc) return doc;
  const origin = new URL(url).origin;
  const json = jsonOf(doc);
  if (!json.ok) return sourceFailures.notACatalogue(origin, PLATFORM, `${json.detail} ${CHECK_ADDRESS}`, doc.status);
  if (!Array.isArray(json.value)) return sourceFailures.notACatalogue(origin, PLATFORM, `its Store API sent no list of products. ${CHECK_ADDRESS}`, doc.status);
  return { entries: json.value, total: headerNumber(doc.headers['x-wp-total']), totalPages: headerNumber(doc.headers['x-wp-totalpages']) };
}

function headerNumber(value: string | undefined): number | null {
  return value && /^\s*\d+\s*$/.test(value) ? Number(value) : null;
}

function rawId(raw: unknown): string | null {
  const value = typeof raw === 'object' && raw !== null ? (raw as { id?: unknown }).id : undefined;
  return typeof value === 'number' || typeof value === 'string' ? String(value) : null;
}

function addItem(collector: ItemCollector, product: Product, parent: Product | null, deps: SourceDeps): void {
  const prices = product.prices;
  const minorUnit = prices?.currency_minor_unit ?? 2;
  // `price` is what a buyer pays now: the sale price while on sale, else the regular one.
  const price = minorAmount(prices?.price, minorUnit);
  const regular = minorAmount(prices?.regular_price, minorUnit);
  collector.add(
    {
      externalId: String(product.id),
      title: htmlText(parent?.name) ?? htmlText(product.name),
      variant: parent ? variantName(product, parent) : null,
      sku: htmlText(product.sku),
      // Brands are terms of the product; a variation has none of its own.
      brand: htmlText((product.brands?.[0] ?? parent?.brands?.[0])?.name),
      price,
      priceText: prices?.price == null ? null : String(prices.price),
      currency: currencyCode(prices?.currency_code) ?? deps.fallbackCurrency,
      regularPrice: regular,
      url: product.permalink ?? parent?.permalink ?? null,
      imageUrl: product.images?.[0]?.src ?? parent?.images?.[0]?.src ?? null,
      availability: availabilityOf(product),
    },
    `product ${product.id}`,
  );
}

/** "1299" in a currency with two decimals is 12.99; JPY (minor unit 0) "1280" is 1280. */
function minorAmount(value: unknown, minorUnit: number): number | null {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value / 10 ** minorUnit;
  if (typeof value !== 'string' || !/^\s*\d+\s*$/.test(value)) return null;
  return Number(value) / 10 ** minorUnit;
}

function availabilityOf(product: Product): Availability | null {
  const stockClass = product.stock_availability?.class ?? '';
  if (product.is_on_backorder || stockClass.includes('backorder')) return 'BackOrder';
  if (product.is_in_stock === false || stockClass.includes('out-of-stock')) return 'OutOfStock';
  if (product.is_in_stock === true) return 'InStock';
  return null;
}

/**
 * "XL / Red": the parent product lists each variation's attribute values as slugs, and its
 * attributes name them. A value left empty there means "any"; the variation's own summary
 * ("Size: XL, Colour: Red") is read instead when the parent does not say.
 */
function variantName(variation: Product, parent: Product): string | null {
  const ref = parent.variations?.find((candidate) => candidate.id === variation.id);
  const values = (ref?.attributes ?? []).flatMap(({ name, value }) => {
    if (!value) return [];
    const terms = parent.attributes?.find((attribute) => attribute.name === name)?.terms ?? [];
    return [terms.find((term) => term.slug === value || term.name === value)?.name ?? value];
  });
  if (values.length > 0 && values.length === ref?.attributes?.length) return htmlText(values.join(' / '));
  const summary = htmlText(variation.variation);
  if (!summary) return null;
  return summary
    .split(/,\s*(?=[^,:]+:\s)/)
    .map((part) => part.replace(/^[^:]+:\s*/, '').trim())
    .filter(Boolean)
    .join(' / ');
}

/** The Store API writes names as HTML ("Tea &amp; Cake"); plain text is passed through. */
function htmlText(value: string | null | undefined): string | null {
  if (!value) return null;
  if (!/[&<]/.test(value)) return value;
  return DomUtils.textContent(parseDocument(value)).trim() || null;
}
