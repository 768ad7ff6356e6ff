import { DEMO_SHOP_PATH } from './address.ts';
import { IDENTIFIERS, imagePath } from './pages.ts';
import { ItemCollector, type CatalogueItem } from '../catalogue/sources/item.ts';
import { SHOPIFY_PAGE_SIZE } from '../catalogue/sources/shopify.ts';

/**
 * The demo owner's own store, answering like a Shopify store's public listing (/products.json,
 * /meta.json), so the demo account's catalogue comes from a store as a user's does. It sells some
 * of the demo shop's products under the same barcodes, at prices that do not move: one below
 * anything the demo shop's walk can reach (always cheapest), one above it (always undercut) and
 * one within a few per cent of the list price. The store has as many products as the Free plan
 * has room for (the demo account's plan), so an import never skips any.
 */
export const MY_STORE_PATH = `${DEMO_SHOP_PATH}/my-store`;
export const MY_STORE_CURRENCY = 'GBP';
const STORE_NAME = 'Your Demo Store';

type Listing = {
  /** The demo shop product this is. */
  sameAs: string;
  id: number;
  variantId: number;
  handle: string;
  title: string;
  vendor: string;
  productType: string;
  sku: string;
  price: string;
  compareAtPrice: string | null;
  description: string;
  createdAt: string;
};

const LISTINGS: readonly Listing[] = [
  {
    sameAs: 'aurora-anc-headphones',
    id: 8_214_500_110_001,
    variantId: 45_021_870_220_011,
    handle: 'sonique-aurora-anc-headphones',
    title: 'Sonique Aurora ANC Headphones',
    vendor: 'Sonique',
    productType: 'Audio',
    sku: 'YDS-AUR-01',
    // Below the demo shop's lowest, £224.49: the owner is the cheapest at every moment.
    price: '219.99',
    compareAtPrice: '249.99',
    description: 'Over-ear noise-cancelling headphones with a 40-hour battery.',
    createdAt: '2025-02-03T09:12:00+00:00',
  },
  {
    sameAs: 'precision-burr-grinder',
    id: 8_214_500_110_002,
    variantId: 45_021_870_220_021,
    handle: 'kaffa-precision-burr-coffee-grinder',
    title: 'Kaffa Precision Burr Coffee Grinder',
    vendor: 'Kaffa',
    productType: 'Kitchen',
    sku: 'YDS-KAF-48',
    // Within 5 % of the list price, £129: cheapest or competitive as the demo shop's price moves.
    price: '124.99',
    compareAtPrice: null,
    description: 'Conical burr grinder with 40 settings from espresso to cold brew.',
    createdAt: '2025-02-03T09:20:00+00:00',
  },
  {
    sameAs: 'stride-trail-shoes',
    id: 8_214_500_110_003,
    variantId: 45_021_870_220_031,
    handle: 'northpeak-stride-trail-shoes',
    title: 'Northpeak Stride Trail Shoes',
    vendor: 'Northpeak',
    productType: 'Running',
    sku: 'YDS-NPK-TR5',
    // Above the demo shop's highest, £126.99: undercut at every moment.
    price: '127.99',
    compareAtPrice: null,
    description: 'Lightweight trail running shoes with a rock plate.',
    createdAt: '2025-02-10T14:05:00+00:00',
  },
];

/** The external id (variant id) under which the store sells a demo shop product, if it does. */
export function myStoreVariantOf(slug: string): string | null {
  const listing = LISTINGS.find((l) => l.sameAs === slug);
  return listing ? String(listing.variantId) : null;
}

/** A product as Shopify's /products.json lists it: one variant, as a product without options has. */
function shopifyProduct(origin: string, l: Listing) {
  const image = {
    id: l.id + 900_000,
    product_id: l.id,
    position: 1,
    created_at: l.createdAt,
    updated_at: l.createdAt,
    alt: l.title,
    width: 400,
    height: 400,
    src: `${origin}${imagePath(l.sameAs)}`,
    variant_ids: [l.variantId],
  };
  return {
    id: l.id,
    title: l.title,
    handle: l.handle,
    body_html: `<p>${l.description}</p>`,
    published_at: l.createdAt,
    created_at: l.createdAt,
    updated_at: l.createdAt,
    vendor: l.vendor,
    product_type: l.productType,
    tags: [l.productType.toLowerCase()],
    variants: [
      {
        id: l.variantId,
        title: 'Default Title',
        option1: 'Default Title',
        option2: null,
        option3: null,
        sku: l.sku,
        barcode: IDENTIFIERS[l.sameAs]?.gtin13 ?? null,
        requires_shipping: true,
        taxable: true,
        featured_image: image,
        available: true,
        price: l.price,
        grams: 900,
        compare_at_price: l.compareAtPrice,
        position: 1,
        product_id: l.id,
        created_at: l.createdAt,
        updated_at: l.createdAt,
      },
    ],
    images: [image],
    options: [{ name: 'Title', position: 1, values: ['Default Title'] }],
  };
}

