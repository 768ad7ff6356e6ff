import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { ean13, FEED_PATHS, type FakeStores, guardedDeps, loopbackDeps, startFakeStores } from './fake-stores.ts';
import type { CatalogueItem, SourceRead } from './item.ts';
import { feedPrice, readMerchantFeed } from './merchant-feed.ts';
import { readSource } from './read-source.ts';

let store: FakeStores;
const deps = loopbackDeps();

beforeAll(() => {
  store = startFakeStores({ feedItems: 40, brokenItems: true });
});
afterAll(() => store.stop());

function items(read: SourceRead): CatalogueItem[] {
  if (!read.ok) throw new Error(`read failed: ${read.code}: ${read.reason}`);
  return read.items;
}
const byId = (list: CatalogueItem[], id: string) => list.find((item) => item.externalId === id);

describe('a Merchant Center feed', () => {
  for (const [form, path] of [
    ['RSS 2.0', FEED_PATHS.rss],
    ['Atom', FEED_PATHS.atom],
    ['tab-separated', FEED_PATHS.tsv],
  ] as const) {
    test(`reads every item of the ${form} form`, async () => {
      const read = await readMerchantFeed(`${store.origin}${path}`, deps);
      const list = items(read);
      expect(list).toHaveLength(40);
      expect(byId(list, 'FEED-1')).toEqual({
        externalId: 'FEED-1',
        title: 'Tea & Cake <Deluxe>',
        variant: 'L / Blue',
        sku: null,
        gtin: null,
        mpn: 'MPN-1',
        brand: 'Maker 1',
        price: 4.99,
        currency: 'GBP',
        regularPrice: null,
        url: `${store.origin}/p/1`,
        imageUrl: `${store.origin}/img/1.jpg`,
        availability: 'InStock',
      });
      expect(byId(list, 'FEED-2')).toMatchObject({ price: 5.99, variant: null, gtin: `0${ean13(2)}`, availability: 'OutOfStock' });
      expect(byId(list, 'FEED-3')).toMatchObject({ price: 6.99, availability: 'PreOrder' });
      expect(byId(list, 'FEED-4')).toMatchObject({ variant: 'M / Blue', availability: 'BackOrder' });
      // A sale price below the price is what a buyer pays; the price becomes the regular one.
      expect(byId(list, 'FEED-5')).toMatchObject({ price: 7, regularPrice: 8.99 });
      expect(byId(list, 'FEED-10')).toMatchObject({ price: 12, regularPrice: 13.99 });
      // Item 8 carries a shipping price nested in <g:shipping>: not its price.
      expect(byId(list, 'FEED-8')?.price).toBe(11.99);
      expect(read.ok && read.skipped).toEqual([
        { id: 'item 41 (Without an id)', reason: 'It has no id.' },
        { id: 'NO-TITLE', reason: 'It has no title.' },
        { id: 'BAD-PRICE', reason: 'Its price “soon” cannot be read.' },
      ]);
    });
  }

  test('is read through readSource', async () => {
    expect(items(await readSource('merchant-feed', `${store.origin}${FEED_PATHS.atom}`, deps))).toHaveLength(40);
  });

  test('prices as feeds write them', () => {
    expect(feedPrice('15.00 GBP')).toEqual({ amount: 15, currency: 'GBP' });
    expect(feedPrice('GBP 15.00')).toEqual({ amount: 15, currency: 'GBP' });
    expect(feedPrice('15,00 EUR')).toEqual({ amount: 15, currency: 'EUR' });
    expect(feedPrice('1,299.00 usd')).toEqual({ amount: 1299, currency: 'USD' });
    expect(feedPrice('1.299,50 EUR')).toEqual({ amount: 1299.5, currency: 'EUR' });
    expect(feedPrice('1,299 USD')).toEqual({ amount: 1299, currency: 'USD' });
    expect(feedPrice('1280 JPY')).toEqual({ amount: 1280, currency: 'JPY' });
    expect(feedPrice('9.99')).toEqual({ amount: 9.99, currency: null });
    for (const bad of ['', 'soon', 'GBP 1.00 GBP', '-5.00 GBP', '£5.00', '5.00 GB']) expect(feedPrice(bad)).toBeNull();
  });

  test('a sale price outside its effective dates is not the price; the cost of goods sold is the cost', async () => {
    const site = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: () =>
        new Response(
          `<rss version="2.0" xmlns:g="http://base.google.com/ns/1.0"><channel>
<item><g:id>A</g:id><g:title>Ended</g:title><g:price>20.00 GBP</g:price><g:sale_price>15.00 GBP</g:sale_price><g:sale_price_effective_date>2020-01-01T00:00+0000/2020-02-01T00:00+0000</g:sale_price_effective_date></item>
<item><g:id>B</g:id><g:title>Running</g:title><g:price>20.00 GBP</g:price><g:sale_price>15.00 GBP</g:sale_price><g:sale_price_effective_date>2020-01-01T00:00+0000/2999-01-01T00:00+0000</g:sale_price_effective_date></item>
<item><g:id>C</g:id><g:title>No currency</g:title><g:price>20.00</g:price><g:cost_of_goods_sold>12.50</g:cost_of_goods_sold></item>
<item><g:id>D</g:id><g:title>Costed</g:title><g:price>20.00 GBP</g:price><g:cost_of_goods_sold>12.50 GBP</g:cost_of_goods_sold></item>
<item><g:id>E</g:id><g:title>Cost in another currency</g:title><g:price>20.00 GBP</g:price><g:cost_of_goods_sold>12.50 USD</g:cost_of_goods_sold></item>
</channel></rss>`,
          { headers: { 'content-type': 'text/xml' } },
        ),
    });
    try {
      const list = items(await readMerchantFeed(`http://127.0.0.1:${site.port}/feed.xml`, loopbackDeps('eur')));
      expect(list.map((item) => [item.externalId, item.price, item.regularPrice, item.currency, item.cost ?? null])).toEqual([
        ['A', 20, null, 'GBP', null],
        ['B', 15, 20, 'GBP', null],
        // The cost of goods sold, as pricing rules' floors read it: only in the price's currency.
        ['C', 20, null, 'EUR', 12.5],
        ['D', 20, null, 'GBP', 12.5],
        ['E', 20, null, 'GBP', null],
      ]);
    } finally {
      site.stop(true);
    }
  });
});

