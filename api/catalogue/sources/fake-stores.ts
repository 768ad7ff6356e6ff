// Stores on loopback for the catalogue readers' tests and benchmarks, answering in each
// platform's own formats: a Shopify store (/products.json paged at 250, /meta.json, /cart.js), a
// WooCommerce Store API (X-WP-Total and X-WP-TotalPages, variable products and their variations,
// prices in minor units) and Google Merchant Center feeds (RSS, Atom, tab-separated), plus
// hostile answers: an XML bomb, a feed of 100,000 items, a web page, malformed files, a 500 and
// a redirect to a private address. Every answer is built from data made once at start. Their
// admin APIs, which price writes use, are in fake-store-admin.ts: a write changes the data, so
// the next read shows it.

import { createFetcher } from '../../fetching/fetcher.ts';
import { type AdminOptions, type AdminRequest, adminRoute, isAdminPath, newAdminState } from './fake-store-admin.ts';
import type { SourceDeps } from './item.ts';

const GOOGLE_NS = 'http://base.google.com/ns/1.0';

export type FakeStoreOptions = AdminOptions & {
  /** Products of the Shopify and WooCommerce stores (default 600). */
  products?: number;
  /** Items of the Merchant feeds (default 300). */
  feedItems?: number;
  /** Items of the feed at FEED_PATHS.huge (default 100,000). */
  hugeFeedItems?: number;
  /** The stores' currency (default GBP); WooCommerce writes prices in its minor unit (JPY: none). */
  currency?: string;
  /** Where the Shopify store states its currency (default meta.json; cart.js always does too). */
  shopifyCurrencyAt?: 'meta.json' | 'cart.js' | 'nowhere';
  /** Adds entries without a title, an id or a readable price to every store and feed. */
  brokenItems?: boolean;
  /** Every Shopify and WooCommerce address answers this way instead. */
  misbehave?: 'html' | 'malformed' | 'server-error' | 'private-redirect';
  /** Where FEED_PATHS.toPrivate and `misbehave: 'private-redirect'` send the fetcher. */
  privateTarget?: string;
};

export type FakeStores = {
  origin: string;
  /** Requests served, by path and query. */
  hits: Map<string, number>;
  /** Requests the admin APIs received, in order, with their headers and bodies. */
  adminRequests: AdminRequest[];
  stop(): void;
};

export const FEED_PATHS = {
  rss: '/feeds/products.xml',
  atom: '/feeds/products.atom',
  tsv: '/feeds/products.tsv',
  bomb: '/feeds/bomb.xml',
  huge: '/feeds/huge.xml',
  webPage: '/feeds/page.html',
  malformed: '/feeds/malformed.xml',
  serverError: '/feeds/error.xml',
  toPrivate: '/feeds/moved.xml',
} as const;

/** The cloud metadata address: refused by the fetcher even where private addresses are allowed. */
export const METADATA_TARGET = 'http://169.254.169.254/latest/meta-data/';

export function startFakeStores(options: FakeStoreOptions = {}): FakeStores {
  const hits = new Map<string, number>();
  const adminRequests: AdminRequest[] = [];
  const admin = newAdminState(options);
  let origin = '';
  let data: StoreData | null = null;
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      const url = new URL(request.url);
      const key = url.pathname + url.search;
      hits.set(key, (hits.get(key) ?? 0) + 1);
      data ??= makeData(origin, options);
      if (isAdminPath(url.pathname) && !options.misbehave) return adminRoute(request, url, data, options, admin, adminRequests);
      return route(url, data, options);
    },
  });
  origin = `http://127.0.0.1:${server.port}`;
  return { origin, hits, adminRequests, stop: () => server.stop(true) };
}

/** Deps that reach the fakes on loopback: private addresses allowed (the metadata address never is), no retries. */
export function loopbackDeps(fallbackCurrency = 'EUR'): SourceDeps {
  return {
    fetcher: createFetcher({ hostSpacingMs: 0, retryBaseDelayMs: 10 }),
    fetchOptions: { allowPrivate: true, retries: 0, timeoutMs: 20_000 },
    fallbackCurrency,
  };
}

