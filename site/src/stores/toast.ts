import { atom } from 'nanostores';

export type ToastMessage = { title: string; description?: string };

export type Toast = ToastMessage & {
  id: number;
  variant: 'default' | 'destructive';
  /** Milliseconds; the Toaster's default (5000) when absent. */
  duration?: number;
};

/** One toast at a time (docs/product.md#toasts-and-tooltips): a new toast replaces the one on screen. */
export const TOAST_LIMIT = 1;

/** Newest first; the Toaster renders this list. */
export const $toasts = atom<Toast[]>([]);

let lastId = 0;

export function toast(message: ToastMessage & Partial<Pick<Toast, 'variant' | 'duration'>>): number {
  const id = ++lastId;
  const next: Toast = { ...message, variant: message.variant ?? 'default', id };
  $toasts.set([next, ...$toasts.get()].slice(0, TOAST_LIMIT));
  return id;
}

export function dismissToast(id: number): void {
  $toasts.set($toasts.get().filter((t) => t.id !== id));
}
