import { describe, expect, test } from 'bun:test';
import { addProduct, failCheck, observed, observePrices } from '../testing/prices.ts';
import { DEFAULT_SETTINGS } from '../../events/catalogue.ts';
import { readDashboardStats } from './routes.ts';
import { useTestApp } from '../testing/app.ts';

const ORIGIN = 'http://localhost:3000';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

const api = useTestApp({ PUBLIC_URL: ORIGIN });
const { signedIn } = api;

const request = (path: string, cookie?: string) => api.request(path, { headers: cookie ? { cookie } : {} });

const stats = async (cookie: string) => {
  const res = await request('/api/dashboard/stats', cookie);
  expect(res.status).toBe(200);
  return res.json();
};

/** The calendar date of a moment in a time zone, as the API writes it. */
const dateIn = (at: Date, timeZone: string) => new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);

describe('/api/dashboard/stats', () => {
  test('signed out: 401', async () => {
    expect((await request('/api/dashboard/stats')).status).toBe(401);
  });

  test('a new user: zeros, no baselines and empty lists', async () => {
    const { cookie } = await signedIn();
    const body = await stats(cookie);
    expect(body).toMatchObject({
      productsCount: 0,
      priceDropsCount: 0,
      alertsCount: 0,
      recentChanges: [],
      lastScan: { at: null, status: null, failedCount: 0 },
      trends: { productsCount: null, priceDropsCount: null },
    });
    expect(body.priceTrends).toHaveLength(90);
    expect(body.priceTrends.every((d: any) => d.changes === 0 && d.averageChangePercent === null)).toBe(true);
    expect(body.priceTrends.at(-1).date).toBe(dateIn(new Date(), DEFAULT_SETTINGS.timezone));
  });

  test('figures from real price events', async () => {
    const { cookie, userId } = await signedIn();
    const now = Date.now();
    const at = (ms: number) => new Date(now - ms);
    const kettle = await addProduct(api.ctx, userId, { name: 'Kettle', url: 'https://shop.example.com/kettle' });
    const toaster = await addProduct(api.ctx, userId, { name: 'Toaster', url: 'https://www.toasters.example/t1' });
    await addProduct(api.ctx, userId, { name: 'Never checked' });
    // Kettle: 100, a 10% drop 3 days ago, a 10% rise yesterday.
    await observePrices(api.ctx, kettle, userId, [
      [100, at(8 * DAY)],
      [100, at(5 * DAY)],
      [90, at(3 * DAY)],
      [99, at(1 * DAY)],
    ]);
    // Toaster: 50, a 20% drop 9 days ago (last week), a 5% drop 2 hours ago.
    await observePrices(api.ctx, toaster, userId, [
      [50, at(10 * DAY)],
      [40, at(9 * DAY)],
      [38, at(2 * HOUR)],
    ]);
    // The latest check of all failed.
    await failCheck(api.ctx, kettle, userId, at(HOUR));
    await api.ctx.projections.catchUp();

    const body = await stats(cookie);
    expect(body.productsCount).toBe(3);
    expect(body.priceDropsCount).toBe(2);
    expect(body.alertsCount).toBe(0);
    expect(body.recentChanges).toEqual([
      {
        productId: toaster,
        productName: 'Toaster',
        url: 'https://www.toasters.example/t1',
        previousPrice: 40,
        currentPrice: 38,
        currency: 'GBP',
        changePercent: -5,
        timestamp: at(2 * HOUR).toISOString(),
      },
      {
        productId: kettle,
        productName: 'Kettle',
        url: 'https://shop.example.com/kettle',
        previousPrice: 90,
        currentPrice: 99,
        currency: 'GBP',
        changePercent: 10,
        timestamp: at(DAY).toISOString(),
      },
      {
        productId: kettle,
        productName: 'Kettle',
        url: 'https://shop.example.com/kettle',
        previousPrice: 100,
        currentPrice: 90,
        currency: 'GBP',
        changePercent: -10,
        timestamp: at(3 * DAY).toISOString(),
      },
      {
        productId: toaster,
        productName: 'Toaster',
        url: 'https://www.toasters.example/t1',
        previousPrice: 50,
        currentPrice: 40,
        currency: 'GBP',
        changePercent: -20,
        timestamp: at(9 * DAY).toISOString(),
      },
    ]);
    expect(body.lastScan).toEqual({ at: at(HOUR).toISOString(), status: 'failed', failedCount: 1 });
    // Two drops this week against one the week before; no products a month ago.
    expect(body.trends.priceDropsCount).toEqual({ current: 2, previous: 1, changePercent: 100 });
    expect(body.trends.productsCount).toBeNull();

    // Each change counts on its day in the user's time zone (Europe/London by default).
    const expected = new Map<string, number[]>();
    for (const [ms, pct] of [
      [2 * HOUR, -5],
      [DAY, 10],
      [3 * DAY, -10],
      [9 * DAY, -20],
    ] as const) {
      const date = dateIn(at(ms), 'Europe/London');
      expected.set(date, [...(expected.get(date) ?? []), pct]);
    }
    const days = body.priceTrends.filter((d: any) => d.changes > 0);
    expect(days.map((d: any) => d.date)).toEqual([...expected.keys()].sort());
    for (const d of days) {
      const pcts = expected.get(d.date)!;
      expect(d.changes).toBe(pcts.length);
      expect(d.averageChangePercent).toBeCloseTo(pcts.reduce((a, b) => a + b, 0) / pcts.length, 9);
    }
  });

  test('a successful latest check reads OK; products count against a month ago', async () => {
    const { userId } = await signedIn();
    const a = await addProduct(api.ctx, userId);
    const b = await addProduct(api.ctx, userId);
    await failCheck(api.ctx, a, userId, new Date(Date.now() - 2 * HOUR));
    await observePrices(api.ctx, b, userId, [[10, new Date(Date.now() - HOUR)]]);
    await api.ctx.projections.catchUp();
    const today = await readDashboardStats(api.ctx.sql, userId);
    expect(today.lastScan).toMatchObject({ status: 'ok', failedCount: 1 });
    expect(today.trends.productsCount).toBeNull();
    // Seen from 31 days later, both products existed a month before.
    const later = await readDashboardStats(api.ctx.sql, userId, new Date(Date.now() + 31 * DAY));
    expect(later.trends.productsCount).toEqual({ current: 2, previous: 2, changePercent: 0 });
  });

  test("days follow the user's time zone", async () => {
    const { cookie, userId } = await signedIn();
    await api.ctx.store.append(`user-${userId}`, 'any', [
      { type: 'SettingsChanged', data: { userId, settings: { ...DEFAULT_SETTINGS, timezone: 'Asia/Tokyo' } } },
    ]);
    const id = await addProduct(api.ctx, userId);
    // 20:00 UTC five days ago is the next morning in Tokyo.
    const evening = new Date(Date.now() - 5 * DAY);
    evening.setUTCHours(20, 0, 0, 0);
    await observePrices(api.ctx, id, userId, [
      [10, new Date(evening.getTime() - DAY)],
      [12, evening],
    ]);
    await api.ctx.projections.catchUp();
    const body = await stats(cookie);
    expect(body.priceTrends.at(-1).date).toBe(dateIn(new Date(), 'Asia/Tokyo'));
    expect(body.priceTrends.filter((d: any) => d.changes > 0)).toEqual([{ date: dateIn(evening, 'Asia/Tokyo'), averageChangePercent: 20, changes: 1 }]);
    expect(dateIn(evening, 'Asia/Tokyo')).not.toBe(dateIn(evening, 'Europe/London'));
  });

  test('recent changes: newest first, at most 50; the trend chart covers 90 days only', async () => {
    const { cookie, userId } = await signedIn();
    const id = await addProduct(api.ctx, userId);
    // A change every 2 days for 120 days (alternating prices).
    const prices = Array.from({ length: 61 }, (_, i) => [i % 2 ? 12 : 10, new Date(Date.now() - (120 - 2 * i) * DAY - HOUR)] as const);
    await observePrices(api.ctx, id, userId, prices);
    await api.ctx.projections.catchUp();
    const body = await stats(cookie);
    expect(body.recentChanges).toHaveLength(50);
    const times = body.recentChanges.map((c: any) => Date.parse(c.timestamp));
    expect(times).toEqual([...times].sort((x, y) => y - x));
    expect(times[0]).toBe(prices.at(-1)![1].getTime());
    const counted = body.priceTrends.reduce((n: number, d: any) => n + d.changes, 0);
    const firstDate = body.priceTrends[0].date;
    expect(counted).toBe(prices.slice(1).filter(([, at]) => dateIn(at, 'Europe/London') >= firstDate).length);
    expect(counted).toBeLessThan(60);
  });

  test("scoping: another user's products and changes never appear", async () => {
    const owner = await signedIn();
    const other = await signedIn();
    const id = await addProduct(api.ctx, owner.userId);
    await observePrices(api.ctx, id, owner.userId, [
      [10, new Date(Date.now() - 2 * DAY)],
      [8, new Date(Date.now() - DAY)],
    ]);
    await api.ctx.projections.catchUp();
    expect((await stats(owner.cookie)).priceDropsCount).toBe(1);
    const body = await stats(other.cookie);
    expect(body).toMatchObject({ productsCount: 0, priceDropsCount: 0, recentChanges: [], lastScan: { at: null, failedCount: 0 } });
    expect(body.priceTrends.every((d: any) => d.changes === 0)).toBe(true);
  });
});

