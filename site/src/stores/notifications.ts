import { atom, computed } from 'nanostores';
import { api, type Notification, type UnreadCount } from '../lib/api';
import { ALERT_TOAST_MS, alertToAnnounce, listSignature, NOTIFICATION_POLL_MS, wasNowLine } from '../lib/alerts';
import { alertLabel } from '../../../domain/alerts.ts';
import { toast } from './toast';

export type { Notification };

/** The bell's list, newest first, from GET /api/notifications. */
export const $notifications = atom<Notification[]>([]);

/** Unread alerts and notices in all (the list holds only the newest); null until loaded. */
export const $unreadCounts = atom<UnreadCount | null>(null);

/** The badge: every unread notification, not only those listed. */
export const $unreadCount = computed([$notifications, $unreadCounts], (list, counts) =>
  counts ? counts.alerts + counts.notices : list.filter((n) => !n.isRead).length,
);

/**
 * Bumped whenever the list shows something new (an alert, a read), so the Alerts screen fetches
 * again: an alert and its notification are one, read in either place.
 */
export const $alertsVersion = atom(0);

let loading: Promise<void> | null = null;

/**
 * Fetches the list (one call at a time); failures keep the last list, as the spec shows no error.
 * `fresh`: after a change of ours, a load already under way may have read the list before it, so
 * another follows it.
 */
export function loadNotifications(opts: { fresh?: boolean } = {}): Promise<void> {
  if (opts.fresh && loading) return loading.then(() => loadNotifications());
  loading ??= Promise.all([api.notifications.list(), api.notifications.unreadCount()])
    .then(
      ([list, counts]) => {
        const before = $unreadCounts.get();
        const changed = listSignature(list) !== listSignature($notifications.get()) || counts.alerts !== before?.alerts || counts.notices !== before?.notices;
        $notifications.set(list);
        $unreadCounts.set(counts);
        if (changed) $alertsVersion.set($alertsVersion.get() + 1);
        announce(list);
      },
      () => {},
    )
    .finally(() => {
      loading = null;
    });
  return loading;
}

/** Loads now, every 30 s, on window focus and when the tab becomes visible; answers the way to stop. */
export function startNotifications(): () => void {
  if (typeof Notification !== 'undefined' && Notification.permission === 'default') {
    Notification.requestPermission().catch(() => {});
  }
  void loadNotifications();
  const timer = setInterval(loadNotifications, NOTIFICATION_POLL_MS);
  const onFocus = () => void loadNotifications();
  const onVisible = () => document.visibilityState === 'visible' && void loadNotifications();
  window.addEventListener('focus', onFocus);
  document.addEventListener('visibilitychange', onVisible);
  return () => {
    clearInterval(timer);
    window.removeEventListener('focus', onFocus);
    document.removeEventListener('visibilitychange', onVisible);
  };
}

/** Read items are not marked again; the list is fetched again on success. */
export async function markNotificationRead(id: string): Promise<void> {
  if ($notifications.get().find((n) => n.id === id)?.isRead) return;
  try {
    await api.notifications.markRead(id);
    await loadNotifications({ fresh: true });
  } catch {}
}

export async function markAllNotificationsRead(): Promise<void> {
  try {
    await api.notifications.markAllRead();
    await loadNotifications({ fresh: true });
  } catch {}
}

// ---------------------------------------------------------------------------------------------
// The in-app price alert toast and the browser notification (docs/product.md#notifications). What was
// shown is remembered across pages and tabs, so moving around the app does not repeat it.

const SHOWN_KEY = 'pricewatch-shown-alerts';
const SHOWN_AT_KEY = 'pricewatch-alert-shown-at';
const SHOWN_KEPT = 200;

function readShown(): { shown: Set<string>; at: number | null } {
  try {
    const at = Number(localStorage.getItem(SHOWN_AT_KEY));
    return { shown: new Set(JSON.parse(localStorage.getItem(SHOWN_KEY) ?? '[]') as string[]), at: at > 0 ? at : null };
  } catch {
    return { shown: new Set(), at: null };
  }
}

function remember(id: string, at: number) {
  try {
    const ids = [...readShown().shown, id].slice(-SHOWN_KEPT);
    localStorage.setItem(SHOWN_KEY, JSON.stringify(ids));
    localStorage.setItem(SHOWN_AT_KEY, String(at));
  } catch {}
}

/** The ids this page's first load listed: what the user had when the page loaded is never news. */
let known: Set<string> | null = null;

function announce(list: Notification[]) {
  const { shown, at } = readShown();
  const now = Date.now();
  const n = alertToAnnounce(list, { known, shown, lastShownAt: at, since: performance.timeOrigin, now });
  known ??= new Set(list.map((x) => x.id));
  if (!n) return;
  remember(n.id, now);
  toast({ title: `${alertLabel(n.type)}: ${n.productName}`, description: n.message, duration: ALERT_TOAST_MS });
  if (typeof Notification !== 'undefined' && Notification.permission === 'granted') {
    try {
      const prices = wasNowLine(n);
      new Notification(n.productName, { body: prices ? `${n.message}\n${prices}` : n.message, icon: '/favicon.svg', tag: n.id });
    } catch {}
  }
}
