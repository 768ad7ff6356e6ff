import { atom, computed } from 'nanostores';

/** An in-app notification (spec section 3). */
export type Notification = {
  id: string;
  type: 'price_drop' | 'price_increase' | 'threshold_met' | (string & {});
  productName: string;
  message: string;
  currentPrice: number | string | null;
  previousPrice: number | string | null;
  isRead: boolean;
  createdAt: string;
};

/**
 * The bell's list. Empty until the server has notifications: loading and polling them (every
 * 30 s, on focus and when the tab becomes visible) come with the alerts work.
 */
export const $notifications = atom<Notification[]>([]);

export const $unreadCount = computed($notifications, (list) => list.filter((n) => !n.isRead).length);

// Local for now; with the notifications API these become the read calls followed by a refetch.
export function markNotificationRead(id: string): void {
  $notifications.set($notifications.get().map((n) => (n.id === id ? { ...n, isRead: true } : n)));
}

export function markAllNotificationsRead(): void {
  $notifications.set($notifications.get().map((n) => (n.isRead ? n : { ...n, isRead: true })));
}
