import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { createApp } from '../server.ts';
import { SETUP_TIMEOUT, testContext } from '../testing/database.ts';
import { startFakeOidc, type FakeOidc } from '../testing/fake-oidc.ts';
import { userIdFor } from './sign-in.ts';

const ORIGIN = 'http://localhost:3000';
const CLIENT = { clientId: 'pricewatch-test.apps.example', clientSecret: 'test-secret' };

let fake: FakeOidc;
let ctx: Awaited<ReturnType<typeof testContext>>;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  fake = await startFakeOidc(CLIENT);
  ctx = await testContext({ PUBLIC_URL: ORIGIN, GOOGLE_CLIENT_ID: CLIENT.clientId, GOOGLE_CLIENT_SECRET: CLIENT.clientSecret, GOOGLE_ISSUER: fake.issuer });
  app = createApp(ctx);
}, SETUP_TIMEOUT);
afterAll(async () => {
  await ctx.close();
  fake.stop();
});
afterEach(() => fake.reset());

const get = (path: string, cookie?: string) => app.handle(new Request(new URL(path, ORIGIN), { headers: cookie ? { cookie } : {} }));

const sessionOf = (res: Response) => res.headers.get('set-cookie')?.match(/pw_session=([^;]+)/)?.[1];
/** The sign-in cookie as the browser sends it back. */
const signInCookieOf = (res: Response) => `pw_signin=${res.headers.get('set-cookie')?.match(/pw_signin=([^;]*)/)?.[1]}`;

const countSessions = async () => Number((await ctx.sql`SELECT count(*)::int AS n FROM sessions`)[0]!.n);

/** The browser's first step and the provider's answer: the callback link, not yet followed. */
async function startAtProvider(redirect = '/products') {
  const start = await get(`/api/auth/google?redirect=${encodeURIComponent(redirect)}`);
  expect(start.status).toBe(302);
  const authorize = new URL(start.headers.get('location')!);
  const atProvider = await fetch(authorize, { redirect: 'manual' });
  expect(atProvider.status).toBe(302);
  return { start, authorize, callback: new URL(atProvider.headers.get('location')!), browser: signInCookieOf(start) };
}

/** The browser's round trip: our start URL, the provider's authorize endpoint, our callback. */
async function roundTrip(redirect = '/products') {
  const { authorize, callback, browser } = await startAtProvider(redirect);
  const done = await get(callback.href, browser);
  return { authorize, callback, done };
}

async function expectRefused(status = 400) {
  const before = await countSessions();
  const { done } = await roundTrip();
  expect(done.status).toBe(status);
  expect(sessionOf(done)).toBeUndefined();
  expect((await done.json()).message).toBeString();
  expect(await countSessions()).toBe(before);
}

