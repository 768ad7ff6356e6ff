import { describe, expect, test } from 'bun:test';
import { enqueueDueChecks } from './queue.ts';
import { runWorker } from './worker.ts';
import { useTestApp } from '../testing/app.ts';
import { checkHelpers, fastFetcher, useLoopbackShop } from '../testing/checks.ts';

// Checks a user waits for: Check Now (POST /api/products/:id/check-price), and the first price of a
// product just added or changed. Scheduled checks through the queue: checks-queue.test.ts.

const ORIGIN = 'http://localhost:3000';

const shop = useLoopbackShop();
const { prices, stock, requestsFor } = shop;
const api = useTestApp({ PUBLIC_URL: ORIGIN, CHECK_ALLOW_PRIVATE: 'true' });
const { request, signedIn } = api;
const { addProduct, checkEvents, productRow, queued } = checkHelpers(api);

describe('POST /api/products/:id/check-price', () => {
  const checkPrice = (id: string, cookie?: string) =>
    request(`/api/products/${id}/check-price`, { method: 'POST', headers: { origin: ORIGIN, ...(cookie ? { cookie } : {}) } });

  test('checks now and answers the price; the list sees it at once', async () => {
    const { userId, cookie } = await signedIn();
    prices.set('check-now', '£54.99');
    const id = await addProduct(api.ctx, userId, `${shop.url}/p/check-now`);
    await enqueueDueChecks(api.ctx);
    const res = await checkPrice(id, cookie);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      success: true,
      price: 54.99,
      currency: 'GBP',
      message: 'Price found: £54.99',
      source: 'selector',
      selectorMatched: true,
      sourceNote: null,
    });
    expect((await productRow(id)).current_price).toBe(54.99);
    // The waiting scheduled job is no longer needed.
    expect(await queued(id)).toBe(false);

    prices.set('check-now', '£49.99');
    expect((await (await checkPrice(id, cookie)).json()).message).toBe('Price dropped from £54.99 to £49.99');
    expect((await (await checkPrice(id, cookie)).json()).message).toBe('Price unchanged: £49.99');
  });

  test('a product that goes out of stock says so, not that its price is unchanged', async () => {
    const { userId, cookie } = await signedIn();
    const message = async (id: string) => (await (await checkPrice(id, cookie)).json()).message;
    stock.set('kettle', { price: '30.00', availability: 'InStock' });
    const id = await addProduct(api.ctx, userId, `${shop.url}/stock/kettle`, '.price');
    expect(await message(id)).toBe('Price found: £30.00');
    stock.set('kettle', { price: '30.00', availability: 'OutOfStock' });
    expect(await message(id)).toBe('Now out of stock: £30.00');
    expect(await message(id)).toBe('Price unchanged: £30.00');
    stock.set('kettle', { price: '27.00', availability: 'InStock' });
    expect(await message(id)).toBe('Back in stock. Price dropped from £30.00 to £27.00');
    // Sold out with no price on the page: the check found no price, and the stock is the news.
    stock.set('kettle', { price: null, availability: 'OutOfStock' });
    const soldOut = await (await checkPrice(id, cookie)).json();
    expect(soldOut.success).toBe(false);
    expect(soldOut.message).toStartWith('Now out of stock. ');
  });

  test("a variant's address reads that variant: its price, stock, regular price and options, listed with the product", async () => {
    const { userId, cookie } = await signedIn();
    const xl = await addProduct(api.ctx, userId, `${shop.url}/variants/trail-jacket?variant=2`, '.buy .price');
    // The theme's variant data named as the selector reads the same variant.
    const fromData = await addProduct(api.ctx, userId, `${shop.url}/variants/trail-jacket?variant=2`, '#ProductJson-product-template');
    const small = await addProduct(api.ctx, userId, `${shop.url}/variants/trail-jacket`, '.buy .price');
    for (const id of [xl, fromData, small]) expect((await checkPrice(id, cookie)).status).toBe(200);
    const products: { id: string }[] = await (await request('/api/products', { headers: { cookie } })).json();
    const listed = async (id: string) => products.find((p) => p.id === id);
    for (const id of [xl, fromData]) {
      expect(await listed(id)).toMatchObject({
        currentPrice: 54.99,
        regularPrice: 69.99,
        availability: 'OutOfStock',
        variant: { id: '2', sku: 'TJ-XL', gtin: null, options: { size: 'XL' } },
      });
    }
    // The page's default variant is in stock: a sold-out size does not make the product sold out.
    expect(await listed(small)).toMatchObject({ currentPrice: 49.99, regularPrice: 59.99, availability: 'InStock', variant: { sku: 'TJ-S' } });
    const [event] = (await checkEvents(xl)).filter((e) => e.type === 'PriceObserved');
    expect(event!.data).toMatchObject({ variant: { sku: 'TJ-XL', options: { size: 'XL' } }, regularPrice: 69.99 });
  });

  test("a selector that gives no price says so: the price came from the page's structured data", async () => {
    const { userId, cookie } = await signedIn();
    prices.set('check-fallback', '£20.00');
    const nothing = await addProduct(api.ctx, userId, `${shop.url}/p/check-fallback`, '.gone-price');
    await checkPrice(nothing, cookie);
    expect(await (await checkPrice(nothing, cookie)).json()).toEqual({
      success: true,
      price: 20,
      currency: 'GBP',
      source: 'structured-data',
      selectorMatched: false,
      sourceNote: "Read from the page's structured data; your selector matched nothing.",
      message: "Price unchanged: £20.00. Read from the page's structured data; your selector matched nothing.",
    });
    const noPrice = await addProduct(api.ctx, userId, `${shop.url}/p/check-fallback`, '.note');
    expect(await (await checkPrice(noPrice, cookie)).json()).toMatchObject({
      success: true,
      price: 20,
      source: 'structured-data',
      selectorMatched: false,
      sourceNote: "Read from the page's structured data; your selector matched no price.",
    });
    const listed = await (await request('/api/products', { headers: { cookie } })).json();
    expect(listed.find((p: { id: string }) => p.id === nothing).priceSource).toBe('structured-data');
  });

  test('a selector that matches nothing on a page without structured data: the price block next to the title gives the price, and the answer says so', async () => {
    const { userId, cookie } = await signedIn();
    prices.set('check-block', '£36.00');
    const id = await addProduct(api.ctx, userId, `${shop.url}/bare/check-block`, '.gone-price');
    const note = "Read from the page's price next to the product title; your selector matched nothing.";
    expect(await (await checkPrice(id, cookie)).json()).toEqual({
      success: true,
      price: 36,
      currency: 'GBP',
      source: 'visible',
      selectorMatched: false,
      sourceNote: note,
      message: `Price found: £36.00. ${note}`,
    });
    const listed = await (await request('/api/products', { headers: { cookie } })).json();
    expect(listed.find((p: { id: string }) => p.id === id)).toMatchObject({ priceSource: 'visible', checkStatus: 'ok' });
  });

  test("a page that states no currency is read in the user's currency", async () => {
    const { userId, cookie } = await signedIn();
    const settings = {
      emailNotifications: true,
      priceDropAlerts: true,
      weeklyReports: false,
      checkFrequency: 'daily',
      currency: 'EUR',
      timezone: 'Europe/Paris',
    };
    await request('/api/settings', { method: 'PUT', headers: { origin: ORIGIN, cookie, 'content-type': 'application/json' }, body: JSON.stringify(settings) });
    prices.set('no-currency', '12.50');
    const id = await addProduct(api.ctx, userId, `${shop.url}/bare/no-currency`);
    expect(await (await checkPrice(id, cookie)).json()).toMatchObject({ success: true, price: 12.5, currency: 'EUR', message: 'Price found: €12.50' });
  });

  test('a failed check answers 200 with the reason and keeps the price', async () => {
    const { userId, cookie } = await signedIn();
    prices.set('check-fail', '£12.00');
    const id = await addProduct(api.ctx, userId, `${shop.url}/bare/check-fail`);
    await checkPrice(id, cookie);
    const failing = await addProduct(api.ctx, userId, `${shop.url}/bare/check-fail`, '.related .tile-price');
    const res = await checkPrice(failing, cookie);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ success: false, error: 'ambiguous' });
    expect(body.message).toContain('different prices');
    expect(body).not.toHaveProperty('price');
    expect((await productRow(id)).current_price).toBe(12);
  });

  test("the observation records the product identifiers of the page's product, not of the products beside it", async () => {
    const { userId, cookie } = await signedIn();
    const product = (sku: string, gtin13: string, price: string) => ({
      '@type': 'Product',
      name: sku,
      sku,
      gtin13,
      mpn: `MPN-${sku}`,
      brand: { '@type': 'Brand', name: 'Acme' },
      offers: { '@type': 'Offer', price, priceCurrency: 'GBP' },
    });
    const html = `<!doctype html><html><head><title>Kettles</title>
      <script type="application/ld+json">${JSON.stringify([product('KET-1', '4006381333931', '19.00'), product('KET-2', '5012345678900', '24.99')])}</script>
      </head><body><h1>Kettles</h1><ul><li class="one"><span class="price">£19.00</span></li><li class="two"><span class="price">£24.99</span></li></ul></body></html>`;
    const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: () => new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } }) });
    try {
      const id = await addProduct(api.ctx, userId, `http://127.0.0.1:${server.port}/kettles`, '.two .price');
      expect(await (await checkPrice(id, cookie)).json()).toMatchObject({ success: true, price: 24.99 });
      const [observed] = await checkEvents(id);
      expect(observed).toMatchObject({
        type: 'PriceObserved',
        data: { price: 24.99, identifiers: { gtin: '05012345678900', mpn: 'MPN-KET-2', sku: 'KET-2', brand: 'Acme' } },
      });
    } finally {
      server.stop(true);
    }
  });

  test("signed out 401; unknown or another user's product 404", async () => {
    const owner = await signedIn();
    const other = await signedIn();
    const id = await addProduct(api.ctx, owner.userId, `${shop.url}/p/private`);
    expect((await checkPrice(id)).status).toBe(401);
    for (const [pid, cookie] of [
      [id, other.cookie],
      [crypto.randomUUID(), owner.cookie],
      ['x'.repeat(300), owner.cookie],
    ] as const) {
      const res = await checkPrice(pid, cookie);
      expect([404, 400]).toContain(res.status);
      expect((await res.json()).message).toBeString();
    }
    expect((await checkPrice(crypto.randomUUID(), owner.cookie)).status).toBe(404);
    expect(await checkEvents(id)).toEqual([]);
  });
});

