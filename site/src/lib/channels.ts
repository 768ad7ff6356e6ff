/** Pure rules of Settings > Alert channels: labels, the add form's checks, and how deliveries read. */
import { ApiError, type NewChannel } from './api';
import { ALERT_TYPES, alertLabel, type AlertType } from '../../../domain/alerts.ts';
import { formatTimeOrDay } from './format';

export const CHANNEL_TYPES = ['webhook', 'slack', 'discord', 'telegram'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];
export { ALERT_TYPES, type AlertType };

/** The most channels a user may have (the server refuses more). */
export const MAX_CHANNELS = 10;
/** A channel name's longest length, as the server accepts it. */
export const MAX_NAME_LENGTH = 100;

export function channelTypeLabel(type: string): string {
  switch (type) {
    case 'webhook':
      return 'Webhook';
    case 'slack':
      return 'Slack';
    case 'discord':
      return 'Discord';
    case 'telegram':
      return 'Telegram';
    default:
      return 'Channel';
  }
}

/** 'All alerts' when a channel gets every type, else their labels: 'Price Drop, Back in Stock'. */
export function alertTypesSummary(types: readonly string[]): string {
  if (types.length === 0) return 'No alerts';
  if (ALERT_TYPES.every((t) => types.includes(t))) return 'All alerts';
  return ALERT_TYPES.filter((t) => types.includes(t))
    .map(alertLabel)
    .join(', ');
}

/** What the add form holds; only the fields of the chosen type are sent. */
export type ChannelDraft = {
  type: ChannelType;
  url: string;
  botToken: string;
  chatId: string;
  name: string;
  alertTypes: AlertType[];
};

export const emptyDraft = (type: ChannelType = 'webhook'): ChannelDraft => ({
  type,
  url: '',
  botToken: '',
  chatId: '',
  name: '',
  alertTypes: [...ALERT_TYPES],
});

/** The fields the server names in a 400 answer. */
export type ChannelField = 'type' | 'url' | 'botToken' | 'chatId' | 'name' | 'alertTypes';
export type FieldErrors = Partial<Record<ChannelField, string>>;

/** The fields the chosen type asks for, in the form's order. */
export function fieldsOf(type: ChannelType): ChannelField[] {
  return type === 'telegram' ? ['botToken', 'chatId', 'name', 'alertTypes'] : ['url', 'name', 'alertTypes'];
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
}

const URL_EXAMPLES: Record<Exclude<ChannelType, 'telegram'>, string> = {
  webhook: 'https://example.com/pricewatch',
  slack: 'https://hooks.slack.com/services/…',
  discord: 'https://discord.com/api/webhooks/…',
};

// The server's patterns: a bot token as @BotFather gives it; a chat's number (groups and channels
// are negative) or a public channel's @username.
const BOT_TOKEN = /^\d{1,20}:[A-Za-z0-9_-]{30,100}$/;
const CHAT_ID = /^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/;

export function validateAlertTypes(types: readonly string[]): string | null {
  return types.length === 0 ? 'Choose at least one alert type.' : null;
}

/**
 * The add form's own checks, the same as the server's first ones (the server has the final word):
 * an http(s) address for webhooks, Slack and Discord; a bot token and chat id for Telegram.
 */
export function validateDraft(draft: ChannelDraft): FieldErrors {
  const errors: FieldErrors = {};
  if (draft.type === 'telegram') {
    const token = draft.botToken.trim();
    const chat = draft.chatId.trim();
    if (!token) errors.botToken = 'Enter the bot token from @BotFather.';
    else if (!BOT_TOKEN.test(token)) errors.botToken = 'A bot token looks like 123456789:AAF…, as @BotFather gives it.';
    if (!chat) errors.chatId = 'Enter the chat id.';
    else if (!CHAT_ID.test(chat)) errors.chatId = 'A chat id is a number like -1001234567890, or @channelname.';
  } else {
    const url = draft.url.trim();
    if (!url) errors.url = 'Enter the URL.';
    else if (!isHttpUrl(url)) errors.url = `Enter a full http(s) URL, like ${URL_EXAMPLES[draft.type]}.`;
  }
  if (draft.name.trim().length > MAX_NAME_LENGTH) errors.name = `Use at most ${MAX_NAME_LENGTH} characters.`;
  const alertTypes = validateAlertTypes(draft.alertTypes);
  if (alertTypes) errors.alertTypes = alertTypes;
  return errors;
}

