import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createApp } from '../server.ts';
import { SETUP_TIMEOUT, testContext } from '../testing/database.ts';
import { client, observe, settle } from '../testing/alerts.ts';
import { alertsApi } from '../testing/alerts-api.ts';
import { failCheck, observed } from '../testing/prices.ts';
import { readDashboardStats } from '../dashboard/routes.ts';
import { alertIdFor, alertRulesReactor } from './reactor.ts';

let ctx: Awaited<ReturnType<typeof testContext>>;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  ctx = await testContext();
  api = client(createApp(ctx));
}, SETUP_TIMEOUT);
afterAll(() => ctx.close(), SETUP_TIMEOUT);

const { json, alertsOf, notificationsOf, eventsOf, userWithProduct, userWithAlerts, alertIdsRead } = alertsApi(() => ({ ctx, api }));

describe('raising alerts', () => {
  test('a drop on an any-change product raises one price_drop alert, listed on both screens', async () => {
    const u = await userWithProduct('any', 'Steel Kettle');
    await observe(ctx, u.productId, u.userId, 20);
    await observe(ctx, u.productId, u.userId, 18);
    await settle(ctx);

    const alerts = await alertsOf(u.cookie);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({
      type: 'price_drop',
      productId: u.productId,
      productName: 'Steel Kettle',
      productUrl: 'https://shop.example.com/kettle',
      productImage: null,
      message: 'Price dropped 10.0% from £20.00 to £18.00',
      previousPrice: 20,
      currentPrice: 18,
      changePercent: -10,
      isRead: false,
    });
    expect(Date.now() - Date.parse(alerts[0].createdAt)).toBeLessThan(60_000);
    expect(await notificationsOf(u.cookie)).toEqual([
      {
        id: alerts[0].id,
        type: 'price_drop',
        productName: 'Steel Kettle',
        message: alerts[0].message,
        currentPrice: 18,
        previousPrice: 20,
        currency: 'GBP',
        isRead: false,
        createdAt: alerts[0].createdAt,
      },
    ]);
  });

  test('a price typed in by hand raises no alert, notification or e-mail, however far it falls', async () => {
    const u = await userWithProduct('-10');
    await observe(ctx, u.productId, u.userId, 100);
    const set = await api.request(`/api/products/${u.productId}/update-price`, { method: 'POST', cookie: u.cookie, body: JSON.stringify({ price: '50' }) });
    expect(set.status).toBe(200);
    await settle(ctx);
    expect(await alertsOf(u.cookie)).toEqual([]);
    expect(await notificationsOf(u.cookie)).toEqual([]);
    expect((await ctx.sql`SELECT 1 FROM email_outbox WHERE user_id = ${u.userId}`).length).toBe(0);
    // The next observation is compared with the typed price: 50 to 45 is the 10% drop.
    await observe(ctx, u.productId, u.userId, 45);
    await settle(ctx);
    expect((await alertsOf(u.cookie)).map((a: { type: string; message: string }) => [a.type, a.message])).toEqual([
      ['threshold_met', 'Price dropped 10.0% from £50.00 to £45.00, past your 10% alert threshold'],
    ]);
  });

  test("a page that states no currency is written in the user's currency", async () => {
    const u = await userWithProduct('any');
    const settings = {
      emailNotifications: true,
      priceDropAlerts: true,
      weeklyReports: false,
      checkFrequency: 'daily',
      currency: 'EUR',
      timezone: 'Europe/Paris',
    };
    expect((await api.request('/api/settings', { method: 'PUT', cookie: u.cookie, body: JSON.stringify(settings) })).status).toBe(200);
    for (const price of [20, 18]) {
      const event = observed(u.productId, u.userId, price, new Date());
      await ctx.store.append(`product-${u.productId}`, 'any', [{ ...event, data: { ...event.data, currency: null } }]);
    }
    await settle(ctx);
    expect(await alertsOf(u.cookie)).toMatchObject([{ message: 'Price dropped 10.0% from €20.00 to €18.00', currency: 'EUR' }]);
    // Saved before the reactor kept the currency: learnt from the log on start.
    await ctx.sql`ALTER TABLE alert_rule_settings DROP COLUMN currency`;
    await ctx.sql.unsafe(alertRulesReactor(ctx.store).ddl);
    expect((await ctx.sql`SELECT currency FROM alert_rule_settings WHERE user_id = ${u.userId}`)[0]!.currency).toBe('EUR');
  });

  test('the alert names the observation that raised it', async () => {
    const u = await userWithProduct('-10');
    await observe(ctx, u.productId, u.userId, 100);
    const trigger = await observe(ctx, u.productId, u.userId, 85);
    await settle(ctx);
    const [alert] = await alertsOf(u.cookie);
    expect(alert.id).toBe(alertIdFor(trigger.lastPosition));
    expect(alert.type).toBe('threshold_met');
    const { events } = await ctx.store.readStream(`alerts-${u.userId}`);
    expect(events[0]!.data).toMatchObject({ trigger: { eventType: 'PriceObserved', position: trigger.lastPosition }, thresholdPercent: 10 });
  });

  test('threshold, increase, equal price, manual prices and none', async () => {
    const drop = await userWithProduct('-10');
    for (const price of [50, 50, 46, 40, 44]) await observe(ctx, drop.productId, drop.userId, price); // only 46 -> 40 is 10% or more
    const any = await userWithProduct('any');
    await observe(ctx, any.productId, any.userId, 10);
    // A price typed in raises nothing; it is the reference for the next observation.
    const set = await api.request(`/api/products/${any.productId}/update-price`, { method: 'POST', cookie: any.cookie, body: JSON.stringify({ price: '12' }) });
    expect(set.status).toBe(200);
    await observe(ctx, any.productId, any.userId, 12);
    await observe(ctx, any.productId, any.userId, 13);
    const none = await userWithProduct('none');
    for (const price of [10, 5, 20]) await observe(ctx, none.productId, none.userId, price);
    await settle(ctx);

    expect((await alertsOf(drop.cookie)).map((a: { type: string; message: string }) => [a.type, a.message])).toEqual([
      ['threshold_met', 'Price dropped 13.0% from £46.00 to £40.00, past your 10% alert threshold'],
    ]);
    expect((await alertsOf(any.cookie)).map((a: { type: string; message: string }) => [a.type, a.message])).toEqual([
      ['price_increase', 'Price rose 8.3% from £12.00 to £13.00'],
    ]);
    expect(await alertsOf(none.cookie)).toEqual([]);
  });

  test('an edited rule applies from the next price on', async () => {
    const u = await userWithProduct('none');
    await observe(ctx, u.productId, u.userId, 10);
    await observe(ctx, u.productId, u.userId, 8); // no alert: rule none
    const edit = await api.request(`/api/products/${u.productId}`, {
      method: 'PUT',
      cookie: u.cookie,
      body: JSON.stringify({ name: 'Kettle', url: 'https://shop.example.com/kettle', selector: '.price', threshold: 5 }),
    });
    expect(edit.status).toBe(200);
    await observe(ctx, u.productId, u.userId, 7);
    await settle(ctx);
    expect((await alertsOf(u.cookie)).map((a: { message: string }) => a.message)).toEqual([
      'Price dropped 12.5% from £8.00 to £7.00, past your 5% alert threshold',
    ]);
  });

  test('price drop alerts off silences falls but not rises', async () => {
    const u = await userWithProduct('any');
    const saved = await api.request('/api/settings', {
      method: 'PUT',
      cookie: u.cookie,
      body: JSON.stringify({
        emailNotifications: true,
        priceDropAlerts: false,
        weeklyReports: false,
        checkFrequency: 'daily',
        currency: 'GBP',
        timezone: 'Europe/London',
      }),
    });
    expect(saved.status).toBe(200);
    for (const price of [10, 9, 11]) await observe(ctx, u.productId, u.userId, price);
    await settle(ctx);
    expect((await alertsOf(u.cookie)).map((a: { type: string }) => a.type)).toEqual(['price_increase']);
  });

  test('running the reactors again, or rebuilding the read models, raises nothing twice', async () => {
    const u = await userWithProduct('any');
    for (const price of [10, 9, 8]) await observe(ctx, u.productId, u.userId, price);
    await settle(ctx);
    const raised = await eventsOf('AlertRaised');
    await ctx.reactors.catchUp();
    await ctx.projections.rebuild();
    await settle(ctx);
    expect(await eventsOf('AlertRaised')).toBe(raised);
    expect(await alertsOf(u.cookie)).toHaveLength(2);
  });

  test('a corrected last price is the reference for the next one, without an alert of its own', async () => {
    const u = await userWithProduct('any');
    await observe(ctx, u.productId, u.userId, 1300);
    const misread = await observe(ctx, u.productId, u.userId, 1.299); // '1.299,00 €' read the wrong way
    await ctx.store.append(`product-${u.productId}`, 'any', [
      {
        type: 'PriceCorrected',
        data: { productId: u.productId, userId: u.userId, correctsPosition: misread.lastPosition, price: 1299, previousPrice: 1.299, reason: 'parser fixed' },
      },
    ]);
    await observe(ctx, u.productId, u.userId, 1299);
    await settle(ctx);
    // The misread's alert was raised at the time; the correction and the next, equal price raise none.
    expect((await alertsOf(u.cookie)).map((a: { message: string }) => a.message)).toEqual(['Price dropped 99.9% from £1,300.00 to £1.30']);
  });

  test('a removed product raises nothing more, and its alerts stay', async () => {
    const u = await userWithProduct('any');
    await observe(ctx, u.productId, u.userId, 10);
    await observe(ctx, u.productId, u.userId, 9);
    await settle(ctx);
    expect((await api.request(`/api/products/${u.productId}`, { method: 'DELETE', cookie: u.cookie })).status).toBe(200);
    await observe(ctx, u.productId, u.userId, 5); // a check that finished after the removal
    await settle(ctx);
    expect(await alertsOf(u.cookie)).toHaveLength(1);
  });
});

