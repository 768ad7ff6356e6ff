import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { useStore } from '@nanostores/react';
import {
  BellRing, ChevronDown, CircleCheck, CircleX, Copy, Hash, MessagesSquare, Pencil, Plus, RefreshCw, Send, Trash2, TriangleAlert, Webhook,
} from 'lucide-react';
import { api, isUnauthorizedError, type Channel, type Delivery, type TestDelivery } from '../../lib/api';
import { errorMessage } from '../../lib/billing';
import {
  ALERT_TYPES, alertTypeLabel, alertTypesSummary, channelBody, channelsIncluded, channelTypeLabel, CHANNEL_TYPES, describeDelivery, emptyDraft,
  fieldErrorOf, FREE_PLAN_REASON, MAX_CHANNELS, MAX_NAME_LENGTH, testOutcome, validateAlertTypes, validateDraft, type AlertType, type ChannelDraft,
  type ChannelType, type FieldErrors,
} from '../../lib/channels';
import { formatDateTime, formatTimeOrDay } from '../../lib/format';
import { cn } from '../../lib/utils';
import { $user } from '../../stores/auth';
import { toast } from '../../stores/toast';
import { Field, focusFirstInvalid, FormDialog } from '../products/FormDialog';
import { Button } from '../ui/Button';
import { Badge } from '../ui/Badge';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../ui/Card';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { Dialog, DialogContent, DialogDescription, DialogFooter, DialogHeader, DialogTitle } from '../ui/Dialog';
import { Input } from '../ui/Input';
import { Label } from '../ui/Label';
import { Skeleton } from '../ui/Skeleton';
import { Spinner } from '../ui/Spinner';
import { Switch } from '../ui/Switch';

const TYPE_ICONS: Record<ChannelType, typeof Webhook> = { webhook: Webhook, slack: Hash, discord: MessagesSquare, telegram: Send };

const linkClass = 'font-medium text-foreground underline underline-offset-4';

/** A signing secret on screen: the only time it is shown. */
type ShownSecret = { channelName: string; secret: string; rotated: boolean };

/**
 * Settings > Alert channels (deep link /settings#notifications): where alerts go beyond e-mail and
 * the app. Every change is saved at once. Free users see why they cannot add channels and may
 * still remove the ones they kept from a paid period.
 */
