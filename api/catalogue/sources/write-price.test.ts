import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createFetcher, type Fetcher, type ResourceRequest } from '../../fetching/fetcher.ts';
import type { StoreAccess } from '../store-access.ts';
import { type FakeStores, guardedDeps, loopbackDeps, METADATA_TARGET, startFakeStores } from './fake-stores.ts';
import type { CatalogueItem, SourceDeps, SourceRead } from './item.ts';
import { readShopify } from './shopify.ts';
import { readWooCommerce } from './woocommerce.ts';
import { mayFollowWrite, priceText, SHOPIFY_API_VERSION, WRITE_REASONS, type WriteResult, writeStorePrice } from './write-price.ts';

const SHOPIFY: StoreAccess = { kind: 'shopify', token: 'shpat_test' };
const WOO: StoreAccess = { kind: 'woocommerce', consumerKey: 'ck_test', consumerSecret: 'cs_test' };
const deps = loopbackDeps();
const withRetries = (retries: number): SourceDeps => ({ ...deps, fetchOptions: { ...deps.fetchOptions, retries } });

let store: FakeStores;
let yen: FakeStores;
let trap: ReturnType<typeof Bun.serve>;
const trapped: string[] = [];

beforeAll(() => {
  store = startFakeStores({ products: 30, adminMaxPrice: 10_000 });
  yen = startFakeStores({ products: 12, currency: 'JPY' });
  // Where a hostile redirect points: another loopback address, which the guard treats as private.
  trap = Bun.serve({
    hostname: '127.0.0.2',
    port: 0,
    fetch(request) {
      trapped.push(`${request.method} ${new URL(request.url).pathname} ${request.headers.get('x-shopify-access-token') ?? ''}`);
      return new Response('{}', { headers: { 'content-type': 'application/json' } });
    },
  });
});
afterAll(() => {
  store.stop();
  yen.stop();
  trap.stop(true);
});

function items(read: SourceRead): CatalogueItem[] {
  if (!read.ok) throw new Error(`read failed: ${read.code}: ${read.reason}`);
  return read.items;
}
const itemOf = async (read: Promise<SourceRead>, id: string) => items(await read).find((item) => item.externalId === id);
const shopifyPut = (id: string) => `PUT /admin/api/${SHOPIFY_API_VERSION}/variants/${id}.json`;
const requestsTo = (fake: FakeStores, from = 0) => fake.adminRequests.slice(from).map((r) => `${r.method} ${r.path}`);

function expectFailure(result: WriteResult, code: string, httpStatus?: number | null) {
  if (result.ok) throw new Error(`expected ${code}, the write succeeded`);
  expect(result.code).toBe(code);
  if (httpStatus !== undefined) expect(result.httpStatus).toBe(httpStatus);
  expect(result.reason.length).toBeGreaterThan(20);
}

