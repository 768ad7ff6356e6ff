import { describe, expect, test } from 'bun:test';
import { loadConfig } from '../config.ts';
import { createContext } from '../create-context.ts';
import { openDatabase, transaction } from '../../db/index.ts';
import { usingPostgresServer } from '../testing/database.ts';
import { handleCommand } from '../../events/decider.ts';
import { checkpointOf } from '../../events/store.ts';
import { productDecider, productStream } from '../../events/product.ts';
import { claimJobs, enqueueCheck, enqueueDueChecks, finishJobs, releaseJobs } from './queue.ts';
import { startTrial } from '../testing/plans.ts';
import { useTestApp, type TestContext } from '../testing/app.ts';
import { checkHelpers, minuteFrom, SETTLE_MS, useLoopbackShop } from '../testing/checks.ts';

// Price checks on their schedule: when products are queued, and what the workers that take them from the queue record.
// Check Now and the first price of a new product: check-now.test.ts.

const ORIGIN = 'http://localhost:3000';
const DAY = 86_400_000;

const shop = useLoopbackShop();
const { prices, stock, requestsFor } = shop;
const api = useTestApp({ PUBLIC_URL: ORIGIN, CHECK_ALLOW_PRIVATE: 'true' });
const { request, signedIn } = api;
const { addProduct, removeProduct, drain, checkEvents, productRow, queued, dueAt } = checkHelpers(api);

