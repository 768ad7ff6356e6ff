import { Elysia } from 'elysia';
import * as oidc from 'openid-client';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import type { Config } from '../config.ts';
import { DomainError } from '../../events/decider.ts';
import { sessionCookie } from './plugin.ts';
import { SESSION_COOKIE } from './sessions.ts';
import { signIn } from './sign-in.ts';
import { safeRedirect } from './redirect.ts';
import { queryParam } from '../http/validation.ts';

type GoogleConfig = NonNullable<Config['google']>;

/** How long a started sign-in may take before its state is refused (10 minutes). */
const STATE_TTL_SECONDS = 600;
const STATE_TTL = `${STATE_TTL_SECONDS} seconds`;

/**
 * Ties a sign-in to the browser that started it: a callback link made by someone else (who
 * started the sign-in in their own browser) would otherwise sign the visitor into their account.
 */
const SIGN_IN_COOKIE = 'pw_signin';
const SIGN_IN_COOKIE_PATH = '/api/auth/google';

/** Where a refused callback sends the browser: the login page shows why (site/src/pages/login.astro). */
const SIGN_IN_FAILED = '/login#sign-in-failed';

const param = queryParam(z.string()).optional();
const StartQuery = z.object({ redirect: param });
/** What Google sends back; it may add parameters of its own (scope, authuser, prompt…), which are kept. */
const CallbackQuery = z.looseObject({ state: param, code: param, error: param });

function signInCookie(config: Config, value: string, maxAge: number) {
  return { value, maxAge, httpOnly: true, sameSite: 'lax' as const, secure: config.publicUrl.startsWith('https:'), path: SIGN_IN_COOKIE_PATH };
}

/** Plain http is only ever allowed for an issuer on this machine (the fake provider of the tests). */
export function isLoopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && (url.hostname === 'localhost' || url.hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(url.hostname));
}

/**
 * The provider's configuration, discovered on first use and kept for the life of the app.
 * A failed discovery is forgotten, so the next sign-in tries again.
 */
function discoveryOf(google: GoogleConfig) {
  const issuer = new URL(google.issuer);
  // Check the ID token's signature against the issuer's keys, not only TLS to the token endpoint.
  const execute = [oidc.enableNonRepudiationChecks];
  if (isLoopbackHttp(issuer)) execute.push(oidc.allowInsecureRequests);
  let pending: Promise<oidc.Configuration> | null = null;
  return () =>
    (pending ??= oidc.discovery(issuer, google.clientId, google.clientSecret, undefined, { execute, timeout: 10 }).catch((err) => {
      pending = null;
      console.error('Google sign-in: discovery failed:', err);
      throw new DomainError('Google sign-in is unavailable right now. Please try again in a moment.', 503);
    }));
}

/**
 * Sign-in with Google (OpenID Connect authorization code flow with state, nonce and PKCE),
 * mounted under /api. In demo mode the same entry point signs into the demo account, so the
 * login page's 'Continue with Google' works.
 */
export function googleRoutes(ctx: AppContext) {
  const google = ctx.config.google;
  const client = google ? discoveryOf(google) : null;

  return new Elysia({ prefix: '/auth/google' })
    .get(
      '/',
      async ({ query, cookie, redirect }) => {
        const to = safeRedirect(query.redirect);
        if (!google || !client) return redirect(`/api/auth/demo?redirect=${encodeURIComponent(to)}`, 302);
        const config = await client();
        const state = oidc.randomState();
        const nonce = oidc.randomNonce();
        const verifier = oidc.randomPKCECodeVerifier();
        const browser = oidc.randomState();
        // Forget abandoned sign-ins while we are here; the table stays tiny.
        await ctx.sql`DELETE FROM oauth_states WHERE created_at < now() - ${STATE_TTL}::interval`;
        await ctx.sql`INSERT INTO oauth_states (state, code_verifier, nonce, redirect_to, browser) VALUES (${state}, ${verifier}, ${nonce}, ${to}, ${browser})`;
        cookie[SIGN_IN_COOKIE]!.set(signInCookie(ctx.config, browser, STATE_TTL_SECONDS));
        const url = oidc.buildAuthorizationUrl(config, {
          redirect_uri: google.redirectUri,
          scope: 'openid email profile',
          state,
          nonce,
          code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
        });
        return redirect(url.href, 302);
      },
      { query: StartQuery },
    )

    .get(
      '/callback',
      async ({ request, query, cookie, redirect }) => {
        if (!google || !client) throw new DomainError('Not found', 404);
        const browser = cookie[SIGN_IN_COOKIE]!.value;
        cookie[SIGN_IN_COOKIE]!.set(signInCookie(ctx.config, '', 0));
        // Taken out in one statement, and only by the browser that started it: a replayed or
        // concurrent callback finds nothing, and one from another browser leaves it to its owner.
        const [pending] = query.state
          ? await ctx.sql<{ code_verifier: string; nonce: string; redirect_to: string; fresh: boolean }[]>`
            DELETE FROM oauth_states WHERE state = ${query.state} AND browser = ${typeof browser === 'string' ? browser : ''}
            RETURNING code_verifier, nonce, redirect_to, created_at > now() - ${STATE_TTL}::interval AS fresh`
          : [];
        // The user declined at Google (or Google refused): back to the page that offers sign-in.
        if (query.error) return redirect('/login', 302);
        // Someone else's sign-in opened in this browser (their link): refuse it, and leave it to them.
        if (!pending && query.state) {
          const [elsewhere] = await ctx.sql`SELECT 1 FROM oauth_states WHERE state = ${query.state} AND created_at > now() - ${STATE_TTL}::interval`;
          if (elsewhere) return redirect(SIGN_IN_FAILED, 302);
        }
        if (!pending?.fresh) throw new DomainError('This sign-in link has expired or was already used. Please sign in again.', 400);

        const config = await client();
        // The response came to our public callback address; build it from that, not from the proxy-facing URL.
        const current = new URL(google.redirectUri);
        current.search = new URL(request.url).search;
        let claims: oidc.IDToken;
        try {
          const tokens = await oidc.authorizationCodeGrant(config, current, {
            pkceCodeVerifier: pending.code_verifier,
            expectedState: query.state,
            expectedNonce: pending.nonce,
            idTokenExpected: true,
          });
          claims = tokens.claims()!;
        } catch (err) {
          const e = err as { message?: string; code?: string; cause?: { message?: string } };
          console.warn(`Google sign-in refused: ${e.cause?.message ?? e.message} (${e.code ?? 'no code'})`);
          throw new DomainError('Google sign-in could not be verified. Please sign in again.', 400);
        }

        if (claims.email_verified !== true || typeof claims.email !== 'string') {
          throw new DomainError('Your Google account has no verified e-mail address, so it cannot be used to sign in.', 403);
        }
        const text = (value: unknown) => (typeof value === 'string' && value ? value : null);
        const { token, expiresAt } = await signIn(ctx, {
          provider: 'google',
          subject: claims.sub,
          profile: { email: claims.email, firstName: text(claims.given_name), lastName: text(claims.family_name), profileImageUrl: text(claims.picture) },
        });
        cookie[SESSION_COOKIE]!.set(sessionCookie(ctx, token, expiresAt));
        return redirect(pending.redirect_to, 302);
      },
      { query: CallbackQuery },
    );
}