describe('writing a price to a Shopify store', () => {
  test('puts the variant with the token, and the next read shows the new price', async () => {
    expect((await itemOf(readShopify(store.origin, deps), '50010'))?.price).toBe(11.99);
    const before = store.adminRequests.length;
    expect(await writeStorePrice(deps, { kind: 'shopify', url: store.origin }, SHOPIFY, '50010', 12.49, 'GBP')).toEqual({ ok: true });
    const [put] = store.adminRequests.slice(before);
    expect(`${put!.method} ${put!.path}`).toBe(shopifyPut('50010'));
    expect(put!.headers['x-shopify-access-token']).toBe('shpat_test');
    expect(put!.headers['content-type']).toBe('application/json');
    expect(put!.body).toBe('{"variant":{"id":50010,"price":"12.49"}}');
    expect(store.adminRequests).toHaveLength(before + 1);

    expect(await itemOf(readShopify(store.origin, deps), '50010')).toMatchObject({ price: 12.49, title: 'Tea & Cake Set' });
    // Only that variant changed: its siblings keep their prices.
    const siblings = items(await readShopify(store.origin, deps)).filter((item) => ['50030', '50031', '50032'].includes(item.externalId));
    expect(siblings.map((item) => item.price)).toEqual([13.99, 14.99, 15.99]);
  });

  test('writes a variant of a product with several, and through a pasted storefront address', async () => {
    const result = await writeStorePrice(deps, { kind: 'shopify', url: `${store.origin}/collections/all/` }, SHOPIFY, '50031', 9.9, 'GBP');
    expect(result).toEqual({ ok: true });
    expect(store.adminRequests.at(-1)!.body).toBe('{"variant":{"id":50031,"price":"9.90"}}');
    expect(await itemOf(readShopify(store.origin, deps), '50031')).toMatchObject({ price: 9.9, variant: 'M / Red' });
  });

  test('a wrong token is refused (401) and nothing changes', async () => {
    const result = await writeStorePrice(deps, { kind: 'shopify', url: store.origin }, { kind: 'shopify', token: 'shpat_wrong' }, '50020', 1.5, 'GBP');
    expectFailure(result, 'access-refused', 401);
    expect(!result.ok && result.reason).toBe(WRITE_REASONS.accessRefused);
    expect((await itemOf(readShopify(store.origin, deps), '50020'))?.price).toBe(12.99);
  });

  test('an unknown variant is not found (404)', async () => {
    const result = await writeStorePrice(deps, { kind: 'shopify', url: store.origin }, SHOPIFY, '999999', 5, 'GBP');
    expectFailure(result, 'not-found', 404);
    expect(!result.ok && result.reason).toBe(WRITE_REASONS.notFound);
  });

  test("a price the store refuses (422) says the store's own words", async () => {
    const result = await writeStorePrice(deps, { kind: 'shopify', url: store.origin }, SHOPIFY, '50020', 20_000, 'GBP');
    expectFailure(result, 'price-refused', 422);
    expect(!result.ok && result.reason).toBe('The store refused the price: price must be less than or equal to 10000.');
  });

  test('an id that is not a Shopify id, a price that is no price, or access for another platform send nothing', async () => {
    const before = store.adminRequests.length;
    const target = { kind: 'shopify' as const, url: store.origin };
    expectFailure(await writeStorePrice(deps, target, SHOPIFY, '../products/1', 5, 'GBP'), 'not-found', null);
    expectFailure(await writeStorePrice(deps, target, SHOPIFY, '50010', 0, 'GBP'), 'invalid-price', null);
    expectFailure(await writeStorePrice(deps, target, SHOPIFY, '50010', -3, 'GBP'), 'invalid-price', null);
    expectFailure(await writeStorePrice(deps, target, SHOPIFY, '50010', Number.NaN, 'GBP'), 'invalid-price', null);
    expectFailure(await writeStorePrice(deps, target, WOO, '50010', 5, 'GBP'), 'wrong-access', null);
    expect(store.adminRequests).toHaveLength(before);
  });
});

describe('writing a price to a WooCommerce store', () => {
  test('a simple product on sale: its regular price is set and the sale ended, as the next read shows', async () => {
    // Product 2001 is on sale at 80% of 6.99.
    expect(await itemOf(readWooCommerce(store.origin, deps), '2001')).toMatchObject({ price: 5.59, regularPrice: 6.99 });
    const before = store.adminRequests.length;
    expect(await writeStorePrice(deps, { kind: 'woocommerce', url: store.origin }, WOO, '2001', 6.5, 'GBP')).toEqual({ ok: true });
    expect(requestsTo(store, before)).toEqual(['GET /wp-json/wc/v3/products/2001', 'PUT /wp-json/wc/v3/products/2001']);
    const put = store.adminRequests.at(-1)!;
    expect(put.headers.authorization).toBe(`Basic ${Buffer.from('ck_test:cs_test').toString('base64')}`);
    expect(JSON.parse(put.body)).toEqual({ regular_price: '6.50', sale_price: '' });
    expect(await itemOf(readWooCommerce(store.origin, deps), '2001')).toMatchObject({ price: 6.5, regularPrice: null });
  });

  test('a variation is written under its parent product', async () => {
    // Product 2004 is variable: variations 100040, 100041 and 100042 (XL, on sale).
    const before = store.adminRequests.length;
    expect(await writeStorePrice(deps, { kind: 'woocommerce', url: store.origin }, WOO, '100042', 11.25, 'GBP')).toEqual({ ok: true });
    expect(requestsTo(store, before)).toEqual(['GET /wp-json/wc/v3/products/100042', 'PUT /wp-json/wc/v3/products/2004/variations/100042']);
    const read = readWooCommerce(store.origin, deps);
    expect(await itemOf(read, '100042')).toMatchObject({ price: 11.25, regularPrice: null, variant: 'XL / Red' });
    expect((await itemOf(readWooCommerce(store.origin, deps), '100040'))?.price).toBe(9.99);
  });

  test('a variable product itself has no price to write', async () => {
    const result = await writeStorePrice(deps, { kind: 'woocommerce', url: store.origin }, WOO, '2004', 10, 'GBP');
    expectFailure(result, 'not-writable', null);
  });

  test('a wrong key is refused (401) before anything is written', async () => {
    const before = store.adminRequests.length;
    const wrong: StoreAccess = { kind: 'woocommerce', consumerKey: 'ck_test', consumerSecret: 'cs_wrong' };
    const result = await writeStorePrice(deps, { kind: 'woocommerce', url: store.origin }, wrong, '2002', 3, 'GBP');
    expectFailure(result, 'access-refused', 401);
    expect(!result.ok && result.reason).toBe(WRITE_REASONS.accessRefused);
    expect(requestsTo(store, before)).toEqual(['GET /wp-json/wc/v3/products/2002']);
  });

  test('an unknown id is not found (404)', async () => {
    const result = await writeStorePrice(deps, { kind: 'woocommerce', url: store.origin }, WOO, '999999', 3, 'GBP');
    expectFailure(result, 'not-found', 404);
    expect(!result.ok && result.reason).toBe(WRITE_REASONS.notFound);
  });
});