describe('stock alerts', () => {
  type Listed = { type: string; message: string; previousPrice: number | null; currentPrice: number | null; changePercent: number | null };
  const stockAlertsOf = async (cookie: string) =>
    ((await alertsOf(cookie)) as Listed[]).filter((a) => a.type === 'out_of_stock' || a.type === 'back_in_stock').reverse(); // oldest first
  // Alerts are listed by the time of their check: each check a second after the one before.
  let clock = Date.now();
  const next = () => new Date((clock += 1000));

  test('out of stock and back: one alert each way, from observations and from a failed check; unknown neither raises nor resets', async () => {
    const u = await userWithProduct('none');
    await observe(ctx, u.productId, u.userId, 20, next(), 'InStock'); // the first known availability: nothing to report
    await observe(ctx, u.productId, u.userId, 20, next(), null);
    const out = await failCheck(ctx, u.productId, u.userId, next(), 'OutOfStock'); // "Currently unavailable", no price
    await observe(ctx, u.productId, u.userId, 20, next(), 'OutOfStock');
    await failCheck(ctx, u.productId, u.userId, next()); // a timeout says nothing about stock
    await observe(ctx, u.productId, u.userId, 22, next(), null);
    const back = await observe(ctx, u.productId, u.userId, 22, next(), 'InStock');
    await observe(ctx, u.productId, u.userId, 22, next(), 'InStock');
    await settle(ctx);

    const alerts = await stockAlertsOf(u.cookie);
    expect(alerts).toEqual([
      expect.objectContaining({ type: 'out_of_stock', message: 'Out of stock', previousPrice: 20, currentPrice: null, changePercent: null }),
      expect.objectContaining({ type: 'back_in_stock', message: 'Back in stock at £22.00', previousPrice: 22, currentPrice: 22, changePercent: 0 }),
    ]);
    const { events } = await ctx.store.readStream(`alerts-${u.userId}`);
    expect(events.map((e) => (e.data as { trigger: unknown }).trigger)).toEqual([
      expect.objectContaining({ eventType: 'PriceCheckFailed', position: out.lastPosition }),
      expect.objectContaining({ eventType: 'PriceObserved', position: back.lastPosition }),
    ]);
    expect(events.map((e) => (e.data as { alertId: string }).alertId)).toEqual([alertIdFor(out.lastPosition, 'stock'), alertIdFor(back.lastPosition, 'stock')]);
    const notifications = await notificationsOf(u.cookie);
    expect(notifications.map((n: { type: string }) => n.type)).toEqual(['back_in_stock', 'out_of_stock']);
    expect((await readDashboardStats(ctx.sql, u.userId)).alertsCount).toBe(2);
  });

  test('pre-order and backorder are orderable: moves between them and in stock raise nothing', async () => {
    const u = await userWithProduct('none');
    for (const a of ['PreOrder', 'InStock', 'BackOrder', 'OutOfStock', 'PreOrder'] as const) await observe(ctx, u.productId, u.userId, 30, next(), a);
    await settle(ctx);
    expect((await stockAlertsOf(u.cookie)).map((a) => [a.type, a.message])).toEqual([
      ['out_of_stock', 'Out of stock'],
      ['back_in_stock', 'Available to pre-order at £30.00'],
    ]);
  });

  test('one observation can raise a price alert and a stock alert', async () => {
    const u = await userWithProduct('any');
    await observe(ctx, u.productId, u.userId, 20, next(), 'InStock');
    await observe(ctx, u.productId, u.userId, 15, next(), 'OutOfStock');
    await settle(ctx);
    const alerts = await alertsOf(u.cookie);
    expect(alerts.map((a: { type: string }) => a.type).sort()).toEqual(['out_of_stock', 'price_drop']);
    expect(new Set(alerts.map((a: { id: string }) => a.id)).size).toBe(2);
    expect(alerts.find((a: { type: string }) => a.type === 'out_of_stock')).toMatchObject({ previousPrice: 20, currentPrice: 15, changePercent: -25 });
  });

  test('stock alerts off for the product: none; turned on again, the next change raises one', async () => {
    const u = await api.signIn();
    const productId = await api.addProduct(u.cookie, { threshold: 'none', stockAlerts: false });
    await observe(ctx, productId, u.userId, 20, next(), 'InStock');
    await observe(ctx, productId, u.userId, 20, next(), 'OutOfStock');
    await settle(ctx);
    expect(await alertsOf(u.cookie)).toEqual([]);
    const edit = await api.request(`/api/products/${productId}`, {
      method: 'PUT',
      cookie: u.cookie,
      body: JSON.stringify({ name: 'Kettle', url: 'https://shop.example.com/kettle', selector: '.price', stockAlerts: true }),
    });
    expect(edit.status).toBe(200);
    await observe(ctx, productId, u.userId, 20, next(), 'InStock');
    await settle(ctx);
    expect((await alertsOf(u.cookie)).map((a: { type: string }) => a.type)).toEqual(['back_in_stock']);
  });

  test('backfilled history raises the alerts its rules would have raised, dated then and never e-mailed; retried reactors raise nothing twice', async () => {
    const u = await userWithProduct('any');
    const at = new Date(Date.now() - 3_600_000);
    await ctx.store.append(`product-${u.productId}`, 'any', [
      { ...observed(u.productId, u.userId, 20, at, 'InStock'), metadata: { backfill: true } },
      { ...observed(u.productId, u.userId, 18, at, 'OutOfStock'), metadata: { backfill: true } },
    ]);
    await settle(ctx);
    const history = await alertsOf(u.cookie);
    expect(history.map((a: { type: string; createdAt: string }) => [a.type, a.createdAt]).sort()).toEqual([
      ['out_of_stock', at.toISOString()],
      ['price_drop', at.toISOString()],
    ]);
    expect((await ctx.sql`SELECT 1 FROM email_outbox WHERE user_id = ${u.userId}`).length).toBe(0);
    await observe(ctx, u.productId, u.userId, 18, next(), 'InStock'); // from the backfilled OutOfStock
    await settle(ctx);
    const raised = await eventsOf('AlertRaised');
    await ctx.reactors.catchUp();
    await settle(ctx);
    expect(await eventsOf('AlertRaised')).toBe(raised);
    expect((await alertsOf(u.cookie))[0]).toMatchObject({ type: 'back_in_stock', message: 'Back in stock at £18.00' });
    // The live alert is e-mailed; the backfilled ones were not.
    expect((await ctx.sql`SELECT 1 FROM email_outbox WHERE user_id = ${u.userId}`).length).toBe(1);
  });

  test('a price of 0: a fall to it alerts, a rise from it does not divide by zero', async () => {
    const u = await userWithProduct('any');
    for (const price of [20, 0, 5]) await observe(ctx, u.productId, u.userId, price);
    await settle(ctx);
    expect((await alertsOf(u.cookie)).map((a: { message: string }) => a.message)).toEqual(['Price dropped 100.0% from £20.00 to £0.00']);
  });
});

