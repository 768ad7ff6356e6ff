// The write side of the fake stores (fake-stores.ts): Shopify's Admin REST API
// (GET/PUT /admin/api/<version>/variants/<id>.json with X-Shopify-Access-Token) and WooCommerce's
// REST API v3 (GET/PUT /wp-json/wc/v3/products/<id> and /products/<pid>/variations/<id>, Basic
// auth with a consumer key and secret), answering with the platforms' own shapes, errors
// included. A write changes the store's data, so the next catalogue read shows the new price.

/** What the admin fakes read of the store's options (AdminOptions has them all). */
export type AdminOptions = {
  /** The Shopify Admin API's access token (default 'shpat_test'). */
  adminToken?: string;
  /** The WooCommerce REST API's consumer key and secret (defaults 'ck_test' and 'cs_test'). */
  wooKey?: string;
  wooSecret?: string;
  /** The admin APIs answer their first `times` requests with 429 and Retry-After (default "1.0", as Shopify writes it). */
  adminBusy?: { times: number; retryAfter?: string };
  /** The Shopify Admin API refuses (422) a price above this, as a store's own rule would. */
  adminMaxPrice?: number;
};
/** The listings the admin fakes change, as the store's readers see them (JSON text per product). */
type StoreData = { shopifyProducts: string[]; wooProducts: string[]; wooVariations: string[] };

/** One request the admin APIs received, as sent. */
export type AdminRequest = { method: string; path: string; headers: Record<string, string>; body: string };

const SHOPIFY_VARIANT = /^\/admin\/api\/[\w-]+\/variants\/(\d+)\.json$/;
const WOO_PRODUCT = /^\/wp-json\/wc\/v3\/products\/(\d+)$/;
const WOO_VARIATION = /^\/wp-json\/wc\/v3\/products\/(\d+)\/variations\/(\d+)$/;

export const isAdminPath = (path: string) => path.startsWith('/admin/') || path.startsWith('/wp-json/wc/v3/');

/** The admin APIs' state across requests: where each id lives, and how many busy answers are left. */
export type AdminState = { busyLeft: number; shopifyVariants: Map<string, number> | null; woo: Map<string, WooEntry> | null };
type WooEntry = { list: 'wooProducts' | 'wooVariations'; index: number };

export const newAdminState = (options: AdminOptions): AdminState => ({ busyLeft: options.adminBusy?.times ?? 0, shopifyVariants: null, woo: null });

export async function adminRoute(
  request: Request,
  url: URL,
  data: StoreData,
  options: AdminOptions,
  state: AdminState,
  seen: AdminRequest[],
): Promise<Response> {
  const body = request.method === 'GET' ? '' : await request.text();
  seen.push({ method: request.method, path: url.pathname + url.search, headers: Object.fromEntries(request.headers), body });
  const path = url.pathname;
  const shopify = path.startsWith('/admin/');
  if (state.busyLeft > 0) {
    state.busyLeft--;
    const retryAfter = { 'retry-after': options.adminBusy?.retryAfter ?? '1.0' };
    return shopify
      ? json({ errors: 'Exceeded 2 calls per second for api client. Reduce request rates to resume uninterrupted service.' }, 429, retryAfter)
      : json({ code: 'rest_too_many_requests', message: 'Too many requests.', data: { status: 429 } }, 429, retryAfter);
  }
  if (shopify) {
    const variant = SHOPIFY_VARIANT.exec(path);
    if (!variant) return json({ errors: 'Not Found' }, 404);
    if (request.headers.get('x-shopify-access-token') !== (options.adminToken ?? 'shpat_test'))
      return json({ errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' }, 401);
    return shopifyVariant(request.method, variant[1]!, body, data, options, state);
  }
  const variation = WOO_VARIATION.exec(path);
  const product = WOO_PRODUCT.exec(path);
  if (!variation && !product)
    return json({ code: 'rest_no_route', message: 'No route was found matching the URL and request method.', data: { status: 404 } }, 404);
  if (request.headers.get('authorization') !== basic(options.wooKey ?? 'ck_test', options.wooSecret ?? 'cs_test'))
    return request.method === 'GET'
      ? json({ code: 'woocommerce_rest_cannot_view', message: 'Sorry, you cannot view this resource.', data: { status: 401 } }, 401)
      : json({ code: 'woocommerce_rest_cannot_edit', message: 'Sorry, you are not allowed to edit this resource.', data: { status: 401 } }, 401);
  return variation ? wooItem(request.method, variation[2]!, variation[1]!, body, data, state) : wooItem(request.method, product![1]!, null, body, data, state);
}

const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers } });
const basic = (key: string, secret: string) => `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`;