export type MyStoreProduct = ReturnType<typeof shopifyProduct>;

/** Shopify lists 30 products a page unless asked for up to 250. */
const DEFAULT_LIMIT = 30;

/**
 * One page of the listing, paged as Shopify's public /products.json: `limit` (1 to 250, 30 when
 * left out or not a number) and `page` (from 1); a page past the end lists nothing.
 */
export function myStoreListing(origin: string, query: { limit?: string; page?: string }): { products: MyStoreProduct[] } {
  const whole = (text: string | undefined) => (text !== undefined && /^\s*\d+\s*$/.test(text) ? Number(text) : null);
  const limit = Math.min(SHOPIFY_PAGE_SIZE, whole(query.limit) || DEFAULT_LIMIT);
  const page = Math.max(1, whole(query.page) ?? 1);
  return { products: LISTINGS.slice((page - 1) * limit, page * limit).map((l) => shopifyProduct(origin, l)) };
}

/** The store's /meta.json: where a Shopify store states its currency. */
export function myStoreMeta(origin: string) {
  const host = new URL(origin).host;
  return {
    id: 71_204_833_001,
    name: STORE_NAME,
    city: 'Bristol',
    province: 'England',
    country: 'GB',
    currency: MY_STORE_CURRENCY,
    domain: host,
    url: `${origin}${MY_STORE_PATH}`,
    myshopify_domain: 'your-demo-store.myshopify.com',
    description: "The demo owner's own store, built into Pricewatch's demo mode.",
    money_format: '£{{amount}}',
    published_products_count: LISTINGS.length,
  };
}

/**
 * The store's items as a read of it gives them, one per variant, made from the same listing the
 * routes serve: the demo seed imports these without fetching its own origin during sign-in.
 */
export function myStoreItems(origin: string): CatalogueItem[] {
  const storeUrl = `${origin}${MY_STORE_PATH}`;
  const collector = new ItemCollector();
  for (const product of LISTINGS.map((l) => shopifyProduct(origin, l))) {
    const hasVariants = product.variants.length > 1;
    for (const variant of product.variants) {
      collector.add(
        {
          externalId: String(variant.id),
          title: product.title,
          // "Default Title" is what Shopify calls the one variant of a product without options.
          variant: variant.title === 'Default Title' && !hasVariants ? null : variant.title,
          sku: variant.sku,
          gtin: variant.barcode,
          brand: product.vendor,
          price: Number(variant.price),
          priceText: variant.price,
          currency: MY_STORE_CURRENCY,
          regularPrice: variant.compare_at_price === null ? null : Number(variant.compare_at_price),
          url: `${storeUrl}/products/${encodeURIComponent(product.handle)}?variant=${variant.id}`,
          imageUrl: variant.featured_image?.src ?? product.images[0]?.src ?? null,
          availability: variant.available ? 'InStock' : 'OutOfStock',
        },
        `variant ${variant.id}`,
      );
    }
  }
  return collector.items;
}

function storePage(origin: string, title: string, body: string): string {
  return `<!doctype html>
<html lang="en-GB">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">
<title>${title} | ${STORE_NAME}</title>
<style>body { font-family: system-ui, sans-serif; max-width: 720px; margin: 0 auto; padding: 24px; } img { width: 240px; border-radius: 12px; }</style>
</head>
<body>
<p><a href="${origin}${MY_STORE_PATH}">${STORE_NAME}</a> · the demo owner's own store. Pricewatch reads its catalogue from
<a href="${origin}${MY_STORE_PATH}/products.json">products.json</a>, as it reads a Shopify store's.</p>
${body}
</body>
</html>`;
}

const gbp = (price: string) => `£${price}`;

export function myStoreIndexPage(origin: string): string {
  const items = LISTINGS.map((l) => `<li><a href="${origin}${MY_STORE_PATH}/products/${l.handle}">${l.title}</a> ${gbp(l.price)}</li>`).join('\n');
  return storePage(origin, 'All products', `<h1>All products</h1>\n<ul>${items}</ul>`);
}

/** A product's page, where the catalogue links its own products; null for a handle the store does not sell. */
export function myStoreProductPage(origin: string, handle: string): string | null {
  const l = LISTINGS.find((x) => x.handle === handle);
  if (!l) return null;
  return storePage(
    origin,
    l.title,
    `<h1>${l.title}</h1>
<img src="${origin}${imagePath(l.sameAs)}" alt="${l.title}" width="240" height="240">
<p class="price">${gbp(l.price)}${l.compareAtPrice ? ` <s>${gbp(l.compareAtPrice)}</s>` : ''}</p>
<p>${l.description}</p>`,
  );
}