describe('a hostile or wrong feed', () => {
  test('an XML bomb is refused at once, with the reason', async () => {
    const started = performance.now();
    const read = await readMerchantFeed(`${store.origin}${FEED_PATHS.bomb}`, deps);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(read).toMatchObject({ ok: false, code: 'not-a-catalogue' });
    expect(!read.ok && read.reason).toContain('it declares its own XML entities (<!ENTITY> in a DOCTYPE)');
  });

  test('an entity that was never declared is an error, never expanded', async () => {
    const site = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: () =>
        new Response('<rss version="2.0"><channel><item><title>&lol9;</title></item></channel></rss>', { headers: { 'content-type': 'application/xml' } }),
    });
    try {
      const read = await readMerchantFeed(`http://127.0.0.1:${site.port}/`, deps);
      expect(read).toMatchObject({ ok: false, code: 'not-a-catalogue' });
      expect(!read.ok && read.reason).toContain('it is not well-formed XML (line 1, column');
      expect(!read.ok && read.reason).toContain('undefined entity');
    } finally {
      site.stop(true);
    }
  });

  test('a feed of 100,000 items fails as too many, in reasonable time and memory', async () => {
    const big = startFakeStores({ hugeFeedItems: 100_000 });
    try {
      // Served once before timing: the fake builds the file on its first request.
      await fetch(`${big.origin}${FEED_PATHS.huge}`).then((answer) => answer.arrayBuffer());
      Bun.gc(true);
      const memoryBefore = process.memoryUsage().rss;
      const started = performance.now();
      const read = await readMerchantFeed(`${big.origin}${FEED_PATHS.huge}`, deps);
      const elapsed = performance.now() - started;
      expect(read).toMatchObject({ ok: false, code: 'too-many-items', httpStatus: null });
      expect(!read.ok && read.reason).toContain('more than 20,000 items');
      expect(elapsed).toBeLessThan(5_000);
      expect(process.memoryUsage().rss - memoryBefore).toBeLessThan(400 * 1024 * 1024);
    } finally {
      big.stop();
    }
  });

  test('a web page instead of a feed', async () => {
    const read = await readMerchantFeed(`${store.origin}${FEED_PATHS.webPage}`, deps);
    expect(read).toMatchObject({ ok: false, code: 'not-a-catalogue', httpStatus: 200 });
    expect(!read.ok && read.reason).toBe(
      `${store.origin}${FEED_PATHS.webPage} does not answer like a Google Merchant Center feed: it sent a web page (text/html), not a product feed. Use the feed's own address, as your shop's feed app or plugin shows it, or the address of the file you give Merchant Center.`,
    );
  });

  test('XML that is not a feed, and text that is neither XML nor tab-separated', async () => {
    const site = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: (request) =>
        new URL(request.url).pathname === '/sitemap.xml'
          ? new Response('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://x/</loc></url></urlset>', {
              headers: { 'content-type': 'application/xml' },
            })
          : new Response('id,title,price\n1,Kettle,10.00 GBP\n', { headers: { 'content-type': 'text/csv' } }),
    });
    try {
      const sitemap = await readMerchantFeed(`http://127.0.0.1:${site.port}/sitemap.xml`, deps);
      expect(!sitemap.ok && sitemap.reason).toContain('its XML starts with <urlset>, not with an RSS (<rss>) or Atom (<feed>) feed');
      const csv = await readMerchantFeed(`http://127.0.0.1:${site.port}/feed.csv`, deps);
      expect(!csv.ok && csv.reason).toContain('it is neither an XML feed (RSS or Atom) nor a tab-separated file (it sent a file of type text/csv)');
    } finally {
      site.stop(true);
    }
  });

  test('malformed XML', async () => {
    const read = await readMerchantFeed(`${store.origin}${FEED_PATHS.malformed}`, deps);
    expect(read).toMatchObject({ ok: false, code: 'not-a-catalogue' });
    expect(!read.ok && read.reason).toContain('it is not well-formed XML (line 1, column 129: unexpected close tag)');
  });

  test('a server error is reported with its status', async () => {
    const read = await readMerchantFeed(`${store.origin}${FEED_PATHS.serverError}`, deps);
    expect(read).toMatchObject({ ok: false, code: 'http-status', httpStatus: 500 });
  });

  test('a redirect to a private address is not followed', async () => {
    // The metadata address is refused even where private addresses are allowed.
    for (const readDeps of [deps, guardedDeps()]) {
      const read = await readMerchantFeed(`${store.origin}${FEED_PATHS.toPrivate}`, readDeps);
      expect(read).toMatchObject({ ok: false, code: 'blocked-address' });
      expect(!read.ok && read.reason).toContain('169.254.169.254 leads to a private or internal network address');
    }
    const internal = startFakeStores({ privateTarget: 'http://10.0.0.1/feed.xml' });
    try {
      const read = await readMerchantFeed(`${internal.origin}${FEED_PATHS.toPrivate}`, guardedDeps());
      expect(read).toMatchObject({ ok: false, code: 'blocked-address' });
      expect(!read.ok && read.reason).toContain('10.0.0.1 leads to a private or internal network address');
    } finally {
      internal.stop();
    }
  });
});
