import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useStore } from '@nanostores/react';
import { BellRing, Plus } from 'lucide-react';
import { isUnauthorizedError, type Channel } from '../../lib/api';
import { channelsIncluded, FREE_PLAN_REASON, MAX_CHANNELS } from '../../lib/channels';
import { $user } from '../../stores/auth';
import { loadable, readStore } from '../../stores/query';
import { toast } from '../../stores/toast';
import { Button } from '../ui/Button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../ui/Card';
import { Skeleton } from '../ui/Skeleton';
import { AddChannelDialog } from './channels/AddChannelDialog';
import { ChannelItem } from './channels/ChannelItem';
import { SecretDialog, type ShownSecret } from './channels/SecretDialog';

const linkClass = 'font-medium text-foreground underline underline-offset-4';

/** The user's channels; a failed read says so in a toast, besides the section's own message. */
const $channelList = readStore('channels', {
  onError: (error) => {
    if (!isUnauthorizedError(error)) toast({ title: 'Failed to load your alert channels', variant: 'destructive' });
  },
});
const $channels = loadable($channelList);

/** Changes the list on screen to the server's answer to a change, without reading it again. */
const updateChannels = (update: (list: Channel[]) => Channel[]) => {
  const list = $channels.get().data;
  if (list) $channelList.mutate(update(list));
};

/**
 * Settings > Alert channels (deep link /settings#notifications): where alerts go beyond e-mail and
 * the app. Every change is saved at once. Free users see why they cannot add channels and may
 * still remove the ones they kept from a paid period.
 */
export function ChannelsSection() {
  const user = useStore($user);
  const included = channelsIncluded(user);
  const { data, error } = useStore($channels);
  const channels = data ?? null;
  const failed = !!error;
  const [adding, setAdding] = useState(false);
  const [secret, setSecret] = useState<ShownSecret | null>(null);
  const titleRef = useRef<HTMLHeadingElement>(null);
  const scrolled = useRef(false);
  const load = () => $channelList.revalidate();

  // The page is drawn after it loads, so the browser's own jump to #notifications found nothing.
  useEffect(() => {
    if ((channels || failed) && !scrolled.current && location.hash === '#notifications') {
      scrolled.current = true;
      document.getElementById('notifications')?.scrollIntoView();
    }
  }, [channels, failed]);

  const replace = (next: Channel) => updateChannels((list) => list.map((c) => (c.id === next.id ? next : c)));
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
          <NoChannels addButton={addButton} />
        ) : (
          <>
            <ul className="space-y-3" aria-label="Your alert channels">
              {channels.map((channel) => (
                <ChannelItem
                  key={channel.id}
                  channel={channel}
                  onChanged={replace}
                  onRemoved={(id) => updateChannels((list) => list.filter((c) => c.id !== id))}
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
                  <p className="text-sm text-muted-foreground">You have {MAX_CHANNELS} channels, the most a plan allows. Remove one to add another.</p>
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
            updateChannels((list) => [...list, channel]);
            if (channel.secret) setSecret({ channelName: channel.name, secret: channel.secret, rotated: false });
            toast({ title: 'Channel added', description: `Alerts now go to ${channel.name}.` });
          }}
        />
      )}
      {secret && <SecretDialog shown={secret} onClose={() => setSecret(null)} />}
    </Card>
  );
}

/** The empty list: what a channel is for, and the add button where the plan has channels. */
function NoChannels({ addButton }: { addButton: ReactNode }) {
  return (
    <div className="rounded-lg border border-dashed p-6 text-center">
      <BellRing aria-hidden="true" className="mx-auto size-8 text-muted-foreground" />
      <h3 className="mt-3 font-medium">No channels yet</h3>
      <p className="mx-auto mt-1 max-w-md text-sm text-muted-foreground">
        A channel delivers your price and stock alerts the moment they are raised: to a signed webhook of your own, a Slack or Discord channel, or a Telegram
        chat.
      </p>
      {addButton && <div className="mt-4">{addButton}</div>}
    </div>
  );
}
