// Writes a price to the owner's own store with the write access the owner gave: Shopify's Admin
// REST API (PUT variants/{id}.json, X-Shopify-Access-Token) or WooCommerce's REST API v3 (Basic
// auth with a consumer key and secret; a variation is written under its parent product).
//
// Every request goes through the fetcher's fetchResource, the path channel deliveries use for
// their own credentialed requests: the same address guard as reads (private, internal and metadata
// addresses refused, the connection pinned to the checked addresses), time and size limits. What is
// stricter for a request that carries the owner's credentials:
// - it goes over https (only a loopback test store may use http), so WooCommerce's Basic auth and
//   the Admin API token never cross the network in clear;
// - redirects are not followed by the fetcher but here, one hop at a time, each hop guarded again,
//   and only where the credentials belong: the same origin, the same host with or without "www.",
//   or for Shopify the store's own https://<name>.myshopify.com (a custom domain's Admin API
//   redirects there). Anywhere else the request stops and nothing is sent there;
// - a request that got an answer is sent again only on a 429 or 503 that asks for a short wait.

import { currencyDecimals } from '../../../domain/money.ts';
import { failures } from '../../../domain/check-failures.ts';
import { hostnameOf, isBlockedAddress, isCloudMetadataAddress, parseAddress, validateTargetUrl } from '../../fetching/address-guard.ts';
import { parseRetryAfter } from '../../fetching/fetch-errors.ts';
import type { FetchedResource } from '../../fetching/fetcher.ts';
import type { StoreAccess } from '../store-access.ts';
import { cleanText, roundAmount, type SourceDeps, type SourceFailure, sourceAddress, sourceFailures } from './item.ts';

export type WritableKind = 'shopify' | 'woocommerce';
export type WriteTarget = { kind: WritableKind /** The store address as connected. */; url: string };
export type WriteResult = { ok: true } | SourceFailure;

export const SHOPIFY_API_VERSION = '2025-01';
/** The longest Retry-After a write waits for before sending again; a longer one fails the write. */
export const MAX_WRITE_RETRY_AFTER_MS = 5_000;
/** More sends of one request than this never happen, whatever the deps' retries say. */
const MAX_WRITE_RETRIES = 2;
const MAX_HOPS = 3;
const ANSWER_BYTES = 1024 * 1024;

export const WRITE_REASONS = {
  accessRefused: 'The store refused the access token: check it in Settings.',
  notFound: 'The store has no such product any more.',
  busy: 'The store is busy (429): try again later.',
} as const;

/**
 * Sets the price of one of the owner's products in their store. `externalId` is the product's id
 * in the catalogue (Shopify variant id; WooCommerce product or variation id), `price` in major
 * units of `currency`, written with that currency's decimals (JPY none). Succeeds only when the
 * store echoes the new price back.
 */
export async function writeStorePrice(
  deps: SourceDeps,
  target: WriteTarget,
  access: StoreAccess,
  externalId: string,
  price: number,
  currency: string,
): Promise<WriteResult> {
  if (access.kind !== target.kind)
    return refusal('wrong-access', `The access saved is for a ${platformName(access.kind)} store, not ${platformName(target.kind)}: set it again in Settings.`);
  // Ids go into the request's path: only the store's own numeric ids may.
  if (!/^\d{1,20}$/.test(externalId)) return refusal('not-found', WRITE_REASONS.notFound);
  const amount = priceText(price, currency);
  if (amount === null) return refusal('invalid-price', `The price ${price} ${currency} cannot be written: a price must be more than 0.`);
  const address = writeAddress(target.url);
  if ('ok' in address) return address;
  return target.kind === 'shopify' && access.kind === 'shopify'
    ? writeShopify(deps, address, access.token, externalId, amount)
    : access.kind === 'woocommerce'
      ? writeWooCommerce(deps, address, access, externalId, amount)
      : refusal('wrong-access', 'The access saved does not fit this store: set it again in Settings.');
}

// ---------------------------------------------------------------------------------------
// Amounts

/** "12.99", "1500" (JPY), "12.345" (KWD); null for an amount that is not a price (0 once rounded, negative, not finite). */
export function priceText(price: number, currency: string): string | null {
  if (!Number.isFinite(price) || price <= 0) return null;
  const decimals = currencyDecimals(currency);
  const scale = 10 ** decimals;
  // roundAmount first: 1.005 * 100 is 100.49999999999999, which should round up.
  const minor = Math.round(roundAmount(price * scale));
  return minor > 0 && Number.isSafeInteger(minor) ? (minor / scale).toFixed(decimals) : null;
}

