import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { createApp } from '../server.ts';
import { loadConfig } from '../config.ts';
import { createContext } from '../context.ts';
import { openDatabase, transaction } from '../../db/index.ts';
import { SETUP_TIMEOUT, testContext, usingPostgresServer } from '../testing/database.ts';
import { handleCommand } from '../../events/decider.ts';
import { checkpointOf } from '../../events/store.ts';
import { productDecider, productStream } from '../../events/product.ts';
import type { AlertRule } from '../../events/catalogue.ts';
import { createFetcher } from '../fetching/fetcher.ts';
import { claimJobs, enqueueCheck, enqueueDueChecks, finishJobs, releaseJobs } from './queue.ts';
import { runWorker } from './worker.ts';
import { nextCheckAt, type CheckFrequencySetting } from './schedule.ts';
import { signInDemo } from '../testing/sign-in.ts';
import { startTrial } from '../testing/plans.ts';

setDefaultTimeout(60_000);

const ORIGIN = 'http://localhost:3000';
const DAY = 86_400_000;

// ---------------------------------------------------------------------------------------------
// A shop on loopback whose prices can be changed, counting the requests it serves.

const prices = new Map<string, string>();
const requests = new Map<string, number>();

/** `/p/<name>` pages carry JSON-LD; `/bare/<name>` pages have only the visible price, so a selector naming text without a price has no fallback. */
function productPage(name: string, price: string, structured: boolean): string {
  const jsonLd = `<script type="application/ld+json">{"@type":"Product","name":"${name}","offers":{"@type":"Offer","price":"${price.replace(/[^\d.]/g, '')}","priceCurrency":"GBP"}}</script>`;
  return `<!doctype html><html><head><title>${name}</title>
    <meta property="og:image" content="/images/${name}.jpg">
    ${structured ? jsonLd : ''}
    </head><body><h1>${name}</h1>
    <div class="buy"><span class="price">${price}</span> <s class="was">£999.00</s></div>
    <p class="note">No price here</p>
    <ul class="related"><li><span class="tile-price">£5.00</span></li><li><span class="tile-price">£7.50</span></li></ul>
    </body></html>`;
}

/** `/stock/<name>` pages: JSON-LD with the offer's availability, and no price at all when `stock` says so. */
const stock = new Map<string, { price: string | null; availability: string }>();
function stockPage(name: string): string {
  const { price, availability } = stock.get(name) ?? { price: '10.00', availability: 'InStock' };
  const offer = { '@type': 'Offer', ...(price === null ? {} : { price, priceCurrency: 'GBP' }), availability: `https://schema.org/${availability}` };
  return `<!doctype html><html><head><title>${name}</title>
    <script type="application/ld+json">${JSON.stringify({ '@type': 'Product', name, offers: offer })}</script>
    </head><body><h1>${name}</h1>${price === null ? '<p>Currently unavailable.</p>' : `<span class="price">£${price}</span>`}</body></html>`;
}

let shop: ReturnType<typeof Bun.serve>;
let shopUrl: string;

function startShop() {
  shop = Bun.serve({
    port: 0, hostname: '127.0.0.1',
    fetch(req) {
      const { pathname } = new URL(req.url);
      requests.set(pathname, (requests.get(pathname) ?? 0) + 1);
      const html = (body: string, status = 200, headers: Record<string, string> = {}) =>
        new Response(body, { status, headers: { 'content-type': 'text/html; charset=utf-8', ...headers } });
      if (pathname === '/gone') return html('<h1>Not found</h1>', 404);
      if (pathname === '/challenge') return html('<title>Just a moment...</title><div id="cf-browser-verification"></div>', 403, { 'cf-mitigated': 'challenge' });
      const [, kind, name = ''] = pathname.split('/');
      if (kind === 'stock') return html(stockPage(name));
      return html(productPage(name, prices.get(name) ?? '£10.00', kind !== 'bare'));
    },
  });
  shopUrl = `http://127.0.0.1:${shop.port}`;
}

const requestsFor = (path: string) => requests.get(path) ?? 0;