/** The POST body: the chosen type's fields, trimmed; no name when none was given (the server picks one). */
export function channelBody(draft: ChannelDraft): NewChannel {
  const name = draft.name.trim();
  const fields = draft.type === 'telegram' ? { botToken: draft.botToken.trim(), chatId: draft.chatId.trim() } : { url: draft.url.trim() };
  return { type: draft.type, ...fields, ...(name ? { name } : {}), alertTypes: ALERT_TYPES.filter((t) => draft.alertTypes.includes(t)) };
}

/** The JSON body of an API error answer ({message, field}), if it has one. */
function errorBody(error: unknown): { message?: unknown; field?: unknown } | null {
  if (!(error instanceof ApiError)) return null;
  try {
    const parsed = JSON.parse(error.message.slice(error.message.indexOf(': ') + 2));
    return parsed && typeof parsed === 'object' ? parsed : null;
  } catch {
    return null;
  }
}

/** A 400 answer about one field of the form, as the form shows it: on that field. */
export function fieldErrorOf(error: unknown): { field: ChannelField; message: string } | null {
  const body = errorBody(error);
  if (!(error instanceof ApiError) || error.status !== 400 || !body) return null;
  const field = String(body.field ?? '').split('.')[0] as ChannelField;
  const known: ChannelField[] = ['type', 'url', 'botToken', 'chatId', 'name', 'alertTypes'];
  if (!known.includes(field)) return null;
  // The server starts its message with the field's name ('url: …'); on the field itself that is said already.
  const message = typeof body.message === 'string' ? body.message.replace(/^[\w.]+: /, '') : '';
  return { field, message: message || 'This value is not accepted.' };
}

type Outcome = { delivered: boolean; status: number | null; error: string | null };

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  410: 'Gone',
  413: 'Payload Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

/** What the receiver said besides its status: the server writes a refusal as 'HTTP 404: <start of its body>'. */
function receiverSaid(status: number, error: string | null): string {
  return (error ?? '').replace(new RegExp(`^HTTP ${status}:? ?`), '').trim();
}

/**
 * 'Test delivered (200)', 'Test failed: 404 Not Found', 'Test failed: 500 Internal Server Error: db down',
 * 'Test failed: connection refused': what really happened.
 */
export function testOutcome({ delivered, status, error }: Outcome): string {
  if (delivered) return status === null ? 'Test delivered' : `Test delivered (${status})`;
  if (status === null) return `Test failed: ${error ?? 'no answer'}`;
  const said = receiverSaid(status, error);
  return `Test failed: ${[`${status} ${REASONS[status] ?? ''}`.trim(), said].filter(Boolean).join(': ')}`;
}

/** 'Delivered · 200', 'Failed · 500 · will retry at 14:35', 'Failed · connection refused'. */
export function describeDelivery(d: Outcome & { retryAt?: string | null }, now: number | Date = Date.now()): string {
  const parts = [d.delivered ? 'Delivered' : 'Failed'];
  if (d.status !== null) parts.push(String(d.status));
  // With a status the code says what went wrong; without one, the error does.
  if (!d.delivered && d.status === null && d.error) parts.push(d.error);
  if (!d.delivered && d.retryAt) parts.push(`will retry at ${formatTimeOrDay(d.retryAt, now)}`);
  return parts.join(' · ');
}

/** 'Free' users cannot add channels: an active subscription's plan, else the account's, decides (as on the server). */
export function channelsIncluded(user: { plan?: string | null; subscriptionPlan?: string | null } | null | undefined): boolean {
  return (user?.subscriptionPlan || user?.plan || 'free') !== 'free';
}

export const FREE_PLAN_REASON = 'Alert channels (webhooks, Slack, Discord and Telegram) come with paid plans; your plan is Free.';
