import { describe, expect, test } from 'bun:test';
import { addProduct, observePrices } from '../testing/prices.ts';
import { useTestApp } from '../testing/app.ts';

const ORIGIN = 'http://localhost:3000';
const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY);

const api = useTestApp({ PUBLIC_URL: ORIGIN });
const { signedIn } = api;

const request = (path: string, cookie?: string) => api.request(path, { headers: cookie ? { cookie } : {} });

const getJson = async (path: string, cookie: string) => {
  const res = await request(path, cookie);
  return { status: res.status, body: await res.json() };
};

describe('price history', () => {
  test('signed out: 401', async () => {
    expect((await request('/api/price-history/products')).status).toBe(401);
    expect((await request('/api/price-history/detailed/x?timeFilter=all')).status).toBe(401);
  });

  test('a new user: an empty list, not an error', async () => {
    const { cookie } = await signedIn();
    expect(await getJson('/api/price-history/products', cookie)).toEqual({ status: 200, body: [] });
  });

  test('a bad timeFilter: 400 naming the field', async () => {
    const { cookie, userId } = await signedIn();
    const productId = await addProduct(api.ctx, userId);
    await api.ctx.projections.catchUp();
    for (const path of [
      '/api/price-history/products?timeFilter=decade',
      '/api/price-history/products?timeFilter=all', // all time is for the detail dialog only
      '/api/price-history/products?timeFilter=',
      `/api/price-history/detailed/${productId}?timeFilter=forever`,
      `/api/price-history/detailed/${productId}?timeFilter=WEEK`,
    ]) {
      const { status, body } = await getJson(path, cookie);
      expect(status).toBe(400);
      expect(body.field).toBe('timeFilter');
      expect(body.message).toStartWith('timeFilter: ');
    }
  });

  test('rows: figures over the range, sparkline of the last 30 points', async () => {
    const { cookie, userId } = await signedIn();
    const id = await addProduct(api.ctx, userId, { name: 'Kettle', url: 'https://shop.example.com/kettle', imageUrl: 'https://shop.example.com/kettle.jpg' });
    // One price a day for 60 days: 100 sixty days ago, rising by 1 a day to 159 today.
    const prices = Array.from({ length: 60 }, (_, i) => [100 + i, ago(59 - i + 0.01)] as const);
    await observePrices(api.ctx, id, userId, prices);
    const empty = await addProduct(api.ctx, userId, { name: 'Toaster' });
    await api.ctx.projections.catchUp();

    const month = await getJson('/api/price-history/products', cookie); // month is the default
    expect(month.status).toBe(200);
    expect(month.body.map((p: any) => p.name)).toEqual(['Toaster', 'Kettle']); // newest first
    const kettle = month.body[1];
    expect(kettle).toMatchObject({
      id,
      name: 'Kettle',
      url: 'https://shop.example.com/kettle',
      imageUrl: 'https://shop.example.com/kettle.jpg',
      currentPrice: 159,
      lastChecked: prices.at(-1)![1].toISOString(),
      pointsCount: 30,
    });
    // Last 30 days: 130 .. 159.
    expect(kettle.changePercent).toBeCloseTo(((159 - 130) / 130) * 100, 6);
    expect(kettle.priceHistory).toHaveLength(30);
    expect(kettle.priceHistory[0]).toEqual({ price: 130, timestamp: prices[30]![1].toISOString() });
    expect(kettle.priceHistory.at(-1)).toEqual({ price: 159, timestamp: prices[59]![1].toISOString() });
    expect(month.body[0]).toEqual({
      id: empty,
      name: 'Toaster',
      url: expect.any(String),
      imageUrl: null,
      currentPrice: null,
      currency: 'GBP',
      changePercent: 0,
      lastChecked: null,
      pointsCount: 0,
      priceHistory: [],
    });

    const week = (await getJson('/api/price-history/products?timeFilter=week', cookie)).body[1];
    expect(week.pointsCount).toBe(7);
    expect(week.priceHistory.map((p: any) => p.price)).toEqual([153, 154, 155, 156, 157, 158, 159]);
    expect(week.changePercent).toBeCloseTo(((159 - 153) / 153) * 100, 6);

    const quarter = (await getJson('/api/price-history/products?timeFilter=quarter', cookie)).body[1];
    expect(quarter.pointsCount).toBe(60);
    expect(quarter.priceHistory).toHaveLength(30); // still the last 30
    expect(quarter.changePercent).toBeCloseTo(59, 6);
  });

  test('detail: points in time order for each range, all time included', async () => {
    const { cookie, userId } = await signedIn();
    const id = await addProduct(api.ctx, userId);
    const prices = [
      [20, ago(400)],
      [30, ago(100)],
      [25, ago(40)],
      [22, ago(20)],
      [21, ago(3)],
      [24, ago(0.1)],
    ] as const;
    await observePrices(api.ctx, id, userId, prices);
    await api.ctx.projections.catchUp();
    const detail = async (f: string) => (await getJson(`/api/price-history/detailed/${id}?timeFilter=${f}`, cookie)).body;
    expect(await detail('all')).toEqual(prices.map(([price, at]) => ({ timestamp: at.toISOString(), price })));
    expect((await detail('year')).map((p: any) => p.price)).toEqual([30, 25, 22, 21, 24]);
    expect((await detail('quarter')).map((p: any) => p.price)).toEqual([25, 22, 21, 24]);
    expect((await detail('month')).map((p: any) => p.price)).toEqual([22, 21, 24]);
    expect((await detail('week')).map((p: any) => p.price)).toEqual([21, 24]);
  });

  test("scoping: another user's products never appear; their detail is 404 like an unknown id", async () => {
    const owner = await signedIn();
    const other = await signedIn();
    const id = await addProduct(api.ctx, owner.userId, { name: 'Secret' });
    await observePrices(api.ctx, id, owner.userId, [[10, ago(1)]]);
    await api.ctx.projections.catchUp();
    expect((await getJson('/api/price-history/products', other.cookie)).body).toEqual([]);
    for (const path of [
      `/api/price-history/detailed/${id}?timeFilter=all`,
      `/api/price-history/detailed/${crypto.randomUUID()}?timeFilter=all`,
      '/api/price-history/detailed/%27%3B--?timeFilter=all',
    ]) {
      const { status, body } = await getJson(path, other.cookie);
      expect(status).toBe(404);
      expect(body.message).toBeString();
    }
    expect((await getJson(`/api/price-history/detailed/${id}?timeFilter=all`, owner.cookie)).body).toHaveLength(1);
  });

  test('a removed product leaves the history', async () => {
    const { cookie, userId } = await signedIn();
    const id = await addProduct(api.ctx, userId);
    await observePrices(api.ctx, id, userId, [[10, ago(1)]]);
    await api.ctx.store.append(`product-${id}`, 'any', [{ type: 'ProductRemoved', data: { productId: id, userId } }]);
    await api.ctx.projections.catchUp();
    expect((await getJson('/api/price-history/products', cookie)).body).toEqual([]);
    expect((await request(`/api/price-history/detailed/${id}?timeFilter=all`, cookie)).status).toBe(404);
  });

  test('12,000 points: at most 1,000 come back, in order, with the lowest and highest kept', async () => {
    const { cookie, userId } = await signedIn();
    const id = await addProduct(api.ctx, userId);
    // Every 15 minutes for 125 days: a wave with one deep dip and one spike.
    const start = Date.now() - 125 * DAY;
    const prices = Array.from({ length: 12_000 }, (_, i) => {
      const price = i === 4321 ? 1.99 : i === 9876 ? 999.99 : Math.round((100 + 20 * Math.sin(i / 300)) * 100) / 100;
      return [price, new Date(start + i * 15 * 60_000)] as const;
    });
    await observePrices(api.ctx, id, userId, prices, 2000);
    await api.ctx.projections.catchUp();
    const { status, body } = await getJson(`/api/price-history/detailed/${id}?timeFilter=all`, cookie);
    expect(status).toBe(200);
    expect(body.length).toBeLessThanOrEqual(1000);
    expect(body.length).toBeGreaterThan(250);
    const times = body.map((p: any) => Date.parse(p.timestamp));
    for (let i = 1; i < times.length; i++) expect(times[i]).toBeGreaterThan(times[i - 1]);
    const values = body.map((p: any) => p.price);
    expect(Math.min(...values)).toBe(1.99);
    expect(Math.max(...values)).toBe(999.99);
    expect(body[0]).toEqual({ timestamp: prices[0]![1].toISOString(), price: prices[0]![0] });
    expect(body.at(-1)).toEqual({ timestamp: prices.at(-1)![1].toISOString(), price: prices.at(-1)![0] });
    // The list row for the same product still counts every point in its range.
    const row = (await getJson('/api/price-history/products?timeFilter=month', cookie)).body[0];
    expect(row.pointsCount).toBe(prices.filter(([, at]) => at.getTime() >= Date.now() - 30 * DAY).length);
  });
});

describe('price history, repeated', () => {
  test('a new price shows on the next request once projected', async () => {
    const { cookie, userId } = await signedIn();
    const id = await addProduct(api.ctx, userId);
    await observePrices(api.ctx, id, userId, [[10, ago(2)]]);
    await api.ctx.projections.catchUp();
    const before = (await getJson('/api/price-history/products', cookie)).body[0];
    expect(before).toMatchObject({ currentPrice: 10, pointsCount: 1 });
    await observePrices(api.ctx, id, userId, [[12, ago(1)]]);
    await api.ctx.projections.catchUp();
    const after = (await getJson('/api/price-history/products', cookie)).body[0];
    expect(after).toMatchObject({ currentPrice: 12, pointsCount: 2, changePercent: 20 });
    // A price set by hand is a point too.
    await api.ctx.store.append(`product-${id}`, 'any', [{ type: 'PriceManuallySet', data: { productId: id, userId, price: 15, currency: 'GBP' } }]);
    await api.ctx.projections.catchUp();
    const manual = (await getJson('/api/price-history/products', cookie)).body[0];
    expect(manual).toMatchObject({ currentPrice: 15, pointsCount: 3, changePercent: 50 });
  });
});