describe('a busy store (429)', () => {
  test('fails with a reason to try later when no retry is allowed', async () => {
    const busy = startFakeStores({ products: 3, adminBusy: { times: 1 } });
    try {
      const result = await writeStorePrice(deps, { kind: 'shopify', url: busy.origin }, SHOPIFY, '50010', 12, 'GBP');
      expectFailure(result, 'rate-limited', 429);
      expect(!result.ok && result.reason).toBe(WRITE_REASONS.busy);
      expect(busy.adminRequests).toHaveLength(1);
    } finally {
      busy.stop();
    }
  });

  test('is asked again after the short wait its Retry-After gives ("1.0")', async () => {
    const busy = startFakeStores({ products: 3, adminBusy: { times: 1 } });
    try {
      const started = performance.now();
      expect(await writeStorePrice(withRetries(1), { kind: 'shopify', url: busy.origin }, SHOPIFY, '50010', 12, 'GBP')).toEqual({ ok: true });
      expect(performance.now() - started).toBeGreaterThanOrEqual(950);
      expect(requestsTo(busy)).toEqual([shopifyPut('50010'), shopifyPut('50010')]);
      expect((await itemOf(readShopify(busy.origin, deps), '50010'))?.price).toBe(12);
    } finally {
      busy.stop();
    }
  });

  test('is not asked again when it wants a long wait, nor past the retries allowed', async () => {
    const slow = startFakeStores({ products: 3, adminBusy: { times: 1, retryAfter: '30' } });
    const busier = startFakeStores({ products: 3, adminBusy: { times: 5, retryAfter: '0' } });
    try {
      expectFailure(await writeStorePrice(withRetries(2), { kind: 'woocommerce', url: slow.origin }, WOO, '2001', 5, 'GBP'), 'rate-limited', 429);
      expect(slow.adminRequests).toHaveLength(1);
      expectFailure(await writeStorePrice(withRetries(9), { kind: 'shopify', url: busier.origin }, SHOPIFY, '50010', 5, 'GBP'), 'rate-limited', 429);
      // The first send and at most two more.
      expect(busier.adminRequests).toHaveLength(3);
    } finally {
      slow.stop();
      busier.stop();
    }
  });
});

