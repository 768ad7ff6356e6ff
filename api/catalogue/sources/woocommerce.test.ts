import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { type FakeStores, guardedDeps, loopbackDeps, startFakeStores } from './fake-stores.ts';
import type { CatalogueItem, SourceRead } from './item.ts';
import { readSource } from './read-source.ts';
import { readWooCommerce } from './woocommerce.ts';

let store: FakeStores;
const deps = loopbackDeps();

beforeAll(() => {
  store = startFakeStores({ products: 250 });
});
afterAll(() => store.stop());

function items(read: SourceRead): CatalogueItem[] {
  if (!read.ok) throw new Error(`read failed: ${read.code}: ${read.reason}`);
  return read.items;
}
const byId = (list: CatalogueItem[], id: string) => list.find((item) => item.externalId === id);
const api = '/wp-json/wc/store/v1/products';

describe('a WooCommerce store', () => {
  test('is read page by page as X-WP-TotalPages says, variations from their own paged listing', async () => {
    const read = await readWooCommerce(store.origin, deps);
    const list = items(read);
    // 250 products: 62 variable ones (every fourth) with three variations each, 188 simple ones.
    expect(list).toHaveLength(188 + 62 * 3);
    expect(read.ok && read.skipped).toEqual([]);
    for (const page of [1, 2, 3]) expect(store.hits.get(`${api}?per_page=100&page=${page}`)).toBe(1);
    expect(store.hits.get(`${api}?per_page=100&page=4`)).toBeUndefined();
    for (const page of [1, 2]) expect(store.hits.get(`${api}?type=variation&per_page=100&page=${page}`)).toBe(1);
    expect(store.hits.get(`${api}?type=variation&per_page=100&page=3`)).toBeUndefined();
    // A variable product is not an item itself; its variations follow where it stood.
    expect(byId(list, '2004')).toBeUndefined();
    expect(list.slice(2, 6).map((item) => item.externalId)).toEqual(['2003', '100040', '100041', '100042']);
  });

  test('reads prices in minor units, the sale price as the price and the regular one beside it', async () => {
    const list = items(await readWooCommerce(store.origin, deps));
    expect(byId(list, '2001')).toEqual({
      externalId: '2001',
      title: 'Tea & Cake',
      variant: null,
      sku: 'W-1',
      gtin: null,
      mpn: null,
      brand: null,
      price: 5.59,
      currency: 'GBP',
      regularPrice: 6.99,
      url: `${store.origin}/product/woo-product-1/`,
      imageUrl: `${store.origin}/wp-content/uploads/p1.jpg`,
      availability: 'InStock',
    });
    expect(byId(list, '2002')).toMatchObject({ price: 7.99, regularPrice: null, brand: 'Acme & Sons' });
  });

  test('names each variation by its attributes and links it to its own address', async () => {
    const list = items(await readWooCommerce(store.origin, deps));
    const variations = ['100040', '100041', '100042'].map((id) => byId(list, id)!);
    expect(variations.map((item) => [item.title, item.variant, item.sku, item.price, item.regularPrice])).toEqual([
      ['Woo product 4', 'S / Red', 'W-4-s', 9.99, null],
      ['Woo product 4', 'M / Red', 'W-4-m', 10.99, null],
      ['Woo product 4', 'XL / Red', 'W-4-xl', 9.99, 11.99],
    ]);
    expect(variations[0].url).toBe(`${store.origin}/product/woo-product-4/?attribute_pa_size=s&attribute_colour=Red`);
    expect(variations[0].imageUrl).toBe(`${store.origin}/wp-content/uploads/p4-s.jpg`);
    // Without an image of its own a variation shows its product's, and carries its product's brand.
    expect(variations[1]).toMatchObject({ imageUrl: `${store.origin}/wp-content/uploads/p4.jpg`, brand: 'Acme & Sons' });
  });

  test('reads stock: in stock, sold out, on backorder', async () => {
    const list = items(await readWooCommerce(store.origin, deps));
    expect(byId(list, '2009')?.availability).toBe('OutOfStock');
    expect(byId(list, '2013')?.availability).toBe('BackOrder');
    expect(byId(list, '100081')?.availability).toBe('OutOfStock');
    expect(byId(list, '2003')?.availability).toBe('InStock');
  });

  test('a currency without decimals (JPY, minor unit 0)', async () => {
    const yen = startFakeStores({ products: 4, currency: 'JPY' });
    try {
      const list = items(await readWooCommerce(yen.origin, deps));
      expect(byId(list, '2001')).toMatchObject({ price: 808, regularPrice: 1010, currency: 'JPY' });
      expect(byId(list, '2002')).toMatchObject({ price: 1020, regularPrice: null });
      expect(byId(list, '100042')).toMatchObject({ price: 1040, regularPrice: 1042, variant: 'XL / Red' });
    } finally {
      yen.stop();
    }
  });

  test('finds the Store API at the site’s root when a page of the shop was given', async () => {
    const list = items(await readSource('woocommerce', `${store.origin}/shop/`, deps));
    expect(list).toHaveLength(374);
    expect(store.hits.get(`/shop/wp-json/wc/store/v1/products?per_page=100&page=1`)).toBe(1);
  });

  test('fails as too many from the totals the store states, before reading every page', async () => {
    const big = startFakeStores({ products: 20_001 });
    try {
      const read = await readWooCommerce(big.origin, deps);
      expect(read).toMatchObject({ ok: false, code: 'too-many-items', httpStatus: null });
      expect([...big.hits.keys()]).toEqual([`${api}?per_page=100&page=1`]);
    } finally {
      big.stop();
    }
    // 16,000 products: 12,000 simple ones and 4,000 variable ones with 12,000 variations.
    const variable = startFakeStores({ products: 16_000 });
    try {
      expect(await readWooCommerce(variable.origin, deps)).toMatchObject({ ok: false, code: 'too-many-items' });
      expect(variable.hits.get(`${api}?type=variation&per_page=100&page=1`)).toBe(1);
      expect(variable.hits.get(`${api}?type=variation&per_page=100&page=2`)).toBeUndefined();
    } finally {
      variable.stop();
    }
  });

  test('skips entries without an id, a title or a price, with the reason', async () => {
    const broken = startFakeStores({ products: 1, brokenItems: true });
    try {
      const read = await readWooCommerce(broken.origin, deps);
      expect(read.ok && read.items.map((item) => item.externalId)).toEqual(['2001']);
      expect(read.ok && read.skipped).toEqual([
        { id: 'entry 4', reason: 'The store lists it without an id.' },
        { id: '800001', reason: 'It has no title.' },
        { id: '800002', reason: 'It has no price.' },
      ]);
    } finally {
      broken.stop();
    }
  });
});

