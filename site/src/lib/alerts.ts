/** Pure rules of the Alerts screen and the notifications popover (spec sections 2, 4, 8 and 9). */
import { formatPrice } from './format';

export const ALERT_TYPES = ['price_drop', 'price_increase', 'threshold_met', 'out_of_stock', 'back_in_stock'] as const;
export type AlertTypeFilter = 'all' | (typeof ALERT_TYPES)[number];
export type StatusFilter = 'all' | 'unread' | 'read';

/** The badge of a type: Price Drop, Price Increase, Threshold Met, Out of Stock, Back in Stock, else Alert. */
/** Where a notice about the account (not a product) is dealt with; null for product alerts. */
export const noticeLink = (type: string): string | null => (type === 'channel_disabled' ? '/settings#notifications' : null);

export function alertTypeLabel(type: string): string {
  switch (type) {
    case 'price_drop': return 'Price Drop';
    case 'price_increase': return 'Price Increase';
    case 'threshold_met': return 'Threshold Met';
    case 'out_of_stock': return 'Out of Stock';
    case 'back_in_stock': return 'Back in Stock';
    case 'channel_disabled': return 'Channel Off';
    default: return 'Alert';
  }
}

type Filterable = { type: string; productName: string; message: string; isRead: boolean };

/** Search by product name or message (case-insensitive), then the type and status filters. */
export function filterAlerts<A extends Filterable>(alerts: readonly A[], f: { query: string; type: AlertTypeFilter; status: StatusFilter }): A[] {
  const needle = f.query.trim().toLowerCase();
  return alerts.filter((a) =>
    (!needle || a.productName.toLowerCase().includes(needle) || a.message.toLowerCase().includes(needle)) &&
    (f.type === 'all' || a.type === f.type) &&
    (f.status === 'all' || (f.status === 'unread') === !a.isRead));
}

export const unreadOf = <A extends { isRead: boolean }>(alerts: readonly A[]) => alerts.filter((a) => !a.isRead);

/** The popover's 'Was £x · Now £y', only when both prices exist and differ (a stock alert may keep its price). */
export function wasNowLine(n: { previousPrice: number | string | null; currentPrice: number | string | null; currency: string }): string | null {
  return n.previousPrice != null && n.currentPrice != null && Number(n.previousPrice) !== Number(n.currentPrice)
    ? `Was ${formatPrice(n.previousPrice, n.currency)} · Now ${formatPrice(n.currentPrice, n.currency)}`
    : null;
}

/** Notifications are polled this often, and on focus and when the tab becomes visible. */
export const NOTIFICATION_POLL_MS = 30_000;
/** The in-app price alert toast: at most once per 10 s, shown for 8 s. */
export const ALERT_TOAST_GAP_MS = 10_000;
export const ALERT_TOAST_MS = 8_000;

type Announceable = { id: string; isRead: boolean };

/**
 * The notification to announce (toast and browser notification) after a load: the newest unread
 * one (lists come newest first), unless it was already shown or a toast went out less than
 * 10 s ago. Older unread ones are not announced one by one.
 */
export function alertToAnnounce<N extends Announceable>(list: readonly N[], shown: ReadonlySet<string>, lastShownAt: number | null, now: number): N | null {
  if (lastShownAt !== null && now - lastShownAt < ALERT_TOAST_GAP_MS) return null;
  const newest = list.find((n) => !n.isRead);
  return newest && !shown.has(newest.id) ? newest : null;
}

/** A cheap fingerprint of what the list shows (which alerts, which read), to tell a change. */
export function listSignature(list: readonly Announceable[]): string {
  return list.map((n) => `${n.id}:${n.isRead ? 1 : 0}`).join(',');
}