describe('the address guard', () => {
  const guarded = guardedDeps();

  test('writes through the guard to a store on an allowed address', async () => {
    expect(await writeStorePrice(guarded, { kind: 'shopify', url: store.origin }, SHOPIFY, '50050', 7.77, 'GBP')).toEqual({ ok: true });
  });

  test('a store whose admin API redirects to a private address or the metadata service is refused, and the token never goes there', async () => {
    for (const privateTarget of [`http://127.0.0.2:${trap.port}/admin/api/${SHOPIFY_API_VERSION}/variants/50010.json`, METADATA_TARGET]) {
      const hostile = startFakeStores({ products: 3, misbehave: 'private-redirect', privateTarget });
      try {
        for (const [kind, access] of [
          ['shopify', SHOPIFY],
          ['woocommerce', WOO],
        ] as const) {
          const result = await writeStorePrice(guarded, { kind, url: hostile.origin }, access, '50010', 5, 'GBP');
          expectFailure(result, 'blocked-address', null);
          expect(!result.ok && result.reason).toContain(new URL(privateTarget).hostname);
        }
      } finally {
        hostile.stop();
      }
    }
    expect(trapped).toEqual([]);
  });

  test('a redirect the write may follow is guarded on its hop too', async () => {
    // A custom domain's Admin API sends writes on to the shop's myshopify.com host: here that name leads to a private address.
    const resolved: string[] = [];
    const fetcher = createFetcher({
      resolve: async (host) => {
        resolved.push(host);
        return [{ address: '10.0.0.5', family: 4 }];
      },
      isAllowedAddress: (ip) => ip === '127.0.0.1',
      hostSpacingMs: 0,
    });
    const hostileDeps: SourceDeps = { fetcher, fetchOptions: { allowPrivate: false, retries: 0, timeoutMs: 5_000 }, fallbackCurrency: 'EUR' };
    const moved = startFakeStores({
      products: 3,
      misbehave: 'private-redirect',
      privateTarget: 'https://teashop.myshopify.com/admin/api/2025-01/variants/1.json',
    });
    const elsewhere = startFakeStores({ products: 3, misbehave: 'private-redirect', privateTarget: 'https://collector.example/steal' });
    try {
      expectFailure(await writeStorePrice(hostileDeps, { kind: 'shopify', url: moved.origin }, SHOPIFY, '1', 5, 'GBP'), 'blocked-address', null);
      expect(resolved).toEqual(['teashop.myshopify.com']);
      // Anywhere else the write does not follow at all: the host is not even looked up.
      const result = await writeStorePrice(hostileDeps, { kind: 'shopify', url: elsewhere.origin }, SHOPIFY, '1', 5, 'GBP');
      expectFailure(result, 'redirected', 302);
      expect(!result.ok && result.reason).toContain('https://collector.example');
      expect(resolved).toEqual(['teashop.myshopify.com']);
    } finally {
      moved.stop();
      elsewhere.stop();
    }
  });

  test('a store on a private address is refused before any request', async () => {
    for (const url of ['http://10.0.0.5/', 'http://169.254.169.254/', `http://127.0.0.2:${trap.port}/`]) {
      expectFailure(await writeStorePrice(guarded, { kind: 'shopify', url }, SHOPIFY, '50010', 5, 'GBP'), 'blocked-address', null);
      expectFailure(await writeStorePrice(guarded, { kind: 'woocommerce', url }, WOO, '2001', 5, 'GBP'), 'blocked-address', null);
    }
    expect(trapped).toEqual([]);
  });
});

describe('currencies without decimals', () => {
  test('a yen price is written as a whole number, to Shopify and to WooCommerce', async () => {
    expect(await writeStorePrice(deps, { kind: 'shopify', url: yen.origin }, SHOPIFY, '50010', 1480.4, 'JPY')).toEqual({ ok: true });
    expect(yen.adminRequests.at(-1)!.body).toBe('{"variant":{"id":50010,"price":"1480"}}');
    expect((await itemOf(readShopify(yen.origin, deps), '50010'))?.price).toBe(1480);

    expect(await writeStorePrice(deps, { kind: 'woocommerce', url: yen.origin }, WOO, '2002', 1234.5, 'JPY')).toEqual({ ok: true });
    expect(JSON.parse(yen.adminRequests.at(-1)!.body)).toEqual({ regular_price: '1235', sale_price: '' });
    expect(await itemOf(readWooCommerce(yen.origin, deps), '2002')).toMatchObject({ price: 1235, currency: 'JPY' });
  });

  test('amounts are written with their currency’s decimals, rounded half up', () => {
    expect(priceText(12.99, 'GBP')).toBe('12.99');
    expect(priceText(1.005, 'EUR')).toBe('1.01');
    expect(priceText(12, 'USD')).toBe('12.00');
    expect(priceText(1499.5, 'JPY')).toBe('1500');
    expect(priceText(12.3456, 'KWD')).toBe('12.346');
    expect([priceText(0, 'GBP'), priceText(0.004, 'GBP'), priceText(-1, 'GBP'), priceText(Number.POSITIVE_INFINITY, 'GBP')]).toEqual([null, null, null, null]);
  });
});