/** Deps guarded as in production, except that 127.0.0.1 (the fakes) counts as public: every other private address is refused. */
export function guardedDeps(fallbackCurrency = 'EUR'): SourceDeps {
  return {
    fetcher: createFetcher({ isAllowedAddress: (ip) => ip === '127.0.0.1', hostSpacingMs: 0 }),
    fetchOptions: { allowPrivate: false, retries: 0, timeoutMs: 5_000 },
    fallbackCurrency,
  };
}

// ---------------------------------------------------------------------------------------
// Routing

function route(url: URL, data: StoreData, options: FakeStoreOptions): Response {
  const path = url.pathname;
  const isStore = path === '/products.json' || path === '/meta.json' || path === '/cart.js' || path.startsWith('/wp-json/') || isAdminPath(path);
  if (isStore && options.misbehave) return misbehaving(options.misbehave, options.privateTarget ?? METADATA_TARGET);
  switch (path) {
    case '/products.json':
      return shopifyListing(url, data);
    case '/meta.json':
      return options.shopifyCurrencyAt === 'cart.js' || options.shopifyCurrencyAt === 'nowhere' ? notFound() : json(data.shopifyMeta);
    case '/cart.js':
      return options.shopifyCurrencyAt === 'nowhere' ? notFound() : json({ token: 'c1', note: null, items: [], item_count: 0, currency: data.currency });
    case '/wp-json/wc/store/v1/products':
      return wooListing(url, data);
    case FEED_PATHS.rss:
      return xml(data.rss(), 'application/rss+xml; charset=utf-8');
    case FEED_PATHS.atom:
      return xml(data.atom(), 'application/atom+xml; charset=utf-8');
    case FEED_PATHS.tsv:
      return new Response(data.tsv(), { headers: { 'content-type': 'text/tab-separated-values; charset=utf-8' } });
    case FEED_PATHS.bomb:
      return xml(BILLION_LAUGHS, 'application/xml');
    case FEED_PATHS.huge:
      return xml(data.huge(), 'application/xml');
    case FEED_PATHS.webPage:
      return html(WEB_PAGE);
    case FEED_PATHS.malformed:
      return xml(
        `<?xml version="1.0"?><rss version="2.0" xmlns:g="${GOOGLE_NS}"><channel><item><g:id>1</g:id><title>Broken</item></channel></rss>`,
        'application/xml',
      );
    case FEED_PATHS.serverError:
      return new Response('Internal Server Error', { status: 500, headers: { 'content-type': 'text/plain' } });
    case FEED_PATHS.toPrivate:
      return new Response(null, { status: 302, headers: { location: options.privateTarget ?? METADATA_TARGET } });
    default:
      return notFound();
  }
}

function misbehaving(how: NonNullable<FakeStoreOptions['misbehave']>, privateTarget: string): Response {
  if (how === 'html') return html(WEB_PAGE);
  if (how === 'malformed') return new Response('{"products": [{"id": 1, "title": "Kettle", "variants": [', { headers: { 'content-type': 'application/json' } });
  if (how === 'server-error') return html('<html><body><h1>Internal Server Error</h1></body></html>', 500);
  return new Response(null, { status: 302, headers: { location: privateTarget } });
}

const json = (body: unknown, headers: Record<string, string> = {}, status = 200) =>
  new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });
const xml = (body: string, type: string) => new Response(body, { headers: { 'content-type': type } });
const html = (body: string, status = 200) => new Response(body, { status, headers: { 'content-type': 'text/html; charset=utf-8' } });
const notFound = () => html('<!doctype html><html><head><title>Page not found</title></head><body>Not found</body></html>', 404);

const WEB_PAGE = '<!doctype html><html><head><title>Welcome to our shop</title></head><body><h1>Our shop</h1><p>Kettles and more.</p></body></html>';

