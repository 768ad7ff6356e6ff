import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createApp } from '../server.ts';
import { SETUP_TIMEOUT, testContext } from '../testing/database.ts';
import { client, observe, settle } from '../testing/alerts.ts';
import { alertsApi } from '../testing/alerts-api.ts';
import { observed } from '../testing/prices.ts';
import { ALERTS_PAGE } from './routes.ts';

let ctx: Awaited<ReturnType<typeof testContext>>;
let api: ReturnType<typeof client>;

beforeAll(async () => {
  ctx = await testContext();
  api = client(createApp(ctx));
}, SETUP_TIMEOUT);
afterAll(() => ctx.close(), SETUP_TIMEOUT);

const { json, alertsOf, notificationsOf, userWithProduct, userWithAlerts, alertIdsRead } = alertsApi(() => ({ ctx, api }));

describe('the Alerts screen, a page at a time', () => {
  type Listed = { id: string; type: string; productName: string; message: string; isRead: boolean };
  type Page = { alerts: Listed[]; matching: number; unread: number };
  const pageOf = async (cookie: string, query = '') =>
    json(await api.request(`/api/alerts/page${query}`, { cookie })) as Promise<{ status: number; body: Page }>;
  const ids = (list: { id: string }[]) => list.map((a) => a.id);

  /**
   * 107 alerts: 106 of a kettle whose price moves every ten minutes over the last day (drops and
   * rises; the oldest is the fall from £150.00 to £101.00), one of an espresso machine before
   * them, and a notice about a channel, newest of all.
   */
  async function userWith107Alerts() {
    const u = await userWithProduct('any', 'Steel Kettle');
    const espresso = await api.addProduct(u.cookie, { name: 'Espresso Machine', url: 'https://shop.example.com/espresso', threshold: 'any' });
    const start = Date.now() - 86_400_000;
    await ctx.store.append(`product-${espresso}`, 'any', [
      observed(espresso, u.userId, 300, new Date(start - 120_000)),
      observed(espresso, u.userId, 280, new Date(start - 60_000)),
    ]);
    const prices = Array.from({ length: 107 }, (_, i) => (i % 3 === 0 ? 150 + i : 100 + i));
    await ctx.store.append(
      `product-${u.productId}`,
      'any',
      prices.map((price, i) => observed(u.productId, u.userId, price, new Date(start + i * 600_000))),
    );
    await ctx.store.append(`alerts-${u.userId}`, 'any', [
      {
        type: 'NoticeRaised',
        data: {
          alertId: crypto.randomUUID(),
          userId: u.userId,
          kind: 'channel_disabled',
          title: 'Slack turned off',
          message: 'Slack failed 10 times in a row.',
          link: '/settings#notifications',
          at: new Date().toISOString(),
        },
      },
    ]);
    await settle(ctx);
    const all: Listed[] = await alertsOf(u.cookie);
    expect(all).toHaveLength(107);
    return { ...u, all };
  }

  test('pages of 25, newest first, each after the last of the one before, with the matching and unread counts of all', async () => {
    const u = await userWith107Alerts();
    expect(ALERTS_PAGE).toBe(25);
    const pages: Page[] = [];
    for (let before: string | undefined; pages.length < 5; before = pages.at(-1)!.alerts.at(-1)!.id) {
      const answer = await pageOf(u.cookie, before ? `?before=${before}` : '');
      expect(answer.status).toBe(200);
      pages.push(answer.body);
    }
    expect(pages.map((p) => [p.alerts.length, p.matching, p.unread])).toEqual([
      [25, 107, 107],
      [25, 107, 107],
      [25, 107, 107],
      [25, 107, 107],
      [7, 107, 107],
    ]);
    expect(pages.flatMap((p) => ids(p.alerts))).toEqual(ids(u.all));
    // Items are the Alerts screen's, as GET /api/alerts lists them.
    expect(pages[0]!.alerts[0]).toEqual(u.all[0]);
    expect(pages[4]!.alerts.at(-1)!.productName).toBe('Espresso Machine');
    expect(ids((await pageOf(u.cookie, '?limit=5')).body.alerts)).toEqual(ids(u.all.slice(0, 5)));
    // A refresh of everything shown so far, in one call.
    expect(ids((await pageOf(u.cookie, '?limit=120')).body.alerts)).toEqual(ids(u.all));
  });

  test('search, type and status cover every alert, not only the first page', async () => {
    const u = await userWith107Alerts();
    const oldest = await pageOf(u.cookie, `?q=${encodeURIComponent('  FROM £150.00 TO £101.00 ')}`);
    expect(oldest.body.alerts.map((a) => a.message)).toEqual(['Price dropped 32.7% from £150.00 to £101.00']);
    expect(oldest.body.matching).toBe(1);
    expect((await pageOf(u.cookie, '?q=espresso')).body.alerts.map((a) => a.productName)).toEqual(['Espresso Machine']);
    // Wildcards of SQL patterns are plain characters.
    expect((await pageOf(u.cookie, '?q=_')).body).toEqual({ alerts: [], matching: 0, unread: 107 });

    const rises = u.all.filter((a) => a.type === 'price_increase');
    const increases = await pageOf(u.cookie, '?type=price_increase');
    expect(increases.body.matching).toBe(rises.length);
    expect(ids(increases.body.alerts)).toEqual(ids(rises.slice(0, ALERTS_PAGE)));
    expect((await pageOf(u.cookie, '?type=out_of_stock')).body).toEqual({ alerts: [], matching: 0, unread: 107 });

    const oldestId = oldest.body.alerts[0]!.id;
    await api.request(`/api/alerts/${oldestId}/read`, { method: 'PATCH', cookie: u.cookie });
    const read = await pageOf(u.cookie, '?status=read');
    expect({ ...read.body, alerts: ids(read.body.alerts) }).toEqual({ alerts: [oldestId], matching: 1, unread: 106 });
    expect((await pageOf(u.cookie, '?status=unread&q=kettle&type=all')).body.matching).toBe(105);
    expect((await pageOf(u.cookie, '?status=all&q=kettle&type=price_drop')).body.matching).toBe(
      u.all.filter((a) => a.type === 'price_drop' && a.productName === 'Steel Kettle').length,
    );
  });

  test('bad parameters are 400 naming the field; a cursor that is not one of your alerts is 404; signed out is 401', async () => {
    const u = await userWith107Alerts();
    for (const [query, field] of [
      ['?limit=0', 'limit'],
      ['?limit=501', 'limit'],
      ['?limit=1.5', 'limit'],
      ['?limit=abc', 'limit'],
      ['?type=other', 'type'],
      ['?status=new', 'status'],
      [`?q=${'x'.repeat(201)}`, 'q'],
    ] as const) {
      const answer = await pageOf(u.cookie, query);
      expect([query, answer.status, (answer.body as unknown as { field: string }).field]).toEqual([query, 400, field]);
    }
    const other = await api.signIn();
    for (const before of [u.all[0]!.id, crypto.randomUUID(), 'not-an-id']) {
      expect(await pageOf(other.cookie, `?before=${before}`)).toEqual({ status: 404, body: { message: 'Alert not found' } as never });
    }
    expect(await pageOf(other.cookie)).toEqual({ status: 200, body: { alerts: [], matching: 0, unread: 0 } });
    expect((await api.request('/api/alerts/page')).status).toBe(401);
    expect((await api.request('/api/alerts/mark-all-read', { method: 'POST' })).status).toBe(401);
    expect((await api.request('/api/notifications/unread-count')).status).toBe(401);
  });

  test('mark all as read reads every unread alert, however many pages, in one event; the notice stays unread', async () => {
    const u = await userWith107Alerts();
    await api.request(`/api/alerts/${u.all[3]!.id}/read`, { method: 'PATCH', cookie: u.cookie });
    const other = await userWithAlerts(1);
    expect(await json(await api.request('/api/alerts/mark-all-read', { method: 'POST', cookie: u.cookie }))).toEqual({
      status: 200,
      body: { success: true, count: 106 },
    });
    expect((await pageOf(u.cookie)).body.unread).toBe(0);
    expect((await alertsOf(u.cookie)).every((a: Listed) => a.isRead)).toBe(true);
    expect((await notificationsOf(u.cookie)).filter((n: Listed) => !n.isRead).map((n: Listed) => n.type)).toEqual(['channel_disabled']);
    const { events } = await ctx.store.readStream(`alerts-${u.userId}`);
    expect(events.filter((e) => e.type === 'AllNotificationsRead').map((e) => (e.data as { alertIds: string[] }).alertIds.length)).toEqual([106]);
    expect(await json(await api.request('/api/alerts/mark-all-read', { method: 'POST', cookie: u.cookie }))).toEqual({
      status: 200,
      body: { success: true, count: 0 },
    });
    // Nobody else's alerts.
    expect((await alertsOf(other.cookie))[0].isRead).toBe(false);
  });

  test('mark all as read at once with single reads of both screens records each alert read once', async () => {
    const u = await userWithAlerts(5);
    const calls = [
      ...u.ids.map((id) => api.request(`/api/alerts/${id}/read`, { method: 'PATCH', cookie: u.cookie })),
      ...u.ids.map((id) => api.request(`/api/notifications/${id}/read`, { method: 'POST', cookie: u.cookie })),
      ...Array.from({ length: 5 }, () => api.request('/api/alerts/mark-all-read', { method: 'POST', cookie: u.cookie })),
    ];
    expect((await Promise.all(calls)).map((r) => r.status)).toEqual(calls.map(() => 200));
    const named = await alertIdsRead(u.userId);
    expect(named.sort()).toEqual([...u.ids].sort());
  });

  test("the bell counts every unread alert and notice, not only those listed; of them the alerts are the dashboard's Active Alerts", async () => {
    const u = await userWith107Alerts();
    const listed = await notificationsOf(u.cookie);
    expect(listed).toHaveLength(50);
    const count = async () => json(await api.request('/api/notifications/unread-count', { cookie: u.cookie }));
    const stats = async () => (await (await api.request('/api/dashboard/stats', { cookie: u.cookie })).json()).alertsCount;
    expect(await count()).toEqual({ status: 200, body: { alerts: 107, notices: 1 } });
    expect(await stats()).toBe(107);
    await api.request(`/api/alerts/${u.all[0]!.id}/read`, { method: 'PATCH', cookie: u.cookie });
    expect((await count()).body).toEqual({ alerts: 106, notices: 1 });
    expect(await stats()).toBe(106);
    await api.request('/api/notifications/mark-all-read', { method: 'POST', cookie: u.cookie });
    expect((await count()).body).toEqual({ alerts: 0, notices: 0 });
    expect(await stats()).toBe(0);
  });
});

