import { useEffect, useState } from 'react';
import { ChevronDown } from 'lucide-react';
import { api, type Channel, type Delivery } from '../../../lib/api';
import { describeDelivery } from '../../../lib/channels';
import { formatDateTime, formatTimeOrDay } from '../../../lib/format';
import { cn } from '../../../lib/utils';
import { Button } from '../../ui/Button';
import { Skeleton } from '../../ui/Skeleton';

/** The card's last delivery: its outcome and when, or that there was none. */
export function LastDelivery({ last }: { last: Channel['lastDelivery'] }) {
  if (!last) return <>None yet</>;
  return (
    <>
      <span className={last.delivered ? undefined : 'text-destructive'}>{describeDelivery({ ...last, retryAt: null })}</span>
      {' · '}
      <time dateTime={last.at} title={formatDateTime(last.at)}>
        {formatTimeOrDay(last.at)}
      </time>
    </>
  );
}

type RecentDeliveriesProps = { channel: Channel; id: string; version: number };

/** The "Recent deliveries" disclosure; the table is read when it opens and again after each test. */
export function RecentDeliveries({ channel, id, version }: RecentDeliveriesProps) {
  const [open, setOpen] = useState(false);
  return (
    <div>
      <Button variant="ghost" size="sm" className="-ml-2" aria-expanded={open} aria-controls={id} onClick={() => setOpen((v) => !v)}>
        <ChevronDown aria-hidden="true" className={cn('transition-transform', open && 'rotate-180')} />
        Recent deliveries
      </Button>
      <div id={id} hidden={!open}>
        {open && <DeliveriesTable channelId={channel.id} channelName={channel.name} version={version} />}
      </div>
    </div>
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
          <th scope="col" className="py-2 pr-2 font-medium">
            Time
          </th>
          <th scope="col" className="py-2 pr-2 font-medium">
            Alert
          </th>
          <th scope="col" className="py-2 pr-2 font-medium">
            Outcome
          </th>
          <th scope="col" className="py-2 text-right font-medium">
            Attempt
          </th>
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