describe('Google sign-in against an OpenID provider', () => {
  test('the authorization request carries state, nonce and an S256 PKCE challenge', async () => {
    const { authorize } = await roundTrip();
    expect(authorize.origin + authorize.pathname).toBe(`${fake.issuer}/authorize`);
    const q = authorize.searchParams;
    expect(q.get('client_id')).toBe(CLIENT.clientId);
    expect(q.get('redirect_uri')).toBe(`${ORIGIN}/api/auth/google/callback`);
    expect(q.get('response_type')).toBe('code');
    expect(q.get('scope')).toBe('openid email profile');
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(q.get('state')).toBeTruthy();
    expect(q.get('nonce')).toBeTruthy();
    // The verifier never leaves the server.
    expect(q.has('code_verifier')).toBe(false);
    const [row] = await ctx.sql`SELECT code_verifier, nonce, redirect_to FROM oauth_states WHERE state = ${q.get('state')}`;
    expect(row).toBeUndefined(); // used by the callback
  });

  test('signs in, sets the session cookie, returns to the original page with the Google profile', async () => {
    const { done } = await roundTrip('/price-history?product=7');
    expect(done.status).toBe(302);
    expect(done.headers.get('location')).toBe('/price-history?product=7');
    const cookie = done.headers.get('set-cookie')!;
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    const token = sessionOf(done)!;
    const me = await get('/api/auth/user', `pw_session=${token}`);
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({
      id: await userIdFor('google', fake.user.sub),
      email: 'ada@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      profileImageUrl: 'https://lh3.googleusercontent.com/a/ada',
      authProvider: 'google',
    });
  });

  test('a returning user keeps their id; a changed profile is recorded, an unchanged one is not', async () => {
    fake.user = { ...fake.user, sub: 'returning-1', email: 'grace@example.com', given_name: 'Grace' };
    await roundTrip();
    await roundTrip();
    fake.user = { ...fake.user, given_name: 'Gracie' };
    const { done } = await roundTrip();
    const id = await userIdFor('google', 'returning-1');
    const { events } = await ctx.store.readStream(`user-${id}`);
    expect(events.map((e) => e.type)).toEqual(['UserSignedUp', 'UserProfileUpdated']);
    const me = await (await get('/api/auth/user', `pw_session=${sessionOf(done)}`)).json();
    expect(me).toMatchObject({ id, firstName: 'Gracie' });
  });

  test('a foreign redirect falls back to /', async () => {
    const { done } = await roundTrip('//evil.com/x');
    expect(done.headers.get('location')).toBe('/');
  });

  test('an ID token signed with another key is refused', async () => {
    fake.misbehave = { badSignature: true };
    await expectRefused();
  });

  test('an ID token for another audience is refused', async () => {
    fake.misbehave = { audience: 'someone-else.apps.example' };
    await expectRefused();
  });

  test('an expired ID token is refused', async () => {
    fake.misbehave = { expired: true };
    await expectRefused();
  });

  test('an ID token with another nonce is refused', async () => {
    fake.misbehave = { nonce: 'not-the-one-we-sent' };
    await expectRefused();
  });

  test('an unverified e-mail address is refused', async () => {
    fake.user = { ...fake.user, email_verified: false };
    await expectRefused(403);
  });

  test('a replayed callback is refused', async () => {
    const { callback, done } = await roundTrip();
    expect(done.status).toBe(302);
    const before = await countSessions();
    const replay = await app.handle(new Request(callback));
    expect(replay.status).toBe(400);
    expect(sessionOf(replay)).toBeUndefined();
    expect(await countSessions()).toBe(before);
  });

  test('an unknown or missing state is refused without calling the provider', async () => {
    for (const query of ['?code=abc&state=made-up', '?code=abc']) {
      const res = await get(`/api/auth/google/callback${query}`);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ message: 'This sign-in link has expired or was already used. Please sign in again.' });
    }
    expect(fake.tokenRequests).toBe(0);
  });

  test('a state older than 10 minutes is refused', async () => {
    const { authorize, callback, browser } = await startAtProvider('/alerts');
    await ctx.sql`UPDATE oauth_states SET created_at = now() - interval '11 minutes' WHERE state = ${authorize.searchParams.get('state')}`;
    const res = await get(callback.href, browser);
    expect(res.status).toBe(400);
    expect(fake.tokenRequests).toBe(0);
  });

  test('the start sets a short-lived HttpOnly SameSite=Lax sign-in cookie; the callback clears it', async () => {
    const { start, callback, browser } = await startAtProvider();
    const set = start.headers.get('set-cookie')!;
    expect(set).toMatch(/^pw_signin=[\w-]{43};/);
    for (const part of ['Max-Age=600', 'Path=/api/auth/google', 'HttpOnly', 'SameSite=Lax']) expect(set).toContain(part);
    expect(set).not.toContain('Secure');
    const [row] = await ctx.sql`SELECT browser FROM oauth_states WHERE state = ${callback.searchParams.get('state')}`;
    expect(`pw_signin=${row!.browser}`).toBe(browser);
    const done = await get(callback.href, browser);
    expect(done.status).toBe(302);
    expect(done.headers.get('set-cookie')).toContain('pw_signin=; Max-Age=0; Path=/api/auth/google');
  });

  test('the sign-in cookie is Secure when the public address is https', async () => {
    const https = createApp({ ...ctx, config: { ...ctx.config, publicUrl: 'https://pricewatch.example' } });
    const start = await https.handle(new Request('https://pricewatch.example/api/auth/google'));
    expect(start.status).toBe(302);
    expect(start.headers.get('set-cookie')).toContain('Secure');
  });

  test('a callback link started in another browser signs no one in and sends the visitor to the login page', async () => {
    // Someone starts a sign-in with their own account and sends the callback link to a victim.
    fake.user = { ...fake.user, sub: 'attacker-1', email: 'mallory@example.com' };
    const attacker = await startAtProvider('/settings');
    const before = await countSessions();
    for (const victim of [undefined, 'pw_signin=', (await startAtProvider()).browser]) {
      const res = await get(attacker.callback.href, victim);
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/login#sign-in-failed');
      expect(sessionOf(res)).toBeUndefined();
    }
    expect(await countSessions()).toBe(before);
    expect(fake.tokenRequests).toBe(0);
    // The sign-in stays its starter's own: their browser can still finish it.
    const own = await get(attacker.callback.href, attacker.browser);
    expect(own.status).toBe(302);
    expect(own.headers.get('location')).toBe('/settings');
    expect(sessionOf(own)).toBeString();
  });

  test('declining at Google returns to the login page', async () => {
    fake.misbehave = { deny: true };
    const { callback, done } = await roundTrip();
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(done.status).toBe(302);
    expect(done.headers.get('location')).toBe('/login');
    expect(sessionOf(done)).toBeUndefined();
  });

  test('discovery happens once; a failed discovery is retried on the next sign-in', async () => {
    // A fresh app has not discovered yet.
    const other = createApp(ctx);
    const before = fake.discoveryRequests;
    fake.misbehave = { failDiscovery: true };
    const failed = await other.handle(new Request(`${ORIGIN}/api/auth/google`));
    expect(failed.status).toBe(503);
    expect((await failed.json()).message).toBe('Google sign-in is unavailable right now. Please try again in a moment.');
    fake.misbehave = {};
    expect((await other.handle(new Request(`${ORIGIN}/api/auth/google`))).status).toBe(302);
    expect((await other.handle(new Request(`${ORIGIN}/api/auth/google`))).status).toBe(302);
    expect(fake.discoveryRequests - before).toBe(2);
  });

  test('the demo sign-in is switched off when Google is configured', async () => {
    expect((await get('/api/auth/demo')).status).toBe(404);
    const login = await get('/api/login?redirect=/alerts');
    expect(login.headers.get('location')).toBe('/api/auth/google?redirect=%2Falerts');
  });
});
