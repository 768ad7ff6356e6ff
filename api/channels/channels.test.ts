import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { Webhook } from 'standardwebhooks';
import { createApp } from '../server.ts';
import { SETUP_TIMEOUT, testContext } from '../testing/database.ts';
import { client, observe, settle } from '../testing/alerts.ts';
import { endSubscription, startTrial } from '../testing/plans.ts';
import { startReceivers, TELEGRAM_CHAT, TELEGRAM_TOKEN, type FakeReceivers } from '../testing/fake-channels.ts';
import { importOwn, ownItem, runOwnCommands } from '../testing/own-catalogue.ts';
import { ownProductStream } from '../../events/own-product.ts';
import { createChannelDeliverer, type DelivererOptions } from './deliverer.ts';
import { applicationIdFor, messageIdFor } from './messages.ts';
import { PAID_PLANS_ONLY } from './routes.ts';

let ctx: Awaited<ReturnType<typeof testContext>>;
let api: ReturnType<typeof client>;
let receivers: FakeReceivers;

beforeAll(async () => {
  receivers = startReceivers();
  ctx = await testContext({ CHECK_ALLOW_PRIVATE: 'true', TELEGRAM_API_URL: receivers.telegramApiUrl });
  api = client(createApp(ctx));
}, SETUP_TIMEOUT);
afterAll(async () => {
  receivers.stop();
  await ctx.close();
}, SETUP_TIMEOUT);

