import { useEffect } from 'react';
import { useStore } from '@nanostores/react';
import { Bell, X } from 'lucide-react';
import { noticeLink, unreadSummary, wasNowLine } from '../../lib/alerts';
import { badgeCount, relativeTime } from '../../lib/format';
import { cn } from '../../lib/utils';
import {
  $notifications,
  $unreadCount,
  $unreadCounts,
  markAllNotificationsRead,
  markNotificationRead,
  startNotifications,
  type Notification,
} from '../../stores/notifications';
import { AlertTypeIcon } from '../alerts/AlertType';
import { Button, focusRing } from '../ui/Button';
import { Popover, PopoverClose, PopoverContent, PopoverTrigger } from '../ui/Popover';
import { Tooltip, TooltipContent, TooltipTrigger } from '../ui/Tooltip';

export function NotificationBell() {
  const notifications = useStore($notifications);
  const unread = useStore($unreadCount);
  const counts = useStore($unreadCounts);
  // Says what the badge counts: its alerts are the dashboard's Active Alerts.
  const summary = counts && unreadSummary(counts);
  const label = unread > 0 ? `Notifications, ${unread} unread` : 'Notifications';

  // Every signed-in page has the bell: it keeps the list fresh for the whole app.
  useEffect(() => startNotifications(), []);

  return (
    <Popover>
      <Tooltip>
        {/* The badge sits beside the button, not in it: "9+" is not part of its name, which says the exact count. */}
        <span className="relative inline-flex">
          <TooltipTrigger asChild>
            <PopoverTrigger asChild>
              <Button variant="ghost" size="icon" aria-label={label}>
                <Bell aria-hidden="true" />
              </Button>
            </PopoverTrigger>
          </TooltipTrigger>
          {unread > 0 && (
            <span
              aria-hidden="true"
              className="pointer-events-none absolute -right-0.5 -top-0.5 flex h-4 min-w-4 items-center justify-center rounded-full bg-destructive px-1 text-[10px] font-semibold leading-none text-destructive-foreground"
            >
              {badgeCount(unread)}
            </span>
          )}
        </span>
        <TooltipContent>Notifications</TooltipContent>
      </Tooltip>
      <PopoverContent align="end" aria-label="Notifications" className="w-96 max-w-(--radix-popover-content-available-width) p-0">
        <div className="flex items-center justify-between gap-2 border-b px-4 py-3">
          <div className="min-w-0">
            <h2 className="font-semibold">Notifications</h2>
            {summary && <p className="text-xs text-muted-foreground">{summary}</p>}
          </div>
          <div className="flex shrink-0 items-center gap-1">
            {unread > 0 && (
              <Button variant="ghost" size="sm" onClick={() => void markAllNotificationsRead()}>
                Mark all read
              </Button>
            )}
            <PopoverClose asChild>
              <Button variant="ghost" size="icon" className="size-8" aria-label="Close notifications">
                <X aria-hidden="true" />
              </Button>
            </PopoverClose>
          </div>
        </div>
        <div className="h-96 overflow-y-auto">
          {notifications.length === 0 ? (
            <div className="flex h-full flex-col items-center justify-center gap-2 p-6 text-center">
              <Bell aria-hidden="true" className="size-10 text-muted-foreground/50" />
              <p className="font-medium">No notifications yet</p>
              <p className="text-sm text-muted-foreground">We'll notify you when prices change</p>
            </div>
          ) : (
            <ul className="divide-y">
              {notifications.map((n) => (
                <li key={n.id}>
                  <NotificationItem notification={n} />
                </li>
              ))}
            </ul>
          )}
        </div>
      </PopoverContent>
    </Popover>
  );
}

function NotificationItem({ notification: n }: { notification: Notification }) {
  const prices = wasNowLine(n);
  return (
    <button
      type="button"
      // Read items are not marked again; a notice opens where it is dealt with.
      onClick={() => {
        if (!n.isRead) markNotificationRead(n.id);
        const link = noticeLink(n.type);
        if (link) window.location.assign(link);
      }}
      className={cn('flex w-full gap-3 px-4 py-3 text-left hover:bg-accent', !n.isRead && 'bg-accent/50', focusRing)}
    >
      <AlertTypeIcon type={n.type} />
      <span className="min-w-0 flex-1 space-y-1">
        <span className="block truncate text-sm font-medium">{n.productName}</span>
        <span className="block text-sm text-muted-foreground">{n.message}</span>
        {prices && <span className="block text-xs text-muted-foreground">{prices}</span>}
        <span className="block text-xs text-muted-foreground">{relativeTime(n.createdAt)}</span>
      </span>
      {!n.isRead && (
        <span className="mt-1.5 size-2 shrink-0 rounded-full bg-brand">
          <span className="sr-only">Unread</span>
        </span>
      )}
    </button>
  );
}