const BILLION_LAUGHS = `<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<rss version="2.0" xmlns:g="${GOOGLE_NS}"><channel><item><g:id>1</g:id><title>&lol9;</title><g:price>1.00 GBP</g:price></item></channel></rss>`;

// ---------------------------------------------------------------------------------------
// Shopify: /products.json?limit=&page=

function shopifyListing(url: URL, data: StoreData): Response {
  const limit = Math.min(Number(url.searchParams.get('limit')) || 30, 250);
  const page = Math.max(Number(url.searchParams.get('page')) || 1, 1);
  return json(`{"products":[${data.shopifyProducts.slice((page - 1) * limit, page * limit).join(',')}]}`);
}

// ---------------------------------------------------------------------------------------
// WooCommerce Store API: /wp-json/wc/store/v1/products?per_page=&page=[&type=variation]

function wooListing(url: URL, data: StoreData): Response {
  const perPage = Number(url.searchParams.get('per_page') ?? 10);
  if (!Number.isInteger(perPage) || perPage < 1 || perPage > 100)
    return json(
      {
        code: 'rest_invalid_param',
        message: 'Invalid parameter(s): per_page',
        data: { status: 400, params: { per_page: 'per_page must be between 1 (inclusive) and 100 (inclusive)' } },
      },
      {},
      400,
    );
  const page = Math.max(Number(url.searchParams.get('page')) || 1, 1);
  const all = url.searchParams.get('type') === 'variation' ? data.wooVariations : data.wooProducts;
  const body = `[${all.slice((page - 1) * perPage, page * perPage).join(',')}]`;
  return json(body, { 'x-wp-total': String(all.length), 'x-wp-totalpages': String(Math.ceil(all.length / perPage)) });
}

// ---------------------------------------------------------------------------------------
// The data, made once: JSON entries kept as text so a page is a slice and a join; a price
// written through the admin APIs replaces its entry.

type StoreData = {
  currency: string;
  shopifyMeta: Record<string, unknown>;
  shopifyProducts: string[];
  wooProducts: string[];
  wooVariations: string[];
  rss(): string;
  atom(): string;
  tsv(): string;
  huge(): string;
};

function makeData(origin: string, options: FakeStoreOptions): StoreData {
  const currency = (options.currency ?? 'GBP').toUpperCase();
  const products = options.products ?? 600;
  const feed = feedItems(origin, options.feedItems ?? 300, currency, options.brokenItems === true);
  const woo = wooData(origin, products, currency, options.brokenItems === true);
  const once = (make: () => string) => {
    let made: string | null = null;
    return () => (made ??= make());
  };
  return {
    currency,
    shopifyMeta: { id: 1, name: 'Fake Shop', city: 'London', country: 'GB', currency, domain: new URL(origin).host, url: origin },
    shopifyProducts: shopifyProducts(products, options.brokenItems === true).map((product) => JSON.stringify(product)),
    wooProducts: woo.products.map((product) => JSON.stringify(product)),
    wooVariations: woo.variations.map((variation) => JSON.stringify(variation)),
    rss: once(() => rssFeed(origin, feed)),
    atom: once(() => atomFeed(origin, feed)),
    tsv: once(() => tsvFeed(feed)),
    huge: once(() => hugeFeed(options.hugeFeedItems ?? 100_000, currency)),
  };
}

/** A valid EAN-13 (as 13 digits) for a number. */
export function ean13(n: number): string {
  const body = `50${String(n).padStart(10, '0')}`;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(body[i]) * (i % 2 === 0 ? 1 : 3);
  return `${body}${(10 - (sum % 10)) % 10}`;
}

const money = (amount: number) => amount.toFixed(2);

/**
 * Product i: every third has three variants ("S / Red", "M / Red", "L / Red"), the others one
 * "Default Title" variant; every fifth has a compare-at price, every eleventh is sold out, even
 * ones carry a valid barcode, every fourth odd one a barcode that is not a GTIN.
 */
