import { useEffect, useRef, useState } from 'react';
import { useStore } from '@nanostores/react';
import { BellOff, Check, CheckCheck, ExternalLink } from 'lucide-react';
import { api, isUnauthorizedError, type Alert } from '../../lib/api';
import { ALERTS_PER_PAGE, MOST_PER_CALL, SEARCH_PAUSE_MS, type AlertTypeFilter, type StatusFilter } from '../../lib/alerts';
import { relativeTime } from '../../lib/format';
import { cn } from '../../lib/utils';
import { $alertsVersion, loadNotifications } from '../../stores/notifications';
import { toast } from '../../stores/toast';
import { AppShell } from '../shell/AppShell';
import { Button } from '../ui/Button';
import { Card } from '../ui/Card';
import { SearchInput } from '../ui/Input';
import { OptionSelect } from '../ui/Select';
import { Skeleton } from '../ui/Skeleton';
import { AlertTypeBadge, AlertTypeIcon } from './AlertType';
import { ALERT_TYPES, alertLabel } from '../../../../domain/alerts.ts';
import { ProductImage } from '../ui/ProductImage';
import { ShowMore } from '../ui/ShowMore';

export default function AlertsScreen() {
  return (
    <AppShell title="Alerts" subtitle="Price drops, increases and threshold hits">
      <Alerts />
    </AppShell>
  );
}

// Every type in the shared table's words, as the badges name them.
const TYPE_OPTIONS: { value: AlertTypeFilter; label: string }[] = [
  { value: 'all', label: 'All Types' },
  ...ALERT_TYPES.map((value) => ({ value, label: alertLabel(value) })),
];
const STATUS_OPTIONS: { value: StatusFilter; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'unread', label: 'Unread' },
  { value: 'read', label: 'Read' },
];

type Loaded = { alerts: Alert[]; matching: number; unread: number; filters: string };

function Alerts() {
  // New alerts and reads made in the popover show here too.
  const version = useStore($alertsVersion);
  const [reloads, setReloads] = useState(0);
  const [list, setList] = useState<Loaded | null>(null);
  const [query, setQuery] = useState('');
  const [search, setSearch] = useState('');
  const [type, setType] = useState<AlertTypeFilter>('all');
  const [status, setStatus] = useState<StatusFilter>('all');
  const [marking, setMarking] = useState(false);
  const latest = useRef(list);
  latest.current = list;
  const fetchingMore = useRef(false);

  // The server searches every alert; it is asked once typing pauses.
  useEffect(() => {
    const timer = setTimeout(() => setSearch(query.trim()), SEARCH_PAUSE_MS);
    return () => clearTimeout(timer);
  }, [query]);

  const filters = { q: search, type, status };
  const key = JSON.stringify(filters);

  // New filters start at the first page; after a change (a read, a new alert) what was loaded is loaded again.
  useEffect(() => {
    let current = true;
    const loaded = latest.current;
    const limit = loaded?.filters === key ? Math.min(Math.max(loaded.alerts.length, ALERTS_PER_PAGE), MOST_PER_CALL) : ALERTS_PER_PAGE;
    api.alerts.page({ ...filters, limit }).then(
      (page) => current && setList({ ...page, filters: key }),
      () => current && setList((l) => l ?? { alerts: [], matching: 0, unread: 0, filters: key }),
    );
    return () => {
      current = false;
    };
  }, [key, version, reloads]);

  async function more() {
    const loaded = latest.current;
    const last = loaded?.alerts.at(-1);
    if (!loaded || !last || loaded.filters !== key || fetchingMore.current) return;
    fetchingMore.current = true;
    try {
      const page = await api.alerts.page({ ...filters, before: last.id, limit: ALERTS_PER_PAGE });
      // Unless the list was loaded afresh meanwhile.
      setList((l) => (l?.filters === key && l.alerts.at(-1)?.id === last.id ? { ...page, alerts: [...l.alerts, ...page.alerts], filters: key } : l));
    } catch {
      // Show more stays, to try again.
    } finally {
      fetchingMore.current = false;
    }
  }

  /** After a change: this list and the bell's. */
  const refresh = () => {
    setReloads((n) => n + 1);
    void loadNotifications({ fresh: true });
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

  /** Every unread alert, on the pages not loaded yet too, in one call. */
  async function markAllRead() {
    setMarking(true);
    try {
      await api.alerts.markAllRead();
      toast({ title: 'All alerts marked as read' });
    } catch (error) {
      if (!isUnauthorizedError(error)) toast({ title: 'Failed to mark alerts as read.', variant: 'destructive' });
    }
    setMarking(false);
    refresh();
  }

  const unread = list?.unread ?? 0;
  const filtering = search !== '' || type !== 'all' || status !== 'all';
  // The list on screen is not yet the answer to the search and filters as they are now.
  const pending = list !== null && (list.filters !== key || query.trim() !== search);

  return (
    <div className="space-y-6">
      <div className="flex flex-col gap-3 lg:flex-row lg:items-center">
        <SearchInput
          aria-label="Search alerts"
          placeholder="Search alerts..."
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          className="w-full lg:max-w-sm"
        />
        {/* Stacked, the two selects share the search box's width and edges; in one row they keep their own. */}
        <div className="grid grid-cols-2 gap-3 lg:flex">
          <OptionSelect aria-label="Filter by type" className="lg:w-40" value={type} options={TYPE_OPTIONS} onChange={setType} />
          <OptionSelect aria-label="Filter by status" className="lg:w-40" value={status} options={STATUS_OPTIONS} onChange={setStatus} />
        </div>
        {unread > 0 && (
          <Button variant="outline" className="lg:ml-auto" onClick={markAllRead} disabled={marking}>
            <CheckCheck aria-hidden="true" />
            Mark all as read ({unread.toLocaleString('en-GB')})
          </Button>
        )}
      </div>

      <p className="sr-only" role="status">
        {list && filtering && !pending ? `${list.matching.toLocaleString('en-GB')} ${list.matching === 1 ? 'alert matches' : 'alerts match'}` : ''}
      </p>

      {list === null ? (
        <div className="space-y-3" aria-busy="true">
          <span className="sr-only" role="status">
            Loading alerts
          </span>
          {[0, 1, 2].map((i) => (
            <Skeleton key={i} className="h-28 w-full rounded-xl" />
          ))}
        </div>
      ) : (
        <div className="space-y-6" aria-busy={pending || undefined}>
          {list.alerts.length === 0 ? (
            <Card className="flex flex-col items-center px-6 py-14 text-center">
              <span className="mb-4 flex size-12 items-center justify-center rounded-full bg-muted text-muted-foreground">
                <BellOff aria-hidden="true" className="size-6" />
              </span>
              <h2 className="text-lg font-semibold">No alerts found</h2>
              <p className="mt-1 max-w-md text-sm text-muted-foreground">
                {filtering ? 'No alert matches this search and these filters.' : 'Price drops, increases and threshold hits on your products will appear here.'}
              </p>
            </Card>
          ) : (
            <ul className="space-y-3" aria-label="Alerts">
              {list.alerts.map((alert) => (
                <li key={alert.id}>
                  <AlertCard alert={alert} onMarkRead={() => markRead(alert)} />
                </li>
              ))}
            </ul>
          )}
          <ShowMore remaining={Math.max(0, list.matching - list.alerts.length)} onMore={more} noun="alerts" />
        </div>
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