describe('backtest', () => {
  test('counts the alerts a threshold would have raised over the last 30 days', async () => {
    const u = await userWithProduct('none');
    const day = 86_400_000,
      now = Date.now();
    // Before the window: 100. In it: 95, 80, 90, 81.
    for (const [price, daysAgo] of [
      [100, 40],
      [95, 20],
      [80, 10],
      [90, 5],
      [81, 1],
    ] as const) {
      await observe(ctx, u.productId, u.userId, price, new Date(now - daysAgo * day));
    }
    await settle(ctx);
    const backtest = async (threshold: string) =>
      json(await api.request(`/api/products/${u.productId}/alert-backtest?threshold=${encodeURIComponent(threshold)}`, { cookie: u.cookie }));
    expect(await backtest('10')).toEqual({ status: 200, body: { alerts: 2, changes: 4, observations: 4, days: 30, priceDropAlerts: true } });
    expect((await backtest('5')).body.alerts).toBe(3);
    expect((await backtest('any')).body.alerts).toBe(4);
    expect((await backtest('')).body.alerts).toBe(0);
    expect((await backtest('-1')).status).toBe(400);
    expect((await backtest('abc')).status).toBe(400);
    const other = await api.signIn();
    expect((await api.request(`/api/products/${u.productId}/alert-backtest?threshold=5`, { cookie: other.cookie })).status).toBe(404);
  });
});