export function ChannelsSection() {
  const user = useStore($user);
  const included = channelsIncluded(user);
  const [channels, setChannels] = useState<Channel[] | null>(null);
  const [failed, setFailed] = useState(false);
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<ShownSecret | null>(null);
  const titleRef = useRef<HTMLHeadingElement>(null);
  const scrolled = useRef(false);

  function load() {
    setFailed(false);
    return api.channels.list().then(
      (list) => setChannels(list),
      (error) => {
        setFailed(true);
        if (!isUnauthorizedError(error)) toast({ title: 'Failed to load your alert channels', variant: 'destructive' });
      },
    );
  }

  useEffect(() => {
    load();
  }, []);

  // The page is drawn after it loads, so the browser's own jump to #notifications found nothing.
  useEffect(() => {
    if ((channels || failed) && !scrolled.current && location.hash === '#notifications') {
      scrolled.current = true;
      document.getElementById('notifications')?.scrollIntoView();
    }
  }, [channels, failed]);

  const replace = (next: Channel) => setChannels((list) => list?.map((c) => (c.id === next.id ? next : c)) ?? null);
  const focusTitle = (event: Event) => {
    event.preventDefault();
    titleRef.current?.focus();
  };

  const atLimit = (channels?.length ?? 0) >= MAX_CHANNELS;
  const addButton = included && channels && (
    <Button onClick={() => setAdding(true)} disabled={atLimit}>
      <Plus aria-hidden="true" />
      Add channel
    </Button>
  );

  return (
    <Card id="notifications" className="scroll-mt-20">
      <CardHeader>
        <CardTitle ref={titleRef} tabIndex={-1} className="outline-none">
          Alert channels
        </CardTitle>
        <CardDescription>
          Send alerts to your own systems and chat apps as they are raised, besides e-mail and the app. Changes here are saved at once.
        </CardDescription>
      </CardHeader>
      <CardContent className="space-y-4">
        {!included && (
          <p className="text-sm text-muted-foreground">
            {FREE_PLAN_REASON}{' '}
            <a href="/billing" className={linkClass}>
              See plans
            </a>
          </p>
        )}
        {failed ? (
          <div className="space-y-3">
            <p className="text-sm text-muted-foreground">Your alert channels could not be loaded.</p>
            <Button variant="outline" onClick={load}>
              Try again
            </Button>
          </div>
        ) : !channels ? (
          <div className="space-y-3" aria-busy="true">
            <Skeleton className="h-24 w-full" />
            <span className="sr-only" role="status">
              Loading alert channels
            </span>
          </div>
        ) : channels.length === 0 ? (
          <div className="rounded-lg border border-dashed p-6 text-center">
            <BellRing aria-hidden="true" className="mx-auto size-8 text-muted-foreground" />
            <h3 className="mt-3 font-medium">No channels yet</h3>
            <p className="mx-auto mt-1 max-w-md text-sm text-muted-foreground">
              A channel delivers your price and stock alerts the moment they are raised: to a signed webhook of your own, a Slack or
              Discord channel, or a Telegram chat.
            </p>
            {addButton && <div className="mt-4">{addButton}</div>}
          </div>
        ) : (
          <>
            <ul className="space-y-3" aria-label="Your alert channels">
              {channels.map((channel) => (
                <ChannelItem
                  key={channel.id}
                  channel={channel}
                  onChanged={replace}
                  onRemoved={(id) => setChannels((list) => list?.filter((c) => c.id !== id) ?? null)}
                  onSecret={(value) => setSecret({ channelName: channel.name, secret: value, rotated: true })}
                  onDelivered={load}
                  onCloseAutoFocus={focusTitle}
                />
              ))}
            </ul>
            {addButton && (
              <div className="flex flex-wrap items-center gap-3">
                {addButton}
                {atLimit && (
                  <p className="text-sm text-muted-foreground">
                    You have {MAX_CHANNELS} channels, the most a plan allows. Remove one to add another.
                  </p>
                )}
              </div>
            )}
          </>
        )}
      </CardContent>
      {adding && (
        <AddChannelDialog
          onClose={() => setAdding(false)}
          onAdded={(channel) => {
            setAdding(false);
            setChannels((list) => [...(list ?? []), channel]);
            if (channel.secret) setSecret({ channelName: channel.name, secret: channel.secret, rotated: false });
            toast({ title: 'Channel added', description: `Alerts now go to ${channel.name}.` });
          }}
        />
      )}
      {secret && <SecretDialog shown={secret} onClose={() => setSecret(null)} />}
    </Card>
  );
}

type ChannelItemProps = {
  channel: Channel;
  onChanged: (channel: Channel) => void;
  onRemoved: (id: string) => void;
  onSecret: (secret: string) => void;
  /** A test was sent: the list's last deliveries are read again. */
  onDelivered: () => void;
  onCloseAutoFocus: (event: Event) => void;
};

type Confirming = 'remove' | 'rotate' | null;

