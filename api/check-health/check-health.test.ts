import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createApp } from '../server.ts';
import { SETUP_TIMEOUT, testContext } from '../testing/database.ts';
import { signInDemo } from '../testing/sign-in.ts';
import { addProduct, observed } from '../testing/prices.ts';
import { readModelSnapshot } from '../testing/read-models.ts';
import { rebuildInto } from '../../projections/replay.ts';
import { checkHealthProjection } from '../../projections/check-health.ts';
import type { RecordedEvent } from '../../events/store.ts';
import { readCheckHealth } from './routes.ts';

const ORIGIN = 'http://localhost:3000';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let ctx: Awaited<ReturnType<typeof testContext>>;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  ctx = await testContext({ PUBLIC_URL: ORIGIN });
  app = createApp(ctx);
}, SETUP_TIMEOUT);
afterAll(() => ctx.close(), SETUP_TIMEOUT);

const get = (path: string, cookie?: string) => app.handle(new Request(new URL(path, ORIGIN), { headers: cookie ? { cookie } : {} }));

function failedCheck(productId: string, userId: string, url: string, code: string, reason: string, at: Date, httpStatus: number | null = 403) {
  return { type: 'PriceCheckFailed' as const, data: { productId, userId, code, reason, httpStatus, url, attemptedAt: at.toISOString(), availability: null } };
}
const seen = (productId: string, userId: string, url: string, at: Date) => {
  const e = observed(productId, userId, 20, at);
  return { ...e, data: { ...e.data, url } };
};

const CF = "The shop's bot protection (Cloudflare) turned the check away. Pricewatch will try again later; meanwhile you can update the price by hand.";

describe('GET /api/check-health', () => {
  test('per host over the last 7 days, from the log, most failures first; old bot-protection events count as blocked', async () => {
    const { cookie, userId } = await signInDemo(app, ORIGIN);
    const someoneElse = crypto.randomUUID();
    const now = Date.now();
    const ago = (ms: number) => new Date(now - ms);
    const good = await addProduct(ctx, userId, { url: 'https://www.good.example/p/1' });
    const walled = await addProduct(ctx, userId, { url: 'https://walled.example/p/1' });
    const other = await addProduct(ctx, someoneElse, { url: 'https://walled.example/p/2' });
    await ctx.store.append(`product-${good}`, 'any', [
      seen(good, userId, 'https://www.good.example/p/1', ago(2 * HOUR)),
      seen(good, userId, 'https://www.good.example/p/1', ago(1 * HOUR)),
      failedCheck(good, userId, 'https://www.good.example/p/1', 'timeout', 'The shop did not answer within 15 seconds.', ago(3 * HOUR), null),
      // Out of the window.
      failedCheck(good, userId, 'https://www.good.example/p/1', 'timeout', 'old', ago(9 * DAY), null),
    ]);
    await ctx.store.append(`product-${walled}`, 'any', [
      seen(walled, userId, 'https://walled.example/p/1', ago(3 * DAY)),
      failedCheck(
        walled,
        userId,
        'https://walled.example/p/1',
        'bot-protection',
        "The shop's bot protection (Cloudflare) blocked the automatic check.",
        ago(2 * DAY),
      ),
      failedCheck(walled, userId, 'https://walled.example/p/1', 'blocked', CF, ago(30 * 60_000)),
      failedCheck(walled, userId, 'https://walled.example/p/1', 'http-status', 'The shop refused the request (HTTP 403).', ago(DAY)),
    ]);
    await ctx.store.append(`product-${other}`, 'any', [failedCheck(other, someoneElse, 'https://walled.example/p/2', 'blocked', CF, ago(HOUR))]);
    const until = new Date(now + 20 * 60_000);
    await ctx.sql`INSERT INTO host_backoff (host, until, failures, reason, blocked_at) VALUES ('walled.example', ${until}, 1, ${CF}, now())`;
    await ctx.projections.catchUp();

    const res = await get('/api/check-health', cookie);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({
      hosts: [
        {
          host: 'walled.example',
          checks: 4,
          successes: 1,
          failures: { blocked: 2, 'http-status': 1 },
          lastError: { code: 'blocked', message: CF, at: ago(30 * 60_000).toISOString() },
          browserNeeded: false,
          backedOffUntil: until.toISOString(),
        },
        {
          host: 'good.example',
          checks: 3,
          successes: 2,
          failures: { timeout: 1 },
          lastError: { code: 'timeout', message: 'The shop did not answer within 15 seconds.', at: ago(3 * HOUR).toISOString() },
          browserNeeded: false,
          backedOffUntil: null,
        },
      ],
    });
    // A longer window reaches the old failure.
    const month = await (await get('/api/check-health?days=30', cookie)).json();
    expect(month.hosts.find((h: { host: string }) => h.host === 'good.example').failures).toEqual({ timeout: 2 });
    // The other user sees only their own check.
    const theirs = await readCheckHealth(ctx.sql, someoneElse);
    expect(theirs.hosts.map((h) => [h.host, h.checks])).toEqual([['walled.example', 1]]);
  });

  test('a new user has no hosts yet', async () => {
    const { cookie } = await signInDemo(app, ORIGIN);
    expect(await (await get('/api/check-health', cookie)).json()).toEqual({ hosts: [] });
  });

  test('signed in only', async () => {
    expect((await get('/api/check-health')).status).toBe(401);
  });

  test('bad input names the field; random query strings never answer 500', async () => {
    const { cookie } = await signInDemo(app, ORIGIN);
    for (const q of ['days=abc', 'days=0', 'days=91', 'days=1.5', 'days=-3', 'days=']) {
      const res = await get(`/api/check-health?${q}`, cookie);
      expect(res.status).toBe(400);
      expect((await res.json()).field).toBe('days');
    }
    const pieces = ['days', 'day', '=', '&', '%', '%00', '1e9', '7', '[]', '"', "'", '<script>', '%ZZ', '..', '🙂', ' ', '-', 'x'.repeat(300)];
    let seed = 42;
    const pick = () => pieces[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % pieces.length]!;
    for (let i = 0; i < 150; i++) {
      const q = Array.from({ length: 1 + (i % 6) }, pick).join('');
      const res = await get(`/api/check-health?${q}`, cookie);
      expect([200, 400]).toContain(res.status);
      expect(res.headers.get('content-type')).toContain('application/json');
    }
  });
});