describe('where a write goes', () => {
  /** A fetcher that answers every request as given, recording where each went. */
  function answering(body: unknown, status = 200) {
    const seen: ResourceRequest[] = [];
    const fetcher: Fetcher = {
      fetchPage: async () => ({ ok: false, code: 'bad-url', reason: 'not used here' }),
      fetchResource: async (request) => {
        seen.push(request);
        return { ok: true, url: request.url, status, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(body)) };
      },
    };
    return { seen, deps: { fetcher, fetchOptions: { retries: 0 }, fallbackCurrency: 'GBP' } satisfies SourceDeps };
  }

  test('over https to the root of the store, whatever address the storefront was connected with', async () => {
    const { seen, deps: answered } = answering({ variant: { id: 1, price: '12.99' } });
    expect(await writeStorePrice(answered, { kind: 'shopify', url: 'http://teashop.example/collections/all' }, SHOPIFY, '1', 12.99, 'GBP')).toEqual({
      ok: true,
    });
    expect(await writeStorePrice(answered, { kind: 'shopify', url: 'teashop.example' }, SHOPIFY, '1', 12.99, 'GBP')).toEqual({ ok: true });
    expect(seen.map((request) => `${request.method} ${request.url} ${request.followRedirects}`)).toEqual([
      `PUT https://teashop.example/admin/api/${SHOPIFY_API_VERSION}/variants/1.json false`,
      `PUT https://teashop.example/admin/api/${SHOPIFY_API_VERSION}/variants/1.json false`,
    ]);
  });

  test('a store that answers without taking the price is not a success', async () => {
    const { deps: kept } = answering({ variant: { id: 1, price: '15.00' } });
    const result = await writeStorePrice(kept, { kind: 'shopify', url: 'https://teashop.example' }, SHOPIFY, '1', 12.99, 'GBP');
    expectFailure(result, 'not-applied', 200);
    expect(!result.ok && result.reason).toContain('15.00');
    const { deps: page } = answering('<html>a shop</html>');
    expectFailure(await writeStorePrice(page, { kind: 'shopify', url: 'https://teashop.example' }, SHOPIFY, '1', 12.99, 'GBP'), 'not-a-catalogue', 200);
  });

  test('redirects are followed with the credentials only where they belong', () => {
    const from = new URL('https://teashop.example/admin/api/2025-01/variants/1.json');
    const follows = (kind: 'shopify' | 'woocommerce', to: string, start = from) => mayFollowWrite(kind, start, new URL(to));
    expect(follows('shopify', 'https://teashop.example/admin/api/2025-01/variants/1.json?x=1')).toBe(true);
    expect(follows('woocommerce', 'https://www.teashop.example/wp-json/wc/v3/products/1')).toBe(true);
    expect(follows('shopify', 'https://teashop-uk.myshopify.com/admin/api/2025-01/variants/1.json')).toBe(true);
    // Not down to http, not to another host, not to myshopify.com for WooCommerce, not on another port.
    expect(follows('shopify', 'http://teashop.example/admin/api/2025-01/variants/1.json')).toBe(false);
    expect(follows('shopify', 'https://collector.example/')).toBe(false);
    expect(follows('shopify', 'https://teashop.example.collector.example/')).toBe(false);
    expect(follows('woocommerce', 'https://teashop-uk.myshopify.com/')).toBe(false);
    expect(follows('shopify', 'https://teashop-uk.myshopify.com:8443/')).toBe(false);
    expect(follows('woocommerce', 'https://www.teashop.example:8443/')).toBe(false);
    expect(follows('shopify', 'https://a.b.myshopify.com/')).toBe(false);
    // A loopback test store may stay on http, on its own origin only.
    const local = new URL('http://127.0.0.1:4000/admin');
    expect(follows('shopify', 'http://127.0.0.1:4000/admin/x', local)).toBe(true);
    expect(follows('shopify', 'http://127.0.0.2:4000/admin/x', local)).toBe(false);
  });
});
