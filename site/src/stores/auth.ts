import { atom } from 'nanostores';
import { api, type User } from '../lib/api';
import { setDisplayTimeZone } from '../lib/format';

export type AuthStatus = 'loading' | 'signed-in' | 'signed-out';

export const $user = atom<User | null>(null);
export const $authStatus = atom<AuthStatus>('loading');

// Every time on screen is shown in the user's time zone setting.
$user.subscribe((user) => setDisplayTimeZone(user?.timezone));

let loading: Promise<User | null> | null = null;

/** Asks once per page who is signed in; any failure means signed out (no retry). */
export function loadUser(): Promise<User | null> {
  loading ??= api.auth.user().then(
    (user) => {
      const signedIn = typeof user === 'object' && user !== null;
      $user.set(signedIn ? user : null);
      $authStatus.set(signedIn ? 'signed-in' : 'signed-out');
      return $user.get();
    },
    () => {
      $user.set(null);
      $authStatus.set('signed-out');
      return null;
    },
  );
  return loading;
}
