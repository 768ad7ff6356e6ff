import { START } from '../../events/store.ts';
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createApp } from '../server.ts';
import { SETUP_TIMEOUT, testContext } from '../testing/database.ts';
import { extractPrice } from '../reading/extract.ts';
import { checkPage } from '../checks/check.ts';
import { enqueueDueChecks } from '../checks/queue.ts';
import { runWorker } from '../checks/worker.ts';
import { productStream } from '../../events/product.ts';
import { DEMO_PRICE_SELECTOR, DEMO_PRODUCTS, demoPriceAt, demoWasPrice } from './shop.ts';
import { productPage } from './pages.ts';
import { isDemoShopUrl } from './address.ts';
import { backtest } from '../../events/alert.ts';
import type { AlertRule } from '../../events/catalogue.ts';
import { readDashboardStats } from '../dashboard/routes.ts';

describe('demo shop prices', () => {
  const product = DEMO_PRODUCTS[0]!;

  test('the same moment always gives the same price; prices move within hours', () => {
    const start = Date.parse('2025-06-01T00:00:00Z');
    const series = Array.from({ length: 36 }, (_, i) => demoPriceAt(product, new Date(start + i * 10 * 60_000)));
    expect(series).toEqual(Array.from({ length: 36 }, (_, i) => demoPriceAt(product, new Date(start + i * 10 * 60_000 + 59_000))));
    expect(new Set(series).size).toBeGreaterThan(3);
  });

  test('prices stay near the list price, below the was price, in pounds and pence', () => {
    for (const p of DEMO_PRODUCTS) {
      for (let hour = 0; hour < 24 * 30; hour += 5) {
        const price = demoPriceAt(p, new Date(Date.UTC(2025, 0, 1) + hour * 3_600_000));
        expect(price).toBeGreaterThan(p.basePrice * 0.6);
        expect(price).toBeLessThan(demoWasPrice(p));
        expect(Math.round(price * 100) / 100).toBe(price);
      }
    }
  });
});

describe('demo shop pages', () => {
  const origin = 'http://localhost:3000';
  const at = new Date('2025-06-01T12:00:00Z');

  test('every page gives its price through the seeded selector, the whole price block and structured data', () => {
    for (const p of DEMO_PRODUCTS) {
      const html = productPage(origin, p, { at });
      const price = demoPriceAt(p, at);
      for (const selector of [DEMO_PRICE_SELECTOR, '.product-price', '[data-testid="product-price"]', null]) {
        const found = extractPrice(html, { selector, url: `${origin}/demo-shop/products/${p.slug}` });
        expect(found).toMatchObject({ ok: true, price, currency: 'GBP' });
      }
    }
  });

  test('distractors do not pass for the price: a selector on the related products falls back to structured data', () => {
    const product = DEMO_PRODUCTS[1]!;
    const found = extractPrice(productPage(origin, product, { at }), { selector: '.card-price' });
    expect(found).toMatchObject({ ok: true, price: demoPriceAt(product, at), source: 'json-ld' });
  });
});