const call = async (cookie: string, path: string, method = 'GET', body?: unknown) => {
  const res = await api.request(path, { method, cookie, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: res.status, body: await res.json() };
};

async function paidUser(email?: string) {
  const user = await api.signIn(email);
  await startTrial(ctx, user.userId, 'starter');
  return user;
}

let paths = 0;
/** A webhook channel to a receiver path of its own. */
async function webhookChannel(cookie: string, extra: object = {}) {
  const path = `/hooks/${++paths}`;
  const res = await call(cookie, '/api/channels', 'POST', { type: 'webhook', url: `${receivers.url}${path}`, ...extra });
  expect(res.status).toBe(201);
  return { ...res.body, path } as { id: string; secret: string; path: string; enabled: boolean };
}

/** A product that alerts on any change, priced at 20 and then `to`: one alert. */
async function raiseAlert(user: { cookie: string; userId: string }, to = 18, name = 'Kettle') {
  const productId = await api.addProduct(user.cookie, { name, threshold: 'any', url: `https://shop.example.com/${crypto.randomUUID()}` });
  await observe(ctx, productId, user.userId, 20);
  await observe(ctx, productId, user.userId, to);
  await settle(ctx);
  return productId;
}

const deliverer = (options: DelivererOptions = {}) => createChannelDeliverer(ctx, { retryBaseMs: 20, retryMaxMs: 40, leaseMs: 300, ...options });
const pending = async (channelId: string) => (await ctx.sql`SELECT 1 FROM channel_outbox WHERE channel_id = ${channelId}`).length;
const eventsOf = async (type: string, channelId: string) =>
  (await ctx.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM events WHERE type = ${type} AND data->>'channelId' = ${channelId}`)[0]!.n;

/** Delivers until the channel's outbox is empty. */
async function drain(channelId: string, d = deliverer(), timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (await pending(channelId)) {
    if (Date.now() > deadline) throw new Error('the outbox did not drain');
    await d.deliverDue().catch(() => {});
    await Bun.sleep(10);
  }
  await settle(ctx);
}

describe('adding channels', () => {
  test("each type is added (201), listed without its secrets; a webhook's signing secret is shown once", async () => {
    const u = await paidUser();
    const hook = await call(u.cookie, '/api/channels', 'POST', { type: 'webhook', url: `${receivers.url}/in?token=abcd1234`, name: 'Warehouse' });
    expect(hook.status).toBe(201);
    expect(hook.body).toMatchObject({
      type: 'webhook',
      name: 'Warehouse',
      enabled: true,
      disabledReason: null,
      lastDelivery: null,
      alertTypes: ['price_drop', 'price_increase', 'threshold_met', 'out_of_stock', 'back_in_stock', 'undercut', 'cheapest'],
    });
    expect(hook.body.secret).toMatch(/^whsec_/);
    expect(hook.body.target).toBe(`${receivers.url}/…1234`);
    const slack = await call(u.cookie, '/api/channels', 'POST', {
      type: 'slack',
      url: `${receivers.url}/slack/T0/B0/secretpart9876`,
      alertTypes: ['out_of_stock'],
    });
    expect(slack.body).toMatchObject({ type: 'slack', name: 'Slack', alertTypes: ['out_of_stock'] });
    expect(slack.body.secret).toBeUndefined();
    const discord = await call(u.cookie, '/api/channels', 'POST', { type: 'discord', url: `${receivers.url}/discord/1/tok` });
    expect(discord.status).toBe(201);
    const telegram = await call(u.cookie, '/api/channels', 'POST', { type: 'telegram', botToken: TELEGRAM_TOKEN, chatId: TELEGRAM_CHAT });
    expect(telegram.body).toMatchObject({ type: 'telegram', target: `Chat ${TELEGRAM_CHAT} (bot 123456789)` });

    const listed = await call(u.cookie, '/api/channels');
    expect(listed.body.map((c: { type: string }) => c.type)).toEqual(['webhook', 'slack', 'discord', 'telegram']);
    const text = JSON.stringify(listed.body);
    // Only the last four characters show, as on a card.
    for (const secret of [hook.body.secret, 'token=abcd', 'secretpart', TELEGRAM_TOKEN.split(':')[1]!.slice(0, 20)]) expect(text).not.toContain(secret);
  });

  test('bad addresses and tokens answer 400 naming the field, and add nothing', async () => {
    const u = await paidUser();
    const cases: [object, string][] = [
      [{ type: 'pager' }, 'type'],
      [{ type: 'webhook' }, 'url'],
      [{ type: 'webhook', url: 'not a url' }, 'url'],
      [{ type: 'webhook', url: 'ftp://example.com/x' }, 'url'],
      [{ type: 'slack', url: 'https://user:pw@hooks.slack.com/x' }, 'url'],
      [{ type: 'webhook', url: 'http://169.254.169.254/latest' }, 'url'],
      [{ type: 'telegram', botToken: 'nope', chatId: TELEGRAM_CHAT }, 'botToken'],
      [{ type: 'telegram', botToken: TELEGRAM_TOKEN, chatId: 'me; drop' }, 'chatId'],
      [{ type: 'discord', url: `${receivers.url}/d`, name: '   ' }, 'name'],
      [{ type: 'discord', url: `${receivers.url}/d`, alertTypes: ['everything'] }, 'alertTypes'],
      [{ type: 'discord', url: `${receivers.url}/d`, alertTypes: [] }, 'alertTypes'],
    ];
    for (const [body, field] of cases) {
      const res = await call(u.cookie, '/api/channels', 'POST', body);
      expect([res.status, res.body.field, JSON.stringify(body)]).toEqual([400, field, JSON.stringify(body)]);
    }
    expect((await call(u.cookie, '/api/channels', 'POST', [1, 2])).status).toBe(400);
    expect((await call(u.cookie, '/api/channels')).body).toEqual([]);
  });

  test('private and loopback addresses are refused where checks refuse them', async () => {
    const strict = client(createApp({ ...ctx, config: { ...ctx.config, checkAllowPrivate: false } }));
    const u = await paidUser();
    for (const url of [
      `${receivers.url}/in`,
      'http://localhost/in',
      'http://10.0.0.8/in',
      'http://[::1]/in',
      'http://0x7f.1/in',
      'https://example.com:9000/in',
    ]) {
      const res = await strict.request('/api/channels', { method: 'POST', cookie: u.cookie, body: JSON.stringify({ type: 'webhook', url }) });
      expect([url, res.status, (await res.json()).field]).toEqual([url, 400, 'url']);
    }
  });

  test('Free gets 403 with the reason; at most 10 channels', async () => {
    const free = await api.signIn();
    const res = await call(free.cookie, '/api/channels', 'POST', { type: 'slack', url: `${receivers.url}/slack` });
    expect(res).toEqual({ status: 403, body: { message: PAID_PLANS_ONLY } });
    expect((await call(free.cookie, '/api/channels')).body).toEqual([]);

    const u = await paidUser();
    await Promise.all(Array.from({ length: 12 }, () => call(u.cookie, '/api/channels', 'POST', { type: 'slack', url: `${receivers.url}/slack` })));
    expect((await call(u.cookie, '/api/channels')).body).toHaveLength(10);
    expect((await call(u.cookie, '/api/channels', 'POST', { type: 'slack', url: `${receivers.url}/slack` })).status).toBe(403);
  });
});

describe('managing channels', () => {
  test('rename, switch off and on, choose alert types, rotate the secret, remove', async () => {
    const u = await paidUser();
    const hook = await webhookChannel(u.cookie);
    const changed = await call(u.cookie, `/api/channels/${hook.id}`, 'PATCH', { name: 'ERP', enabled: false, alertTypes: ['threshold_met'] });
    expect(changed.body).toMatchObject({ name: 'ERP', enabled: false, alertTypes: ['threshold_met'] });
    expect((await call(u.cookie, `/api/channels/${hook.id}`, 'PATCH', { enabled: 'yes' })).body.field).toBe('enabled');
    expect((await call(u.cookie, `/api/channels/${hook.id}`, 'PATCH', { enabled: true })).body.enabled).toBe(true);

    const rotated = await call(u.cookie, `/api/channels/${hook.id}/rotate-secret`, 'POST');
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(hook.secret);
    const test = await call(u.cookie, `/api/channels/${hook.id}/test`, 'POST');
    expect(test.body.delivered).toBe(true);
    const got = receivers.to(hook.path).at(-1)!;
    expect(() => new Webhook(rotated.body.secret).verify(got.body, got.headers)).not.toThrow();
    expect(() => new Webhook(hook.secret).verify(got.body, got.headers)).toThrow();

    expect((await call(u.cookie, `/api/channels/${hook.id}`, 'DELETE')).body).toEqual({ success: true });
    expect((await call(u.cookie, '/api/channels')).body).toEqual([]);
    expect((await call(u.cookie, `/api/channels/${hook.id}`, 'DELETE')).status).toBe(404);
  });

  test('changes that are not a JSON object answer 400 with a message, and change nothing', async () => {
    const u = await paidUser();
    const hook = await webhookChannel(u.cookie, { name: 'Kept' });
    const before = (await call(u.cookie, '/api/channels')).body;
    for (const body of [[], [{ enabled: false }], 'x', 42, null, true]) {
      const res = await call(u.cookie, `/api/channels/${hook.id}`, 'PATCH', body);
      expect([JSON.stringify(body), res.status, typeof res.body.message]).toEqual([JSON.stringify(body), 400, 'string']);
    }
    expect((await call(u.cookie, '/api/channels')).body).toEqual(before);
    expect(await eventsOf('ChannelChanged', hook.id)).toBe(0);
  });

  test("another user's channel answers 404 on every route, and is left as it was", async () => {
    const owner = await paidUser(),
      other = await paidUser();
    const hook = await webhookChannel(owner.cookie);
    const routes: [string, string, unknown?][] = [
      ['PATCH', `/api/channels/${hook.id}`, { enabled: false }],
      ['DELETE', `/api/channels/${hook.id}`],
      ['POST', `/api/channels/${hook.id}/test`],
      ['POST', `/api/channels/${hook.id}/rotate-secret`],
      ['GET', `/api/channels/${hook.id}/deliveries`],
      ['PATCH', '/api/channels/not-an-id', { enabled: false }],
      ['GET', `/api/channels/${crypto.randomUUID()}/deliveries`],
    ];
    const before = receivers.to(hook.path).length;
    for (const [method, path, body] of routes) expect([method, path, (await call(other.cookie, path, method, body)).status]).toEqual([method, path, 404]);
    expect(receivers.to(hook.path).length).toBe(before);
    expect((await call(owner.cookie, '/api/channels')).body[0]).toMatchObject({ id: hook.id, enabled: true });
  });
});

describe('test messages tell the truth', () => {
  test('200 is delivered; 404 and 500 are not, with their status; an unreachable receiver says why', async () => {
    const u = await paidUser();
    const hook = await webhookChannel(u.cookie);
    expect((await call(u.cookie, `/api/channels/${hook.id}/test`, 'POST')).body).toEqual({ delivered: true, status: 200, error: null });
    const sent = receivers.to(hook.path).at(-1)!;
    expect(sent.json).toMatchObject({ type: 'channel.test' });
    expect(sent.headers['webhook-id']).toMatch(/^msg_test_/);

    receivers.reply(hook.path, { status: 404, body: 'no such hook' });
    expect((await call(u.cookie, `/api/channels/${hook.id}/test`, 'POST')).body).toEqual({ delivered: false, status: 404, error: 'HTTP 404: no such hook' });
    receivers.reply(hook.path, { status: 500 });
    expect((await call(u.cookie, `/api/channels/${hook.id}/test`, 'POST')).body).toEqual({ delivered: false, status: 500, error: 'HTTP 500' });

    const telegram = await call(u.cookie, '/api/channels', 'POST', { type: 'telegram', botToken: TELEGRAM_TOKEN, chatId: '-1009999' });
    const wrongChat = await call(u.cookie, `/api/channels/${telegram.body.id}/test`, 'POST');
    expect(wrongChat.body).toMatchObject({ delivered: false, status: 400 });
    expect(wrongChat.body.error).toContain('chat not found');

    const gone = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() });
    const port = gone.port;
    gone.stop(true);
    const closed = await call(u.cookie, '/api/channels', 'POST', { type: 'discord', url: `http://127.0.0.1:${port}/closed` });
    const refused = await call(u.cookie, `/api/channels/${closed.body.id}/test`, 'POST');
    expect(refused.body).toMatchObject({ delivered: false, status: null });
    expect(refused.body.error).toBe('The receiver refused the connection.');

    const log = (await call(u.cookie, `/api/channels/${hook.id}/deliveries`)).body;
    expect(log.map((d: { delivered: boolean; status: number }) => [d.delivered, d.status])).toEqual([
      [false, 500],
      [false, 404],
      [true, 200],
    ]);
    expect(log[0]).toMatchObject({ test: true, alertId: null, attempt: 1, retryAt: null, error: 'HTTP 500' });
  });
});

