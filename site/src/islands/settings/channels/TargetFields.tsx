import type { ReactNode } from 'react';
import { channelTypeLabel, type ChannelDraft, type ChannelType, type FieldErrors } from '../../../lib/channels';
import { Field } from '../../products/FormDialog';
import { Input } from '../../ui/Input';

const HELP: Record<ChannelType, ReactNode> = {
  webhook:
    'The https address of your receiver. Pricewatch POSTs each alert as JSON, signed the Standard Webhooks way; you get the signing secret once the channel is added.',
  slack:
    'In Slack, create an app with Incoming Webhooks, add a webhook to your workspace and pick a channel, then copy its URL (https://hooks.slack.com/services/…).',
  discord: 'In Discord, open the channel’s settings, then Integrations, Webhooks, New Webhook, and Copy Webhook URL (https://discord.com/api/webhooks/…).',
  telegram: null,
};

const PLACEHOLDER: Record<Exclude<ChannelType, 'telegram'>, string> = {
  webhook: 'https://example.com/pricewatch',
  slack: 'https://hooks.slack.com/services/…',
  discord: 'https://discord.com/api/webhooks/…',
};

type TargetFieldsProps = {
  draft: ChannelDraft;
  errors: FieldErrors;
  disabled: boolean;
  set: <K extends keyof ChannelDraft>(key: K, value: ChannelDraft[K]) => void;
};

/** Where a new channel delivers: a bot token and chat for Telegram, a URL for the others. */
export function TargetFields(props: TargetFieldsProps) {
  return props.draft.type === 'telegram' ? <TelegramFields {...props} /> : <UrlField {...props} />;
}

function TelegramFields({ draft, errors, disabled, set }: TargetFieldsProps) {
  return (
    <>
      <Field
        label="Bot token"
        error={errors.botToken}
        hint="Message @BotFather in Telegram, send /newbot and copy the token it gives you (like 123456:ABC-DEF…)."
      >
        {(control) => (
          <Input
            {...control}
            value={draft.botToken}
            onChange={(e) => set('botToken', e.target.value)}
            autoComplete="off"
            spellCheck={false}
            className="font-mono"
            disabled={disabled}
          />
        )}
      </Field>
      <Field
        label="Chat ID"
        error={errors.chatId}
        hint="The chat’s numeric id (like -1001234567890), or @channelname for a public channel. Add your bot to the chat first."
      >
        {(control) => (
          <Input
            {...control}
            value={draft.chatId}
            onChange={(e) => set('chatId', e.target.value)}
            autoComplete="off"
            spellCheck={false}
            className="font-mono"
            disabled={disabled}
          />
        )}
      </Field>
    </>
  );
}

/** A webhook's endpoint, or a Slack or Discord incoming-webhook URL. */
function UrlField({ draft, errors, disabled, set }: TargetFieldsProps) {
  const type = draft.type as Exclude<ChannelType, 'telegram'>;
  return (
    <Field label={type === 'webhook' ? 'Endpoint URL' : `${channelTypeLabel(type)} webhook URL`} error={errors.url} hint={HELP[type]}>
      {(control) => (
        <Input
          {...control}
          type="url"
          inputMode="url"
          value={draft.url}
          onChange={(e) => set('url', e.target.value)}
          placeholder={PLACEHOLDER[type]}
          autoComplete="off"
          spellCheck={false}
          disabled={disabled}
        />
      )}
    </Field>
  );
}
