// A Shopify store's catalogue from its public product listing, /products.json, one item per
// variant. The listing does not state the currency: the store's /meta.json does, or its /cart.js.

import { z } from 'zod';
import {
  currencyCode,
  decimalAmount,
  fetchSourceDocument,
  ItemCollector,
  jsonOf,
  MAX_SOURCE_ITEMS,
  type SourceDocument,
  type SourceFailure,
  sourceAddress,
  sourceFailures,
  type SourceRead,
  webUrl,
} from './item.ts';
import type { SourceDeps } from './item.ts';

/** The most products Shopify lists on one page. */
export const SHOPIFY_PAGE_SIZE = 250;
// Every product has at least one variant, so more pages than this always pass the limit.
const MAX_PAGES = Math.ceil(MAX_SOURCE_ITEMS / SHOPIFY_PAGE_SIZE) + 1;
const PAGE_BYTES = 8 * 1024 * 1024;
const SMALL_BYTES = 512 * 1024;
const PLATFORM = 'a Shopify store';

const id = z.union([z.number(), z.string()]);
const text = z.string().nullish().catch(null);
const amount = z.union([z.string(), z.number()]).nullish().catch(null);
const image = z.object({ src: z.string() }).nullish().catch(null);

const Variant = z.object({
  id,
  title: text,
  sku: text,
  barcode: text,
  price: amount,
  compare_at_price: amount,
  available: z.boolean().nullish().catch(null),
  featured_image: image,
});
const Product = z.object({
  id,
  title: text,
  handle: text,
  vendor: text,
  variants: z.array(z.unknown()),
  images: z.array(z.unknown()).nullish().catch(null),
});
const Listing = z.object({ products: z.array(z.unknown()) });
const Currency = z.object({ currency: z.string() });

export async function readShopify(storeUrl: string, deps: SourceDeps): Promise<SourceRead> {
  const address = sourceAddress(storeUrl);
  if (!('href' in address)) return address;
  let base = storeBase(address);
  const collector = new ItemCollector();
  const seenProducts = new Set<string>();
  const products: z.infer<typeof Product>[] = [];
  for (let page = 1; page <= MAX_PAGES; page++) {
    const listed = await listingPage(base, page, deps);
    if ('ok' in listed) return listed;
    // After a redirect (myshop.myshopify.com to the shop's own domain) links use the final address.
    if (page === 1) base = storeBase(new URL(listed.url.replace(/\/products\.json(\?.*)?$/, '')));
    let fresh = 0;
    for (const [index, raw] of listed.products.entries()) {
      const product = Product.safeParse(raw);
      if (!product.success) {
        collector.skip(rawId(raw) ?? `product ${(page - 1) * SHOPIFY_PAGE_SIZE + index + 1}`, 'The store lists it without variants.');
        continue;
      }
      const key = String(product.data.id);
      if (seenProducts.has(key)) continue;
      seenProducts.add(key);
      fresh++;
      products.push(product.data);
    }
    // A store that ignores `page` repeats its first page: nothing new means the end.
    if (listed.products.length < SHOPIFY_PAGE_SIZE || fresh === 0) break;
    if (countVariants(products) + collector.count > MAX_SOURCE_ITEMS) return sourceFailures.tooManyItems();
  }
  if (countVariants(products) + collector.count > MAX_SOURCE_ITEMS) return sourceFailures.tooManyItems();

  const currency = await storeCurrency(base, deps);
  for (const product of products) addProduct(collector, product, base, currency);
  return collector.result();
}

/**
 * Where the store's listing lives: its address without a trailing slash, query or page, so a
 * market's subfolder (https://shop.example/en-gb) is kept and a pasted product or collection
 * page (…/products/kettle, …/collections/all) still finds its store.
 */
function storeBase(address: URL): string {
  const path = address.pathname.replace(/\/(products|collections|pages|cart)(\/.*)?$/, '').replace(/\/+$/, '');
  return `${address.origin}${path}`;
}