function ChannelItem({ channel, onChanged, onRemoved, onSecret, onDelivered, onCloseAutoFocus }: ChannelItemProps) {
  const id = useId();
  const [switching, setSwitching] = useState(false);
  const [testing, setTesting] = useState(false);
  const [tested, setTested] = useState<TestDelivery | null>(null);
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState<Confirming>(null);
  const [showDeliveries, setShowDeliveries] = useState(false);
  const [deliveriesVersion, setDeliveriesVersion] = useState(0);
  const Icon = TYPE_ICONS[channel.type] ?? Webhook;
  const nameId = `${id}-name`;
  const deliveriesId = `${id}-deliveries`;

  async function setEnabled(enabled: boolean) {
    setSwitching(true);
    try {
      onChanged(await api.channels.change(channel.id, { enabled }));
    } catch (error) {
      if (!isUnauthorizedError(error)) toast({ title: 'Channel not changed', description: errorMessage(error), variant: 'destructive' });
    } finally {
      setSwitching(false);
    }
  }

  async function sendTest() {
    setTesting(true);
    setTested(null);
    try {
      setTested(await api.channels.test(channel.id));
      setDeliveriesVersion((v) => v + 1);
      onDelivered();
    } catch (error) {
      if (!isUnauthorizedError(error)) toast({ title: 'Test not sent', description: errorMessage(error), variant: 'destructive' });
    } finally {
      setTesting(false);
    }
  }

  async function remove() {
    try {
      await api.channels.remove(channel.id);
      setConfirming(null);
      onRemoved(channel.id);
      toast({ title: 'Channel removed', description: `Alerts no longer go to ${channel.name}.` });
    } catch (error) {
      if (!isUnauthorizedError(error)) toast({ title: 'Channel not removed', description: errorMessage(error), variant: 'destructive' });
    }
  }

  async function rotate() {
    try {
      const { secret } = await api.channels.rotateSecret(channel.id);
      setConfirming(null);
      onSecret(secret);
    } catch (error) {
      if (!isUnauthorizedError(error)) toast({ title: 'Secret not rotated', description: errorMessage(error), variant: 'destructive' });
    }
  }

  const last = channel.lastDelivery;

  return (
    <li>
      <article aria-labelledby={nameId} className="space-y-3 rounded-lg border p-3 sm:p-4">
        <div className="flex items-start gap-3">
          <span aria-hidden="true" className="hidden size-9 shrink-0 items-center justify-center rounded-md bg-muted text-muted-foreground sm:flex">
            <Icon className="size-4" />
          </span>
          <div className="min-w-0 flex-1">
            <div className="flex flex-wrap items-center gap-2">
              <h3 id={nameId} className="break-words font-medium">
                {channel.name}
              </h3>
              <Badge variant="secondary">{channelTypeLabel(channel.type)}</Badge>
              {!channel.enabled && <Badge variant={channel.disabledReason ? 'danger' : 'outline'}>Off</Badge>}
            </div>
            <p className="mt-1 break-all font-mono text-xs text-muted-foreground">{channel.target}</p>
          </div>
          <div className="flex shrink-0 items-center gap-2">
            <Label htmlFor={`${id}-enabled`} className="text-muted-foreground">
              Enabled
            </Label>
            <Switch id={`${id}-enabled`} checked={channel.enabled} onCheckedChange={setEnabled} disabled={switching} />
          </div>
        </div>

        {channel.disabledReason && (
          <div className="flex gap-2 rounded-md border border-destructive/40 bg-destructive/10 p-3 text-sm text-destructive">
            <TriangleAlert aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
            {/* The reason says what happened and what to do; switching the channel on clears it. */}
            <p>
              <strong className="font-semibold">Not delivering.</strong> {channel.disabledReason}
            </p>
          </div>
        )}

        <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-2">
          <div>
            <dt className="text-muted-foreground">Alerts</dt>
            <dd>{alertTypesSummary(channel.alertTypes)}</dd>
          </div>
          <div>
            <dt className="text-muted-foreground">Last delivery</dt>
            <dd>
              {last ? (
                <>
                  <span className={last.delivered ? undefined : 'text-destructive'}>{describeDelivery({ ...last, retryAt: null })}</span>
                  {' · '}
                  <time dateTime={last.at} title={formatDateTime(last.at)}>
                    {formatTimeOrDay(last.at)}
                  </time>
                </>
              ) : (
                'None yet'
              )}
            </dd>
          </div>
        </dl>

        <div className="flex flex-wrap items-center gap-2">
          <Button variant="outline" size="sm" onClick={sendTest} disabled={testing}>
            {testing ? <Spinner className="size-4 text-current" label="Sending test" /> : <BellRing aria-hidden="true" />}
            Send test
          </Button>
          <Button variant="outline" size="sm" onClick={() => setEditing(true)}>
            <Pencil aria-hidden="true" />
            Edit
          </Button>
          {channel.type === 'webhook' && (
            <Button variant="outline" size="sm" onClick={() => setConfirming('rotate')}>
              <RefreshCw aria-hidden="true" />
              Rotate secret
            </Button>
          )}
          <Button variant="outline" size="sm" className="text-destructive hover:text-destructive" onClick={() => setConfirming('remove')}>
            <Trash2 aria-hidden="true" />
            Remove
          </Button>
          <p role="status" className={cn('text-sm', tested && (tested.delivered ? 'text-success' : 'text-destructive'))}>
            {tested && (
              <span className="inline-flex items-start gap-1.5">
                {tested.delivered ? <CircleCheck aria-hidden="true" className="mt-0.5 size-4 shrink-0" /> : <CircleX aria-hidden="true" className="mt-0.5 size-4 shrink-0" />}
                {testOutcome(tested)}
              </span>
            )}
          </p>
        </div>


        <div>
          <Button
            variant="ghost"
            size="sm"
            className="-ml-2"
            aria-expanded={showDeliveries}
            aria-controls={deliveriesId}
            onClick={() => setShowDeliveries((v) => !v)}
          >
            <ChevronDown aria-hidden="true" className={cn('transition-transform', showDeliveries && 'rotate-180')} />
            Recent deliveries
          </Button>
          <div id={deliveriesId} hidden={!showDeliveries}>
            {showDeliveries && <DeliveriesTable channelId={channel.id} channelName={channel.name} version={deliveriesVersion} />}
          </div>
        </div>
      </article>

      {editing && (
        <EditChannelDialog
          channel={channel}
          onClose={() => setEditing(false)}
          onSaved={(next) => {
            setEditing(false);
            onChanged(next);
            toast({ title: 'Channel updated' });
          }}
        />
      )}
      {confirming === 'remove' && (
        <ConfirmDialog
          title={`Remove ${channel.name}?`}
          description="Alerts stop going to this channel at once, and its delivery history is no longer shown. This cannot be undone."
          cancelLabel="Cancel"
          confirmLabel="Remove"
          pendingLabel="Removing…"
          onConfirm={remove}
          onClose={() => setConfirming(null)}
          onCloseAutoFocus={onCloseAutoFocus}
        />
      )}
      {confirming === 'rotate' && (
        <ConfirmDialog
          title="Rotate the signing secret?"
          description="A new secret replaces the current one at once. Your receiver rejects the next requests until it has the new secret."
          cancelLabel="Cancel"
          confirmLabel="Rotate secret"
          pendingLabel="Rotating…"
          onConfirm={rotate}
          onClose={() => setConfirming(null)}
        />
      )}
    </li>
  );
}

