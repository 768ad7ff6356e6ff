import { useEffect, useState } from 'react';
import { useStore } from '@nanostores/react';
import { BellOff, Check, CheckCheck, ExternalLink, Search } from 'lucide-react';
import { api, isUnauthorizedError, type Alert } from '../../lib/api';
import { filterAlerts, unreadOf, type AlertTypeFilter, type StatusFilter } from '../../lib/alerts';
import { relativeTime } from '../../lib/format';
import { cn } from '../../lib/utils';
import { $alertsVersion, loadNotifications } from '../../stores/notifications';
import { toast } from '../../stores/toast';
import { AppShell } from '../AppShell';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { Input } from '../ui/Input';
import { OptionSelect } from '../ui/Select';
import { Skeleton } from '../ui/Skeleton';
import { AlertTypeBadge, AlertTypeIcon } from './AlertType';
import { ProductImage } from '../ui/ProductImage';

export default function AlertsScreen() {
  return (
    <AppShell title="Alerts" subtitle="Price drops, increases and threshold hits">
      <Alerts />
    </AppShell>
  );
}

const TYPE_OPTIONS: { value: AlertTypeFilter; label: string }[] = [
  { value: 'all', label: 'All Types' },
  { value: 'price_drop', label: 'Price Drop' },
  { value: 'price_increase', label: 'Price Increase' },
  { value: 'threshold_met', label: 'Threshold Met' },
  { value: 'out_of_stock', label: 'Out of Stock' },
  { value: 'back_in_stock', label: 'Back in Stock' },
];
const STATUS_OPTIONS: { value: StatusFilter; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'unread', label: 'Unread' },
  { value: 'read', label: 'Read' },
];