describe('delivering alerts', () => {
  test('every channel type receives the alert once, signed where it is a webhook', async () => {
    const u = await paidUser();
    const hook = await webhookChannel(u.cookie);
    const slack = (await call(u.cookie, '/api/channels', 'POST', { type: 'slack', url: `${receivers.url}/slack/a` })).body;
    const discord = (await call(u.cookie, '/api/channels', 'POST', { type: 'discord', url: `${receivers.url}/discord/a` })).body;
    const telegram = (await call(u.cookie, '/api/channels', 'POST', { type: 'telegram', botToken: TELEGRAM_TOKEN, chatId: TELEGRAM_CHAT })).body;
    const stockOnly = await webhookChannel(u.cookie, { alertTypes: ['out_of_stock'] });
    const productId = await raiseAlert(u, 18, 'Steel Kettle');
    const d = deliverer();
    for (const c of [hook, slack, discord, telegram]) await drain(c.id, d);

    const [got] = receivers.to(hook.path);
    expect(new Webhook(hook.secret).verify(got!.body, got!.headers)).toMatchObject({
      type: 'price.alert',
      data: { alertType: 'price_drop', productId, productName: 'Steel Kettle', previousPrice: 20, currentPrice: 18, currency: 'GBP', changePercent: -10 },
    });
    expect(receivers.to('/slack/a').at(-1)!.json.text).toBe('Steel Kettle: Price dropped 10.0% from £20.00 to £18.00');
    expect(receivers.to('/discord/a').at(-1)!.json.embeds[0]).toMatchObject({ title: 'Steel Kettle', color: 0x16a34a });
    const tg = receivers.received.filter((r) => r.path === `/telegram/bot${TELEGRAM_TOKEN}/sendMessage` && r.json.text.includes('Steel Kettle'));
    expect(tg).toHaveLength(1);
    expect(receivers.to(stockOnly.path)).toHaveLength(0);
    for (const c of [hook, slack, discord, telegram]) expect(await eventsOf('AlertDelivered', c.id)).toBe(1);

    // Catching up again, or another deliverer, sends nothing more.
    await settle(ctx);
    await deliverer().deliverDue();
    expect(receivers.to(hook.path)).toHaveLength(1);
    const log = (await call(u.cookie, `/api/channels/${hook.id}/deliveries`)).body;
    expect(log).toEqual([expect.objectContaining({ productName: 'Steel Kettle', delivered: true, status: 200, attempt: 1, test: false })]);
    expect((await call(u.cookie, '/api/channels')).body[0].lastDelivery).toMatchObject({ delivered: true, status: 200 });
  });

  test('a switched-off channel, or one of a user back on Free, gets nothing', async () => {
    const u = await paidUser();
    const hook = await webhookChannel(u.cookie);
    await call(u.cookie, `/api/channels/${hook.id}`, 'PATCH', { enabled: false });
    await raiseAlert(u);
    await drain(hook.id);
    expect(receivers.to(hook.path)).toHaveLength(0);
    expect((await call(u.cookie, `/api/channels/${hook.id}/deliveries`)).body).toEqual([]);

    const downgraded = await paidUser();
    const kept = await webhookChannel(downgraded.cookie);
    await endSubscription(
      ctx,
      downgraded.userId,
      (
        await ctx.sql<{ id: string }[]>`
      SELECT data->>'subscriptionId' AS id FROM events WHERE type = 'TrialStarted' AND data->>'userId' = ${downgraded.userId}`
      )[0]!.id,
    );
    await raiseAlert(downgraded);
    await drain(kept.id);
    expect(receivers.to(kept.path)).toHaveLength(0);
    expect((await call(downgraded.cookie, `/api/channels/${kept.id}/deliveries`)).body[0].error).toContain('paid plans');
    expect((await call(downgraded.cookie, `/api/channels/${kept.id}/test`, 'POST')).status).toBe(403);
    expect((await call(downgraded.cookie, '/api/channels')).body).toHaveLength(1);
  });

  test('a failing endpoint is retried with the same webhook-id until it accepts', async () => {
    const u = await paidUser();
    const hook = await webhookChannel(u.cookie);
    receivers.reply(hook.path, { status: 500 }, { status: 503 }, { status: 502 });
    await raiseAlert(u);
    await drain(hook.id);
    const attempts = receivers.to(hook.path);
    expect(attempts.map(() => 1)).toHaveLength(4);
    expect(new Set(attempts.map((a) => a.headers['webhook-id'])).size).toBe(1);
    for (const a of attempts) expect(() => new Webhook(hook.secret).verify(a.body, a.headers)).not.toThrow();
    const log = (await call(u.cookie, `/api/channels/${hook.id}/deliveries`)).body;
    expect(log.map((d: { attempt: number; status: number; delivered: boolean }) => [d.attempt, d.status, d.delivered])).toEqual([
      [4, 200, true],
      [3, 502, false],
      [2, 503, false],
      [1, 500, false],
    ]);
    expect(log[1].retryAt).not.toBeNull();
    expect(await eventsOf('AlertDelivered', hook.id)).toBe(1);
  });

  test('429 with Retry-After: the next attempt waits as long as asked', async () => {
    const u = await paidUser();
    const hook = await webhookChannel(u.cookie);
    receivers.reply(hook.path, { status: 429, headers: { 'retry-after': '120' } });
    await raiseAlert(u);
    await deliverer().deliverDue();
    await settle(ctx);
    const [row] = await ctx.sql<
      { wait: number }[]
    >`SELECT extract(epoch FROM available_at - now())::float AS wait FROM channel_outbox WHERE channel_id = ${hook.id}`;
    expect(row!.wait).toBeGreaterThan(110);
    expect(row!.wait).toBeLessThanOrEqual(121);
    const [failed] = (await call(u.cookie, `/api/channels/${hook.id}/deliveries`)).body;
    expect(failed).toMatchObject({ delivered: false, status: 429, attempt: 1 });
    expect(Date.parse(failed.retryAt) - Date.now()).toBeGreaterThan(110_000);
    // Nothing is sent before then.
    await deliverer().deliverDue();
    expect(receivers.to(hook.path)).toHaveLength(1);
  });

  test('given up after the retry window, with AlertDeliveryFailed as the last word', async () => {
    const u = await paidUser();
    const hook = await webhookChannel(u.cookie);
    receivers.always(hook.path, { status: 500 });
    await raiseAlert(u);
    await drain(hook.id, deliverer({ giveUpMs: 150 }));
    receivers.always(hook.path, null);
    const [last] = (await call(u.cookie, `/api/channels/${hook.id}/deliveries`)).body;
    expect(last).toMatchObject({ delivered: false, status: 500, retryAt: null });
    expect(await eventsOf('AlertDelivered', hook.id)).toBe(0);
  });

  test('a deliverer that stops after the receiver accepted: the message goes again with the same id, and is recorded once', async () => {
    const u = await paidUser();
    const hook = await webhookChannel(u.cookie);
    await raiseAlert(u);
    const crashing = deliverer({
      afterSend: () => {
        throw new Error('process killed');
      },
    });
    await crashing.deliverDue();
    expect(receivers.to(hook.path)).toHaveLength(1);
    expect(await pending(hook.id)).toBe(1);
    // Leased: nobody else sends it until the lease runs out.
    await deliverer().deliverDue();
    expect(receivers.to(hook.path)).toHaveLength(1);
    await Bun.sleep(350);
    await drain(hook.id);
    const [first, second] = receivers.to(hook.path);
    expect(second!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    expect(await eventsOf('AlertDelivered', hook.id)).toBe(1);
  });

  test('after N failures in a row the channel is turned off, and the user is told in the app and by e-mail', async () => {
    const u = await paidUser();
    const hook = await webhookChannel(u.cookie, { name: 'Ops hook' });
    receivers.always(hook.path, { status: 410, body: 'gone' });
    await raiseAlert(u);
    await drain(hook.id, deliverer({ disableAfter: 3 }));
    receivers.always(hook.path, null);
    expect(receivers.to(hook.path)).toHaveLength(3);

    const [channel] = (await call(u.cookie, '/api/channels')).body;
    expect(channel).toMatchObject({ enabled: false, lastDelivery: { delivered: false, status: 410 } });
    expect(channel.disabledReason).toContain('3 failed deliveries in a row');
    const notices = (await call(u.cookie, '/api/notifications')).body.filter((n: { type: string }) => n.type === 'channel_disabled');
    expect(notices).toEqual([expect.objectContaining({ productName: 'Alert channel "Ops hook" turned off', isRead: false })]);
    // A notice is not an alert about a product: the Alerts screen leaves it out; it can be read like one.
    expect((await call(u.cookie, '/api/alerts')).body.some((a: { type: string }) => a.type === 'channel_disabled')).toBe(false);
    expect((await call(u.cookie, `/api/notifications/${notices[0].id}/read`, 'POST')).status).toBe(200);
    const [mail] = await ctx.sql<
      { kind: string; payload: { title: string } }[]
    >`SELECT kind, payload FROM email_outbox WHERE user_id = ${u.userId} AND kind = 'notice'`;
    expect(mail).toMatchObject({ kind: 'notice', payload: { title: 'Alert channel "Ops hook" turned off' } });

    // Further alerts are not sent to it; switched on again it receives them.
    await raiseAlert(u, 17);
    await drain(hook.id);
    expect(receivers.to(hook.path)).toHaveLength(3);
    expect((await call(u.cookie, `/api/channels/${hook.id}`, 'PATCH', { enabled: true })).body).toMatchObject({ enabled: true, disabledReason: null });
    await raiseAlert(u, 16);
    await drain(hook.id);
    expect(receivers.to(hook.path)).toHaveLength(4);
    expect(await eventsOf('AlertDelivered', hook.id)).toBe(1);
  });
});

describe('applied price recommendations', () => {
  /** An own product of the user's, "Kettle" at £110.00 (SKU K-1). */
  const ownKettle = async (userId: string) =>
    (await importOwn(ctx, userId, [ownItem('Kettle', 110, { sku: 'K-1', url: 'https://myshop.example.com/kettle' })]))[0]!;

  /** Applies a recommended £102.99 as the pricing routes do; answers the event's log position. */
  async function apply(userId: string, ownProductId: string, via: 'hand' | 'automatic' | 'undo' = 'hand', at = new Date()) {
    await runOwnCommands(ctx, [{ type: 'Apply', ownProductId, userId, price: 102.99, via, evidence: [3, 5], at: at.toISOString() }]);
    await settle(ctx);
    const [row] = await ctx.sql<{ position: string }[]>`
      SELECT global_position::text AS position FROM events WHERE type = 'RecommendationApplied' AND stream_id = ${ownProductStream(ownProductId)}
      ORDER BY global_position DESC LIMIT 1`;
    return Number(row!.position);
  }

  test("reach the owner's enabled channels once: a signed webhook with the product and a stable id, a line in chat; recorded like alerts", async () => {
    const u = await paidUser();
    const hook = await webhookChannel(u.cookie);
    // Alert types choose alerts; an applied price is not one, and goes to every enabled channel.
    const stockOnly = await webhookChannel(u.cookie, { alertTypes: ['out_of_stock'] });
    const off = await webhookChannel(u.cookie);
    await call(u.cookie, `/api/channels/${off.id}`, 'PATCH', { enabled: false });
    const slack = (await call(u.cookie, '/api/channels', 'POST', { type: 'slack', url: `${receivers.url}/slack/applied` })).body;
    const other = await paidUser();
    const othersHook = await webhookChannel(other.cookie);

    const ownProductId = await ownKettle(u.userId);
    const at = new Date();
    const position = await apply(u.userId, ownProductId, 'hand', at);
    const applicationId = applicationIdFor(position);
    expect(await pending(off.id)).toBe(0);
    const d = deliverer();
    for (const c of [hook, stockOnly, slack]) await drain(c.id, d);

    const [got] = receivers.to(hook.path);
    expect(receivers.to(hook.path)).toHaveLength(1);
    expect(got!.headers['webhook-id']).toBe(messageIdFor(applicationId, hook.id));
    expect(new Webhook(hook.secret).verify(got!.body, got!.headers)).toEqual({
      type: 'price.recommendation.applied',
      timestamp: expect.any(String),
      data: {
        ownProductId,
        title: 'Kettle',
        variant: null,
        sku: 'K-1',
        url: 'https://myshop.example.com/kettle',
        price: 102.99,
        previousPrice: 110,
        currency: 'GBP',
        via: 'hand',
        evidence: [3, 5],
        at: at.toISOString(),
        applicationId,
      },
    });
    expect(receivers.to(stockOnly.path)).toHaveLength(1);
    expect(receivers.to('/slack/applied').at(-1)!.json.text).toBe('Price applied: Kettle £110.00 → £102.99 (by hand)');
    // A switched-off channel and another user's get nothing, and nothing is recorded for them.
    expect(receivers.to(off.path)).toHaveLength(0);
    expect(receivers.to(othersHook.path)).toHaveLength(0);
    expect((await call(u.cookie, `/api/channels/${off.id}/deliveries`)).body).toEqual([]);

    const log = (await call(u.cookie, `/api/channels/${hook.id}/deliveries`)).body;
    expect(log).toEqual([expect.objectContaining({ alertId: applicationId, productName: 'Kettle', delivered: true, status: 200, attempt: 1, test: false })]);
    expect(await eventsOf('AlertDelivered', hook.id)).toBe(1);
    // Catching up again, or another deliverer, sends nothing more.
    await settle(ctx);
    await deliverer().deliverDue();
    expect(receivers.to(hook.path)).toHaveLength(1);
  });

  test('a failing receiver gets it again with the same webhook-id until it accepts', async () => {
    const u = await paidUser();
    const hook = await webhookChannel(u.cookie);
    receivers.reply(hook.path, { status: 503 });
    await apply(u.userId, await ownKettle(u.userId), 'automatic');
    await drain(hook.id);
    const attempts = receivers.to(hook.path);
    expect(attempts).toHaveLength(2);
    expect(attempts[1]!.headers['webhook-id']).toBe(attempts[0]!.headers['webhook-id']);
    expect(attempts[1]!.json).toMatchObject({ type: 'price.recommendation.applied', data: { via: 'automatic', price: 102.99 } });
    const log = (await call(u.cookie, `/api/channels/${hook.id}/deliveries`)).body;
    expect(log.map((e: { attempt: number; status: number; productName: string }) => [e.attempt, e.status, e.productName])).toEqual([
      [2, 200, 'Kettle'],
      [1, 503, 'Kettle'],
    ]);
  });

  test('old news is not sent: a backfilled application, or one from more than a day ago', async () => {
    const u = await paidUser();
    const hook = await webhookChannel(u.cookie);
    const ownProductId = await ownKettle(u.userId);
    await apply(u.userId, ownProductId, 'hand', new Date(Date.now() - 2 * 24 * 3_600_000));
    await ctx.store.append(ownProductStream(ownProductId), 'any', [
      {
        type: 'RecommendationApplied',
        data: {
          ownProductId,
          userId: u.userId,
          price: 99,
          previousPrice: 102.99,
          currency: 'GBP',
          via: 'automatic',
          evidence: [],
          at: new Date().toISOString(),
        },
        metadata: { backfill: true },
      },
    ]);
    await settle(ctx);
    expect(await pending(hook.id)).toBe(0);
    await deliverer().deliverDue();
    expect(receivers.to(hook.path)).toHaveLength(0);
    // News again: sent.
    await apply(u.userId, ownProductId);
    await drain(hook.id);
    expect(receivers.to(hook.path)).toHaveLength(1);
  });

  test("the product's details come from its stream when the catalogue's read model does not hold it", async () => {
    const u = await paidUser();
    const hook = await webhookChannel(u.cookie);
    const [ownProductId] = await importOwn(ctx, u.userId, [ownItem('Trail Jacket', 110, { variant: 'XL / Red', sku: 'TJ-XL' })]);
    // As if the catalogue projection were behind the reactor.
    await ctx.sql`DELETE FROM own_products WHERE id = ${ownProductId!}`;
    await apply(u.userId, ownProductId!);
    await drain(hook.id);
    expect(receivers.to(hook.path)[0]!.json.data).toMatchObject({ title: 'Trail Jacket', variant: 'XL / Red', sku: 'TJ-XL', url: null });
    expect((await call(u.cookie, `/api/channels/${hook.id}/deliveries`)).body[0]).toMatchObject({ productName: 'Trail Jacket', delivered: true });
  });
});