const sameAmount = (echoed: unknown, sent: string) =>
  (typeof echoed === 'string' || typeof echoed === 'number') && String(echoed).trim() !== '' && Math.abs(Number(echoed) - Number(sent)) < 1e-9;

// ---------------------------------------------------------------------------------------
// Shopify

async function writeShopify(deps: SourceDeps, address: URL, token: string, variantId: string, amount: string): Promise<WriteResult> {
  // The Admin API lives at the root of the store's host, whatever path the storefront was connected with.
  const url = `${address.origin}/admin/api/${SHOPIFY_API_VERSION}/variants/${variantId}.json`;
  const sent = await send(deps, 'shopify', {
    url,
    method: 'PUT',
    headers: { 'x-shopify-access-token': token, 'content-type': 'application/json', accept: 'application/json' },
    // The id as written in the path, digits only: no precision lost on the way through a number.
    body: `{"variant":{"id":${variantId},"price":"${amount}"}}`,
  });
  if (!sent.ok) return sent;
  const answer = answerOf(sent);
  if (answer.status === 200 || answer.status === 201) {
    const variant = field(answer.json, 'variant');
    if (variant === undefined) return notAnApi(address, 'shopify', answer.status);
    const echoed = field(variant, 'price');
    return sameAmount(echoed, amount) ? { ok: true } : notApplied(echoed, answer.status);
  }
  if (answer.status === 403)
    return refusal(
      'access-refused',
      'The access token may not change products: give it the write_products permission in Shopify, then check it in Settings.',
      403,
    );
  if (answer.status === 400 || answer.status === 422)
    return refusal('price-refused', `The store refused the price: ${shopifyErrors(answer.json) ?? `HTTP ${answer.status}`}.`, answer.status);
  return statusFailure(answer.status);
}

/** Shopify's `errors`: a sentence, or messages by field ({"price":["must be greater than or equal to 0"]}). */
function shopifyErrors(body: unknown): string | null {
  const errors = field(body, 'errors');
  if (typeof errors === 'string') return cleanText(errors, 200);
  if (Array.isArray(errors)) return cleanText(errors.filter((e) => typeof e === 'string').join('; '), 200);
  if (typeof errors !== 'object' || errors === null) return null;
  const parts = Object.entries(errors).map(([name, messages]) => `${name} ${(Array.isArray(messages) ? messages : [messages]).map(String).join(', ')}`);
  return cleanText(parts.join('; '), 200);
}

// ---------------------------------------------------------------------------------------
// WooCommerce

type WooAccess = Extract<StoreAccess, { kind: 'woocommerce' }>;
type WooEndpoint = (route: string) => string;

async function writeWooCommerce(deps: SourceDeps, address: URL, access: WooAccess, id: string, amount: string): Promise<WriteResult> {
  const headers = {
    authorization: `Basic ${Buffer.from(`${access.consumerKey}:${access.consumerSecret}`, 'utf8').toString('base64')}`,
    accept: 'application/json',
  };
  // First what the id is: a variation is written under its parent product.
  const found = await findProduct(deps, address, headers, id);
  if ('ok' in found) return found;
  const { endpoint, product } = found;
  const type = field(product, 'type');
  const parentId = field(product, 'parent_id');
  if (type === 'variable') return refusal('not-writable', 'The store sells this product in variations: each variation has its own price.');
  if (type === 'grouped') return refusal('not-writable', 'This is a grouped product, which has no price of its own in the store.');
  const variation = type === 'variation' && typeof parentId === 'number' && parentId > 0;
  const route = variation ? `/products/${parentId}/variations/${id}` : `/products/${id}`;
  const sent = await send(deps, 'woocommerce', {
    url: endpoint(route),
    method: 'PUT',
    headers: { ...headers, 'content-type': 'application/json' },
    // The regular price, with any sale ended: what a buyer pays is then the price written.
    body: JSON.stringify({ regular_price: amount, sale_price: '' }),
  });
  if (!sent.ok) return sent;
  const answer = answerOf(sent);
  if (answer.status === 200 || answer.status === 201) {
    if (field(answer.json, 'id') === undefined) return notAnApi(address, 'woocommerce', answer.status);
    const echoed = field(answer.json, 'regular_price');
    return sameAmount(echoed, amount) ? { ok: true } : notApplied(echoed, answer.status);
  }
  // The key could read the product but not change it: a key made with Read permission only.
  if (answer.status === 401 || answer.status === 403)
    return refusal('access-refused', `${WRITE_REASONS.accessRefused} The key needs Read/Write permission.`, answer.status);
  return wooFailure(answer);
}

/**
 * GET /wc/v3/products/{id}, where WordPress answers it: below the path the store was connected with,
 * at the host's root, or at ?rest_route= on a site without pretty permalinks; the next place is
 * tried while the answer is "no such route".
 */
