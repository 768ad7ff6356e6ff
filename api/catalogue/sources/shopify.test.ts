import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { ean13, type FakeStores, guardedDeps, loopbackDeps, startFakeStores } from './fake-stores.ts';
import type { CatalogueItem, SourceRead } from './item.ts';
import { readSource } from './read-source.ts';
import { readShopify } from './shopify.ts';

let store: FakeStores;
const deps = loopbackDeps();

beforeAll(() => {
  store = startFakeStores({ products: 600 });
});
afterAll(() => store.stop());

function items(read: SourceRead): CatalogueItem[] {
  if (!read.ok) throw new Error(`read failed: ${read.code}: ${read.reason}`);
  return read.items;
}
const byId = (list: CatalogueItem[], id: string) => list.find((item) => item.externalId === id);

describe('a Shopify store', () => {
  test('is read page by page at 250 products, one item per variant', async () => {
    const read = await readShopify(store.origin, deps);
    const list = items(read);
    // 600 products: every third has three variants, the others one.
    expect(list).toHaveLength(200 * 3 + 400);
    expect(read.ok && read.skipped).toEqual([]);
    for (const page of [1, 2, 3]) expect(store.hits.get(`/products.json?limit=250&page=${page}`)).toBe(1);
    // The third page held fewer than 250 products: there is no fourth request.
    expect(store.hits.get('/products.json?limit=250&page=4')).toBeUndefined();
  });

  test("a pasted product or collection page finds its store's listing", async () => {
    for (const pasted of [`${store.origin}/products/product-1?variant=50010`, `${store.origin}/collections/all/`]) {
      expect(items(await readShopify(pasted, deps)).length).toBe(items(await readShopify(store.origin, deps)).length);
    }
  });

  test('maps a product without options to one item without a variant name', async () => {
    const list = items(await readShopify(store.origin, deps));
    expect(byId(list, '50010')).toEqual({
      externalId: '50010',
      title: 'Tea & Cake Set',
      variant: null,
      sku: 'SKU-1-0',
      gtin: null, // "INT-1" is not a GTIN
      mpn: null,
      brand: 'Brand 1',
      price: 11.99,
      currency: 'GBP',
      regularPrice: null, // a compare-at price equal to the price is no sale
      url: `${store.origin}/products/product-1?variant=50010`,
      imageUrl: 'https://cdn.shopify.com/s/files/1/0001/products/product-1.jpg',
      availability: 'InStock',
    });
  });

  test('names variants, links each to its own page and takes its own image when it has one', async () => {
    const list = items(await readShopify(store.origin, deps));
    const variants = ['50030', '50031', '50032'].map((id) => byId(list, id)!);
    expect(variants.map((item) => [item.title, item.variant, item.price])).toEqual([
      ['Shopify product 3', 'S / Red', 13.99],
      ['Shopify product 3', 'M / Red', 14.99],
      ['Shopify product 3', 'L / Red', 15.99],
    ]);
    expect(variants[1].url).toBe(`${store.origin}/products/product-3?variant=50031`);
    expect(variants[1].imageUrl).toBe('https://cdn.shopify.com/s/files/1/0001/products/product-3-m.jpg');
    expect(variants[0].imageUrl).toBe('https://cdn.shopify.com/s/files/1/0001/products/product-3.jpg');
  });

  test('reads compare-at prices, barcodes and availability', async () => {
    const list = items(await readShopify(store.origin, deps));
    expect(byId(list, '50100')).toMatchObject({ price: 20.99, regularPrice: 25.99, gtin: `0${ean13(100)}` });
    expect(byId(list, '50110')?.availability).toBe('OutOfStock');
  });

  test('takes the currency from meta.json, else cart.js, else the owner’s', async () => {
    const cartOnly = startFakeStores({ products: 3, currency: 'usd', shopifyCurrencyAt: 'cart.js' });
    const nowhere = startFakeStores({ products: 3, shopifyCurrencyAt: 'nowhere' });
    try {
      expect(items(await readShopify(cartOnly.origin, deps))[0].currency).toBe('USD');
      expect(cartOnly.hits.get('/meta.json')).toBe(1);
      expect(cartOnly.hits.get('/cart.js')).toBe(1);
      expect(items(await readShopify(nowhere.origin, loopbackDeps('sek')))[0].currency).toBe('SEK');
    } finally {
      cartOnly.stop();
      nowhere.stop();
    }
  });

  test('reads the store at its root whatever page of it was given', async () => {
    const list = items(await readSource('shopify', `${store.origin}/collections/all?sort=price`, deps));
    expect(list).toHaveLength(1000);
  });

  test('fails as too many when the variants pass the limit', async () => {
    // 12,001 products: 4,000 with three variants and 8,001 with one, 20,001 items.
    const big = startFakeStores({ products: 12_001 });
    try {
      const read = await readShopify(big.origin, deps);
      expect(read).toMatchObject({ ok: false, code: 'too-many-items', httpStatus: null });
      expect(!read.ok && read.reason).toContain('more than 20,000 items');
      expect(big.hits.get('/products.json?limit=250&page=49')).toBe(1);
      expect(big.hits.get('/meta.json')).toBeUndefined();
    } finally {
      big.stop();
    }
  });

  test('skips entries without a title, a price or variants, with the reason', async () => {
    const broken = startFakeStores({ products: 2, brokenItems: true });
    try {
      const read = await readShopify(broken.origin, deps);
      expect(read.ok && read.items.map((item) => item.externalId)).toEqual(['50010', '50020']);
      expect(read.ok && read.skipped).toEqual([
        { id: '900003', reason: 'The store lists it without variants.' },
        { id: '990001', reason: 'It has no title.' },
        { id: '990002', reason: 'Its price “call us” cannot be read.' },
      ]);
    } finally {
      broken.stop();
    }
  });
});