describe('the first price at once', () => {
  /** The signed-in user's API, and their product as the list shows it once `ready` holds (within `ms`). */
  const as = (cookie: string) => {
    const send = (method: string, path: string, body?: unknown) =>
      request(path, {
        method,
        headers: { origin: ORIGIN, cookie, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
    const listedWhen = async (id: string, ready: (product: any) => boolean, ms: number) => {
      const deadline = Date.now() + ms;
      for (;;) {
        const product = (await (await send('GET', '/api/products')).json()).find((p: { id: string }) => p.id === id);
        if (ready(product)) return product;
        if (Date.now() > deadline) throw new Error(`not as expected within ${ms} ms: ${JSON.stringify(product)}`);
        await Bun.sleep(100);
      }
    };
    return { send, listedWhen, priceWithin: (id: string, price: number, ms: number) => listedWhen(id, (p) => p.currentPrice === price, ms) };
  };

  /**
   * As the server runs: read models kept up to date, and a worker that would otherwise look at
   * the queue only once a minute here (a new or changed product wakes it).
   */
  async function withWorker(workerId: string, run: () => Promise<void>) {
    api.ctx.projections.start();
    const stop = new AbortController();
    const worker = runWorker(api.ctx, { signal: stop.signal, idleMs: 60_000, fetcher: fastFetcher(), workerId });
    try {
      await run();
    } finally {
      stop.abort();
      await worker;
      await api.ctx.projections.stop();
    }
  }

  test("an added product's price is in the list within 10 s without Check Now, and again after its address changes", async () => {
    const { cookie } = await signedIn();
    const { send, priceWithin } = as(cookie);
    await withWorker('first-price', async () => {
      prices.set('first-price', '£31.50');
      prices.set('first-price-moved', '£29.00');
      const added = await send('POST', '/api/products', { name: 'First price', url: `${shop.url}/p/first-price`, selector: '.buy .price', threshold: 'none' });
      expect(added.status).toBe(201);
      const { id } = await added.json();
      const started = Date.now();
      expect(await priceWithin(id, 31.5, 10_000)).toMatchObject({ checkStatus: 'ok', priceSource: 'selector', currency: 'GBP' });
      expect(Date.now() - started).toBeLessThan(10_000);

      const before = requestsFor('/p/first-price-moved');
      const edited = await send('PUT', `/api/products/${id}`, {
        name: 'First price',
        url: `${shop.url}/p/first-price-moved`,
        selector: '.buy .price',
        threshold: null,
      });
      expect(edited.status).toBe(200);
      await priceWithin(id, 29, 10_000);
      expect(requestsFor('/p/first-price-moved')).toBe(before + 1);
      // A rename checks nothing.
      await send('PUT', `/api/products/${id}`, { name: 'Renamed', url: `${shop.url}/p/first-price-moved`, selector: '.buy .price', threshold: null });
      expect(await queued(id)).toBe(false);
    });
  });

  test('a fixed selector is checked at once: the list says the new selector read the price, without Check Now', async () => {
    const { cookie } = await signedIn();
    const { send, listedWhen } = as(cookie);
    await withWorker('fixed-selector', async () => {
      prices.set('fixed-selector', '£44.00');
      const url = `${shop.url}/bare/fixed-selector`;
      const added = await send('POST', '/api/products', { name: 'Fixed selector', url, selector: '.price-box', threshold: 'none' });
      const { id } = await added.json();
      // The selector matches nothing: the price block next to the title gives the price.
      const first = await listedWhen(id, (p) => p.checkStatus !== 'pending', 10_000);
      expect(first).toMatchObject({ currentPrice: 44, priceSource: 'visible' });

      const before = requestsFor('/bare/fixed-selector');
      const edited = await send('PUT', `/api/products/${id}`, { name: 'Fixed selector', url, selector: '.buy .price', threshold: null });
      expect(edited.status).toBe(200);
      const fixed = await listedWhen(id, (p) => p.priceSource === 'selector', 10_000);
      expect(fixed).toMatchObject({ currentPrice: 44, checkStatus: 'ok', selector: '.buy .price' });
      expect(Date.parse(fixed.lastChecked)).toBeGreaterThan(Date.parse(first.lastChecked));
      expect(requestsFor('/bare/fixed-selector')).toBe(before + 1);
      // Spaces around the same selector change nothing that is read: no check.
      await send('PUT', `/api/products/${id}`, { name: 'Fixed selector', url, selector: ' .buy .price ', threshold: null });
      expect(await queued(id)).toBe(false);
    });
  });
});