describe('scheduling', () => {
  test('a new product is enqueued once; not again while its job waits', async () => {
    const { userId } = await signedIn();
    const id = await addProduct(api.ctx, userId, `${shop.url}/p/sched-new`);
    expect(await enqueueDueChecks(api.ctx)).toBeGreaterThanOrEqual(1);
    expect(await queued(id)).toBe(true);
    expect(await enqueueDueChecks(api.ctx)).toBe(0);
    await drain();
    expect(await queued(id)).toBe(false);
  });

  test('after a check the product is due again one plan interval after its slot (free: a day)', async () => {
    const { userId } = await signedIn();
    const id = await addProduct(api.ctx, userId, `${shop.url}/p/sched-daily`);
    await enqueueDueChecks(api.ctx);
    await drain();
    const checkedAt = new Date((await productRow(id)).last_check_at).getTime();
    const due = await dueAt(id);
    expect(Math.abs(due.getTime() - (checkedAt + DAY))).toBeLessThanOrEqual(DAY / 2);
    await enqueueDueChecks(api.ctx, minuteFrom(due, -1));
    expect(await queued(id)).toBe(false);
    await enqueueDueChecks(api.ctx, minuteFrom(due, 1));
    expect(await queued(id)).toBe(true);
    await drain();
  });

  test('a tick also queues the checks due before the next one, to run at their time', async () => {
    const { userId } = await signedIn();
    const id = await addProduct(api.ctx, userId, `${shop.url}/p/sched-ahead`);
    await enqueueDueChecks(api.ctx);
    await drain();
    const due = await dueAt(id);
    await enqueueDueChecks(api.ctx, minuteFrom(due, -2), { aheadMs: 60_000 });
    expect(await queued(id)).toBe(false);
    await enqueueDueChecks(api.ctx, new Date(due.getTime() - 30_000), { aheadMs: 60_000 });
    const [job] = await api.ctx.sql<{ run_at: Date }[]>`SELECT run_at FROM check_jobs WHERE product_id = ${id}`;
    expect(new Date(job!.run_at).getTime()).toBe(due.getTime());
    // Not before its time: the day ahead has not come yet. (Other products' jobs it took go back.)
    const claimed = await claimJobs(api.ctx.sql, { workerId: 'ahead', limit: 100 });
    await releaseJobs(api.ctx.sql, claimed);
    expect(claimed.map((j) => j.productId)).not.toContain(id);
    await api.ctx.sql`DELETE FROM check_jobs WHERE product_id = ${id}`;
  });

  test('products checked together come due spread over the next interval, each at its slot', async () => {
    const { userId } = await signedIn();
    // More products than Free allows (the rest would pause), checked daily.
    await startTrial(api.ctx, userId, 'starter');
    const ids: string[] = [];
    for (let i = 0; i < 24; i++) ids.push(await addProduct(api.ctx, userId, `${shop.url}/p/sched-spread-${i}`));
    await enqueueDueChecks(api.ctx);
    await drain();
    const due = new Map(await Promise.all(ids.map(async (id) => [id, (await dueAt(id)).getTime()] as const)));
    const checkedAt = Date.now();
    // Ticks every three hours from half a day to a day and a half after the checks.
    const queuedAt: number[] = [];
    for (let hours = 12; hours <= 36; hours += 3) {
      const tick = new Date(checkedAt + hours * 3_600_000);
      await enqueueDueChecks(api.ctx, tick);
      const jobs = new Set(
        (await api.ctx.sql<{ product_id: string }[]>`SELECT product_id FROM check_jobs WHERE product_id = ANY(${ids}::text[])`).map((r) => r.product_id),
      );
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
    const settings = {
      emailNotifications: true,
      priceDropAlerts: true,
      weeklyReports: false,
      checkFrequency: 'weekly',
      currency: 'GBP',
      timezone: 'Europe/London',
    };
    const put = await request('/api/settings', {
      method: 'PUT',
      headers: { cookie, origin: ORIGIN, 'content-type': 'application/json' },
      body: JSON.stringify(settings),
    });
    expect(put.status).toBe(200);
    const id = await addProduct(api.ctx, userId, `${shop.url}/p/sched-weekly`);
    await enqueueDueChecks(api.ctx);
    await drain();
    await enqueueDueChecks(api.ctx, new Date(Date.now() + 2 * DAY));
    expect(await queued(id)).toBe(false);
    const due = await dueAt(id, 'weekly');
    await enqueueDueChecks(api.ctx, minuteFrom(due, -1));
    expect(await queued(id)).toBe(false);
    await enqueueDueChecks(api.ctx, minuteFrom(due, 1));
    expect(await queued(id)).toBe(true);
    await drain();
  });

  test('overlapping ticks do not enqueue twice', async () => {
    const { userId } = await signedIn();
    await startTrial(api.ctx, userId, 'starter');
    for (let i = 0; i < 5; i++) await addProduct(api.ctx, userId, `${shop.url}/p/sched-tick-${i}`);
    const counts = await Promise.all([enqueueDueChecks(api.ctx), enqueueDueChecks(api.ctx), enqueueDueChecks(api.ctx)]);
    expect(counts.reduce((a, b) => a + b, 0)).toBe(5);
    await drain();
  });
});

describe('checks through the queue', () => {
  test('records the price with its evidence, and a new price when the shop changes it', async () => {
    const { userId } = await signedIn();
    prices.set('headphones', '£249.00');
    const id = await addProduct(api.ctx, userId, `${shop.url}/p/headphones`);
    await enqueueDueChecks(api.ctx);
    await drain();

    const [first] = await checkEvents(id);
    expect(first!.type).toBe('PriceObserved');
    expect(first!.data).toMatchObject({
      productId: id,
      userId,
      price: 249,
      currency: 'GBP',
      source: 'selector',
      selector: '.buy .price',
      url: `${shop.url}/p/headphones`,
      httpStatus: 200,
      imageUrl: `${shop.url}/images/headphones.jpg`,
    });
    expect((first!.data as any).matchedText).toContain('249.00');
    expect((first!.data as any).pageHash).toMatch(/^[0-9a-f]{64}$/);
    expect((await productRow(id)).current_price).toBe(249);

    prices.set('headphones', '£229.00');
    await enqueueDueChecks(api.ctx, new Date(Date.now() + 2 * DAY));
    await drain();
    expect((await checkEvents(id)).map((e) => (e.data as any).price)).toEqual([249, 229]);
    expect((await productRow(id)).current_price).toBe(229);
    const [change] = await api.ctx.sql`SELECT previous_price, current_price FROM price_changes WHERE product_id = ${id}`;
    expect(change).toMatchObject({ previous_price: 249, current_price: 229 });
  });

  test('every check records what the page said about stock: a priced page that says nothing is in stock, a failed one unknown', async () => {
    const { userId } = await signedIn();
    prices.set('plain', '£5.00');
    const ok = await addProduct(api.ctx, userId, `${shop.url}/bare/plain`);
    const bad = await addProduct(api.ctx, userId, `${shop.url}/bare/plain`, '.note');
    await enqueueDueChecks(api.ctx);
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
    const id = await addProduct(api.ctx, userId, `${shop.url}/stock/mixer`, '.price');
    const check = async (days: number) => {
      await enqueueDueChecks(api.ctx, new Date(Date.now() + days * DAY));
      await drain();
    };
    await check(0);
    stock.set('mixer', { price: '24.99', availability: 'OutOfStock' });
    await check(2);
    stock.set('mixer', { price: null, availability: 'OutOfStock' });
    await check(4);
    const events = await checkEvents(id);
    expect(events.map((e) => [e.type, (e.data as any).availability])).toEqual([
      ['PriceObserved', 'InStock'],
      ['PriceObserved', 'OutOfStock'],
      ['PriceCheckFailed', 'OutOfStock'],
    ]);
    const [row] = await api.ctx.sql`SELECT current_price, availability FROM products WHERE id = ${id}`;
    expect(row).toMatchObject({ current_price: 24.99, availability: 'OutOfStock' });
    await api.ctx.reactors.catchUp();
    await api.ctx.projections.catchUp();
    const alerts = await (await request('/api/alerts', { headers: { cookie } })).json();
    expect(alerts.map((a: { type: string }) => a.type)).toEqual(['out_of_stock']);
  });

  test('one fetch serves every product tracking the same url', async () => {
    const users = await Promise.all([signedIn(), signedIn(), signedIn()]);
    prices.set('shared', '£42.00');
    const url = `${shop.url}/bare/shared`;
    const ids = [
      await addProduct(api.ctx, users[0]!.userId, url),
      await addProduct(api.ctx, users[1]!.userId, url, '.buy'),
      await addProduct(api.ctx, users[2]!.userId, url, '.note'),
    ];
    await enqueueDueChecks(api.ctx);
    await drain();
    expect(requestsFor('/bare/shared')).toBe(1);
    const results = await Promise.all(ids.map(async (id) => (await checkEvents(id)).map((e) => (e.type === 'PriceObserved' ? e.data.price : e.data.code))));
    expect(results).toEqual([[42], [42], ['no-price-in-text']]);
  });

  test('failures keep the last good price, say why, and never read as 0', async () => {
    const { userId } = await signedIn();
    prices.set('flaky', '£19.99');
    const id = await addProduct(api.ctx, userId, `${shop.url}/bare/flaky`, '.buy .price');
    await enqueueDueChecks(api.ctx);
    await drain();
    expect((await productRow(id)).current_price).toBe(19.99);

    // The shop redesigns the page: the selector now names text without a price.
    const { appended } = await handleCommand(api.ctx.store, productStream(id), productDecider, {
      type: 'Edit',
      productId: id,
      userId,
      details: { name: 'Product', url: `${shop.url}/bare/flaky`, selector: '.note', alertRule: { kind: 'none' } },
    });
    await api.ctx.projections.waitFor(checkpointOf({ transactionId: appended!.transactionId, position: appended!.lastPosition }), SETTLE_MS);
    await enqueueDueChecks(api.ctx); // edited since the last check: due at once
    await drain();
    const failed = (await checkEvents(id)).at(-1)!;
    expect(failed.type).toBe('PriceCheckFailed');
    expect(failed.data).toMatchObject({ code: 'no-price-in-text', httpStatus: 200 });
    expect((failed.data as any).reason).toContain('No price here');
    expect(failed.data).not.toHaveProperty('price');
    const row = await productRow(id);
    expect(row).toMatchObject({ current_price: 19.99, last_check_status: 'failed', consecutive_failures: 1, is_active: true });

    // Failing again: backoff doubles the wait (2 days on a daily plan), and the card turns inactive after three.
    await enqueueDueChecks(api.ctx, minuteFrom(await dueAt(id), 1));
    await drain();
    const doubled = await dueAt(id);
    expect(doubled.getTime() - Date.now()).toBeGreaterThan(1.4 * DAY);
    await enqueueDueChecks(api.ctx, minuteFrom(doubled, -1));
    expect(await queued(id)).toBe(false);
    await enqueueDueChecks(api.ctx, minuteFrom(doubled, 1));
    await drain();
    expect(await productRow(id)).toMatchObject({ current_price: 19.99, consecutive_failures: 3, is_active: false });
    const points = await api.ctx.sql`SELECT price FROM price_points WHERE product_id = ${id}`;
    expect(points.map((p) => p.price)).toEqual([19.99]);
  });

  test('http errors and bot protection are told apart', async () => {
    const { userId } = await signedIn();
    const gone = await addProduct(api.ctx, userId, `${shop.url}/gone`);
    const challenge = await addProduct(api.ctx, userId, `${shop.url}/challenge`);
    await enqueueDueChecks(api.ctx);
    await drain();
    const [a] = await checkEvents(gone);
    const [b] = await checkEvents(challenge);
    expect(a!.data).toMatchObject({ code: 'http-status', httpStatus: 404 });
    expect((a!.data as any).reason).toContain('does not exist');
    expect(b!.data).toMatchObject({ code: 'blocked', httpStatus: 403 });
    expect((b!.data as any).reason).toContain('Cloudflare');
    // The refusal rests the whole loopback shop; the tests after this one use it too.
    expect((await api.ctx.sql`SELECT host FROM host_backoff`).map((r) => r.host)).toEqual([new URL(shop.url).host]);
    await api.ctx.sql`DELETE FROM host_backoff`;
  });

  test('a product removed while queued is not checked into its stream', async () => {
    const { userId } = await signedIn();
    const id = await addProduct(api.ctx, userId, `${shop.url}/p/removed`);
    await enqueueDueChecks(api.ctx);
    await removeProduct(id, userId);
    await drain();
    expect(await checkEvents(id)).toEqual([]);
    expect(await queued(id)).toBe(false);
  });

  test("a dead worker's job is taken over when its lease runs out; its late result is dropped", async () => {
    const { userId } = await signedIn();
    const id = await addProduct(api.ctx, userId, `${shop.url}/p/lease`);
    await enqueueCheck(api.ctx.sql, id, `${shop.url}/p/lease`);
    const [dead] = await claimJobs(api.ctx.sql, { workerId: 'dead', limit: 1000 }).then((jobs) => jobs.filter((j) => j.productId === id));
    expect(dead).toBeDefined();
    // Within the lease nobody else takes it.
    expect((await claimJobs(api.ctx.sql, { workerId: 'other', limit: 1000 })).some((j) => j.productId === id)).toBe(false);
    // Once the lease has run out it is claimed again, with the attempt counted.
    const [again] = (await claimJobs(api.ctx.sql, { workerId: 'other', limit: 1000, leaseSeconds: 0 })).filter((j) => j.productId === id);
    expect(again).toMatchObject({ productId: id, attempts: 2 });
    expect(again!.lease).not.toBe(dead!.lease);
    const lateFinish = await transaction(api.ctx.sql, (tx) => finishJobs(tx, [dead!]));
    expect(lateFinish.has(id)).toBe(false);
    const ownFinish = await transaction(api.ctx.sql, (tx) => finishJobs(tx, [again!]));
    expect(ownFinish.has(id)).toBe(true);
  });

  test('a job that stopped its worker twice is given up with a reason, not tried a third time', async () => {
    const { userId } = await signedIn();
    const url = `${shop.url}/p/poison`;
    const id = await addProduct(api.ctx, userId, url);
    await enqueueCheck(api.ctx.sql, id, url);
    for (let crash = 0; crash < 2; crash++) await claimJobs(api.ctx.sql, { workerId: `crashed-${crash}`, limit: 1000, leaseSeconds: 0 });
    // The last crashed worker's lease runs out.
    await api.ctx.sql`UPDATE check_jobs SET claimed_at = now() - interval '1 hour' WHERE product_id = ${id}`;
    await drain();
    const [event] = await checkEvents(id);
    expect(event!.data).toMatchObject({ code: 'interrupted' });
    expect((event!.data as any).reason).toContain('stopped 2 times');
    expect(requestsFor('/p/poison')).toBe(0);
  });

  test('two workers never check the same job twice', async () => {
    const { userId } = await signedIn();
    await startTrial(api.ctx, userId, 'pro');
    const count = 120;
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push(await addProduct(api.ctx, userId, `${shop.url}/p/pair-${i}`));
    // On the PostgreSQL server each worker has its own connections, as separate processes would.
    const second = usingPostgresServer() ? await secondContext() : api.ctx;
    try {
      expect(await enqueueDueChecks(api.ctx)).toBeGreaterThanOrEqual(count);
      await drain([api.ctx, second], { concurrency: 6 });
    } finally {
      if (second !== api.ctx) await second.close();
    }
    for (let i = 0; i < count; i++) expect(requestsFor(`/p/pair-${i}`)).toBe(1);
    const perProduct = await Promise.all(ids.map(async (id) => (await checkEvents(id)).length));
    expect(perProduct.every((n) => n === 1)).toBe(true);
  });
});

/** Another context on the same test database with its own connection pool. */
async function secondContext() {
  const [{ db }] = await api.ctx.sql<{ db: string }[]>`SELECT current_database() AS db`;
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${db}`;
  const database = await openDatabase({ url: url.toString(), max: 4 });
  return createContext(loadConfig({ NODE_ENV: 'test', PUBLIC_URL: ORIGIN, CHECK_ALLOW_PRIVATE: 'true', DATABASE_URL: url.toString() }), {
    database,
  }) as Promise<TestContext>;
}