function parseBody(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

const objectField = (value: unknown, name: string): unknown =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined;

// ---------------------------------------------------------------------------------------
// Shopify: variants

type ShopifyVariant = Record<string, unknown> & { id: number; price: string };
type ShopifyProduct = Record<string, unknown> & { id: number; variants?: ShopifyVariant[] };

function shopifyVariant(method: string, id: string, body: string, data: StoreData, options: AdminOptions, state: AdminState): Response {
  state.shopifyVariants ??= indexShopify(data);
  const at = state.shopifyVariants.get(id);
  if (at === undefined || (method !== 'GET' && method !== 'PUT')) return json({ errors: 'Not Found' }, 404);
  const product = JSON.parse(data.shopifyProducts[at]!) as ShopifyProduct;
  const variant = product.variants!.find((candidate) => String(candidate.id) === id)!;
  if (method === 'PUT') {
    const price = objectField(objectField(parseBody(body), 'variant'), 'price');
    if (price === undefined) return json({ errors: { variant: 'Required parameter missing or invalid' } }, 400);
    const amount = typeof price === 'number' ? price : typeof price === 'string' && /^\s*-?\d+(\.\d+)?\s*$/.test(price) ? Number(price) : Number.NaN;
    if (Number.isNaN(amount)) return json({ errors: { price: ['is not a number'] } }, 422);
    if (amount < 0) return json({ errors: { price: ['must be greater than or equal to 0'] } }, 422);
    if (options.adminMaxPrice !== undefined && amount > options.adminMaxPrice)
      return json({ errors: { price: [`must be less than or equal to ${options.adminMaxPrice}`] } }, 422);
    // Shopify keeps two decimals whatever the currency: a yen price reads "1500.00".
    variant.price = amount.toFixed(2);
    variant.updated_at = new Date().toISOString();
    data.shopifyProducts[at] = JSON.stringify(product);
  }
  return json({
    variant: {
      ...variant,
      product_id: product.id,
      inventory_policy: 'deny',
      fulfillment_service: 'manual',
      inventory_management: 'shopify',
      admin_graphql_api_id: `gid://shopify/ProductVariant/${variant.id}`,
    },
  });
}

function indexShopify(data: StoreData): Map<string, number> {
  const index = new Map<string, number>();
  for (const [at, text] of data.shopifyProducts.entries())
    for (const variant of (JSON.parse(text) as ShopifyProduct).variants ?? []) if (variant?.id !== undefined) index.set(String(variant.id), at);
  return index;
}

// ---------------------------------------------------------------------------------------
// WooCommerce: products and variations, written in major units ("12.99")

type StoreApiItem = Record<string, unknown> & {
  id: number;
  name?: string;
  parent?: number;
  type?: string;
  permalink?: string;
  sku?: string;
  on_sale?: boolean;
  prices: Record<string, unknown> & { price: string; regular_price: string; sale_price: string; currency_minor_unit: number };
};

const invalidId = (variation: boolean) =>
  json(
    {
      code: variation ? 'woocommerce_rest_product_variation_invalid_id' : 'woocommerce_rest_product_invalid_id',
      message: 'Invalid ID.',
      data: { status: 404 },
    },
    404,
  );

function wooItem(method: string, id: string, parentId: string | null, body: string, data: StoreData, state: AdminState): Response {
  state.woo ??= indexWoo(data);
  const entry = state.woo.get(id);
  if (!entry || (method !== 'GET' && method !== 'PUT')) return invalidId(parentId !== null);
  const item = JSON.parse(data[entry.list][entry.index]!) as StoreApiItem;
  if (parentId !== null && (entry.list !== 'wooVariations' || String(item.parent) !== parentId)) return invalidId(true);
  if (method === 'PUT') {
    const input = parseBody(body);
    const unit = item.prices.currency_minor_unit;
    const regular = minorOf(objectField(input, 'regular_price'), unit);
    const sale = minorOf(objectField(input, 'sale_price'), unit);
    const wrong = [regular === 'wrong' && 'regular_price', sale === 'wrong' && 'sale_price'].filter(Boolean) as string[];
    if (wrong.length > 0)
      return json(
        {
          code: 'rest_invalid_param',
          message: `Invalid parameter(s): ${wrong.join(', ')}`,
          data: { status: 400, params: Object.fromEntries(wrong.map((name) => [name, `${name} is not of type string.`])) },
        },
        400,
      );
    const prices = item.prices;
    if (typeof regular === 'number') prices.regular_price = String(regular);
    if (sale !== undefined) prices.sale_price = sale === null ? prices.regular_price : String(sale);
    const onSale = sale !== undefined ? typeof sale === 'number' && sale < Number(prices.regular_price) : item.on_sale === true;
    prices.price = onSale ? prices.sale_price : prices.regular_price;
    if (!onSale) prices.sale_price = prices.regular_price;
    item.on_sale = onSale;
    data[entry.list][entry.index] = JSON.stringify(item);
  }
  return json(restShape(item, entry.list === 'wooVariations'));
}

/** A price as the REST API takes it: a string in major units; null for "" (no sale); 'wrong' for anything else. */
function minorOf(value: unknown, unit: number): number | null | 'wrong' | undefined {
  if (value === undefined) return undefined;
  if (value === '') return null;
  if (typeof value !== 'string' || !/^\s*\d+(\.\d+)?\s*$/.test(value)) return 'wrong';
  return Math.round(Number(value) * 10 ** unit);
}

/** The REST API v3 shape of a Store API entry: prices in major units, "" for no sale price. */
function restShape(item: StoreApiItem, variation: boolean): Record<string, unknown> {
  const unit = item.prices.currency_minor_unit;
  const major = (minor: string) => (Number(minor) / 10 ** unit).toFixed(unit);
  return {
    id: item.id,
    name: item.name,
    type: variation ? 'variation' : item.type,
    parent_id: variation ? item.parent : 0,
    status: 'publish',
    permalink: item.permalink,
    sku: item.sku,
    price: major(item.prices.price),
    regular_price: major(item.prices.regular_price),
    sale_price: item.on_sale ? major(item.prices.sale_price) : '',
    on_sale: item.on_sale === true,
    date_modified_gmt: new Date().toISOString().slice(0, 19),
  };
}

function indexWoo(data: StoreData): Map<string, WooEntry> {
  const index = new Map<string, WooEntry>();
  for (const list of ['wooProducts', 'wooVariations'] as const)
    for (const [at, text] of data[list].entries()) {
      const id = (JSON.parse(text) as { id?: unknown }).id;
      if (id !== undefined) index.set(String(id), { list, index: at });
    }
  return index;
}