async function findProduct(
  deps: SourceDeps,
  address: URL,
  headers: Record<string, string>,
  id: string,
): Promise<{ endpoint: WooEndpoint; product: unknown } | SourceFailure> {
  const path = address.pathname.replace(/\/+$/, '');
  const roots = path ? [`${address.origin}${path}`, address.origin] : [address.origin];
  const endpoints: WooEndpoint[] = [
    ...roots.map((root) => (route: string) => `${root}/wp-json/wc/v3${route}`),
    ...roots.map((root) => (route: string) => `${root}/?rest_route=/wc/v3${route}`),
  ];
  let status = 404;
  for (const endpoint of endpoints) {
    const sent = await send(deps, 'woocommerce', { url: endpoint(`/products/${id}`), method: 'GET', headers });
    if (!sent.ok) return sent;
    const answer = answerOf(sent);
    if (answer.status === 200) {
      if (field(answer.json, 'id') === undefined) return notAnApi(address, 'woocommerce', 200);
      return { endpoint, product: answer.json };
    }
    const code = field(answer.json, 'code');
    // WordPress without WooCommerce's REST API here: "rest_no_route", or a web page's 404.
    const noRoute = answer.status === 404 && (code === 'rest_no_route' || typeof code !== 'string');
    if (!noRoute) return wooFailure(answer);
    status = answer.status;
  }
  return sourceFailures.notACatalogue(
    address.origin,
    "a WooCommerce store's REST API",
    'it has no /wp-json/wc/v3. Check that this is the shop’s own address and that WooCommerce is active.',
    status,
  );
}

/** WooCommerce's errors: {"code":"woocommerce_rest_…","message":"…","data":{"status":…,"params":{…}}}. */
function wooFailure(answer: Answer): SourceFailure {
  if (answer.status === 400 || answer.status === 422) {
    const params = field(field(answer.json, 'data'), 'params');
    const details = typeof params === 'object' && params !== null ? Object.values(params).filter((v) => typeof v === 'string') : [];
    const said = cleanText([field(answer.json, 'message'), ...details].filter((v) => typeof v === 'string').join(' '), 200);
    return refusal('price-refused', `The store refused the price: ${said ?? `HTTP ${answer.status}`}${said && /[.!?]$/.test(said) ? '' : '.'}`, answer.status);
  }
  return statusFailure(answer.status);
}

// ---------------------------------------------------------------------------------------
// Answers and failures

type Answer = { status: number; headers: Record<string, string>; json: unknown };

function answerOf(resource: FetchedResource): Answer {
  const text = resource.body.toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: resource.status, headers: resource.headers, json };
}

const field = (value: unknown, name: string): unknown =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>)[name] : undefined;

const refusal = (code: string, reason: string, httpStatus: number | null = null): SourceFailure => ({ ok: false, code, reason, httpStatus });

function statusFailure(status: number): SourceFailure {
  if (status === 401) return refusal('access-refused', WRITE_REASONS.accessRefused, 401);
  if (status === 404 || status === 410) return refusal('not-found', WRITE_REASONS.notFound, status);
  if (status === 429) return refusal('rate-limited', WRITE_REASONS.busy, 429);
  if (status >= 500) return refusal('store-error', `The store's server had a problem (HTTP ${status}): try again later.`, status);
  if (status >= 300 && status < 400)
    return refusal('redirected', `The store sent the request elsewhere (HTTP ${status}), so the price was not written.`, status);
  return refusal('http-status', `The store answered with an unexpected status (HTTP ${status}), so the price was not written.`, status);
}

function notApplied(echoed: unknown, status: number): SourceFailure {
  const kept = typeof echoed === 'string' || typeof echoed === 'number' ? ` at ${String(echoed).slice(0, 20)}` : '';
  return refusal('not-applied', `The store answered, but kept the price${kept}: check the product in the store.`, status);
}

const notAnApi = (address: URL, kind: WritableKind, status: number) =>
  sourceFailures.notACatalogue(
    address.origin,
    kind === 'shopify' ? "a Shopify store's Admin API" : "a WooCommerce store's REST API",
    'its answer to the price change is not the platform’s. Check the store’s address.',
    status,
  );

const platformName = (kind: string) => (kind === 'shopify' ? 'Shopify' : kind === 'woocommerce' ? 'WooCommerce' : kind);

// ---------------------------------------------------------------------------------------
// Sending

/** The connected address, over https unless it is a loopback test store. */
function writeAddress(input: string): URL | SourceFailure {
  const address = sourceAddress(input);
  if (!('href' in address)) return address;
  if (address.protocol === 'http:' && !isLoopbackHost(address)) address.protocol = 'https:';
  return address;
}