describe('the check-health read model', () => {
  const event = (type: 'PriceObserved' | 'PriceCheckFailed', data: Record<string, unknown>, position: number) =>
    ({
      type,
      data,
      position,
      transactionId: '1',
      streamId: 'product-x',
      streamVersion: position,
      schemaVersion: 3,
      metadata: {},
      recordedAt: new Date(),
    }) as unknown as RecordedEvent;

  test('a price read by a browser marks the host (the field is read defensively: absent is static)', async () => {
    const userId = crypto.randomUUID();
    const base = {
      productId: 'x',
      userId,
      price: 10,
      currency: 'GBP',
      source: 'selector',
      selector: '.p',
      matchedText: '£10',
      httpStatus: 200,
      pageHash: 'h',
      availability: null,
    };
    await checkHealthProjection.apply(ctx.sql, [
      event('PriceObserved', { ...base, url: 'https://spa.example/p', observedAt: new Date().toISOString(), fetcher: 'browser' }, 1),
      event('PriceObserved', { ...base, url: 'https://static.example/p', observedAt: new Date().toISOString() }, 2),
      event('PriceObserved', { ...base, url: 'https://static.example/p', observedAt: new Date().toISOString(), fetcher: 'static' }, 3),
    ]);
    const health = await readCheckHealth(ctx.sql, userId);
    expect(Object.fromEntries(health.hosts.map((h) => [h.host, h.browserNeeded]))).toEqual({ 'spa.example': true, 'static.example': false });
    await ctx.sql`DELETE FROM check_health WHERE user_id = ${userId}`;
  });

  test('a rebuild from the log yields the same table', async () => {
    await ctx.projections.catchUp();
    await rebuildInto(ctx.store, ctx.projections.projections, { schema: 'health_copy', names: ['check-health'] });
    const live = await readModelSnapshot(ctx.sql, [checkHealthProjection]);
    expect(live.check_health!.length).toBeGreaterThan(0);
    expect(await readModelSnapshot(ctx.sql, [checkHealthProjection], 'health_copy')).toEqual(live);
  });
});