describe('an address that is not a Shopify store', () => {
  const misbehaving = (misbehave: 'html' | 'malformed' | 'server-error' | 'private-redirect', privateTarget?: string) =>
    startFakeStores({ products: 1, misbehave, privateTarget });

  test('a web page instead of the product list', async () => {
    const site = misbehaving('html');
    try {
      const read = await readShopify(site.origin, deps);
      expect(read).toMatchObject({ ok: false, code: 'not-a-catalogue', httpStatus: 200 });
      expect(!read.ok && read.reason).toStartWith(`${site.origin} does not answer like a Shopify store: it sent a web page (text/html)`);
      expect(!read.ok && read.reason).toContain('password-protected');
    } finally {
      site.stop();
    }
  });

  test('no /products.json at all', async () => {
    const site = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: () => new Response('<h1>Not found</h1>', { status: 404, headers: { 'content-type': 'text/html' } }),
    });
    try {
      const read = await readShopify(`http://127.0.0.1:${site.port}/`, deps);
      expect(read).toMatchObject({ ok: false, code: 'not-a-catalogue', httpStatus: 404 });
      expect(!read.ok && read.reason).toContain('it has no /products.json (HTTP 404)');
    } finally {
      site.stop(true);
    }
  });

  test('malformed JSON', async () => {
    const site = misbehaving('malformed');
    try {
      const read = await readShopify(site.origin, deps);
      expect(read).toMatchObject({ ok: false, code: 'not-a-catalogue' });
      expect(!read.ok && read.reason).toContain('its product list is not valid JSON');
    } finally {
      site.stop();
    }
  });

  test('a server error, retried as price checks are, then reported with its status', async () => {
    const site = misbehaving('server-error');
    try {
      const read = await readShopify(site.origin, { ...deps, fetchOptions: { ...deps.fetchOptions, retries: 1 } });
      expect(read).toMatchObject({ ok: false, code: 'http-status', httpStatus: 500 });
      expect(!read.ok && read.reason).toContain('HTTP 500');
      expect(site.hits.get('/products.json?limit=250&page=1')).toBe(2);
    } finally {
      site.stop();
    }
  });

  test('a redirect to a private address is not followed', async () => {
    for (const target of ['http://10.0.0.1/products.json', 'http://169.254.169.254/latest/meta-data/']) {
      const site = misbehaving('private-redirect', target);
      try {
        const read = await readShopify(site.origin, guardedDeps());
        expect(read).toMatchObject({ ok: false, code: 'blocked-address' });
        expect(!read.ok && read.reason).toContain(`${new URL(target).hostname} leads to a private or internal network address`);
      } finally {
        site.stop();
      }
    }
  });

  test('an address that is not one', async () => {
    expect(await readShopify('ftp://shop.example/', deps)).toMatchObject({ ok: false, code: 'bad-url' });
  });
});
