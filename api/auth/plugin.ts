import { Elysia } from 'elysia';
import type { AppContext } from '../context.ts';
import { SESSION_COOKIE } from './sessions.ts';

export function sessionCookie(ctx: AppContext, token: string, expires: Date) {
  return { value: token, httpOnly: true, sameSite: 'lax' as const, secure: ctx.config.production, path: '/', expires };
}

/**
 * `{ signedIn: true }` on a route resolves `userId` from the session cookie, or answers
 * 401 {"message":"Unauthorized"} (the screens recognise that text).
 */
export function authentication(ctx: AppContext) {
  return new Elysia({ name: 'authentication' }).macro({
    signedIn: {
      async resolve({ cookie, status }) {
        const jar = cookie[SESSION_COOKIE]!;
        const token = jar.value as string | undefined;
        const session = await ctx.sessions.validate(token);
        if (!session) return status(401, { message: 'Unauthorized' });
        // Carry a renewed expiry to the browser as well.
        if (jar.expires?.getTime() !== session.expiresAt.getTime()) jar.set(sessionCookie(ctx, token!, session.expiresAt));
        return { userId: session.userId };
      },
    },
  });
}