// Tests reach loopback without the shared fetcher's politeness delays.
const fastFetcher = () => createFetcher({ hostSpacingMs: 0, maxConcurrentPerHost: 64, retryBaseDelayMs: 5 });

// ---------------------------------------------------------------------------------------------

type Ctx = Awaited<ReturnType<typeof testContext>>;
let ctx: Ctx;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  startShop();
  ctx = await testContext({ PUBLIC_URL: ORIGIN, CHECK_ALLOW_PRIVATE: 'true' });
  app = createApp(ctx);
}, SETUP_TIMEOUT);
afterAll(async () => { shop.stop(true); await ctx.close(); }, SETUP_TIMEOUT);

const request = (path: string, init: RequestInit = {}) => app.handle(new Request(new URL(path, ORIGIN), init));

const signedIn = (email?: string) => signInDemo(app, ORIGIN, email);

async function addProduct(c: Pick<Ctx, 'store' | 'projections'>, userId: string, url: string, selector = '.buy .price', alertRule: AlertRule = { kind: 'none' }) {
  const productId = crypto.randomUUID();
  const { appended } = await handleCommand(c.store, productStream(productId), productDecider, {
    type: 'Add', productId, userId, details: { name: 'Product', url, selector, alertRule },
  });
  await c.projections.waitFor(checkpointOf({ transactionId: appended!.transactionId, position: appended!.lastPosition }), SETTLE_MS);
  return productId;
}

async function removeProduct(productId: string, userId: string) {
  const { appended } = await handleCommand(ctx.store, productStream(productId), productDecider, { type: 'Remove', productId, userId });
  await ctx.projections.waitFor(checkpointOf({ transactionId: appended!.transactionId, position: appended!.lastPosition }), SETTLE_MS);
}

