import { createHash, createHmac, randomBytes } from 'node:crypto';
import type { APPLIED_VIA, EventData } from '../../events/catalogue.ts';
import { formatMoney } from '../../domain/money.ts';
import { alertColour, alertLabel, alertSubjectName } from '../../domain/alerts.ts';
import type { ChannelType } from '../../events/channel.ts';

/**
 * What goes out to each kind of channel, as pure functions: the request for a message (an alert,
 * an applied price recommendation, or a test), Standard Webhooks signing, and how an endpoint is
 * described without its secrets.
 */

/** Where a channel delivers; kept outside the log, since each holds a secret (docs/decisions/0004-alert-channels.md). */
export type Endpoint =
  | { type: 'webhook'; url: string; secret: string }
  | { type: 'slack'; url: string }
  | { type: 'discord'; url: string }
  | { type: 'telegram'; botToken: string; chatId: string };

export type AlertMessage = EventData<'AlertRaised'>;

/**
 * A recommended price an owner applied (RecommendationApplied) with the own product's title,
 * variant, SKU and address as they were when it was queued, and `applicationId`, the stable id of
 * this application that receivers deduplicate on.
 */
export type AppliedMessage = {
  applicationId: string;
  ownProductId: string;
  userId: string;
  title: string;
  variant: string | null;
  sku: string | null;
  url: string | null;
  price: number;
  previousPrice: number;
  currency: string;
  via: (typeof APPLIED_VIA)[number];
  /** The log positions the recommendation rests on. */
  evidence: number[];
  at: string;
};

export type ChannelMessage = { kind: 'alert'; alert: AlertMessage } | { kind: 'applied'; applied: AppliedMessage } | { kind: 'test'; channelName: string };

export type OutgoingRequest = { url: string; headers: Record<string, string>; body: string };

export type MessageContext = {
  /** Stable across retries of one message: receivers deduplicate on it. */
  messageId: string;
  /** When this attempt is made. */
  now: Date;
  publicUrl: string;
  telegramApiUrl: string;
};

// ---------------------------------------------------------------------------------------------
// Standard Webhooks (https://www.standardwebhooks.com): `whsec_` + base64 key; the signature is
// `v1,` + base64 HMAC-SHA256 of "id.timestamp.body" under the decoded key.

export const newWebhookSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

