import { describe, expect, test } from 'bun:test';
import { Webhook } from 'standardwebhooks';
import {
  applicationIdFor,
  describeEndpoint,
  messageIdFor,
  newWebhookSecret,
  requestFor,
  subjectOf,
  type AlertMessage,
  type AppliedMessage,
} from './messages.ts';
import { alertIdFor } from '../alerts/reactor.ts';
import { messageOf } from './outbox.ts';
import { nextAttemptAt } from './deliverer.ts';
import { standingMessage, standingOf } from '../../domain/alerts.ts';

const alert: AlertMessage = {
  alertId: '0f8fad5b-d9cb-469f-a165-70867728950e',
  userId: 'u1',
  productId: 'p1',
  standing: null,
  type: 'price_drop',
  productName: 'Kettle <b>& Co</b> @everyone',
  productUrl: 'https://shop.example.com/kettle',
  productImage: null,
  previousPrice: 20,
  currentPrice: 18,
  currency: 'EUR',
  changePercent: -10,
  thresholdPercent: null,
  message: 'Price dropped 10.0% from €20.00 to €18.00',
  trigger: { eventType: 'PriceObserved', position: 7, at: '2026-11-24T10:00:00.000Z' },
};
const ctx = {
  messageId: messageIdFor(alert.alertId, 'c1'),
  now: new Date('2026-11-24T10:00:05Z'),
  publicUrl: 'https://app.example.com',
  telegramApiUrl: 'https://api.telegram.org',
};