/** Runs workers until the queue is empty, then brings the read models up to date. */
async function drain(contexts: Ctx[] = [ctx], opts: { concurrency?: number } = {}) {
  const stop = new AbortController();
  const workers = contexts.map((c, i) =>
    runWorker(c, { signal: stop.signal, idleMs: 10, concurrency: opts.concurrency ?? 8, fetcher: fastFetcher(), workerId: `test-${i}` }));
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const [{ n }] = await ctx.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM check_jobs`;
    if (n === 0) break;
    await Bun.sleep(20);
  }
  stop.abort();
  await Promise.all(workers);
  await settled();
}

// On a shared PostgreSQL server another database's open transaction can hold catch-up readers
// back for a while: wait for the read models rather than assume they are current.
const SETTLE_MS = 30_000;

/** Waits until the read models have every event appended so far. */
async function settled() {
  const last = await ctx.store.head();
  if (last.position) await ctx.projections.waitFor(last, SETTLE_MS);
}

const checkEvents = async (productId: string) =>
  (await ctx.store.readStream(productStream(productId))).events.filter((e) => e.type === 'PriceObserved' || e.type === 'PriceCheckFailed');

const productRow = async (productId: string) => {
  await settled();
  return (await ctx.sql`SELECT current_price, last_check_at, last_check_status, last_check_error, consecutive_failures, is_active, image_url FROM products WHERE id = ${productId}`)[0]!;
};

const queued = async (productId: string) => (await ctx.sql`SELECT 1 FROM check_jobs WHERE product_id = ${productId}`).length > 0;

/** When the schedule makes a product (of a free-plan user) due next: from its slot, with backoff. */
async function dueAt(productId: string, checkFrequency: CheckFrequencySetting | null = null): Promise<Date> {
  const row = await productRow(productId);
  return nextCheckAt({
    productId, plan: 'free', checkFrequency, demoShop: false, lastCheckAt: new Date(row.last_check_at),
    consecutiveFailures: row.consecutive_failures, editedAt: null,
  }, { demoCheckMinutes: ctx.config.demoCheckMinutes });
}
const minuteFrom = (at: Date, minutes: number) => new Date(at.getTime() + minutes * 60_000);

// ---------------------------------------------------------------------------------------------

describe('scheduling', () => {
  test('a new product is enqueued once; not again while its job waits', async () => {
    const { userId } = await signedIn();
    const id = await addProduct(ctx, userId, `${shopUrl}/p/sched-new`);
    expect(await enqueueDueChecks(ctx)).toBeGreaterThanOrEqual(1);
    expect(await queued(id)).toBe(true);
    expect(await enqueueDueChecks(ctx)).toBe(0);
    await drain();
    expect(await queued(id)).toBe(false);
  });

  test('after a check the product is due again one plan interval after its slot (free: a day)', async () => {
    const { userId } = await signedIn();
    const id = await addProduct(ctx, userId, `${shopUrl}/p/sched-daily`);
    await enqueueDueChecks(ctx);
    await drain();
    const checkedAt = new Date((await productRow(id)).last_check_at).getTime();
    const due = await dueAt(id);
    expect(Math.abs(due.getTime() - (checkedAt + DAY))).toBeLessThanOrEqual(DAY / 2);
    await enqueueDueChecks(ctx, minuteFrom(due, -1));
    expect(await queued(id)).toBe(false);
    await enqueueDueChecks(ctx, minuteFrom(due, 1));
    expect(await queued(id)).toBe(true);
    await drain();
  });

  test('a tick also queues the checks due before the next one, to run at their time', async () => {
    const { userId } = await signedIn();
    const id = await addProduct(ctx, userId, `${shopUrl}/p/sched-ahead`);
    await enqueueDueChecks(ctx);
    await drain();
    const due = await dueAt(id);
    await enqueueDueChecks(ctx, minuteFrom(due, -2), { aheadMs: 60_000 });
    expect(await queued(id)).toBe(false);
    await enqueueDueChecks(ctx, new Date(due.getTime() - 30_000), { aheadMs: 60_000 });
    const [job] = await ctx.sql<{ run_at: Date }[]>`SELECT run_at FROM check_jobs WHERE product_id = ${id}`;
    expect(new Date(job!.run_at).getTime()).toBe(due.getTime());
    // Not before its time: the day ahead has not come yet. (Other products' jobs it took go back.)
    const claimed = await claimJobs(ctx.sql, { workerId: 'ahead', limit: 100 });
    await releaseJobs(ctx.sql, claimed);
    expect(claimed.map((j) => j.productId)).not.toContain(id);
    await ctx.sql`DELETE FROM check_jobs WHERE product_id = ${id}`;
  });

  test('products checked together come due spread over the next interval, each at its slot', async () => {
    const { userId } = await signedIn();
    // More products than Free allows (the rest would pause), checked daily.
    await startTrial(ctx, userId, 'starter');
    const ids: string[] = [];
    for (let i = 0; i < 24; i++) ids.push(await addProduct(ctx, userId, `${shopUrl}/p/sched-spread-${i}`));
    await enqueueDueChecks(ctx);
    await drain();
    const due = new Map(await Promise.all(ids.map(async (id) => [id, (await dueAt(id)).getTime()] as const)));
    const checkedAt = Date.now();
    // Ticks every three hours from half a day to a day and a half after the checks.
    const queuedAt: number[] = [];
    for (let hours = 12; hours <= 36; hours += 3) {
      const tick = new Date(checkedAt + hours * 3_600_000);
      await enqueueDueChecks(ctx, tick);
      const jobs = new Set((await ctx.sql<{ product_id: string }[]>`SELECT product_id FROM check_jobs WHERE product_id = ANY(${ids}::text[])`).map((r) => r.product_id));
      // The database queues exactly those the schedule says are due.
      expect([...jobs].sort()).toEqual(ids.filter((id) => due.get(id)! <= tick.getTime()).sort());
      queuedAt.push(jobs.size);
    }
    expect(queuedAt.at(-1)).toBe(24);
    // Not all at once: spread over at least four of the eight three-hour steps.
    const steps = queuedAt.map((n, i) => n - (queuedAt[i - 1] ?? 0));
    expect(Math.max(...steps)).toBeLessThan(24);
    expect(steps.filter((n) => n > 0).length).toBeGreaterThanOrEqual(4);
    await drain();
  });

  test('a saved weekly frequency makes it slower', async () => {
    const { userId, cookie } = await signedIn();
    const settings = { emailNotifications: true, priceDropAlerts: true, weeklyReports: false, checkFrequency: 'weekly', currency: 'GBP', timezone: 'Europe/London' };
    const put = await request('/api/settings', { method: 'PUT', headers: { cookie, origin: ORIGIN, 'content-type': 'application/json' }, body: JSON.stringify(settings) });
    expect(put.status).toBe(200);
    const id = await addProduct(ctx, userId, `${shopUrl}/p/sched-weekly`);
    await enqueueDueChecks(ctx);
    await drain();
    await enqueueDueChecks(ctx, new Date(Date.now() + 2 * DAY));
    expect(await queued(id)).toBe(false);
    const due = await dueAt(id, 'weekly');
    await enqueueDueChecks(ctx, minuteFrom(due, -1));
    expect(await queued(id)).toBe(false);
    await enqueueDueChecks(ctx, minuteFrom(due, 1));
    expect(await queued(id)).toBe(true);
    await drain();
  });

  test('overlapping ticks do not enqueue twice', async () => {
    const { userId } = await signedIn();
    await startTrial(ctx, userId, 'starter');
    for (let i = 0; i < 5; i++) await addProduct(ctx, userId, `${shopUrl}/p/sched-tick-${i}`);
    const counts = await Promise.all([enqueueDueChecks(ctx), enqueueDueChecks(ctx), enqueueDueChecks(ctx)]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(5);
    await drain();
  });
});

describe('checks through the queue', () => {
  test('records the price with its evidence, and a new price when the shop changes it', async () => {
    const { userId } = await signedIn();
    prices.set('headphones', '£249.00');
    const id = await addProduct(ctx, userId, `${shopUrl}/p/headphones`);
    await enqueueDueChecks(ctx);
    await drain();

    const [first] = await checkEvents(id);
    expect(first!.type).toBe('PriceObserved');
    expect(first!.data).toMatchObject({
      productId: id, userId, price: 249, currency: 'GBP', source: 'selector', selector: '.buy .price',
      url: `${shopUrl}/p/headphones`, httpStatus: 200, imageUrl: `${shopUrl}/images/headphones.jpg`,
    });
    expect((first!.data as any).matchedText).toContain('249.00');
    expect((first!.data as any).pageHash).toMatch(/^[0-9a-f]{64}$/);
    expect((await productRow(id)).current_price).toBe(249);

    prices.set('headphones', '£229.00');
    await enqueueDueChecks(ctx, new Date(Date.now() + 2 * DAY));
    await drain();
    expect((await checkEvents(id)).map((e) => (e.data as any).price)).toEqual([249, 229]);
    expect((await productRow(id)).current_price).toBe(229);
    const [change] = await ctx.sql`SELECT previous_price, current_price FROM price_changes WHERE product_id = ${id}`;
    expect(change).toMatchObject({ previous_price: 249, current_price: 229 });
  });

  test('every check records what the page said about stock: a priced page that says nothing is in stock, a failed one unknown', async () => {
    const { userId } = await signedIn();
    prices.set('plain', '£5.00');
    const ok = await addProduct(ctx, userId, `${shopUrl}/bare/plain`);
    const bad = await addProduct(ctx, userId, `${shopUrl}/bare/plain`, '.note');
    await enqueueDueChecks(ctx);
    await drain();
    const [[observed], [failed]] = await Promise.all([checkEvents(ok), checkEvents(bad)]);
    expect(observed!.type).toBe('PriceObserved');
    expect(observed!.data).toHaveProperty('availability', 'InStock');
    expect(failed!.type).toBe('PriceCheckFailed');
    expect(failed!.data).toHaveProperty('availability', null);
  });

  test('a page that goes out of stock: with its price, then without one; the card and an alert say so', async () => {
    const { userId, cookie } = await signedIn();
    stock.set('mixer', { price: '24.99', availability: 'InStock' });
    const id = await addProduct(ctx, userId, `${shopUrl}/stock/mixer`, '.price');
    const check = async (days: number) => { await enqueueDueChecks(ctx, new Date(Date.now() + days * DAY)); await drain(); };
    await check(0);
    stock.set('mixer', { price: '24.99', availability: 'OutOfStock' });
    await check(2);
    stock.set('mixer', { price: null, availability: 'OutOfStock' });
    await check(4);
    const events = await checkEvents(id);
    expect(events.map((e) => [e.type, (e.data as any).availability])).toEqual([
      ['PriceObserved', 'InStock'], ['PriceObserved', 'OutOfStock'], ['PriceCheckFailed', 'OutOfStock'],
    ]);
    const [row] = await ctx.sql`SELECT current_price, availability FROM products WHERE id = ${id}`;
    expect(row).toMatchObject({ current_price: 24.99, availability: 'OutOfStock' });
    await ctx.reactors.catchUp();
    await ctx.projections.catchUp();
    const alerts = await (await request('/api/alerts', { headers: { cookie } })).json();
    expect(alerts.map((a: { type: string }) => a.type)).toEqual(['out_of_stock']);
  });

  test('one fetch serves every product tracking the same url', async () => {
    const users = await Promise.all([signedIn(), signedIn(), signedIn()]);
    prices.set('shared', '£42.00');
    const url = `${shopUrl}/bare/shared`;
    const ids = [
      await addProduct(ctx, users[0]!.userId, url),
      await addProduct(ctx, users[1]!.userId, url, '.buy'),
      await addProduct(ctx, users[2]!.userId, url, '.note'),
    ];
    await enqueueDueChecks(ctx);
    await drain();
    expect(requestsFor('/bare/shared')).toBe(1);
    const results = await Promise.all(ids.map(async (id) => (await checkEvents(id)).map((e) => e.type === 'PriceObserved' ? e.data.price : e.data.code)));
    expect(results).toEqual([[42], [42], ['no-price-in-text']]);
  });

  test('failures keep the last good price, say why, and never read as 0', async () => {
    const { userId } = await signedIn();
    prices.set('flaky', '£19.99');
    const id = await addProduct(ctx, userId, `${shopUrl}/bare/flaky`, '.buy .price');
    await enqueueDueChecks(ctx);
    await drain();
    expect((await productRow(id)).current_price).toBe(19.99);

    // The shop redesigns the page: the selector now names text without a price.
    const { appended } = await handleCommand(ctx.store, productStream(id), productDecider, {
      type: 'Edit', productId: id, userId, details: { name: 'Product', url: `${shopUrl}/bare/flaky`, selector: '.note', alertRule: { kind: 'none' } },
    });
    await ctx.projections.waitFor(checkpointOf({ transactionId: appended!.transactionId, position: appended!.lastPosition }), SETTLE_MS);
    await enqueueDueChecks(ctx); // edited since the last check: due at once
    await drain();
    const failed = (await checkEvents(id)).at(-1)!;
    expect(failed.type).toBe('PriceCheckFailed');
    expect(failed.data).toMatchObject({ code: 'no-price-in-text', httpStatus: 200 });
    expect((failed.data as any).reason).toContain('No price here');
    expect(failed.data).not.toHaveProperty('price');
    const row = await productRow(id);
    expect(row).toMatchObject({ current_price: 19.99, last_check_status: 'failed', consecutive_failures: 1, is_active: true });

    // Failing again: backoff doubles the wait (2 days on a daily plan), and the card turns inactive after three.
    await enqueueDueChecks(ctx, minuteFrom(await dueAt(id), 1));
    await drain();
    const doubled = await dueAt(id);
    expect(doubled.getTime() - Date.now()).toBeGreaterThan(1.4 * DAY);
    await enqueueDueChecks(ctx, minuteFrom(doubled, -1));
    expect(await queued(id)).toBe(false);
    await enqueueDueChecks(ctx, minuteFrom(doubled, 1));
    await drain();
    expect(await productRow(id)).toMatchObject({ current_price: 19.99, consecutive_failures: 3, is_active: false });
    const points = await ctx.sql`SELECT price FROM price_points WHERE product_id = ${id}`;
    expect(points.map((p) => p.price)).toEqual([19.99]);
  });

  test('http errors and bot protection are told apart', async () => {
    const { userId } = await signedIn();
    const gone = await addProduct(ctx, userId, `${shopUrl}/gone`);
    const challenge = await addProduct(ctx, userId, `${shopUrl}/challenge`);
    await enqueueDueChecks(ctx);
    await drain();
    const [a] = await checkEvents(gone);
    const [b] = await checkEvents(challenge);
    expect(a!.data).toMatchObject({ code: 'http-status', httpStatus: 404 });
    expect((a!.data as any).reason).toContain('does not exist');
    expect(b!.data).toMatchObject({ code: 'blocked', httpStatus: 403 });
    expect((b!.data as any).reason).toContain('Cloudflare');
    // The refusal rests the whole loopback shop; the tests after this one use it too.
    expect((await ctx.sql`SELECT host FROM host_backoff`).map((r) => r.host)).toEqual([new URL(shopUrl).host]);
    await ctx.sql`DELETE FROM host_backoff`;
  });

  test('a product removed while queued is not checked into its stream', async () => {
    const { userId } = await signedIn();
    const id = await addProduct(ctx, userId, `${shopUrl}/p/removed`);
    await enqueueDueChecks(ctx);
    await removeProduct(id, userId);
    await drain();
    expect(await checkEvents(id)).toEqual([]);
    expect(await queued(id)).toBe(false);
  });

  test('a dead worker\'s job is taken over when its lease runs out; its late result is dropped', async () => {
    const { userId } = await signedIn();
    const id = await addProduct(ctx, userId, `${shopUrl}/p/lease`);
    await enqueueCheck(ctx.sql, id, `${shopUrl}/p/lease`);
    const [dead] = await claimJobs(ctx.sql, { workerId: 'dead', limit: 1000 }).then((jobs) => jobs.filter((j) => j.productId === id));
    expect(dead).toBeDefined();
    // Within the lease nobody else takes it.
    expect((await claimJobs(ctx.sql, { workerId: 'other', limit: 1000 })).some((j) => j.productId === id)).toBe(false);
    // Once the lease has run out it is claimed again, with the attempt counted.
    const [again] = (await claimJobs(ctx.sql, { workerId: 'other', limit: 1000, leaseSeconds: 0 })).filter((j) => j.productId === id);
    expect(again).toMatchObject({ productId: id, attempts: 2 });
    expect(again!.lease).not.toBe(dead!.lease);
    const lateFinish = await transaction(ctx.sql, (tx) => finishJobs(tx, [dead!]));
    expect(lateFinish.has(id)).toBe(false);
    const ownFinish = await transaction(ctx.sql, (tx) => finishJobs(tx, [again!]));
    expect(ownFinish.has(id)).toBe(true);
  });

  test('a job that stopped its worker twice is given up with a reason, not tried a third time', async () => {
    const { userId } = await signedIn();
    const url = `${shopUrl}/p/poison`;
    const id = await addProduct(ctx, userId, url);
    await enqueueCheck(ctx.sql, id, url);
    for (let crash = 0; crash < 2; crash++) await claimJobs(ctx.sql, { workerId: `crashed-${crash}`, limit: 1000, leaseSeconds: 0 });
    // The last crashed worker's lease runs out.
    await ctx.sql`UPDATE check_jobs SET claimed_at = now() - interval '1 hour' WHERE product_id = ${id}`;
    await drain();
    const [event] = await checkEvents(id);
    expect(event!.data).toMatchObject({ code: 'interrupted' });
    expect((event!.data as any).reason).toContain('stopped 2 times');
    expect(requestsFor('/p/poison')).toBe(0);
  });

  test('two workers never check the same job twice', async () => {
    const { userId } = await signedIn();
    await startTrial(ctx, userId, 'pro');
    const count = 120;
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push(await addProduct(ctx, userId, `${shopUrl}/p/pair-${i}`));
    // On the PostgreSQL server each worker has its own connections, as separate processes would.
    const second = usingPostgresServer() ? await secondContext() : ctx;
    try {
      expect(await enqueueDueChecks(ctx)).toBeGreaterThanOrEqual(count);
      await drain([ctx, second], { concurrency: 6 });
    } finally {
      if (second !== ctx) await second.close();
    }
    for (let i = 0; i < count; i++) expect(requestsFor(`/p/pair-${i}`)).toBe(1);
    const perProduct = await Promise.all(ids.map(async (id) => (await checkEvents(id)).length));
    expect(perProduct.every((n) => n === 1)).toBe(true);
  });
});

/** Another context on the same test database with its own connection pool. */
async function secondContext() {
  const [{ db }] = await ctx.sql<{ db: string }[]>`SELECT current_database() AS db`;
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${db}`;
  const database = await openDatabase({ url: url.toString(), max: 4 });
  return createContext(loadConfig({ NODE_ENV: 'test', PUBLIC_URL: ORIGIN, CHECK_ALLOW_PRIVATE: 'true', DATABASE_URL: url.toString() }), { database }) as Promise<Ctx>;
}

