import { z } from 'zod';
import { CHANNEL_TYPES } from '../../events/catalogue.ts';
import { ALERT_TYPES } from '../../domain/alerts.ts';
import type { AlertType } from '../../events/alert.ts';
import type { ChannelType } from '../../events/channel.ts';
import { uncheckableUrlReason } from '../fetching/address-guard.ts';
import { CHANNEL_TYPE_LABEL, newWebhookSecret, type Endpoint } from './messages.ts';

/**
 * What a user may send to create or change a channel, as zod schemas (parse them with
 * parseInput, api/http/validation.ts): every refusal is a 400 naming its field, the first one
 * wrong in the order below, and nothing is written before all of it is good.
 */

export type NewChannel = { type: ChannelType; name: string; alertTypes: AlertType[]; endpoint: Endpoint };
export type ChannelChanges = { name?: string; enabled?: boolean; alertTypes?: AlertType[] };
export type AddressRules = { production: boolean; allowPrivate: boolean };

const NOT_AN_OBJECT = 'Send the channel as a JSON object.';

const NAME_MISSING = 'Give the channel a name, or leave the field out.';
/** Left out (or null): the default name of a new channel, or the name kept. */
const name = z
  .string({ error: NAME_MISSING })
  .trim()
  .min(1, NAME_MISSING)
  .max(100, 'A name has at most 100 characters.')
  .nullish()
  .transform((value) => value ?? undefined);

const ALERT_TYPES_LIST = `Alert types are a list of ${ALERT_TYPES.join(', ')}.`;
const isAlertType = (value: unknown): value is AlertType => (ALERT_TYPES as readonly unknown[]).includes(value);
/** Left out (or null): every type for a new channel, or the types kept. */
const alertTypes = z
  .array(z.unknown(), { error: ALERT_TYPES_LIST })
  .refine((list) => list.every(isAlertType), ALERT_TYPES_LIST)
  .min(1, 'Choose at least one alert type, or switch the channel off.')
  .transform((list) => list as AlertType[])
  .nullish()
  .transform((value) => value ?? undefined);

const ADDRESS_MISSING = 'Enter the address to deliver to.';
/** An address Pricewatch may post to: the same guard as price checks, and https in production. */
const address = (rules: AddressRules) =>
  z
    .string({ error: ADDRESS_MISSING })
    .trim()
    .min(1, ADDRESS_MISSING)
    .max(2000, 'That address is too long (at most 2,000 characters).')
    .transform((url, ctx) => {
      const refused =
        uncheckableUrlReason(url, { allowPrivate: rules.allowPrivate }) ??
        (rules.production && new URL(url).protocol !== 'https:' ? 'Use an https:// address: alerts are only sent encrypted.' : null);
      if (!refused) return new URL(url).href;
      ctx.addIssue({ code: 'custom', message: refused });
      return z.NEVER;
    });

const BOT_TOKEN = /^\d{1,20}:[A-Za-z0-9_-]{30,100}$/;
const NOT_A_BOT_TOKEN = 'That is not a Telegram bot token; @BotFather gives one like 123456789:AAF… .';
const botToken = z.string({ error: NOT_A_BOT_TOKEN }).trim().regex(BOT_TOKEN, NOT_A_BOT_TOKEN);

// A chat's number (groups and channels are negative), or a public channel's @username.
const CHAT_ID = /^(-?\d{1,20}|@[A-Za-z][A-Za-z0-9_]{3,31})$/;
const NOT_A_CHAT_ID = 'A chat id is a number such as -1001234567890, or a public channel such as @myshopalerts.';
const chatId = z
  .union([z.string(), z.number()], { error: NOT_A_CHAT_ID })
  .transform((value) => String(value).trim())
  .pipe(z.string().regex(CHAT_ID, NOT_A_CHAT_ID));

const NOT_A_TYPE = `The channel type is one of ${CHANNEL_TYPES.join(', ')}.`;
/** Every type but Telegram delivers to an address. */
const ADDRESS_TYPES = CHANNEL_TYPES.filter((type): type is Exclude<ChannelType, 'telegram'> => type !== 'telegram');

/**
 * A new channel: its type, then name and alert types, then where it delivers (an address, or
 * a Telegram bot and chat). A webhook gets a new signing secret.
 */
export function newChannelInput(rules: AddressRules) {
  return z
    .discriminatedUnion(
      'type',
      [
        z.object({ type: z.enum(ADDRESS_TYPES), name, alertTypes, url: address(rules) }),
        z.object({ type: z.literal('telegram'), name, alertTypes, botToken, chatId }),
      ],
      { error: (issue) => (issue.code === 'invalid_union' ? NOT_A_TYPE : NOT_AN_OBJECT) },
    )
    .transform((channel): NewChannel => {
      const endpoint: Endpoint =
        channel.type === 'telegram'
          ? { type: channel.type, botToken: channel.botToken, chatId: channel.chatId }
          : channel.type === 'webhook'
            ? { type: channel.type, url: channel.url, secret: newWebhookSecret() }
            : { type: channel.type, url: channel.url };
      return { type: channel.type, endpoint, name: channel.name ?? defaultName(endpoint), alertTypes: channel.alertTypes ?? [...ALERT_TYPES] };
    });
}

/** "Slack", "Webhook to hooks.example.com": enough to tell two channels apart until the user names them. */
function defaultName(endpoint: Endpoint): string {
  if (endpoint.type === 'webhook') return `Webhook to ${new URL(endpoint.url).hostname}`;
  return CHANNEL_TYPE_LABEL[endpoint.type];
}

/** Changes to a channel: only what is sent (and not null) changes. */
export const ChannelChangesInput = z
  .object(
    {
      enabled: z.boolean({ error: 'enabled is true or false.' }).optional(),
      name,
      alertTypes,
    },
    { error: NOT_AN_OBJECT },
  )
  .transform((changes): ChannelChanges => Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)));