describe('reading alerts', () => {
  test('PATCH /api/alerts/:id/read marks one read, once', async () => {
    const u = await userWithAlerts(2);
    const before = await eventsOf('AlertRead');
    expect(await json(await api.request(`/api/alerts/${u.ids[0]}/read`, { method: 'PATCH', cookie: u.cookie }))).toEqual({
      status: 200,
      body: { id: u.ids[0], isRead: true },
    });
    // Read items are not marked again: the same answer, no new event.
    expect((await api.request(`/api/alerts/${u.ids[0]}/read`, { method: 'PATCH', cookie: u.cookie })).status).toBe(200);
    expect(await eventsOf('AlertRead')).toBe(before + 1);
    const alerts = await alertsOf(u.cookie);
    expect(alerts.map((a: { isRead: boolean }) => a.isRead)).toEqual([true, false]);
    // An alert and its notification are one: read on one screen, read on the other.
    expect((await notificationsOf(u.cookie)).map((n: { isRead: boolean }) => n.isRead)).toEqual([true, false]);
    expect((await api.request(`/api/notifications/${u.ids[0]}/read`, { method: 'POST', cookie: u.cookie })).status).toBe(200);
    expect(await eventsOf('NotificationRead')).toBe(0);
  });

  test('POST /api/notifications/:id/read marks one read', async () => {
    const u = await userWithAlerts(1);
    expect((await api.request(`/api/notifications/${u.ids[0]}/read`, { method: 'POST', cookie: u.cookie })).status).toBe(200);
    expect((await notificationsOf(u.cookie))[0].isRead).toBe(true);
    expect((await alertsOf(u.cookie))[0].isRead).toBe(true);
  });

  test('mark all read names the unread ones once; then there is nothing to mark', async () => {
    const u = await userWithAlerts(3);
    await api.request(`/api/alerts/${u.ids[1]}/read`, { method: 'PATCH', cookie: u.cookie });
    expect(await json(await api.request('/api/notifications/mark-all-read', { method: 'POST', cookie: u.cookie }))).toEqual({
      status: 200,
      body: { success: true, count: 2 },
    });
    expect((await notificationsOf(u.cookie)).every((n: { isRead: boolean }) => n.isRead)).toBe(true);
    const { events } = await ctx.store.readStream(`alerts-${u.userId}`);
    const all = events.filter((e) => e.type === 'AllNotificationsRead');
    expect(all).toHaveLength(1);
    expect([...(all[0]!.data as { alertIds: string[] }).alertIds].sort()).toEqual([u.ids[0], u.ids[2]].sort());
    expect(await json(await api.request('/api/notifications/mark-all-read', { method: 'POST', cookie: u.cookie }))).toEqual({
      status: 200,
      body: { success: true, count: 0 },
    });
    // A single read after mark all is not recorded either.
    const reads = await eventsOf('AlertRead');
    await api.request(`/api/alerts/${u.ids[2]}/read`, { method: 'PATCH', cookie: u.cookie });
    expect(await eventsOf('AlertRead')).toBe(reads);
  });

  test('100 reads at once, as mark all as read sends them, all succeed and leave nothing unread', async () => {
    // The race shows on the PostgreSQL server; PGlite's one connection runs the calls in turn.
    const u = await userWithProduct('any');
    const start = Date.now() - 200_000;
    // 101 prices, each different: 100 alerts.
    await ctx.store.append(
      `product-${u.productId}`,
      'any',
      Array.from({ length: 101 }, (_, i) => observed(u.productId, u.userId, 200 - i, new Date(start + i * 1000))),
    );
    await settle(ctx);
    const ids = (await alertsOf(u.cookie)).map((a: { id: string }) => a.id) as string[];
    expect(ids).toHaveLength(100);
    const before = await eventsOf('AlertRead');
    // Meanwhile new alerts are raised on the same stream.
    const raising = (async () => {
      for (let i = 0; i < 5; i++) {
        await observe(ctx, u.productId, u.userId, 50 - i);
        await ctx.reactors.catchUp();
      }
    })();
    const answers = await Promise.all(ids.map((id) => api.request(`/api/alerts/${id}/read`, { method: 'PATCH', cookie: u.cookie }).then(json)));
    await raising;
    await settle(ctx);
    expect(answers).toEqual(ids.map((id) => ({ status: 200, body: { id, isRead: true } })));
    const after = await alertsOf(u.cookie);
    expect(after).toHaveLength(105);
    // Only the five raised meanwhile are unread.
    const unread = after.filter((a: { isRead: boolean }) => !a.isRead).map((a: { id: string }) => a.id) as string[];
    expect(unread).toHaveLength(5);
    expect(unread.filter((id) => ids.includes(id))).toEqual([]);
    expect(await eventsOf('AlertRead')).toBe(before + 100);
  });

  test('reads of one alert at once, from both screens and mark all, record it read once', async () => {
    const u = await userWithAlerts(3);
    const calls = [
      ...Array.from({ length: 10 }, () => api.request(`/api/alerts/${u.ids[0]}/read`, { method: 'PATCH', cookie: u.cookie })),
      ...Array.from({ length: 10 }, () => api.request(`/api/notifications/${u.ids[0]}/read`, { method: 'POST', cookie: u.cookie })),
      ...Array.from({ length: 5 }, () => api.request('/api/notifications/mark-all-read', { method: 'POST', cookie: u.cookie })),
    ];
    expect((await Promise.all(calls)).map((r) => r.status)).toEqual(calls.map(() => 200));
    const named = await alertIdsRead(u.userId);
    expect(named.sort()).toEqual([...u.ids].sort());
    expect((await alertsOf(u.cookie)).every((a: { isRead: boolean }) => a.isRead)).toBe(true);
  });

  test("another user's alert, an unknown id and a malformed id are 404; signed out is 401", async () => {
    const owner = await userWithAlerts(1);
    const other = await api.signIn();
    for (const [path, method] of [
      [`/api/alerts/${owner.ids[0]}/read`, 'PATCH'],
      [`/api/notifications/${owner.ids[0]}/read`, 'POST'],
      [`/api/alerts/${crypto.randomUUID()}/read`, 'PATCH'],
      ['/api/alerts/not-an-id/read', 'PATCH'],
    ] as const) {
      expect(await json(await api.request(path, { method, cookie: other.cookie }))).toEqual({ status: 404, body: { message: 'Alert not found' } });
    }
    expect(await alertsOf(other.cookie)).toEqual([]);
    expect(await json(await api.request('/api/notifications/mark-all-read', { method: 'POST', cookie: other.cookie }))).toEqual({
      status: 200,
      body: { success: true, count: 0 },
    });
    expect((await alertsOf(owner.cookie))[0].isRead).toBe(false);
    expect((await api.request('/api/alerts')).status).toBe(401);
    expect((await api.request('/api/notifications')).status).toBe(401);
  });

  test('the dashboard counts unread alerts and, of them, those raised today', async () => {
    const u = await userWithAlerts(3);
    await api.request(`/api/alerts/${u.ids[0]}/read`, { method: 'PATCH', cookie: u.cookie });
    const stats = await readDashboardStats(ctx.sql, u.userId);
    expect(stats.alertsCount).toBe(2);
    expect(stats.trends.alertsCount).toEqual({ newToday: 2 });
    // The cached answer refreshes at once: a read is an event about the user.
    const answer = async () => (await (await api.request('/api/dashboard/stats', { cookie: u.cookie })).json()).alertsCount;
    expect(await answer()).toBe(2);
    await api.request('/api/notifications/mark-all-read', { method: 'POST', cookie: u.cookie });
    expect(await answer()).toBe(0);
  });

  test('rebuilding the read model gives the same alerts and read states', async () => {
    await userWithAlerts(2);
    const before = await ctx.sql`SELECT * FROM alerts ORDER BY id`;
    await ctx.projections.rebuild(['alerts']);
    expect(await ctx.sql`SELECT * FROM alerts ORDER BY id`).toEqual(before);
  });
});