describe('POST /api/products/:id/check-price', () => {
  const checkPrice = (id: string, cookie?: string) =>
    request(`/api/products/${id}/check-price`, { method: 'POST', headers: { origin: ORIGIN, ...(cookie ? { cookie } : {}) } });

  test('checks now and answers the price; the list sees it at once', async () => {
    const { userId, cookie } = await signedIn();
    prices.set('check-now', '£54.99');
    const id = await addProduct(ctx, userId, `${shopUrl}/p/check-now`);
    await enqueueDueChecks(ctx);
    const res = await checkPrice(id, cookie);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      success: true, price: 54.99, currency: 'GBP', message: 'Price found: £54.99', source: 'selector', selectorMatched: true, sourceNote: null,
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
    const id = await addProduct(ctx, userId, `${shopUrl}/stock/kettle`, '.price');
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

  test("a selector that gives no price says so: the price came from the page's structured data", async () => {
    const { userId, cookie } = await signedIn();
    prices.set('check-fallback', '£20.00');
    const nothing = await addProduct(ctx, userId, `${shopUrl}/p/check-fallback`, '.gone-price');
    await checkPrice(nothing, cookie);
    expect(await (await checkPrice(nothing, cookie)).json()).toEqual({
      success: true, price: 20, currency: 'GBP', source: 'structured-data', selectorMatched: false,
      sourceNote: "Read from the page's structured data; your selector matched nothing.",
      message: "Price unchanged: £20.00. Read from the page's structured data; your selector matched nothing.",
    });
    const noPrice = await addProduct(ctx, userId, `${shopUrl}/p/check-fallback`, '.note');
    expect(await (await checkPrice(noPrice, cookie)).json()).toMatchObject({
      success: true, price: 20, source: 'structured-data', selectorMatched: false,
      sourceNote: "Read from the page's structured data; your selector matched no price.",
    });
    const listed = await (await request('/api/products', { headers: { cookie } })).json();
    expect(listed.find((p: { id: string }) => p.id === nothing).priceSource).toBe('structured-data');
  });

  test('a selector that matches nothing on a page without structured data: the price block next to the title gives the price, and the answer says so', async () => {
    const { userId, cookie } = await signedIn();
    prices.set('check-block', '£36.00');
    const id = await addProduct(ctx, userId, `${shopUrl}/bare/check-block`, '.gone-price');
    const note = "Read from the page's price next to the product title; your selector matched nothing.";
    expect(await (await checkPrice(id, cookie)).json()).toEqual({
      success: true, price: 36, currency: 'GBP', source: 'visible', selectorMatched: false, sourceNote: note, message: `Price found: £36.00. ${note}`,
    });
    const listed = await (await request('/api/products', { headers: { cookie } })).json();
    expect(listed.find((p: { id: string }) => p.id === id)).toMatchObject({ priceSource: 'visible', checkStatus: 'ok' });
  });

  test("a page that states no currency is read in the user's currency", async () => {
    const { userId, cookie } = await signedIn();
    const settings = { emailNotifications: true, priceDropAlerts: true, weeklyReports: false, checkFrequency: 'daily', currency: 'EUR', timezone: 'Europe/Paris' };
    await request('/api/settings', { method: 'PUT', headers: { origin: ORIGIN, cookie, 'content-type': 'application/json' }, body: JSON.stringify(settings) });
    prices.set('no-currency', '12.50');
    const id = await addProduct(ctx, userId, `${shopUrl}/bare/no-currency`);
    expect(await (await checkPrice(id, cookie)).json()).toMatchObject({ success: true, price: 12.5, currency: 'EUR', message: 'Price found: €12.50' });
  });

  test('a failed check answers 200 with the reason and keeps the price', async () => {
    const { userId, cookie } = await signedIn();
    prices.set('check-fail', '£12.00');
    const id = await addProduct(ctx, userId, `${shopUrl}/bare/check-fail`);
    await checkPrice(id, cookie);
    const failing = await addProduct(ctx, userId, `${shopUrl}/bare/check-fail`, '.related .tile-price');
    const res = await checkPrice(failing, cookie);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ success: false, error: 'ambiguous' });
    expect(body.message).toContain('different prices');
    expect(body).not.toHaveProperty('price');
    expect((await productRow(id)).current_price).toBe(12);
  });

  test('signed out 401; unknown or another user\'s product 404', async () => {
    const owner = await signedIn();
    const other = await signedIn();
    const id = await addProduct(ctx, owner.userId, `${shopUrl}/p/private`);
    expect((await checkPrice(id)).status).toBe(401);
    for (const [pid, cookie] of [[id, other.cookie], [crypto.randomUUID(), owner.cookie], ['x'.repeat(300), owner.cookie]] as const) {
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
    const send = (method: string, path: string, body?: unknown) => request(path, {
      method, headers: { origin: ORIGIN, cookie, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined,
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
    ctx.projections.start();
    const stop = new AbortController();
    const worker = runWorker(ctx, { signal: stop.signal, idleMs: 60_000, fetcher: fastFetcher(), workerId });
    try {
      await run();
    } finally {
      stop.abort();
      await worker;
      await ctx.projections.stop();
    }
  }

  test("an added product's price is in the list within 10 s without Check Now, and again after its address changes", async () => {
    const { cookie } = await signedIn();
    const { send, priceWithin } = as(cookie);
    await withWorker('first-price', async () => {
      prices.set('first-price', '£31.50');
      prices.set('first-price-moved', '£29.00');
      const added = await send('POST', '/api/products', { name: 'First price', url: `${shopUrl}/p/first-price`, selector: '.buy .price', threshold: 'none' });
      expect(added.status).toBe(201);
      const { id } = await added.json();
      const started = Date.now();
      expect(await priceWithin(id, 31.5, 10_000)).toMatchObject({ checkStatus: 'ok', priceSource: 'selector', currency: 'GBP' });
      expect(Date.now() - started).toBeLessThan(10_000);

      const before = requestsFor('/p/first-price-moved');
      const edited = await send('PUT', `/api/products/${id}`, { name: 'First price', url: `${shopUrl}/p/first-price-moved`, selector: '.buy .price', threshold: null });
      expect(edited.status).toBe(200);
      await priceWithin(id, 29, 10_000);
      expect(requestsFor('/p/first-price-moved')).toBe(before + 1);
      // A rename checks nothing.
      await send('PUT', `/api/products/${id}`, { name: 'Renamed', url: `${shopUrl}/p/first-price-moved`, selector: '.buy .price', threshold: null });
      expect(await queued(id)).toBe(false);
    });
  });

  test('a fixed selector is checked at once: the list says the new selector read the price, without Check Now', async () => {
    const { cookie } = await signedIn();
    const { send, listedWhen } = as(cookie);
    await withWorker('fixed-selector', async () => {
      prices.set('fixed-selector', '£44.00');
      const url = `${shopUrl}/bare/fixed-selector`;
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