type ListingPage = { url: string; products: unknown[] };

async function listingPage(base: string, page: number, deps: SourceDeps): Promise<ListingPage | SourceFailure> {
  const url = `${base}/products.json?limit=${SHOPIFY_PAGE_SIZE}&page=${page}`;
  const doc = await fetchSourceDocument(url, deps, PAGE_BYTES);
  if ('ok' in doc) {
    if (page === 1 && doc.httpStatus === 404) return sourceFailures.notACatalogue(base, PLATFORM, `it has no /products.json (HTTP 404). ${CHECK_ADDRESS}`, 404);
    return doc;
  }
  const json = jsonOf(doc);
  if (!json.ok) return sourceFailures.notACatalogue(base, PLATFORM, `${json.detail} ${CHECK_ADDRESS}`, doc.status);
  const listing = Listing.safeParse(json.value);
  if (!listing.success) return sourceFailures.notACatalogue(base, PLATFORM, `its /products.json has no list of products. ${CHECK_ADDRESS}`, doc.status);
  return { url: doc.url, products: listing.data.products };
}

const CHECK_ADDRESS =
  "Check that this is the store's own address (such as https://yourstore.com or https://yourstore.myshopify.com); a password-protected store cannot be read.";

const countVariants = (products: z.infer<typeof Product>[]) => products.reduce((sum, product) => sum + product.variants.length, 0);

function rawId(raw: unknown): string | null {
  const value = typeof raw === 'object' && raw !== null ? (raw as { id?: unknown }).id : undefined;
  return typeof value === 'number' || typeof value === 'string' ? String(value) : null;
}

function addProduct(collector: ItemCollector, product: z.infer<typeof Product>, base: string, currency: string): void {
  const firstImage = image.parse(product.images?.[0])?.src;
  const hasVariants = product.variants.length > 1;
  for (const [index, raw] of product.variants.entries()) {
    const parsed = Variant.safeParse(raw);
    if (!parsed.success) {
      collector.skip(rawId(raw) ?? `${product.id} variant ${index + 1}`, 'The store lists this variant without an id.');
      continue;
    }
    const variant = parsed.data;
    const price = decimalAmount(variant.price);
    // "Default Title" is what Shopify calls the one variant of a product without options.
    const variantTitle = variant.title && !(variant.title === 'Default Title' && !hasVariants) ? variant.title : null;
    collector.add(
      {
        externalId: String(variant.id),
        title: product.title,
        variant: variantTitle,
        sku: variant.sku,
        gtin: variant.barcode,
        brand: product.vendor,
        price,
        priceText: variant.price === null || variant.price === undefined ? null : String(variant.price),
        currency,
        regularPrice: decimalAmount(variant.compare_at_price),
        url: product.handle ? `${base}/products/${encodeURIComponent(product.handle)}?variant=${encodeURIComponent(String(variant.id))}` : null,
        imageUrl: webUrl(variant.featured_image?.src, base) ?? webUrl(firstImage, base),
        availability: variant.available === true ? 'InStock' : variant.available === false ? 'OutOfStock' : null,
      },
      `variant ${variant.id}`,
    );
  }
}

/** The store's currency from /meta.json, else /cart.js, else the owner's. */
async function storeCurrency(base: string, deps: SourceDeps): Promise<string> {
  for (const path of ['/meta.json', '/cart.js']) {
    const doc = await fetchSourceDocument(`${base}${path}`, deps, SMALL_BYTES);
    const found = 'ok' in doc ? null : currencyIn(doc);
    if (found) return found;
  }
  return deps.fallbackCurrency.toUpperCase();
}

function currencyIn(doc: SourceDocument): string | null {
  const json = jsonOf(doc);
  if (!json.ok) return null;
  const parsed = Currency.safeParse(json.value);
  return parsed.success ? currencyCode(parsed.data.currency) : null;
}