/** Written as this machine: a test store. The address guard still decides whether it may be visited. */
function isLoopbackHost(url: URL): boolean {
  const host = hostnameOf(url).toLowerCase();
  if (host === 'localhost') return true;
  const ip = parseAddress(host);
  return ip !== undefined && ip.range() === 'loopback';
}

/**
 * Whether a write may follow a redirect from `from` to `to` with its credentials: over https (or
 * between loopback addresses), to the same origin, the same host with or without "www.", or for
 * Shopify to a *.myshopify.com host, where a custom domain's Admin API sends its requests.
 */
export function mayFollowWrite(kind: WritableKind, from: URL, to: URL): boolean {
  if (to.protocol !== 'https:' && !(to.protocol === 'http:' && isLoopbackHost(to) && from.protocol === 'http:')) return false;
  if (to.username || to.password) return false;
  if (to.origin === from.origin) return true;
  const bare = (url: URL) => url.hostname.toLowerCase().replace(/^www\./, '');
  if (to.port === from.port && bare(to) === bare(from) && (to.protocol === from.protocol || to.protocol === 'https:')) return true;
  return kind === 'shopify' && !to.port && /^[a-z\d][a-z\d-]*\.myshopify\.com\.?$/i.test(to.hostname);
}

type WriteRequest = { url: string; method: 'GET' | 'PUT'; headers: Record<string, string>; body?: string };

/**
 * One request with its answer of any status (a refusal's body tells why), redirects followed only
 * as mayFollowWrite allows, each hop through the fetcher's guard, and sent again only on a 429 or
 * 503 asking for at most MAX_WRITE_RETRY_AFTER_MS.
 */
async function send(deps: SourceDeps, kind: WritableKind, request: WriteRequest): Promise<FetchedResource | SourceFailure> {
  const fetchResource = deps.fetcher.fetchResource;
  if (!fetchResource) return refusal('unsupported', 'Pricewatch cannot write to stores from here.');
  const options = { ...deps.fetchOptions, maxBytes: ANSWER_BYTES };
  const retries = Math.min(Math.max(deps.fetchOptions.retries ?? 1, 0), MAX_WRITE_RETRIES);
  let url = new URL(request.url);
  for (let hop = 0, attempt = 0; ; ) {
    const answer = await fetchResource(
      {
        url: url.href,
        method: request.method,
        headers: request.headers,
        body: request.body === undefined ? null : Buffer.from(request.body, 'utf8'),
        followRedirects: false,
        // A redirect's hop is held to the web ports, as a read's redirects are.
        document: hop > 0,
      },
      options,
    );
    if (!answer.ok) return sourceFailures.fetch(answer);
    const location = answer.headers.location;
    if ([301, 302, 307, 308].includes(answer.status) && location) {
      const next = redirectTarget(kind, url, location, answer.status);
      if ('ok' in next) return next;
      if (++hop > MAX_HOPS) return sourceFailures.fetch(failures.tooManyRedirects(MAX_HOPS));
      url = next;
      continue;
    }
    const wait = answer.status === 429 || answer.status === 503 ? retryAfterMs(answer.headers['retry-after']) : null;
    if (wait !== null && wait <= MAX_WRITE_RETRY_AFTER_MS && attempt < retries) {
      attempt++;
      await Bun.sleep(wait);
      continue;
    }
    return answer;
  }
}

function redirectTarget(kind: WritableKind, from: URL, location: string, status: number): URL | SourceFailure {
  let to: URL;
  try {
    to = new URL(location, from);
  } catch {
    return sourceFailures.fetch(failures.badUrl('The store redirected to an address that is not valid.'));
  }
  const checked = validateTargetUrl(to.href);
  if (!checked.ok) return sourceFailures.fetch(checked);
  if (mayFollowWrite(kind, from, to)) return to;
  const host = hostnameOf(to);
  // An internal address is named as the guard names it; the request never goes there either way.
  if (parseAddress(host) ? isBlockedAddress(host) || isCloudMetadataAddress(host) : /(^|\.)localhost\.?$/i.test(host))
    return sourceFailures.fetch(failures.blockedAddress(host));
  return refusal(
    'redirected',
    `The store sent the request on to ${to.origin}, so Pricewatch did not send your access there. If the store has moved, connect it with its new address.`,
    status,
  );
}

/** Retry-After in milliseconds: seconds (Shopify writes "2.0"), or an HTTP date. */
function retryAfterMs(value: string | undefined): number | null {
  if (value && /^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.ceil(Number(value) * 1000);
  return parseRetryAfter(value);
}