describe('the demo shop inside the server', () => {
  let ctx: Awaited<ReturnType<typeof testContext>>;
  let server: ReturnType<typeof Bun.serve>;
  let origin: string;
  let app: ReturnType<typeof createApp>;

  beforeAll(async () => {
    // The server must listen where PUBLIC_URL says: the checks fetch the shop over HTTP.
    let handle: (req: Request) => Response | Promise<Response> = () => new Response('starting', { status: 503 });
    server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req) => handle(req) });
    origin = `http://127.0.0.1:${server.port}`;
    ctx = await testContext({ PUBLIC_URL: origin, PORT: String(server.port) });
    app = createApp(ctx);
    handle = (req) => app.handle(req);
  }, SETUP_TIMEOUT);
  afterAll(async () => {
    server.stop(true);
    await ctx.close();
  }, SETUP_TIMEOUT);

  /** Waits for the read models to take in every event so far (another database's open transaction can hold them back). */
  async function settled() {
    const last = await ctx.store.head();
    if (last.position) await ctx.projections.waitFor(last, 30_000);
  }

  test('serves the index, product pages, images; ?price forces a price', async () => {
    const index = await fetch(`${origin}/demo-shop/`);
    expect(index.status).toBe(200);
    expect(await index.text()).toContain(DEMO_PRODUCTS[0]!.name);
    const page = await fetch(`${origin}/demo-shop/products/${DEMO_PRODUCTS[0]!.slug}?price=199.5`);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(extractPrice(html, { selector: DEMO_PRICE_SELECTOR })).toMatchObject({ ok: true, price: 199.5 });
    expect(html).toContain(`<meta property="og:image" content="${origin}/demo-shop/images/${DEMO_PRODUCTS[0]!.slug}.svg">`);
    const image = await fetch(`${origin}/demo-shop/images/${DEMO_PRODUCTS[0]!.slug}.svg`);
    expect(image.headers.get('content-type')).toBe('image/svg+xml');
    expect((await fetch(`${origin}/demo-shop/products/nope`)).status).toBe(404);
    expect((await fetch(`${origin}/demo-shop/products/${DEMO_PRODUCTS[0]!.slug}?price=-1`)).status).toBe(400);
  });

  test("checks reach the demo shop on the server's own origin, and nothing else private", async () => {
    expect(ctx.config.checkAllowPrivate).toBe(false);
    const slug = DEMO_PRODUCTS[2]!.slug;
    const target = (url: string) => ({ productId: 'p', userId: 'u', url, selector: DEMO_PRICE_SELECTOR, lease: null });
    const url = `${origin}/demo-shop/products/${slug}`;
    expect(isDemoShopUrl(ctx.config, url)).toBe(true);
    const [ok] = await checkPage(ctx.config, url, [target(url)]);
    expect(ok!.event).toMatchObject({
      type: 'PriceObserved',
      data: { price: demoPriceAt(DEMO_PRODUCTS[2]!, new Date()), imageUrl: `${origin}/demo-shop/images/${slug}.svg` },
    });
    for (const other of [`${origin}/api/auth/user`, `${origin}/demo-shopping`, `http://127.0.0.2:${server.port}/demo-shop/products/${slug}`]) {
      expect(isDemoShopUrl(ctx.config, other)).toBe(false);
      const [refused] = await checkPage(ctx.config, other, [target(other)]);
      expect(refused!.event).toMatchObject({ type: 'PriceCheckFailed', data: { code: 'blocked-address' } });
    }
  });

  test('the demo account starts with products and a week of history, then gets live checks every few minutes', async () => {
    const res = await app.handle(new Request(`${origin}/api/auth/demo`));
    const cookie = `pw_session=${res.headers.get('set-cookie')!.match(/pw_session=([^;]*)/)![1]}`;
    const { id: userId } = await (await app.handle(new Request(`${origin}/api/auth/user`, { headers: { cookie } }))).json();
    await settled();
    const products = await ctx.sql<{ id: string; url: string; current_price: number; image_url: string }[]>`
      SELECT id, url, current_price, image_url FROM products WHERE user_id = ${userId} ORDER BY name`;
    expect(products).toHaveLength(3);
    for (const p of products) {
      expect(p.url).toStartWith(`${origin}/demo-shop/products/`);
      expect(p.current_price).toBeGreaterThan(0);
      expect(p.image_url).toEndWith('.svg');
      const [{ n }] = await ctx.sql`SELECT count(*)::int AS n FROM price_points WHERE product_id = ${p.id}`;
      expect(n).toBeGreaterThan(50);
    }
    expect((await ctx.sql`SELECT 1 FROM price_changes WHERE user_id = ${userId}`).length).toBeGreaterThan(0);
    // The backfilled week raises the alerts each product's rule would have raised then, dated
    // then, so the dashboard's drops and the alerts agree; none of them is e-mailed.
    await ctx.reactors.catchUp();
    await ctx.projections.catchUp();
    let alerted = 0;
    for (const p of products) {
      const [{ rule }] = await ctx.sql<{ rule: AlertRule }[]>`SELECT alert_rule AS rule FROM products WHERE id = ${p.id}`;
      const prices = await ctx.sql<{ price: number; currency: string | null }[]>`
        SELECT price, currency FROM price_points WHERE product_id = ${p.id} ORDER BY event_position`;
      const expected = backtest(rule, prices).alerts;
      const [{ n }] =
        await ctx.sql`SELECT count(*)::int AS n FROM alerts WHERE product_id = ${p.id} AND type IN ('price_drop', 'price_increase', 'threshold_met')`;
      expect(n).toBe(expected);
      alerted += expected;
    }
    expect(alerted).toBeGreaterThan(0);
    const [{ oldest }] = await ctx.sql`SELECT min(created_at) AS oldest FROM alerts WHERE user_id = ${userId}`;
    expect(Date.now() - new Date(oldest).getTime()).toBeGreaterThan(86_400_000);
    expect((await ctx.sql`SELECT 1 FROM email_outbox WHERE user_id = ${userId}`).length).toBe(0);
    const stats = await readDashboardStats(ctx.sql, userId);
    expect(stats.priceDropsCount).toBeGreaterThan(0);
    expect(stats.alertsCount).toBe((await ctx.sql`SELECT 1 FROM alerts WHERE user_id = ${userId}`).length);

    // Signing in again does not add more.
    await app.handle(new Request(`${origin}/api/auth/demo`));
    await settled();
    expect((await ctx.sql`SELECT id FROM products WHERE user_id = ${userId}`).length).toBe(3);

    // The last seeded point is one and a half demo intervals old: the next tick enqueues them, a worker checks them.
    expect(await enqueueDueChecks(ctx)).toBe(3);
    const stop = new AbortController();
    const worker = runWorker(ctx, { signal: stop.signal, idleMs: 10 });
    for (let i = 0; i < 500 && (await ctx.sql`SELECT 1 FROM check_jobs`).length; i++) await Bun.sleep(20);
    stop.abort();
    await worker;
    await settled();
    for (const p of products) {
      // The live check may be a repeat of the last observation: read the log, not only the stream's versions.
      const last = (await ctx.store.readAll(START, 100_000, { streamId: productStream(p.id) })).at(-1)!;
      expect(last.type).toBe('PriceObserved');
      expect(Date.now() - Date.parse((last.data as { observedAt: string }).observedAt)).toBeLessThan(60_000);
    }
    // Due again at their slots: none within half a demo interval, all within one and a half.
    expect(await enqueueDueChecks(ctx, new Date(Date.now() + (ctx.config.demoCheckMinutes * 0.5 - 0.25) * 60_000))).toBe(0);
    expect(await enqueueDueChecks(ctx, new Date(Date.now() + (ctx.config.demoCheckMinutes * 1.5 + 0.25) * 60_000))).toBe(3);
  });
});