describe('/api/dashboard/stats, what counts as a detected drop', () => {
  test('a price typed in by hand is no detected drop; the next check is measured from it', async () => {
    const { cookie, userId } = await signedIn();
    const id = await addProduct(api.ctx, userId);
    await observePrices(api.ctx, id, userId, [[100, new Date(Date.now() - 3 * HOUR)]]);
    await api.ctx.store.append(`product-${id}`, 'any', [{ type: 'PriceManuallySet', data: { productId: id, userId, price: 80, currency: 'GBP' } }]);
    await Bun.sleep(5);
    await observePrices(api.ctx, id, userId, [[70, new Date()]]);
    await api.ctx.projections.catchUp();
    const body = await stats(cookie);
    expect(body.priceDropsCount).toBe(1);
    // The history still shows both changes, each in its currency.
    expect(body.recentChanges.map((c: any) => [c.previousPrice, c.currentPrice, c.currency])).toEqual([
      [80, 70, 'GBP'],
      [100, 80, 'GBP'],
    ]);
  });

  test('each change carries the currency of its page', async () => {
    const { cookie, userId } = await signedIn();
    const id = await addProduct(api.ctx, userId);
    const euro = (price: number, at: Date) => ({ ...observed(id, userId, price, at), data: { ...observed(id, userId, price, at).data, currency: 'EUR' } });
    await api.ctx.store.append(`product-${id}`, 'any', [euro(20, new Date(Date.now() - 2 * HOUR)), euro(18, new Date(Date.now() - HOUR))]);
    await api.ctx.projections.catchUp();
    expect((await stats(cookie)).recentChanges.map((c: any) => c.currency)).toEqual(['EUR']);
  });
});

describe('/api/dashboard/stats, repeated', () => {
  test('a change shows on the next request once projected', async () => {
    const { cookie, userId } = await signedIn();
    const id = await addProduct(api.ctx, userId);
    await observePrices(api.ctx, id, userId, [[10, new Date(Date.now() - 2 * HOUR)]]);
    await api.ctx.projections.catchUp();
    const before = await stats(cookie);
    expect(await stats(cookie)).toEqual(before);
    expect(before.recentChanges).toEqual([]);
    await observePrices(api.ctx, id, userId, [[9, new Date(Date.now() - HOUR)]]);
    await api.ctx.projections.catchUp();
    const after = await stats(cookie);
    expect(after.priceDropsCount).toBe(1);
    expect(after.recentChanges).toHaveLength(1);
  });
});