function shopifyProducts(count: number, broken: boolean): unknown[] {
  const products: unknown[] = [];
  for (let i = 1; i <= count; i++) {
    const base = 10 + (i % 50) + 0.99;
    const sizes = i % 3 === 0 ? ['S', 'M', 'L'] : [null];
    const images = [{ id: 7000 + i, position: 1, src: `https://cdn.shopify.com/s/files/1/0001/products/product-${i}.jpg`, variant_ids: [] }];
    products.push({
      id: 1000 + i,
      title: i === 1 ? 'Tea & Cake Set' : `Shopify product ${i}`,
      handle: `product-${i}`,
      body_html: `<p>Description of product ${i}</p>`,
      published_at: '2026-01-01T00:00:00Z',
      vendor: `Brand ${i % 7}`,
      product_type: 'Kitchen',
      tags: [],
      variants: sizes.map((size, k) => ({
        id: 50_000 + i * 10 + k,
        title: size ? `${size} / Red` : 'Default Title',
        option1: size ?? 'Default Title',
        option2: size ? 'Red' : null,
        option3: null,
        sku: `SKU-${i}-${k}`,
        barcode: i % 2 === 0 ? ean13(i * 10 + k) : i % 4 === 1 ? `INT-${i}` : '',
        requires_shipping: true,
        taxable: true,
        featured_image: k === 1 ? { id: 9000 + i, src: `https://cdn.shopify.com/s/files/1/0001/products/product-${i}-m.jpg` } : null,
        available: i % 11 !== 0,
        price: money(base + k),
        grams: 500,
        compare_at_price: i % 5 === 0 ? money(base + k + 5) : i % 10 === 1 ? money(base + k) : null,
        position: k + 1,
        product_id: 1000 + i,
      })),
      images,
      options: [{ name: sizes[0] ? 'Size' : 'Title', position: 1, values: sizes[0] ? sizes : ['Default Title'] }],
    });
  }
  if (broken)
    products.push(
      {
        id: 900_001,
        title: '',
        handle: 'untitled',
        vendor: 'X',
        variants: [{ id: 990_001, title: 'Default Title', price: '5.00', available: true }],
        images: [],
      },
      {
        id: 900_002,
        title: 'No price',
        handle: 'no-price',
        vendor: 'X',
        variants: [{ id: 990_002, title: 'Default Title', price: 'call us', available: true }],
      },
      { id: 900_003, title: 'No variants', handle: 'no-variants', vendor: 'X' },
    );
  return products;
}