describe('webhook messages (Standard Webhooks)', () => {
  test('are signed so that the reference verifier accepts them, and reject tampering', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const req = requestFor({ type: 'webhook', url: 'https://hooks.example.com/in', secret }, 'c1', { kind: 'alert', alert }, ctx);
    expect(req.headers['webhook-id']).toBe(ctx.messageId);
    expect(req.headers['webhook-timestamp']).toBe(String(Math.floor(ctx.now.getTime() / 1000)));
    expect(req.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const verifier = new Webhook(secret);
    // The verifier refuses old timestamps: check against the message's own time.
    const realNow = Date.now;
    Date.now = () => ctx.now.getTime();
    try {
      expect(verifier.verify(req.body, req.headers)).toEqual(JSON.parse(req.body));
      expect(() => verifier.verify(req.body.replace('18', '17'), req.headers)).toThrow();
      expect(() => new Webhook(newWebhookSecret()).verify(req.body, req.headers)).toThrow();
    } finally {
      Date.now = realNow;
    }
  });

  test('carry the alert as the contract says, and a test message as its own type', () => {
    const secret = newWebhookSecret();
    const body = JSON.parse(requestFor({ type: 'webhook', url: 'https://h.example.com', secret }, 'c1', { kind: 'alert', alert }, ctx).body);
    expect(body).toEqual({
      type: 'price.alert',
      timestamp: '2026-11-24T10:00:05.000Z',
      data: {
        alertId: alert.alertId,
        alertType: 'price_drop',
        productId: 'p1',
        productName: alert.productName,
        productUrl: alert.productUrl,
        previousPrice: 20,
        currentPrice: 18,
        currency: 'EUR',
        changePercent: -10,
        thresholdPercent: null,
        message: alert.message,
        at: '2026-11-24T10:00:00.000Z',
      },
    });
    const stock = JSON.parse(
      requestFor(
        { type: 'webhook', url: 'https://h.example.com', secret },
        'c1',
        { kind: 'alert', alert: { ...alert, type: 'out_of_stock', currentPrice: null } },
        ctx,
      ).body,
    );
    expect(stock.data).toMatchObject({ alertType: 'out_of_stock', currentPrice: null });
    const testBody = JSON.parse(requestFor({ type: 'webhook', url: 'https://h.example.com', secret }, 'c1', { kind: 'test', channelName: 'Ops' }, ctx).body);
    expect(testBody).toMatchObject({ type: 'channel.test', data: { channelId: 'c1', channelName: 'Ops' } });
  });

  test('a message keeps its id across attempts; each attempt is signed at its own time', () => {
    const secret = newWebhookSecret();
    const first = requestFor({ type: 'webhook', url: 'https://h.example.com', secret }, 'c1', { kind: 'alert', alert }, ctx);
    const later = requestFor(
      { type: 'webhook', url: 'https://h.example.com', secret },
      'c1',
      { kind: 'alert', alert },
      { ...ctx, now: new Date(ctx.now.getTime() + 60_000) },
    );
    expect(later.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(later.headers['webhook-signature']).not.toBe(first.headers['webhook-signature']);
    expect(messageIdFor(alert.alertId, 'c1')).not.toBe(messageIdFor(alert.alertId, 'c2'));
  });
});

describe('chat messages', () => {
  test('Slack: Block Kit with a text fallback, its control characters escaped', () => {
    const body = JSON.parse(requestFor({ type: 'slack', url: 'https://hooks.slack.com/services/T/B/x' }, 'c1', { kind: 'alert', alert }, ctx).body);
    expect(body.text).toBe(`${alert.productName}: ${alert.message}`);
    expect(body.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: alert.productName, emoji: false } });
    expect(body.blocks[1].text.text).toBe('*Price Drop:* Price dropped 10.0% from €20.00 to €18.00');
    expect(body.blocks[1].fields.map((f: { text: string }) => f.text)).toEqual(['*Was*\n€20.00', '*Now*\n€18.00']);
    expect(body.blocks[2].elements[0]).toMatchObject({ type: 'button', url: alert.productUrl });
    const escaped = JSON.parse(
      requestFor({ type: 'slack', url: 'https://x.example.com' }, 'c1', { kind: 'alert', alert: { ...alert, message: 'a <b> & c' } }, ctx).body,
    );
    expect(escaped.blocks[1].text.text).toBe('*Price Drop:* a &lt;b&gt; &amp; c');
  });

  test("Discord: an embed in the alert's colour; names cannot ping anyone", () => {
    const body = JSON.parse(requestFor({ type: 'discord', url: 'https://discord.com/api/webhooks/1/x' }, 'c1', { kind: 'alert', alert }, ctx).body);
    expect(body.allowed_mentions).toEqual({ parse: [] });
    expect(body.embeds[0]).toMatchObject({
      title: alert.productName,
      url: alert.productUrl,
      description: alert.message,
      color: 0x16a34a,
      timestamp: alert.trigger.at,
    });
    expect(body.embeds[0].fields).toEqual([
      { name: 'Was', value: '€20.00', inline: true },
      { name: 'Now', value: '€18.00', inline: true },
      { name: 'Alert', value: 'Price Drop', inline: true },
    ]);
  });

  test('stock alerts in the colours the app and the e-mails give them: out of stock red, back in stock green', () => {
    const colourOf = (type: AlertMessage['type']) =>
      JSON.parse(requestFor({ type: 'discord', url: 'https://discord.com/api/webhooks/1/x' }, 'c1', { kind: 'alert', alert: { ...alert, type } }, ctx).body)
        .embeds[0].color;
    expect(colourOf('out_of_stock')).toBe(0xdc2626);
    expect(colourOf('back_in_stock')).toBe(0x16a34a);
    expect(colourOf('price_increase')).toBe(0xdc2626);
    expect(colourOf('threshold_met')).toBe(0xea580c);
  });

  test('Telegram: sendMessage through the configured Bot API, as escaped HTML', () => {
    const req = requestFor(
      { type: 'telegram', botToken: '123:abc', chatId: '-100' },
      'c1',
      { kind: 'alert', alert },
      { ...ctx, telegramApiUrl: 'http://127.0.0.1:9/tg' },
    );
    expect(req.url).toBe('http://127.0.0.1:9/tg/bot123:abc/sendMessage');
    const body = JSON.parse(req.body);
    expect(body).toMatchObject({ chat_id: '-100', parse_mode: 'HTML' });
    expect(body.text.split('\n')[0]).toBe('<b>Kettle &lt;b&gt;&amp; Co&lt;/b&gt; @everyone</b>');
    expect(body.text).toContain('Was €20.00 · now €18.00');
  });
});