function Alerts() {
  // New alerts and reads made in the popover show here too.
  const version = useStore($alertsVersion);
  const [reloads, setReloads] = useState(0);
  const [alerts, setAlerts] = useState<Alert[] | null>(null);
  const [query, setQuery] = useState('');
  const [type, setType] = useState<AlertTypeFilter>('all');
  const [status, setStatus] = useState<StatusFilter>('all');
  const [marking, setMarking] = useState(false);

  useEffect(() => {
    let current = true;
    api.alerts.list().then((list) => current && setAlerts(list), () => current && setAlerts((a) => a ?? []));
    return () => {
      current = false;
    };
  }, [version, reloads]);

  /** After a change: this list and the bell's. */
  const refresh = () => {
    setReloads((n) => n + 1);
    void loadNotifications();
  };

  async function markRead(alert: Alert) {
    if (alert.isRead) return; // read items are not marked again
    try {
      await api.alerts.markRead(alert.id);
      toast({ title: 'Alert marked as read' });
    } catch (error) {
      if (!isUnauthorizedError(error)) toast({ title: 'Failed to mark alert as read.', variant: 'destructive' });
    }
    refresh();
  }

  async function markAllRead() {
    const unread = unreadOf(alerts ?? []);
    setMarking(true);
    // One call per unread alert (spec section 7).
    const results = await Promise.allSettled(unread.map((a) => api.alerts.markRead(a.id)));
    setMarking(false);
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (!failed) toast({ title: 'All alerts marked as read' });
    else if (!isUnauthorizedError(failed.reason)) toast({ title: 'Failed to mark alerts as read.', variant: 'destructive' });
    refresh();
  }

  const unread = unreadOf(alerts ?? []).length;
  const visible = alerts ? filterAlerts(alerts, { query, type, status }) : [];
  const filtering = query.trim() !== '' || type !== 'all' || status !== 'all';

  return (
    <div className="space-y-6">
      <div className="flex flex-col gap-3 lg:flex-row lg:items-center">
        <div className="relative w-full lg:max-w-sm">
          <Search aria-hidden="true" className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-muted-foreground" />
          <Input
            type="search"
            aria-label="Search alerts"
            placeholder="Search alerts..."
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            className="pl-9"
          />
        </div>
        {/* Stacked, the two selects share the search box's width and edges; in one row they keep their own. */}
        <div className="grid grid-cols-2 gap-3 lg:flex">
          <OptionSelect aria-label="Filter by type" className="lg:w-40" value={type} options={TYPE_OPTIONS} onChange={setType} />
          <OptionSelect aria-label="Filter by status" className="lg:w-40" value={status} options={STATUS_OPTIONS} onChange={setStatus} />
        </div>
        {unread > 0 && (
          <Button variant="outline" className="lg:ml-auto" onClick={markAllRead} disabled={marking}>
            <CheckCheck aria-hidden="true" />
            Mark all as read ({unread})
          </Button>
        )}
      </div>

      <p className="sr-only" role="status">
        {alerts && filtering ? `${visible.length} of ${alerts.length} alerts shown` : ''}
      </p>

      {alerts === null ? (
        <div className="space-y-3" aria-busy="true">
          <span className="sr-only" role="status">
            Loading alerts
          </span>
          {[0, 1, 2].map((i) => (
            <Skeleton key={i} className="h-28 w-full rounded-xl" />
          ))}
        </div>
      ) : visible.length === 0 ? (
        <Card className="flex flex-col items-center px-6 py-14 text-center">
          <span className="mb-4 flex size-12 items-center justify-center rounded-full bg-muted text-muted-foreground">
            <BellOff aria-hidden="true" className="size-6" />
          </span>
          <h2 className="text-lg font-semibold">No alerts found</h2>
          <p className="mt-1 max-w-md text-sm text-muted-foreground">
            {filtering
              ? 'No alert matches this search and these filters.'
              : 'Price drops, increases and threshold hits on your products will appear here.'}
          </p>
        </Card>
      ) : (
        <ul className="space-y-3" aria-label="Alerts">
          {visible.map((alert) => (
            <li key={alert.id}>
              <AlertCard alert={alert} onMarkRead={() => markRead(alert)} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function AlertCard({ alert, onMarkRead }: { alert: Alert; onMarkRead: () => void }) {
  return (
    // Clicking an unread card marks it read; the button does the same for keyboards.
    <Card
      onClick={alert.isRead ? undefined : onMarkRead}
      className={cn('flex gap-4 p-4 sm:p-5', !alert.isRead && 'cursor-pointer border-brand/40 bg-accent/30')}
      data-unread={!alert.isRead || undefined}
    >
      <AlertTypeIcon type={alert.type} className="size-10" />
      <ProductImage url={alert.productImage} className="hidden sm:flex" />
      <div className="min-w-0 flex-1 space-y-1.5">
        <div className="flex flex-wrap items-center gap-2">
          <h3 className="min-w-0 break-words font-semibold leading-tight">{alert.productName}</h3>
          <AlertTypeBadge type={alert.type} />
          {!alert.isRead && (
            <span className="size-2 shrink-0 rounded-full bg-brand">
              <span className="sr-only">Unread</span>
            </span>
          )}
        </div>
        <p className="text-sm text-muted-foreground">{alert.message}</p>
        <div className="flex flex-wrap items-center gap-x-4 gap-y-1 text-xs text-muted-foreground">
          <time dateTime={alert.createdAt}>{relativeTime(alert.createdAt)}</time>
          <a
            href={alert.productUrl}
            target="_blank"
            rel="noopener noreferrer"
            className="inline-flex items-center gap-1 text-primary underline-offset-4 hover:underline"
            // The name starts with the visible words, so speech input can say them (WCAG 2.5.3).
            aria-label={`View product ${alert.productName} in a new tab`}
          >
            View product
            <ExternalLink aria-hidden="true" className="size-3" />
          </a>
        </div>
      </div>
      {!alert.isRead && (
        <Button
          variant="ghost"
          size="sm"
          className="self-start"
          aria-label={`Mark as read: ${alert.productName}`}
          onClick={(e) => {
            e.stopPropagation();
            onMarkRead();
          }}
        >
          <Check aria-hidden="true" />
          <span className="hidden sm:inline">Mark as read</span>
        </Button>
      )}
    </Card>
  );
}


