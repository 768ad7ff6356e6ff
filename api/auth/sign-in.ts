import type { AppContext } from '../context.ts';
import { handleCommand } from '../../events/decider.ts';
import { checkpointOf } from '../../events/store.ts';
import { userDecider, userStream, type Profile } from '../../events/user.ts';
import { seedDemoAccount } from '../demo-shop/seed.ts';

/**
 * A user's id is derived from their identity at the provider, so the first sign-in creates the
 * stream (UserSignedUp) and a concurrent second one finds it, without a lookup table.
 */
export async function userIdFor(provider: string, subject: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${provider}:${subject}`)));
  return Buffer.from(digest.slice(0, 16)).toString('hex');
}

/** Records the sign-in (sign-up the first time, profile changes later) and opens a session. */
export async function signIn(ctx: AppContext, identity: { provider: 'google' | 'demo'; subject: string; profile: Profile }) {
  const userId = await userIdFor(identity.provider, identity.subject);
  const result = await handleCommand(ctx.store, userStream(userId), userDecider, { type: 'SignIn', userId, ...identity });
  if (result.appended) await ctx.projections.waitFor(checkpointOf({ transactionId: result.appended.transactionId, position: result.appended.lastPosition }));
  const signedUp = result.events.some((e) => e.type === 'UserSignedUp');
  if (signedUp && identity.provider === 'demo') await seedDemoAccount(ctx, userId, identity.profile.email);
  const { token, session } = await ctx.sessions.create(userId);
  return { userId, token, expiresAt: session.expiresAt, signedUp };
}