/** The channel's latest deliveries, newest first; read again after each test (`version`). */
function DeliveriesTable({ channelId, channelName, version }: { channelId: string; channelName: string; version: number }) {
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    let current = true;
    setFailed(false);
    api.channels.deliveries(channelId).then(
      (list) => current && setDeliveries(list),
      () => current && setFailed(true),
    );
    return () => {
      current = false;
    };
  }, [channelId, version]);

  if (failed) return <p className="pt-2 text-sm text-muted-foreground">The deliveries could not be loaded.</p>;
  if (!deliveries) return <Skeleton className="mt-2 h-16 w-full" />;
  if (deliveries.length === 0) return <p className="pt-2 text-sm text-muted-foreground">Nothing delivered yet. Send a test to try the channel.</p>;

  return (
    <table className="mt-2 w-full text-left text-xs sm:text-sm">
      <caption className="sr-only">Recent deliveries to {channelName}</caption>
      <thead className="text-xs text-muted-foreground">
        <tr className="border-b">
          <th scope="col" className="py-2 pr-2 font-medium">Time</th>
          <th scope="col" className="py-2 pr-2 font-medium">Alert</th>
          <th scope="col" className="py-2 pr-2 font-medium">Outcome</th>
          <th scope="col" className="py-2 text-right font-medium">Attempt</th>
        </tr>
      </thead>
      <tbody>
        {deliveries.map((d) => (
          <tr key={d.id} className="border-b align-top last:border-0">
            <td className="py-2 pr-2">
              <time dateTime={d.at} title={formatDateTime(d.at)}>
                {formatTimeOrDay(d.at)}
              </time>
            </td>
            <td className="break-words py-2 pr-2">{d.test ? 'Test' : (d.productName ?? 'Alert')}</td>
            <td className={cn('py-2 pr-2', !d.delivered && 'text-destructive')} title={d.error ?? undefined}>
              {describeDelivery(d)}
            </td>
            <td className="py-2 text-right tabular-nums">{d.attempt}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const HELP: Record<ChannelType, ReactNode> = {
  webhook: 'The https address of your receiver. Pricewatch POSTs each alert as JSON, signed the Standard Webhooks way; you get the signing secret once the channel is added.',
  slack: 'In Slack, create an app with Incoming Webhooks, add a webhook to your workspace and pick a channel, then copy its URL (https://hooks.slack.com/services/…).',
  discord: 'In Discord, open the channel’s settings, then Integrations, Webhooks, New Webhook, and Copy Webhook URL (https://discord.com/api/webhooks/…).',
  telegram: null,
};

/**
 * A channel form's errors and pending state, and its submit: local checks first, then the
 * request; a 400 naming a field lands on that field, any other failure above the buttons.
 */
function useChannelForm() {
  const [errors, setErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function submit(form: HTMLFormElement, found: FieldErrors, send: () => Promise<void>) {
    setErrors(found);
    setFormError(null);
    if (Object.keys(found).length) return focusFirstInvalid(form);
    setPending(true);
    try {
      await send();
    } catch (error) {
      const onField = fieldErrorOf(error);
      if (onField) {
        setErrors({ [onField.field]: onField.message });
        focusFirstInvalid(form);
      } else if (!isUnauthorizedError(error)) {
        setFormError(errorMessage(error));
      }
    } finally {
      setPending(false);
    }
  }

  return { errors, setErrors, formError, pending, submit };
}

/** A refusal that belongs to no field, above the dialog's buttons. */
function FormError({ message }: { message: string | null }) {
  if (!message) return null;
  return <p role="alert" className="rounded-md border border-destructive/40 bg-destructive/10 p-3 text-sm text-destructive">{message}</p>;
}

/** Add a channel: its type, that type's fields, an optional name and the alerts it receives. */
function AddChannelDialog({ onClose, onAdded }: { onClose: () => void; onAdded: (channel: Channel & { secret?: string }) => void }) {
  const [draft, setDraft] = useState<ChannelDraft>(emptyDraft());
  const { errors, setErrors, formError, pending, submit: submitForm } = useChannelForm();

  const set = <K extends keyof ChannelDraft>(key: K, value: ChannelDraft[K]) => {
    setDraft((d) => ({ ...d, [key]: value }));
    setErrors((e) => ({ ...e, [key]: undefined }));
  };

  const submit = (form: HTMLFormElement) => submitForm(form, validateDraft(draft), async () => onAdded(await api.channels.add(channelBody(draft))));

  return (
    <FormDialog
      title="Add alert channel"
      description="Alerts are delivered to it as soon as they are raised."
      submitLabel="Add channel"
      pendingLabel="Adding…"
      pending={pending}
      onClose={onClose}
      onSubmit={submit}
    >
      <FormError message={formError} />
      <TypePicker value={draft.type} error={errors.type} disabled={pending} onChange={(type) => { setDraft((d) => ({ ...d, type })); setErrors({}); }} />
      {draft.type === 'telegram' ? (
        <>
          <Field label="Bot token" error={errors.botToken} hint="Message @BotFather in Telegram, send /newbot and copy the token it gives you (like 123456:ABC-DEF…).">
            {(control) => (
              <Input {...control} value={draft.botToken} onChange={(e) => set('botToken', e.target.value)} autoComplete="off" spellCheck={false} className="font-mono" disabled={pending} />
            )}
          </Field>
          <Field
            label="Chat ID"
            error={errors.chatId}
            hint="The chat’s numeric id (like -1001234567890), or @channelname for a public channel. Add your bot to the chat first."
          >
            {(control) => (
              <Input {...control} value={draft.chatId} onChange={(e) => set('chatId', e.target.value)} autoComplete="off" spellCheck={false} className="font-mono" disabled={pending} />
            )}
          </Field>
        </>
      ) : (
        <Field label={draft.type === 'webhook' ? 'Endpoint URL' : `${channelTypeLabel(draft.type)} webhook URL`} error={errors.url} hint={HELP[draft.type]}>
          {(control) => (
            <Input
              {...control}
              type="url"
              inputMode="url"
              value={draft.url}
              onChange={(e) => set('url', e.target.value)}
              placeholder={draft.type === 'webhook' ? 'https://example.com/pricewatch' : draft.type === 'slack' ? 'https://hooks.slack.com/services/…' : 'https://discord.com/api/webhooks/…'}
              autoComplete="off"
              spellCheck={false}
              disabled={pending}
            />
          )}
        </Field>
      )}
      <Field label="Name (optional)" error={errors.name} hint="How the channel is listed here. Left empty, Pricewatch names it after its type and address.">
        {(control) => <Input {...control} value={draft.name} onChange={(e) => set('name', e.target.value)} autoComplete="off" disabled={pending} />}
      </Field>
      <AlertTypesField value={draft.alertTypes} error={errors.alertTypes} disabled={pending} onChange={(types) => set('alertTypes', types)} />
    </FormDialog>
  );
}

function TypePicker({ value, error, disabled, onChange }: { value: ChannelType; error?: string; disabled: boolean; onChange: (type: ChannelType) => void }) {
  const id = useId();
  return (
    <fieldset className="grid gap-2" aria-describedby={error ? `${id}-error` : undefined}>
      <legend className="mb-2 text-sm font-medium">Channel type</legend>
      <div className="grid grid-cols-2 gap-2">
        {CHANNEL_TYPES.map((type) => {
          const Icon = TYPE_ICONS[type];
          return (
            <label
              key={type}
              className={cn(
                'flex cursor-pointer items-center gap-2 rounded-md border px-3 py-2 text-sm transition-colors hover:bg-accent',
                'has-checked:border-primary has-checked:bg-accent has-focus-visible:ring-2 has-focus-visible:ring-ring',
              )}
            >
              <input
                type="radio"
                name={`${id}-type`}
                value={type}
                checked={value === type}
                onChange={() => onChange(type)}
                disabled={disabled}
                aria-invalid={error ? true : undefined}
                className="size-4 shrink-0 accent-primary"
              />
              <Icon aria-hidden="true" className="size-4 shrink-0 text-muted-foreground" />
              {channelTypeLabel(type)}
            </label>
          );
        })}
      </div>
      {error && (
        <p id={`${id}-error`} className="text-sm font-medium text-destructive">
          {error}
        </p>
      )}
    </fieldset>
  );
}

type AlertTypesFieldProps = { value: readonly AlertType[]; error?: string; disabled: boolean; onChange: (types: AlertType[]) => void };

function AlertTypesField({ value, error, disabled, onChange }: AlertTypesFieldProps) {
  const id = useId();
  const toggle = (type: AlertType, on: boolean) => onChange(ALERT_TYPES.filter((t) => (t === type ? on : value.includes(t))));
  return (
    <fieldset className="grid gap-2" aria-describedby={error ? `${id}-error` : `${id}-hint`}>
      <legend className="mb-2 text-sm font-medium">Alerts to send</legend>
      <div className="grid gap-2 sm:grid-cols-2">
        {ALERT_TYPES.map((type) => (
          <label key={type} className="flex cursor-pointer items-center gap-2 text-sm">
            <input
              type="checkbox"
              checked={value.includes(type)}
              onChange={(e) => toggle(type, e.target.checked)}
              disabled={disabled}
              aria-invalid={error ? true : undefined}
              className="size-4 accent-primary"
            />
            {alertTypeLabel(type)}
          </label>
        ))}
      </div>
      {error ? (
        <p id={`${id}-error`} className="text-sm font-medium text-destructive">
          {error}
        </p>
      ) : (
        <p id={`${id}-hint`} className="text-xs text-muted-foreground">
          Price alerts follow each product’s threshold; stock alerts need stock alerts on for the product.
        </p>
      )}
    </fieldset>
  );
}

/** Rename a channel or change the alerts it receives. */
function EditChannelDialog({ channel, onClose, onSaved }: { channel: Channel; onClose: () => void; onSaved: (channel: Channel) => void }) {
  const [name, setName] = useState(channel.name);
  const [alertTypes, setAlertTypes] = useState<AlertType[]>(channel.alertTypes);
  const { errors, setErrors, formError, pending, submit: submitForm } = useChannelForm();

  async function submit(form: HTMLFormElement) {
    const found: FieldErrors = {};
    if (!name.trim()) found.name = 'Enter a name.';
    else if (name.trim().length > MAX_NAME_LENGTH) found.name = `Use at most ${MAX_NAME_LENGTH} characters.`;
    const typesError = validateAlertTypes(alertTypes);
    if (typesError) found.alertTypes = typesError;
    await submitForm(form, found, async () => onSaved(await api.channels.change(channel.id, { name: name.trim(), alertTypes })));
  }

  return (
    <FormDialog
      title={`Edit ${channel.name}`}
      description={`${channelTypeLabel(channel.type)} · ${channel.target}`}
      submitLabel="Save"
      pendingLabel="Saving…"
      pending={pending}
      onClose={onClose}
      onSubmit={submit}
    >
      <FormError message={formError} />
      <Field label="Name" error={errors.name}>
        {(control) => (
          <Input {...control} value={name} onChange={(e) => { setName(e.target.value); setErrors((x) => ({ ...x, name: undefined })); }} autoComplete="off" disabled={pending} />
        )}
      </Field>
      <AlertTypesField value={alertTypes} error={errors.alertTypes} disabled={pending} onChange={(types) => { setAlertTypes(types); setErrors((x) => ({ ...x, alertTypes: undefined })); }} />
    </FormDialog>
  );
}

/** A new signing secret, shown this once with a copy button. */
function SecretDialog({ shown, onClose }: { shown: ShownSecret; onClose: () => void }) {
  const id = useId();

  async function copy() {
    try {
      await navigator.clipboard.writeText(shown.secret);
      toast({ title: 'Signing secret copied' });
    } catch {
      toast({ title: 'Could not copy', description: 'Select the secret and copy it by hand.', variant: 'destructive' });
    }
  }

  return (
    <Dialog open onOpenChange={(open) => !open && onClose()}>
      <DialogContent>
        <DialogHeader>
          <DialogTitle>{shown.rotated ? 'New signing secret' : 'Signing secret'}</DialogTitle>
          <DialogDescription>
            Copy this secret now and keep it safe: it will not be shown again. Your receiver uses it to verify the webhook-signature header
            of each request from {shown.channelName} (Standard Webhooks).
          </DialogDescription>
        </DialogHeader>
        <div className="grid gap-2">
          <Label htmlFor={id}>Signing secret</Label>
          <div className="flex gap-2">
            <Input id={id} readOnly value={shown.secret} className="font-mono" onFocus={(e) => e.currentTarget.select()} />
            <Button variant="outline" size="icon" aria-label="Copy signing secret" onClick={copy}>
              <Copy aria-hidden="true" />
            </Button>
          </div>
        </div>
        <DialogFooter>
          <Button onClick={onClose}>Done</Button>
        </DialogFooter>
      </DialogContent>
    </Dialog>
  );
}
