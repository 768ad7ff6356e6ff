/** Pure rules of the Alerts screen and the notifications popover (docs/product.md#alerts). */
import { formatPrice } from './format';
import { isPositionAlert, type ALERT_TYPES } from '../../../domain/alerts.ts';

export type AlertTypeFilter = 'all' | (typeof ALERT_TYPES)[number];
export type StatusFilter = 'all' | 'unread' | 'read';

/** Where a notice about the account (not a product) is dealt with; null for product alerts. */
export const noticeLink = (type: string): string | null => (type === 'channel_disabled' ? '/settings#notifications' : null);

/** The Alerts screen reads this many at a time (at most 500 in one call); the server searches and filters all of them. */
export const ALERTS_PER_PAGE = 25;
export const MOST_PER_CALL = 500;
/** The search is sent once typing pauses this long. */
export const SEARCH_PAUSE_MS = 250;

const counted = (n: number, noun: string) => `${n.toLocaleString('en-GB')} ${noun}${n === 1 ? '' : 's'}`;

/**
 * What the bell's badge counts, in words: '107 unread alerts · 1 unread notice' (the alerts are the
 * dashboard's Active Alerts; notices are about the account); null when nothing is unread.
 */
export function unreadSummary(c: { alerts: number; notices: number }): string | null {
  const parts = [c.alerts > 0 && counted(c.alerts, 'unread alert'), c.notices > 0 && counted(c.notices, 'unread notice')].filter(Boolean);
  return parts.length ? parts.join(' · ') : null;
}

/**
 * The popover's 'Was £x · Now £y', only when both prices exist and differ (a stock alert may keep its price).
 * Never for undercut and cheapest: their two prices are the owner's and a competitor's, which the message names.
 */
export function wasNowLine(n: { type?: string; previousPrice: number | string | null; currentPrice: number | string | null; currency: string }): string | null {
  return !isPositionAlert(n.type ?? '') && n.previousPrice != null && n.currentPrice != null && Number(n.previousPrice) !== Number(n.currentPrice)
    ? `Was ${formatPrice(n.previousPrice, n.currency)} · Now ${formatPrice(n.currentPrice, n.currency)}`
    : null;
}

/** Notifications are polled this often, and on focus and when the tab becomes visible. */
export const NOTIFICATION_POLL_MS = 30_000;
/** The in-app price alert toast: at most once per 10 s, shown for 8 s. */
export const ALERT_TOAST_GAP_MS = 10_000;
export const ALERT_TOAST_MS = 8_000;

type Announceable = { id: string; isRead: boolean; createdAt: string };

/** Dated this long before the page loaded, a notification may still be news: clocks differ, and a check running then raises it later. */
export const NEWS_GRACE_MS = 5 * 60_000;

/**
 * The notification to announce (toast and browser notification) after a load: the newest unread
 * one raised since the page loaded (lists come newest first), unless it was already shown (here or
 * in another tab) or a toast went out less than 10 s ago. Raised since the page loaded: not in the
 * page's first list (`known`; null until it loads, and that load announces nothing), and not dated
 * before the page loaded (`since`). So what the user had when the page loaded, or anything older,
 * never pops up as news, even when reads make it the newest unread one. Older unread ones are not
 * announced one by one.
 */
export function alertToAnnounce<N extends Announceable>(
  list: readonly N[],
  o: { known: ReadonlySet<string> | null; shown: ReadonlySet<string>; lastShownAt: number | null; since: number; now: number },
): N | null {
  const { known } = o;
  if (!known || (o.lastShownAt !== null && o.now - o.lastShownAt < ALERT_TOAST_GAP_MS)) return null;
  const newest = list.find((n) => !n.isRead && !known.has(n.id) && Date.parse(n.createdAt) >= o.since - NEWS_GRACE_MS);
  return newest && !o.shown.has(newest.id) ? newest : null;
}

/** A cheap fingerprint of what the list shows (which alerts, which read), to tell a change. */
export function listSignature(list: readonly { id: string; isRead: boolean }[]): string {
  return list.map((n) => `${n.id}:${n.isRead ? 1 : 0}`).join(',');
}