describe('undercut and cheapest messages', () => {
  const standing = standingOf({ ownProductId: 'o1', title: 'Trail Jacket', price: 99 }, { name: 'Acme', host: 'acme.example', price: 95 });
  const undercut: AlertMessage = {
    ...alert,
    type: 'undercut',
    productName: 'Acme',
    productUrl: 'https://acme.example/jacket',
    previousPrice: 99,
    currentPrice: 95,
    currency: 'GBP',
    changePercent: null,
    message: standingMessage('undercut', standing, 'GBP'),
    standing,
  };
  const send = (endpoint: Parameters<typeof requestFor>[0], a: AlertMessage = undercut) =>
    JSON.parse(requestFor(endpoint, 'c1', { kind: 'alert', alert: a }, ctx).body);

  test('name the competitor, both prices and the gap, under the own product', () => {
    expect(undercut.message).toBe('Acme (acme.example) undercut your Trail Jacket: £95.00 against your £99.00 (£4.00, 4.2% below you).');
    const slack = send({ type: 'slack', url: 'https://hooks.slack.com/services/T/B/x' });
    expect(slack.text).toBe(`Trail Jacket: ${undercut.message}`);
    expect(slack.blocks[1].text.text).toBe(`*Undercut:* ${undercut.message}`);
    expect(slack.blocks[1].fields.map((f: { text: string }) => f.text)).toEqual(['*Yours*\n£99.00', '*Acme*\n£95.00']);
    const discord = send({ type: 'discord', url: 'https://discord.com/api/webhooks/1/x' });
    expect(discord.embeds[0]).toMatchObject({ title: 'Trail Jacket', url: 'https://acme.example/jacket', description: undercut.message, color: 0xdc2626 });
    expect(discord.embeds[0].fields).toEqual([
      { name: 'Yours', value: '£99.00', inline: true },
      { name: 'Acme', value: '£95.00', inline: true },
      { name: 'Alert', value: 'Undercut', inline: true },
    ]);
    const telegram = send({ type: 'telegram', botToken: '123:abc', chatId: '-100' });
    expect(telegram.text).toContain('<b>Trail Jacket</b>\nUndercut: Acme (acme.example) undercut');
    expect(telegram.text).toContain('Yours £99.00 · Acme £95.00');
    const webhook = send({ type: 'webhook', url: 'https://h.example.com', secret: newWebhookSecret() });
    expect(webhook.data).toMatchObject({ alertType: 'undercut', productName: 'Acme', previousPrice: 99, currentPrice: 95, standing });
  });

  test('cheapest: in the good news colour, with the label the app shows', () => {
    const cheaper = standingOf({ ownProductId: 'o1', title: 'Trail Jacket', price: 99 }, { name: 'Acme', host: 'acme.example', price: 101 });
    const cheapest = { ...undercut, type: 'cheapest' as const, currentPrice: 101, standing: cheaper, message: standingMessage('cheapest', cheaper, 'GBP') };
    expect(cheapest.message).toBe("You're the cheapest for Trail Jacket again: £99.00, Acme is at £101.00.");
    const discord = send({ type: 'discord', url: 'https://discord.com/api/webhooks/1/x' }, cheapest);
    expect(discord.embeds[0].color).toBe(0x16a34a);
    expect(discord.embeds[0].fields[2]).toEqual({ name: 'Alert', value: "You're cheapest", inline: true });
  });
});

