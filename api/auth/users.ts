import type { AppContext } from '../context.ts';
import { fold } from '../../events/decider.ts';
import { userDecider, userStream, type UserEvent } from '../../events/user.ts';
import { DEFAULT_SETTINGS, type SettingsValues } from '../../events/settings.ts';

/** The signed-in user as GET /api/auth/user answers it. */
export type CurrentUser = {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  profileImageUrl: string | null;
  plan: string;
  subscriptionPlan: string | null;
  authProvider: 'google' | 'demo';
  /** From the user's settings (the defaults until they save them), so every screen formats alike. */
  timezone: SettingsValues['timezone'];
  currency: SettingsValues['currency'];
};

/**
 * The user from the users read model. Should that model lag behind (a long transaction elsewhere
 * holds readers back), a user who has just signed up is read from their own stream instead, so
 * sign-in never looks like a signed-out answer.
 */
export async function findUser(ctx: AppContext, id: string): Promise<CurrentUser | null> {
  const [row] = await ctx.sql<CurrentUser[]>`
    SELECT u.id, email, first_name AS "firstName", last_name AS "lastName", profile_image_url AS "profileImageUrl",
           u.plan, u.subscription_plan AS "subscriptionPlan", u.auth_provider AS "authProvider",
           coalesce(s.timezone, ${DEFAULT_SETTINGS.timezone}) AS timezone, coalesce(s.currency, ${DEFAULT_SETTINGS.currency}) AS currency
    FROM users u LEFT JOIN user_settings s ON s.user_id = u.id WHERE u.id = ${id}`;
  if (row) return row;
  const { events } = await ctx.store.readStream(userStream(id));
  const state = fold(userDecider, events as unknown as UserEvent[]);
  if (state.status !== 'registered') return null;
  const signUp = events.find((e) => e.type === 'UserSignedUp');
  const { timezone, currency } = state.settings ?? DEFAULT_SETTINGS;
  return {
    id,
    ...state.profile,
    plan: 'free',
    subscriptionPlan: null,
    authProvider: signUp?.type === 'UserSignedUp' ? signUp.data.provider : 'demo',
    timezone,
    currency,
  };
}
