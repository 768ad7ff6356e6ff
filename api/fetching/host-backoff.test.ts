import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { createApp } from '../server.ts';
import { SETUP_TIMEOUT, testContext } from '../testing/database.ts';
import { signInDemo } from '../testing/sign-in.ts';
import { handleCommand } from '../../events/decider.ts';
import { checkpointOf } from '../../events/store.ts';
import { productDecider, productStream } from '../../events/product.ts';
import { createFetcher } from './fetcher.ts';
import { claimJobs, enqueueCheck } from '../checks/queue.ts';
import { runWorker } from '../checks/worker.ts';
import { hostOf } from '../../domain/shops.ts';
import { BACKOFF_BASE_MS, BACKOFF_MAX_MS, nextBackoff, restLeft, RETRY_AFTER_CAP_MS } from './host-backoff.ts';

setDefaultTimeout(60_000);

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

describe('how long a host rests', () => {
  const now = new Date('2026-11-24T12:00:00Z');
  const at = (ms: number) => new Date(now.getTime() + ms);

  test('the first refusal without Retry-After: 15 minutes', () => {
    expect(nextBackoff(null, now, null)).toEqual({ until: at(BACKOFF_BASE_MS), failures: 1 });
  });
  test('each refusal after a rest doubles it, up to 12 hours', () => {
    expect(nextBackoff({ until: at(-MINUTE), failures: 1 }, now, null)).toEqual({ until: at(30 * MINUTE), failures: 2 });
    expect(nextBackoff({ until: at(-MINUTE), failures: 3 }, now, null)).toEqual({ until: at(2 * HOUR), failures: 4 });
    expect(nextBackoff({ until: at(-MINUTE), failures: 20 }, now, null).until).toEqual(at(BACKOFF_MAX_MS));
  });
  test('Retry-After wins, capped at 24 hours', () => {
    expect(nextBackoff(null, now, 90_000).until).toEqual(at(90_000));
    expect(nextBackoff({ until: at(-MINUTE), failures: 5 }, now, 0).until).toEqual(now);
    expect(nextBackoff(null, now, 7 * 24 * HOUR).until).toEqual(at(RETRY_AFTER_CAP_MS));
  });
  test('refusals met during a rest are one knock: no doubling, and the rest is never shortened', () => {
    const resting = { until: at(10 * MINUTE), failures: 2 };
    expect(nextBackoff(resting, now, null)).toEqual({ until: at(30 * MINUTE), failures: 2 });
    expect(nextBackoff(resting, now, 1000)).toEqual(resting);
  });
  test('a day without refusals starts over', () => {
    expect(nextBackoff({ until: at(-25 * HOUR), failures: 6 }, now, null)).toEqual({ until: at(BACKOFF_BASE_MS), failures: 1 });
  });
  test('the time left in words', () => {
    expect(restLeft(at(14 * MINUTE + 5_000), now)).toBe('another 15 minutes');
    expect(restLeft(at(10_000), now)).toBe('another 1 minute');
    expect(restLeft(at(3 * HOUR), now)).toBe('another 3 hours');
  });
  test('one host whatever the case, the www, or the path', () => {
    expect(hostOf('https://WWW.Shop.example/p/1')).toBe('shop.example');
    expect(hostOf('https://shop.example:8443/p/2?x=1')).toBe('shop.example:8443');
    expect(hostOf('https://shop.example:443/p')).toBe('shop.example');
    expect(hostOf('not a url')).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------
// Loopback shops, one per test (a port is a host of its own), whose answers can be switched.

type Mode = 'ok' | 'cloudflare' | 'slow-down' | 'slow-down-date' | 'slow-down-week';
type Shop = { url: string; hits: () => number; mode: (m: Mode) => void; stop: () => void };
const shops: Shop[] = [];

function startShop(): Shop {
  let mode: Mode = 'ok';
  let hits = 0;
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(req) {
      hits++;
      const html = (body: string, status = 200, headers: Record<string, string> = {}) =>
        new Response(body, { status, headers: { 'content-type': 'text/html; charset=utf-8', ...headers } });
      const name = new URL(req.url).pathname.split('/').pop();
      if (mode === 'cloudflare') {
        return html(
          '<!DOCTYPE html><html><head><title>Just a moment...</title></head><body><script src="/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1"></script></body></html>',
          403,
          { 'cf-mitigated': 'challenge', server: 'cloudflare' },
        );
      }
      if (mode === 'slow-down') return html('Too Many Requests', 429, { 'retry-after': '120' });
      if (mode === 'slow-down-date') return html('Too Many Requests', 429, { 'retry-after': new Date(Date.now() + 2 * HOUR).toUTCString() });
      if (mode === 'slow-down-week') return html('Too Many Requests', 429, { 'retry-after': String(7 * 24 * 3600) });
      return html(`<html><head><title>${name}</title></head><body><h1>${name}</h1><span class="price">£24.99</span></body></html>`);
    },
  });
  const shop = {
    url: `http://127.0.0.1:${server.port}`,
    hits: () => hits,
    mode: (m: Mode) => {
      mode = m;
    },
    stop: () => server.stop(true),
  };
  shops.push(shop);
  return shop;
}

type Ctx = Awaited<ReturnType<typeof testContext>>;
let ctx: Ctx;
let app: ReturnType<typeof createApp>;
const ORIGIN = 'http://localhost:3000';

beforeAll(async () => {
  ctx = await testContext({ PUBLIC_URL: ORIGIN, CHECK_ALLOW_PRIVATE: 'true' });
  app = createApp(ctx);
}, SETUP_TIMEOUT);
afterAll(async () => {
  for (const s of shops) s.stop();
  await ctx.close();
}, SETUP_TIMEOUT);

async function settled() {
  const last = await ctx.store.head();
  if (last.position) await ctx.projections.waitFor(last, 30_000);
}

async function addProduct(userId: string, url: string) {
  const productId = crypto.randomUUID();
  const { appended } = await handleCommand(ctx.store, productStream(productId), productDecider, {
    type: 'Add',
    productId,
    userId,
    details: { name: 'Kettle', url, selector: '.price', alertRule: { kind: 'none' } },
  });
  await ctx.projections.waitFor(checkpointOf({ transactionId: appended!.transactionId, position: appended!.lastPosition }), 30_000);
  return productId;
}

/** Checks the given products through a worker until their jobs are gone or put back for a rest. */
async function checkByWorker(productIds: string[], url: (id: string) => string) {
  for (const id of productIds) await enqueueCheck(ctx.sql, id, url(id));
  const stop = new AbortController();
  const worker = runWorker(ctx, { signal: stop.signal, idleMs: 10, concurrency: 4, fetcher: createFetcher({ hostSpacingMs: 0, retryBaseDelayMs: 5 }) });
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const [{ n }] = await ctx.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM check_jobs WHERE product_id = ANY(${productIds}::text[]) AND NOT EXISTS (SELECT 1 FROM host_backoff b WHERE b.host = check_jobs.host AND b.until > now())`;
    if (n === 0) break;
    await Bun.sleep(20);
  }
  stop.abort();
  await worker;
  await settled();
}

const checkEvents = async (productId: string) =>
  (await ctx.store.readStream(productStream(productId))).events.filter((e) => e.type === 'PriceObserved' || e.type === 'PriceCheckFailed');

const restingUntil = async (host: string) => (await ctx.sql<{ until: Date }[]>`SELECT until FROM host_backoff WHERE host = ${host}`)[0]?.until ?? null;

const checkNow = async (cookie: string, id: string) =>
  (
    await app.handle(new Request(new URL(`/api/products/${id}/check-price`, ORIGIN), { method: 'POST', headers: { cookie, origin: ORIGIN } }))
  ).json() as Promise<Record<string, unknown>>;

describe('a shop that turns checks away', () => {
  test('is recorded as blocked, keeps the last good price, and rests for 15 minutes', async () => {
    const shop = startShop();
    const { userId } = await signInDemo(app, ORIGIN);
    const id = await addProduct(userId, `${shop.url}/p/kettle`);
    await checkByWorker([id], () => `${shop.url}/p/kettle`);
    expect((await ctx.sql`SELECT current_price FROM products WHERE id = ${id}`)[0]).toEqual({ current_price: 24.99 });

    shop.mode('cloudflare');
    const before = Date.now();
    await checkByWorker([id], () => `${shop.url}/p/kettle`);
    const [, failed] = await checkEvents(id);
    expect(failed!.type).toBe('PriceCheckFailed');
    expect(failed!.data).toMatchObject({ code: 'blocked', httpStatus: 403 });
    expect((failed!.data as { reason: string }).reason).toContain('(Cloudflare) turned the check away');
    const [product] = await ctx.sql`SELECT current_price, last_check_status FROM products WHERE id = ${id}`;
    expect(product).toEqual({ current_price: 24.99, last_check_status: 'failed' });
    expect((await ctx.sql`SELECT price FROM price_points WHERE product_id = ${id}`).map((r) => r.price)).toEqual([24.99]);
    const until = (await restingUntil(hostOf(shop.url)!))!.getTime();
    expect(until).toBeGreaterThanOrEqual(before + BACKOFF_BASE_MS - 1000);
    expect(until).toBeLessThanOrEqual(Date.now() + BACKOFF_BASE_MS + 1000);
  });

  test("the queue keeps a resting host's jobs without handing them out, and hands them out after", async () => {
    const shop = startShop(),
      other = startShop();
    const { userId } = await signInDemo(app, ORIGIN);
    const walled = await addProduct(userId, `${shop.url}/p/a`);
    const sibling = await addProduct(userId, `${shop.url}/p/b`);
    const elsewhere = await addProduct(userId, `${other.url}/p/c`);
    shop.mode('cloudflare');
    await checkByWorker([walled], () => `${shop.url}/p/a`);
    const hits = shop.hits();

    await enqueueCheck(ctx.sql, sibling, `${shop.url}/p/b`);
    await enqueueCheck(ctx.sql, elsewhere, `${other.url}/p/c`);
    const claimed = await claimJobs(ctx.sql, { workerId: 'test', limit: 10 });
    expect(claimed.map((j) => j.productId)).toEqual([elsewhere]);
    expect((await ctx.sql`SELECT attempts FROM check_jobs WHERE product_id = ${sibling}`)[0]).toEqual({ attempts: 0 });
    expect(shop.hits()).toBe(hits);

    await ctx.sql`UPDATE host_backoff SET until = now() - interval '1 second' WHERE host = ${hostOf(shop.url)}`;
    const after = await claimJobs(ctx.sql, { workerId: 'test', limit: 10 });
    expect(after.map((j) => j.productId)).toEqual([sibling]);
  });

  test('Check Now during the rest answers the reason and the next try, without knocking', async () => {
    const shop = startShop();
    const { userId, cookie } = await signInDemo(app, ORIGIN);
    const id = await addProduct(userId, `${shop.url}/p/kettle`);
    shop.mode('cloudflare');
    const first = await checkNow(cookie, id);
    expect(first).toMatchObject({ success: false, error: 'blocked' });
    expect(String(first.message)).toContain('Cloudflare');
    expect(typeof first.retryAt).toBe('string');
    const hits = shop.hits();
    const events = (await checkEvents(id)).length;

    shop.mode('ok');
    const second = await checkNow(cookie, id);
    expect(second).toMatchObject({ success: false, error: 'blocked', retryAt: first.retryAt });
    expect(String(second.message)).toMatch(
      /^The shop's bot protection \(Cloudflare\) turned the check away\. .* Checks of 127\.0\.0\.1:\d+ are paused for another 1[45] minutes\.$/,
    );
    expect(shop.hits()).toBe(hits);
    expect((await checkEvents(id)).length).toBe(events);
  });

  test('HTTP 429 rests the host for as long as Retry-After says (seconds or a date), at most a day', async () => {
    const { userId, cookie } = await signInDemo(app, ORIGIN);
    for (const [mode, expected] of [
      ['slow-down', 120_000],
      ['slow-down-date', 2 * HOUR],
      ['slow-down-week', RETRY_AFTER_CAP_MS],
    ] as const) {
      const shop = startShop();
      const id = await addProduct(userId, `${shop.url}/p/kettle`);
      shop.mode(mode);
      const before = Date.now();
      const answer = await checkNow(cookie, id);
      expect(answer).toMatchObject({ success: false, error: 'blocked' });
      expect(String(answer.message)).toStartWith('The shop asked us to slow down (HTTP 429).');
      const until = Date.parse(String(answer.retryAt));
      expect(until).toBeGreaterThanOrEqual(before + expected - 2000);
      expect(until).toBeLessThanOrEqual(Date.now() + expected + 1000);
      const [failed] = await checkEvents(id);
      expect(failed!.data).toMatchObject({ code: 'blocked', httpStatus: 429 });
    }
  });
});