describe('applied price recommendations', () => {
  const applied: AppliedMessage = {
    applicationId: applicationIdFor(41),
    ownProductId: 'o1',
    userId: 'u1',
    title: 'Kettle',
    variant: null,
    sku: 'K-1',
    url: 'https://myshop.example.com/kettle',
    price: 102.99,
    previousPrice: 110,
    currency: 'GBP',
    via: 'hand',
    evidence: [12, 40],
    at: '2026-11-24T10:00:00.000Z',
  };
  const appliedCtx = { ...ctx, messageId: messageIdFor(applied.applicationId, 'c1') };
  const send = (endpoint: Parameters<typeof requestFor>[0], a: AppliedMessage = applied) =>
    requestFor(endpoint, 'c1', { kind: 'applied', applied: a }, appliedCtx);

  test('webhook: a signed price.recommendation.applied with the product, both prices, how, the evidence and a stable id', () => {
    const secret = newWebhookSecret();
    const req = send({ type: 'webhook', url: 'https://h.example.com/in', secret });
    expect(req.headers['webhook-id']).toBe(appliedCtx.messageId);
    const realNow = Date.now;
    Date.now = () => ctx.now.getTime();
    try {
      expect(new Webhook(secret).verify(req.body, req.headers)).toEqual({
        type: 'price.recommendation.applied',
        timestamp: '2026-11-24T10:00:05.000Z',
        data: {
          ownProductId: 'o1',
          title: 'Kettle',
          variant: null,
          sku: 'K-1',
          url: 'https://myshop.example.com/kettle',
          price: 102.99,
          previousPrice: 110,
          currency: 'GBP',
          via: 'hand',
          evidence: [12, 40],
          at: '2026-11-24T10:00:00.000Z',
          applicationId: applied.applicationId,
        },
      });
      expect(() => new Webhook(newWebhookSecret()).verify(req.body, req.headers)).toThrow();
      expect(() => new Webhook(secret).verify(req.body.replace('102.99', '92.99'), req.headers)).toThrow();
    } finally {
      Date.now = realNow;
    }
    // The same application is always the same id, and never an alert's.
    expect(applicationIdFor(41)).toBe(applied.applicationId);
    expect(applicationIdFor(41)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(applicationIdFor(42)).not.toBe(applied.applicationId);
    expect(applicationIdFor(41)).not.toBe(alertIdFor(41));
    expect(subjectOf({ kind: 'applied', applied })).toEqual({ alertId: applied.applicationId, productName: 'Kettle' });
  });

  test('chat: one short line in the style of the alerts, saying how the price was applied', () => {
    const slack = JSON.parse(send({ type: 'slack', url: 'https://hooks.slack.com/services/T/B/x' }).body);
    expect(slack.text).toBe('Price applied: Kettle £110.00 → £102.99 (by hand)');
    expect(slack.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Kettle', emoji: false } });
    expect(slack.blocks[1].text.text).toBe('*Price applied:* £110.00 → £102.99 (by hand)');
    expect(slack.blocks[1].fields.map((f: { text: string }) => f.text)).toEqual(['*Was*\n£110.00', '*Now*\n£102.99']);
    expect(slack.blocks[2].elements.map((b: { url: string }) => b.url)).toEqual([applied.url, 'https://app.example.com/catalogue']);

    const automatic = { ...applied, via: 'automatic' as const, variant: 'Black <1.7L>', url: null };
    const discord = JSON.parse(send({ type: 'discord', url: 'https://discord.com/api/webhooks/1/x' }, automatic).body);
    expect(discord.allowed_mentions).toEqual({ parse: [] });
    expect(discord.embeds[0]).toMatchObject({
      title: 'Kettle (Black <1.7L>)',
      description: 'Price applied: Kettle (Black <1.7L>) £110.00 → £102.99 (automatically)',
      timestamp: applied.at,
    });
    expect(discord.embeds[0].url).toBeUndefined();
    expect(discord.embeds[0].fields).toEqual([
      { name: 'Was', value: '£110.00', inline: true },
      { name: 'Now', value: '£102.99', inline: true },
      { name: 'Applied', value: 'Automatically', inline: true },
    ]);
    const slackNoUrl = JSON.parse(send({ type: 'slack', url: 'https://hooks.slack.com/services/T/B/x' }, automatic).body);
    expect(slackNoUrl.blocks[2].elements).toHaveLength(1);
    expect(slackNoUrl.text).toBe('Price applied: Kettle (Black &lt;1.7L&gt;) £110.00 → £102.99 (automatically)');

    const telegram = JSON.parse(send({ type: 'telegram', botToken: '123:abc', chatId: '-100' }, { ...automatic, via: 'undo' }).body);
    expect(telegram.text.split('\n')).toEqual([
      '<b>Kettle (Black &lt;1.7L&gt;)</b>',
      'Price applied: £110.00 → £102.99 (undo)',
      '<a href="https://app.example.com/catalogue">Your catalogue</a>',
    ]);
  });

  test('outbox rows: tagged ones are what their tag says; rows from before the tag are alerts', () => {
    expect(messageOf(alert)).toEqual({ kind: 'alert', alert });
    expect(messageOf({ kind: 'alert', ...alert })).toEqual({ kind: 'alert', alert });
    expect(messageOf({ kind: 'applied', ...applied })).toEqual({ kind: 'applied', applied });
  });
});

describe('describing an endpoint', () => {
  test('names where it goes without what would let others post to it', () => {
    expect(describeEndpoint({ type: 'slack', url: 'https://hooks.slack.com/services/T000/B000/XXXXabcd' })).toBe('https://hooks.slack.com/…abcd');
    expect(describeEndpoint({ type: 'webhook', url: 'https://example.com/', secret: 'whsec_x' })).toBe('https://example.com');
    expect(describeEndpoint({ type: 'telegram', botToken: '123456:SECRETSECRET', chatId: '-1001' })).toBe('Chat -1001 (bot 123456)');
  });
});

describe('when to try again', () => {
  const opts = { retryBaseMs: 10_000, retryMaxMs: 3_600_000, giveUpMs: 24 * 3_600_000 };
  const now = new Date('2026-11-24T12:00:00Z');
  test("doubling with jitter, capped; the receiver's Retry-After when it gave one", () => {
    const at = (attempt: number, random = 0.5, retryAfterMs: number | null = null) =>
      nextAttemptAt({ attempt, enqueuedAt: now, retryAfterMs }, now, opts, () => random)!.getTime() - now.getTime();
    expect([at(1), at(2), at(3)]).toEqual([10_000, 20_000, 40_000]);
    expect(at(20)).toBe(3_600_000);
    expect(at(1, 0)).toBe(8_000);
    expect(at(1, 1)).toBe(12_000);
    expect(at(1, 0.5, 90_000)).toBe(90_000);
  });
  test('never past 24 hours after the message was queued', () => {
    const queued = new Date(now.getTime() - 23.9 * 3_600_000);
    expect(nextAttemptAt({ attempt: 3, enqueuedAt: queued, retryAfterMs: null }, now, opts, () => 0.5)).not.toBeNull();
    expect(nextAttemptAt({ attempt: 20, enqueuedAt: queued, retryAfterMs: null }, now, opts, () => 0.5)).toBeNull();
  });
});
