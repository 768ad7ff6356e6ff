import { afterAll, beforeAll, expect, test } from 'bun:test';
import { SETUP_TIMEOUT, testContext } from '../testing/database.ts';
import { readDashboardStats } from './routes.ts';

// The dashboard reads alerts from the alerts read model (api/alerts): unread ones, and those of them
// raised since the user's midnight. An alert is dated by the price change it reports.
let ctx: Awaited<ReturnType<typeof testContext>>;
beforeAll(async () => {
  ctx = await testContext();
}, SETUP_TIMEOUT);
afterAll(() => ctx.close(), SETUP_TIMEOUT);

const raised = (alertId: string, userId: string, at: string, position: number) => ({
  type: 'AlertRaised' as const,
  data: {
    alertId,
    userId,
    productId: 'p1',
    type: 'price_drop' as const,
    productName: 'Kettle',
    productUrl: 'https://shop.example/k',
    productImage: null,
    previousPrice: 20,
    currentPrice: 18,
    currency: 'GBP',
    changePercent: -10,
    thresholdPercent: null,
    message: 'Price dropped 10.0% from £20.00 to £18.00',
    trigger: { eventType: 'PriceObserved' as const, position, at },
  },
});

test("active alerts are the unread ones; new today, the unread ones from the user's midnight", async () => {
  const userId = crypto.randomUUID(),
    someoneElse = crypto.randomUUID();
  const now = new Date('2026-06-10T12:00:00Z'); // 13:00 in London
  await ctx.store.append(`alerts-${userId}`, 'no_stream', [
    raised('a1', userId, '2026-06-10T08:00:00Z', 1),
    raised('a2', userId, '2026-06-09T22:30:00Z', 2), // 23:30 in London: yesterday
    raised('a3', userId, '2026-06-10T09:00:00Z', 3),
    { type: 'AlertRead', data: { alertId: 'a3', userId } },
  ]);
  await ctx.store.append(`alerts-${someoneElse}`, 'no_stream', [raised('a4', someoneElse, '2026-06-10T09:00:00Z', 4)]);
  await ctx.projections.catchUp();
  const stats = await readDashboardStats(ctx.sql, userId, now);
  expect(stats.alertsCount).toBe(2);
  // a3 was raised today but is read: not new, so the figures cannot say "0 active, +1 new today".
  expect(stats.trends.alertsCount).toEqual({ newToday: 1 });
  await ctx.store.append(`alerts-${userId}`, 'any', [
    { type: 'AlertRead', data: { alertId: 'a1', userId } },
    { type: 'AlertRead', data: { alertId: 'a2', userId } },
  ]);
  await ctx.projections.catchUp();
  const allRead = await readDashboardStats(ctx.sql, userId, now);
  expect([allRead.alertsCount, allRead.trends.alertsCount]).toEqual([0, { newToday: 0 }]);
  const nobody = await readDashboardStats(ctx.sql, crypto.randomUUID(), now);
  expect(nobody.alertsCount).toBe(0);
  expect(nobody.trends.alertsCount).toEqual({ newToday: 0 });
});