export function signWebhook(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/**
 * The id of one application of a recommended price (the RecommendationApplied at this log
 * position): the same whenever it is looked at, shaped as a UUID like alert ids, and never one of
 * theirs (they hash `alert:<position>`).
 */
export function applicationIdFor(position: number): string {
  const h = createHash('sha256').update(`recommendation-applied:${position}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** What the delivery log records a message as: its alert (or application) id, null for a test, and the product's name. */
export function subjectOf(message: ChannelMessage): { alertId: string | null; productName: string | null } {
  switch (message.kind) {
    case 'alert':
      return { alertId: message.alert.alertId, productName: message.alert.productName };
    case 'applied':
      return { alertId: message.applied.applicationId, productName: message.applied.title };
    case 'test':
      return { alertId: null, productName: null };
  }
}

/** The id of a message: one per alert (or application) and channel, or per test, the same on every attempt. */
export const messageIdFor = (alertId: string, channelId: string) => `msg_${alertId.replace(/-/g, '')}_${channelId.replace(/-/g, '').slice(0, 12)}`;

// ---------------------------------------------------------------------------------------------
// Describing an endpoint without what would let someone else post to it

const tail = (text: string) => text.slice(-4);

export function describeEndpoint(endpoint: Endpoint): string {
  if (endpoint.type === 'telegram') return `Chat ${endpoint.chatId} (bot ${endpoint.botToken.split(':')[0]})`;
  const url = new URL(endpoint.url);
  const rest = url.pathname + url.search;
  return rest.length > 1 ? `${url.origin}/…${tail(rest)}` : url.origin;
}

// ---------------------------------------------------------------------------------------------
// Requests

const price = (value: number | null, currency: string | null) => (value === null ? '—' : formatMoney(value, currency));
/** The two prices a message shows: before and now, or for undercut and cheapest the owner's and the competitor's. */
const pricesOf = (a: AlertMessage): [label: string, value: string][] =>
  a.standing
    ? [
        ['Yours', price(a.standing.ownPrice, a.currency)],
        [a.standing.competitorName, price(a.standing.competitorPrice, a.currency)],
      ]
    : [
        ['Was', price(a.previousPrice, a.currency)],
        ['Now', price(a.currentPrice, a.currency)],
      ];
const historyUrl = (publicUrl: string) => `${publicUrl}/price-history`;
const catalogueUrl = (publicUrl: string) => `${publicUrl}/catalogue`;

/** How a price came to be applied, as the end of its message says it. */
const APPLIED_BY: Record<AppliedMessage['via'], string> = { hand: 'by hand', automatic: 'automatically', undo: 'undo' };
/** The own product as the catalogue names it: "Trail Jacket (XL / Red)". */
const appliedName = (a: AppliedMessage) => (a.variant ? `${a.title} (${a.variant})` : a.title);
/** "£110.00 → £102.99 (by hand)" */
const appliedChange = (a: AppliedMessage) => `${formatMoney(a.previousPrice, a.currency)} → ${formatMoney(a.price, a.currency)} (${APPLIED_BY[a.via]})`;
/** "Price applied: Kettle £110.00 → £102.99 (by hand)": a chat message's one line, and its fallback text. */
export const appliedText = (a: AppliedMessage) => `Price applied: ${appliedName(a)} ${appliedChange(a)}`;
const appliedPrices = (a: AppliedMessage): [label: string, value: string][] => [
  ['Was', formatMoney(a.previousPrice, a.currency)],
  ['Now', formatMoney(a.price, a.currency)],
];
const TEST_TEXT = 'Test message from Pricewatch: this channel works, and price alerts will arrive here.';

export function webhookBody(message: ChannelMessage, now: Date, channelId: string): string {
  const timestamp = now.toISOString();
  if (message.kind === 'test') {
    return JSON.stringify({ type: 'channel.test', timestamp, data: { channelId, channelName: message.channelName, message: TEST_TEXT } });
  }
  if (message.kind === 'applied') {
    const a = message.applied;
    return JSON.stringify({
      type: 'price.recommendation.applied',
      timestamp,
      data: {
        ownProductId: a.ownProductId,
        title: a.title,
        variant: a.variant,
        sku: a.sku,
        url: a.url,
        price: a.price,
        previousPrice: a.previousPrice,
        currency: a.currency,
        via: a.via,
        evidence: a.evidence,
        at: a.at,
        applicationId: a.applicationId,
      },
    });
  }
  const a = message.alert;
  return JSON.stringify({
    type: 'price.alert',
    timestamp,
    data: {
      alertId: a.alertId,
      alertType: a.type,
      productId: a.productId,
      productName: a.productName,
      productUrl: a.productUrl,
      previousPrice: a.previousPrice,
      currentPrice: a.currentPrice,
      currency: a.currency,
      changePercent: a.changePercent,
      thresholdPercent: a.thresholdPercent,
      message: a.message,
      at: a.trigger.at,
      // Undercut and cheapest: the owner's product and the competitor it was measured against.
      ...(a.standing ? { standing: a.standing } : {}),
    },
  });
}

/** Slack's mrkdwn treats these three as control characters. */
const slackEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function slackBody(message: ChannelMessage, publicUrl: string): string {
  if (message.kind === 'test') {
    return JSON.stringify({ text: TEST_TEXT, blocks: [{ type: 'section', text: { type: 'mrkdwn', text: slackEscape(TEST_TEXT) } }] });
  }
  if (message.kind === 'applied') {
    const a = message.applied;
    return JSON.stringify({
      // Escaped here too: a title's `<!channel>` must not ping anyone.
      text: slackEscape(appliedText(a)),
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: appliedName(a).slice(0, 150), emoji: false } },
        {
          type: 'section',
          text: { type: 'mrkdwn', text: `*Price applied:* ${slackEscape(appliedChange(a))}` },
          fields: appliedPrices(a).map(([label, value]) => ({ type: 'mrkdwn', text: `*${label}*\n${slackEscape(value)}` })),
        },
        {
          type: 'actions',
          elements: [
            ...(a.url ? [{ type: 'button', text: { type: 'plain_text', text: 'View product page' }, url: a.url }] : []),
            { type: 'button', text: { type: 'plain_text', text: 'Your catalogue' }, url: catalogueUrl(publicUrl) },
          ],
        },
      ],
    });
  }
  const a = message.alert;
  return JSON.stringify({
    // Shown in notifications and where blocks cannot be.
    text: `${alertSubjectName(a)}: ${a.message}`,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: alertSubjectName(a).slice(0, 150), emoji: false } },
      {
        type: 'section',
        text: { type: 'mrkdwn', text: `*${slackEscape(alertLabel(a.type))}:* ${slackEscape(a.message)}` },
        fields: pricesOf(a).map(([label, value]) => ({ type: 'mrkdwn', text: `*${slackEscape(label)}*\n${slackEscape(value)}` })),
      },
      {
        type: 'actions',
        elements: [
          { type: 'button', text: { type: 'plain_text', text: 'View product page' }, url: a.productUrl },
          { type: 'button', text: { type: 'plain_text', text: 'Price history' }, url: historyUrl(publicUrl) },
        ],
      },
    ],
  });
}

export function discordBody(message: ChannelMessage, publicUrl: string): string {
  // No product name may ping @everyone or a role.
  const allowed_mentions = { parse: [] };
  if (message.kind === 'test') {
    return JSON.stringify({ allowed_mentions, embeds: [{ title: 'Pricewatch', description: TEST_TEXT, color: 0x2563eb }] });
  }
  if (message.kind === 'applied') {
    const a = message.applied;
    return JSON.stringify({
      allowed_mentions,
      embeds: [
        {
          title: appliedName(a).slice(0, 256),
          ...(a.url ? { url: a.url } : {}),
          description: appliedText(a).slice(0, 4096),
          color: 0x2563eb,
          fields: [
            ...appliedPrices(a).map(([name, value]) => ({ name, value, inline: true })),
            { name: 'Applied', value: APPLIED_BY[a.via].replace(/^./, (c) => c.toUpperCase()), inline: true },
          ],
          footer: { text: 'Pricewatch' },
          timestamp: a.at,
        },
      ],
      content: `[Your catalogue](${catalogueUrl(publicUrl)})`,
    });
  }
  const a = message.alert;
  return JSON.stringify({
    allowed_mentions,
    embeds: [
      {
        title: alertSubjectName(a).slice(0, 256),
        url: a.productUrl,
        description: a.message.slice(0, 4096),
        color: Number.parseInt(alertColour(a.type).slice(1), 16),
        fields: [
          ...pricesOf(a).map(([name, value]) => ({ name: name.slice(0, 256), value, inline: true })),
          { name: 'Alert', value: alertLabel(a.type), inline: true },
        ],
        footer: { text: 'Pricewatch' },
        timestamp: a.trigger.at,
      },
    ],
    content: `[Price history](${historyUrl(publicUrl)})`,
  });
}

const htmlEscape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function telegramText(message: ChannelMessage, publicUrl: string): string {
  if (message.kind === 'test') return htmlEscape(TEST_TEXT);
  if (message.kind === 'applied') {
    const a = message.applied;
    const catalogue = `<a href="${htmlEscape(catalogueUrl(publicUrl))}">Your catalogue</a>`;
    return [
      `<b>${htmlEscape(appliedName(a))}</b>`,
      `Price applied: ${htmlEscape(appliedChange(a))}`,
      a.url ? `<a href="${htmlEscape(a.url)}">Product page</a> · ${catalogue}` : catalogue,
    ].join('\n');
  }
  const a = message.alert;
  return [
    `<b>${htmlEscape(alertSubjectName(a))}</b>`,
    `${htmlEscape(alertLabel(a.type))}: ${htmlEscape(a.message)}`,
    a.standing
      ? pricesOf(a)
          .map(([label, value]) => htmlEscape(`${label} ${value}`))
          .join(' · ')
      : `Was ${htmlEscape(price(a.previousPrice, a.currency))} · now ${htmlEscape(price(a.currentPrice, a.currency))}`,
    `<a href="${htmlEscape(a.productUrl)}">Product page</a> · <a href="${htmlEscape(historyUrl(publicUrl))}">Price history</a>`,
  ].join('\n');
}

export function telegramBody(message: ChannelMessage, chatId: string, publicUrl: string): string {
  const text = telegramText(message, publicUrl);
  return JSON.stringify({ chat_id: chatId, text, parse_mode: 'HTML', link_preview_options: { is_disabled: true } });
}

/** The HTTP request that delivers `message` to `endpoint` (always a JSON POST). */
export function requestFor(endpoint: Endpoint, channelId: string, message: ChannelMessage, ctx: MessageContext): OutgoingRequest {
  const json = { 'content-type': 'application/json' };
  switch (endpoint.type) {
    case 'webhook': {
      const body = webhookBody(message, ctx.now, channelId);
      const timestamp = Math.floor(ctx.now.getTime() / 1000);
      return {
        url: endpoint.url,
        body,
        headers: {
          ...json,
          'webhook-id': ctx.messageId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': signWebhook(endpoint.secret, ctx.messageId, timestamp, body),
        },
      };
    }
    case 'slack':
      return { url: endpoint.url, headers: json, body: slackBody(message, ctx.publicUrl) };
    case 'discord':
      return { url: endpoint.url, headers: json, body: discordBody(message, ctx.publicUrl) };
    case 'telegram':
      return { url: `${ctx.telegramApiUrl}/bot${endpoint.botToken}/sendMessage`, headers: json, body: telegramBody(message, endpoint.chatId, ctx.publicUrl) };
  }
}

export const CHANNEL_TYPE_LABEL: Record<ChannelType, string> = { webhook: 'Webhook', slack: 'Slack', discord: 'Discord', telegram: 'Telegram' };