/** Minor units as WooCommerce uses them: the currency's decimals (GBP 2, JPY 0, KWD 3). */
function minorUnit(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/**
 * Product j: every fourth is variable with three variations (sizes S, M and XL in red), every
 * sixth other one is on sale, every ninth sold out, every thirteenth on backorder, even ones
 * carry a brand. Product 1's name has an HTML entity, as the Store API writes names.
 */
function wooData(origin: string, count: number, currency: string, broken: boolean) {
  const unit = minorUnit(currency);
  const minor = (amount: number) => String(Math.round(amount * 10 ** unit));
  const prices = (regular: number, sale: number | null) => ({
    price: minor(sale ?? regular),
    regular_price: minor(regular),
    sale_price: minor(sale ?? regular),
    price_range: null,
    currency_code: currency,
    currency_symbol: '',
    currency_minor_unit: unit,
    currency_decimal_separator: '.',
    currency_thousand_separator: ',',
    currency_prefix: '',
    currency_suffix: '',
  });
  const stock = (j: number) => {
    const backorder = j % 13 === 0;
    const out = !backorder && j % 9 === 0;
    return {
      is_purchasable: true,
      is_in_stock: !out,
      is_on_backorder: backorder,
      stock_availability: out
        ? { text: 'Out of stock', class: 'out-of-stock' }
        : backorder
          ? { text: 'Available on backorder', class: 'available-on-backorder' }
          : { text: '', class: '' },
    };
  };
  const sizes = [
    { name: 'S', slug: 's' },
    { name: 'M', slug: 'm' },
    { name: 'XL', slug: 'xl' },
  ];
  const products: unknown[] = [];
  const variations: unknown[] = [];
  for (let j = 1; j <= count; j++) {
    const id = 2000 + j;
    const name = j === 1 ? 'Tea &amp; Cake' : `Woo product ${j}`;
    const permalink = `${origin}/product/woo-product-${j}/`;
    const regular = unit === 0 ? 1000 + j * 10 : 5 + (j % 40) + 0.99;
    const variable = j % 4 === 0;
    const sale = !variable && j % 6 === 1 ? regular * 0.8 : null;
    const variationIds = variable ? sizes.map((_, k) => 100_000 + j * 10 + k) : [];
    products.push({
      id,
      name,
      slug: `woo-product-${j}`,
      parent: 0,
      type: variable ? 'variable' : 'simple',
      variation: '',
      permalink,
      sku: `W-${j}`,
      short_description: '',
      description: `<p>Product ${j}</p>`,
      on_sale: sale !== null,
      prices: prices(regular, sale),
      images: [{ id: j, src: `${origin}/wp-content/uploads/p${j}.jpg`, thumbnail: '', srcset: '', sizes: '', name: `p${j}.jpg`, alt: '' }],
      categories: [],
      tags: [],
      brands: j % 2 === 0 ? [{ id: 5, name: 'Acme &amp; Sons', slug: 'acme' }] : [],
      attributes: variable
        ? [
            { id: 1, name: 'Size', taxonomy: 'pa_size', has_variations: true, terms: sizes.map((size, k) => ({ id: 10 + k, ...size, default: false })) },
            { id: 0, name: 'Colour', taxonomy: null, has_variations: true, terms: [{ id: 0, name: 'Red', slug: 'Red', default: false }] },
          ]
        : [],
      variations: variationIds.map((variationId, k) => ({
        id: variationId,
        attributes: [
          { name: 'Size', value: sizes[k].slug },
          { name: 'Colour', value: 'Red' },
        ],
      })),
      has_options: variable,
      ...stock(j),
    });
    for (const [k, variationId] of variationIds.entries())
      variations.push({
        id: variationId,
        name,
        parent: id,
        type: 'variation',
        variation: `Size: ${sizes[k].name}, Colour: Red`,
        permalink: `${permalink}?attribute_pa_size=${sizes[k].slug}&attribute_colour=Red`,
        sku: `W-${j}-${sizes[k].slug}`,
        on_sale: k === 2,
        prices: prices(regular + k, k === 2 ? regular : null),
        images: k === 0 ? [{ id: 90 + k, src: `${origin}/wp-content/uploads/p${j}-${sizes[k].slug}.jpg` }] : [],
        brands: [],
        attributes: [],
        variations: [],
        ...stock(j + k),
      });
  }
  if (broken)
    products.push(
      { id: 800_001, name: '', type: 'simple', permalink: `${origin}/product/untitled/`, prices: prices(3, null), is_in_stock: true },
      { id: 800_002, name: 'No price', type: 'simple', permalink: `${origin}/product/no-price/`, prices: { ...prices(3, null), price: '' }, is_in_stock: true },
      { name: 'No id', type: 'simple', prices: prices(3, null) },
    );
  return { products, variations };
}

// ---------------------------------------------------------------------------------------
// Merchant feeds

type FeedItem = Record<string, string | undefined> & { id?: string; title?: string };

const AVAILABILITY = ['in_stock', 'in stock', 'out_of_stock', 'preorder', 'backorder'];

/**
 * Item i: prices written "12.99 GBP", "GBP 12.99" and "12,99 GBP" in turn, every fifth with a
 * lower sale price, every fourth and fifth in a group of variants (size and colour).
 */
function feedItems(origin: string, count: number, currency: string, broken: boolean): FeedItem[] {
  const items: FeedItem[] = [];
  for (let i = 1; i <= count; i++) {
    const amount = money(3 + (i % 60) + 0.99);
    const written = [`${amount} ${currency}`, `${currency} ${amount}`, `${amount.replace('.', ',')} ${currency}`][i % 3];
    const grouped = i % 4 === 0 || i % 4 === 1;
    items.push({
      id: `FEED-${i}`,
      title: i === 1 ? 'Tea & Cake <Deluxe>' : `Feed product ${i}`,
      description: `A fine product, number ${i}.`,
      link: `${origin}/p/${i}`,
      image_link: `${origin}/img/${i}.jpg`,
      price: written,
      sale_price: i % 5 === 0 ? `${money(2 + (i % 60))} ${currency}` : undefined,
      availability: AVAILABILITY[i % AVAILABILITY.length],
      gtin: i % 2 === 0 ? ean13(i) : undefined,
      mpn: `MPN-${i}`,
      brand: `Maker ${i % 5}`,
      item_group_id: grouped ? `GROUP-${Math.floor((i + 3) / 4)}` : undefined,
      size: grouped ? (i % 4 === 0 ? 'M' : 'L') : undefined,
      color: grouped ? 'Blue' : undefined,
    });
  }
  if (broken)
    items.push(
      { title: 'Without an id', price: `1.00 ${currency}` },
      { id: 'NO-TITLE', price: `1.00 ${currency}` },
      { id: 'BAD-PRICE', title: 'Bad price', price: 'soon' },
    );
  return items;
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The Google fields of an item, as g: elements. */
function googleFields(item: FeedItem, skip: string[]): string {
  let out = '';
  for (const [name, value] of Object.entries(item)) if (value !== undefined && !skip.includes(name)) out += `<g:${name}>${escapeXml(value)}</g:${name}>`;
  return out;
}

function rssFeed(origin: string, items: FeedItem[]): string {
  const entries = items.map((item, i) => {
    // A nested shipping price must not be read as the item's price.
    const shipping = i % 7 === 0 ? `<g:shipping><g:country>GB</g:country><g:price>99.99 GBP</g:price></g:shipping>` : '';
    const title = item.title === undefined ? '' : i % 2 === 0 ? `<title>${escapeXml(item.title)}</title>` : `<title><![CDATA[${item.title}]]></title>`;
    const link = item.link ? `<link>${escapeXml(item.link)}</link>` : '';
    return `<item>${title}${link}${googleFields(item, ['title', 'link'])}${shipping}</item>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:g="${GOOGLE_NS}"><channel><title>Fake shop</title><link>${origin}</link><description>Products</description>
${entries.join('\n')}
</channel></rss>`;
}

function atomFeed(origin: string, items: FeedItem[]): string {
  const entries = items.map((item) => {
    const title = item.title === undefined ? '' : `<title>${escapeXml(item.title)}</title>`;
    const link = item.link ? `<link href="${escapeXml(item.link)}"/>` : '';
    return `<entry>${title}${link}<updated>2026-01-01T00:00:00Z</updated>${googleFields(item, ['title', 'link'])}</entry>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xmlns:g="${GOOGLE_NS}"><title>Fake shop</title><link rel="self" href="${origin}${FEED_PATHS.atom}"/><updated>2026-01-01T00:00:00Z</updated>
${entries.join('\n')}
</feed>`;
}

const TSV_COLUMNS = [
  'id',
  'title',
  'description',
  'link',
  'image link',
  'price',
  'sale price',
  'availability',
  'gtin',
  'mpn',
  'brand',
  'item group id',
  'size',
  'color',
];

function tsvFeed(items: FeedItem[]): string {
  const rows = items.map((item) => TSV_COLUMNS.map((column) => item[column.replace(/ /g, '_')] ?? '').join('\t'));
  return `${TSV_COLUMNS.join('\t')}\n${rows.join('\n')}\n`;
}

function hugeFeed(count: number, currency: string): string {
  const parts: string[] = [`<?xml version="1.0"?><rss version="2.0" xmlns:g="${GOOGLE_NS}"><channel><title>Huge</title>`];
  for (let i = 1; i <= count; i++) parts.push(`<item><g:id>H${i}</g:id><title>Item ${i}</title><g:price>1.00 ${currency}</g:price></item>`);
  parts.push('</channel></rss>');
  return parts.join('\n');
}
