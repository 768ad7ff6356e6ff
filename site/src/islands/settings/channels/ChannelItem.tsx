import { useId, useState } from 'react';
import { Pencil, RefreshCw, Trash2, TriangleAlert } from 'lucide-react';
import { api, isUnauthorizedError, type Channel } from '../../../lib/api';
import { errorMessage } from '../../../lib/billing';
import { alertTypesSummary, channelTypeLabel } from '../../../lib/channels';
import { toast } from '../../../stores/toast';
import { Badge } from '../../ui/Badge';
import { Button } from '../../ui/Button';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { Label } from '../../ui/Label';
import { Switch } from '../../ui/Switch';
import { FallbackIcon, TYPE_ICONS } from './channelIcons';
import { SendTestButton, TestOutcome, useChannelTest } from './ChannelTest';
import { LastDelivery, RecentDeliveries } from './DeliveryLog';
import { EditChannelDialog } from './EditChannelDialog';

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

/** One channel's card: where it delivers, its last delivery, its switch and its actions. */
export function ChannelItem({ channel, onChanged, onRemoved, onSecret, onDelivered, onCloseAutoFocus }: ChannelItemProps) {
  const id = useId();
  const [switching, setSwitching] = useState(false);
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState<Confirming>(null);
  const test = useChannelTest(channel.id, onDelivered);
  const Icon = TYPE_ICONS[channel.type] ?? FallbackIcon;
  const nameId = `${id}-name`;

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
              <LastDelivery last={channel.lastDelivery} />
            </dd>
          </div>
        </dl>

        <div className="flex flex-wrap items-center gap-2">
          <SendTestButton testing={test.testing} onClick={test.send} />
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
          <TestOutcome tested={test.tested} />
        </div>

        <RecentDeliveries channel={channel} id={`${id}-deliveries`} version={test.version} />
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
