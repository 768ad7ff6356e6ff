import { toast, type ToastMessage } from '../stores/toast';

/** What a signed-out user sees on a protected page or after any 401 (docs/product.md#when-the-session-ends). */
export const UNAUTHORIZED_TOAST: ToastMessage = {
  title: 'Unauthorized',
  description: 'You are logged out. Logging in again...',
};

/** The dashboard stats and product list calls word the same event differently. */
export const SESSION_EXPIRED_TOAST: ToastMessage = {
  title: 'Session Expired',
  description: 'Please log in again to continue.',
};

/** Browser navigations to the API, not data calls. */
export const LOGIN_PATH = '/api/login';
export const LOGOUT_PATH = '/api/logout';

export const LOGIN_REDIRECT_DELAY_MS = 500;

let expiring = false;

/** Tells the user once, then sends the browser to sign in; later 401s of the same page add nothing. */
export function expireSession(message: ToastMessage = UNAUTHORIZED_TOAST): void {
  if (expiring) return;
  expiring = true;
  toast({ ...message, variant: 'destructive' });
  setTimeout(() => window.location.assign(LOGIN_PATH), LOGIN_REDIRECT_DELAY_MS);
}
