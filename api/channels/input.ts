import { CHANNEL_TYPES } from '../../events/catalogue.ts';
import { ALERT_TYPES } from '../../domain/alerts.ts';
import { DomainError } from '../../events/decider.ts';
import type { AlertType } from '../../events/alert.ts';
import type { ChannelType } from '../../events/channel.ts';
import { uncheckableUrlReason } from '../fetching/fetcher.ts';
import { CHANNEL_TYPE_LABEL, newWebhookSecret, type Endpoint } from './messages.ts';

/**
 * What a user may send to create or change a channel, read from JSON that may be anything:
 * every refusal is a 400 naming its field, and nothing is written before all of it is good.
 */

export type NewChannel = { type: ChannelType; name: string; alertTypes: AlertType[]; endpoint: Endpoint };
export type ChannelChanges = { name?: string; enabled?: boolean; alertTypes?: AlertType[] };
export type AddressRules = { production: boolean; allowPrivate: boolean };

const bad = (field: string, message: string) => new DomainError(`${field}: ${message}`, 400, field);

function objectOf(body: unknown): Record<string, unknown> {
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new DomainError('Send the channel as a JSON object.', 400);
  return body as Record<string, unknown>;
}

function nameOf(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || !value.trim()) throw bad('name', 'Give the channel a name, or leave the field out.');
  if (value.trim().length > 100) throw bad('name', 'A name has at most 100 characters.');
  return value.trim();
}

function alertTypesOf(value: unknown): AlertType[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || !value.every((t) => typeof t === 'string' && (ALERT_TYPES as readonly string[]).includes(t))) {
    throw bad('alertTypes', `Alert types are a list of ${ALERT_TYPES.join(', ')}.`);
  }
  if (!value.length) throw bad('alertTypes', 'Choose at least one alert type, or switch the channel off.');
  return value as AlertType[];
}

/** An address Pricewatch may post to: the same guard as price checks, and https in production. */
function urlOf(value: unknown, rules: AddressRules): string {
  if (typeof value !== 'string' || !value.trim()) throw bad('url', 'Enter the address to deliver to.');
  const url = value.trim();
  if (url.length > 2000) throw bad('url', 'That address is too long (at most 2,000 characters).');
  const refused = uncheckableUrlReason(url, { allowPrivate: rules.allowPrivate });
  if (refused) throw bad('url', refused);
  if (rules.production && new URL(url).protocol !== 'https:') throw bad('url', 'Use an https:// address: alerts are only sent encrypted.');
  return new URL(url).href;
}

const BOT_TOKEN = /^\d{1,20}:[A-Za-z0-9_-]{30,100}$/;
// A chat's number (groups and channels are negative), or a public channel's @username.
const CHAT_ID = /^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/;

function endpointOf(type: ChannelType, body: Record<string, unknown>, rules: AddressRules): Endpoint {
  if (type !== 'telegram') {
    const url = urlOf(body.url, rules);
    return type === 'webhook' ? { type, url, secret: newWebhookSecret() } : { type, url };
  }
  const botToken = typeof body.botToken === 'string' ? body.botToken.trim() : '';
  if (!BOT_TOKEN.test(botToken)) throw bad('botToken', 'That is not a Telegram bot token; @BotFather gives one like 123456789:AAF… .');
  const chatId = typeof body.chatId === 'string' || typeof body.chatId === 'number' ? String(body.chatId).trim() : '';
  if (!CHAT_ID.test(chatId)) throw bad('chatId', 'A chat id is a number such as -1001234567890, or a public channel such as @myshopalerts.');
  return { type, botToken, chatId };
}

export function parseNewChannel(body: unknown, rules: AddressRules): NewChannel {
  const b = objectOf(body);
  if (typeof b.type !== 'string' || !(CHANNEL_TYPES as readonly string[]).includes(b.type)) {
    throw bad('type', `The channel type is one of ${CHANNEL_TYPES.join(', ')}.`);
  }
  const type = b.type as ChannelType;
  const name = nameOf(b.name), alertTypes = alertTypesOf(b.alertTypes);
  const endpoint = endpointOf(type, b, rules);
  return { type, endpoint, name: name ?? defaultName(endpoint), alertTypes: alertTypes ?? [...ALERT_TYPES] };
}

/** "Slack", "Webhook to hooks.example.com": enough to tell two channels apart until the user names them. */
function defaultName(endpoint: Endpoint): string {
  if (endpoint.type === 'webhook') return `Webhook to ${new URL(endpoint.url).hostname}`;
  return CHANNEL_TYPE_LABEL[endpoint.type];
}

export function parseChannelChanges(body: unknown): ChannelChanges {
  const b = objectOf(body);
  if (b.enabled !== undefined && typeof b.enabled !== 'boolean') throw bad('enabled', 'enabled is true or false.');
  const changes: ChannelChanges = { name: nameOf(b.name), alertTypes: alertTypesOf(b.alertTypes), enabled: b.enabled as boolean | undefined };
  return Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
}
