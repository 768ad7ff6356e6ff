import { Elysia, t } from 'elysia';
import * as oidc from 'openid-client';
import type { AppContext } from '../context.ts';
import type { Config } from '../config.ts';
import { HttpError } from '../http/errors.ts';
import { sessionCookie } from './plugin.ts';
import { SESSION_COOKIE } from './sessions.ts';
import { signIn } from './sign-in.ts';
import { safeRedirect } from './redirect.ts';

type GoogleConfig = NonNullable<Config['google']>;

/** How long a started sign-in may take before its state is refused. */
const STATE_TTL = '10 minutes';

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
  return () => pending ??= oidc.discovery(issuer, google.clientId, google.clientSecret, undefined, { execute, timeout: 10 }).catch((err) => {
    pending = null;
    console.error('Google sign-in: discovery failed:', err);
    throw new HttpError(503, 'Google sign-in is unavailable right now. Please try again in a moment.');
  });
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
    .get('/', async ({ query, redirect }) => {
      const to = safeRedirect(query.redirect);
      if (!google || !client) return redirect(`/api/auth/demo?redirect=${encodeURIComponent(to)}`, 302);
      const config = await client();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const verifier = oidc.randomPKCECodeVerifier();
      // Forget abandoned sign-ins while we are here; the table stays tiny.
      await ctx.sql`DELETE FROM oauth_states WHERE created_at < now() - ${STATE_TTL}::interval`;
      await ctx.sql`INSERT INTO oauth_states (state, code_verifier, nonce, redirect_to) VALUES (${state}, ${verifier}, ${nonce}, ${to})`;
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: google.redirectUri,
        scope: 'openid email profile',
        state,
        nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      return redirect(url.href, 302);
    }, { query: t.Object({ redirect: t.Optional(t.String()) }) })

    .get('/callback', async ({ request, query, cookie, redirect }) => {
      if (!google || !client) throw new HttpError(404, 'Not found');
      // Taken out in one statement: a replayed or concurrent callback finds nothing.
      const [pending] = query.state
        ? await ctx.sql<{ code_verifier: string; nonce: string; redirect_to: string; fresh: boolean }[]>`
            DELETE FROM oauth_states WHERE state = ${query.state}
            RETURNING code_verifier, nonce, redirect_to, created_at > now() - ${STATE_TTL}::interval AS fresh`
        : [];
      // The user declined at Google (or Google refused): back to the page that offers sign-in.
      if (query.error) return redirect('/login', 302);
      if (!pending?.fresh) throw new HttpError(400, 'This sign-in link has expired or was already used. Please sign in again.');

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
        throw new HttpError(400, 'Google sign-in could not be verified. Please sign in again.');
      }

      if (claims.email_verified !== true || typeof claims.email !== 'string') {
        throw new HttpError(403, 'Your Google account has no verified e-mail address, so it cannot be used to sign in.');
      }
      const text = (value: unknown) => (typeof value === 'string' && value ? value : null);
      const { token, expiresAt } = await signIn(ctx, {
        provider: 'google',
        subject: claims.sub,
        profile: { email: claims.email, firstName: text(claims.given_name), lastName: text(claims.family_name), profileImageUrl: text(claims.picture) },
      });
      cookie[SESSION_COOKIE]!.set(sessionCookie(ctx, token, expiresAt));
      return redirect(pending.redirect_to, 302);
    }, { query: t.Object({ state: t.Optional(t.String()), code: t.Optional(t.String()), error: t.Optional(t.String()) }, { additionalProperties: true }) });
}