describe('an address that is not a WooCommerce store', () => {
  test('a web page instead of the Store API', async () => {
    const site = startFakeStores({ misbehave: 'html' });
    try {
      const read = await readWooCommerce(site.origin, deps);
      expect(read).toMatchObject({ ok: false, code: 'not-a-catalogue' });
      expect(!read.ok && read.reason).toStartWith(`${site.origin} does not answer like a WooCommerce store: it sent a web page (text/html)`);
      expect(!read.ok && read.reason).toContain('WooCommerce is active');
    } finally {
      site.stop();
    }
  });

  test('no Store API at all', async () => {
    const site = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: () => new Response('<h1>Not found</h1>', { status: 404, headers: { 'content-type': 'text/html' } }),
    });
    try {
      const read = await readWooCommerce(`http://127.0.0.1:${site.port}`, deps);
      expect(read).toMatchObject({ ok: false, code: 'not-a-catalogue', httpStatus: 404 });
      expect(!read.ok && read.reason).toContain('it has no WooCommerce Store API at /wp-json/wc/store/v1/products (HTTP 404)');
    } finally {
      site.stop(true);
    }
  });

  test('malformed JSON', async () => {
    const site = startFakeStores({ misbehave: 'malformed' });
    try {
      const read = await readWooCommerce(site.origin, deps);
      expect(read).toMatchObject({ ok: false, code: 'not-a-catalogue' });
      expect(!read.ok && read.reason).toContain('its product list is not valid JSON');
    } finally {
      site.stop();
    }
  });

  test('a server error is reported with its status', async () => {
    const site = startFakeStores({ misbehave: 'server-error' });
    try {
      expect(await readWooCommerce(site.origin, deps)).toMatchObject({ ok: false, code: 'http-status', httpStatus: 500 });
    } finally {
      site.stop();
    }
  });

  test('a redirect to a private address is not followed', async () => {
    const site = startFakeStores({ misbehave: 'private-redirect', privateTarget: 'http://10.0.0.1/wp-json/wc/store/v1/products' });
    try {
      const read = await readWooCommerce(site.origin, guardedDeps());
      expect(read).toMatchObject({ ok: false, code: 'blocked-address' });
      expect(!read.ok && read.reason).toContain('10.0.0.1 leads to a private or internal network address');
    } finally {
      site.stop();
    }
  });
});
