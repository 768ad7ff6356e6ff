import { Elysia } from 'elysia';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { authentication, sessionCookie } from './plugin.ts';
import { SESSION_COOKIE } from './sessions.ts';
import { findUser } from './users.ts';
import { signIn } from './sign-in.ts';
import { safeRedirect } from './redirect.ts';
import { googleRoutes } from './google.ts';
import { parseInput, queryParam, textUpTo } from '../http/validation.ts';

/** GET /api/auth/demo?email=…&redirect=…: an address of at most 254 characters, checked before anything else. */
const DemoSignInQuery = z.object({ email: queryParam(textUpTo(254)).optional(), redirect: queryParam(z.string()).optional() });

/** The demo account to sign in to: an e-mail address (trimmed, in lower case), the demo user's when left out. */
export const DemoSignIn = z.object({
  email: z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, 'not a valid e-mail address')
    .default('demo@pricewatch.local'),
});

export function authRoutes(ctx: AppContext) {
  return new Elysia({ prefix: '/api' })
    .use(authentication(ctx))
    .get(
      '/auth/user',
      async ({ userId, status }) => {
        const user = await findUser(ctx, userId);
        return user ?? status(401, { message: 'Unauthorized' });
      },
      { signedIn: true },
    )
    .get('/login', ({ query, redirect }) => {
      const to = encodeURIComponent(safeRedirect(query.redirect));
      return redirect(ctx.config.demo ? `/api/auth/demo?redirect=${to}` : `/api/auth/google?redirect=${to}`, 302);
    })
    .get(
      '/auth/demo',
      async ({ query, cookie, redirect, status }) => {
        if (!ctx.config.demo) return status(404, { message: 'Not found' });
        const { email } = parseInput(DemoSignIn, query);
        const local = email.split('@')[0]!;
        const { token, expiresAt } = await signIn(ctx, {
          provider: 'demo',
          subject: email,
          profile: {
            email,
            firstName: local === 'demo' ? 'Demo' : local.charAt(0).toUpperCase() + local.slice(1),
            lastName: local === 'demo' ? 'User' : null,
            profileImageUrl: null,
          },
        });
        cookie[SESSION_COOKIE]!.set(sessionCookie(ctx, token, expiresAt));
        return redirect(safeRedirect(query.redirect), 302);
      },
      { query: DemoSignInQuery },
    )
    .use(googleRoutes(ctx))
    .get('/logout', async ({ request, cookie, redirect }) => {
      // A link or image on another site must not sign the user out; our own pages still can.
      if (request.headers.get('sec-fetch-site') === 'cross-site') return redirect('/', 302);
      await ctx.sessions.invalidate(cookie[SESSION_COOKIE]!.value);
      cookie[SESSION_COOKIE]!.remove();
      return redirect('/', 302);
    });
}
