import { describe, expect, test } from 'bun:test';
import { loadConfig } from '../config.ts';
import { DEFAULT_SETTINGS } from '../../events/catalogue.ts';
import { createSessionStore } from './sessions.ts';
import { isLoopbackHttp } from './google.ts';
import { safeRedirect } from './redirect.ts';
import { useTestApp } from '../testing/app.ts';

const ORIGIN = 'http://localhost:3000';
const DAY = 86_400_000;

const api = useTestApp({ PUBLIC_URL: ORIGIN });
const { request } = api;

const get = (path: string, cookie?: string) => request(path, { headers: cookie ? { cookie } : {} });
const tokenOf = (res: Response) => res.headers.get('set-cookie')?.match(/pw_session=([^;]*)/)?.[1];

async function demoSignIn(query = '') {
  const res = await get(`/api/auth/demo${query}`);
  expect(res.status).toBe(302);
  const token = tokenOf(res)!;
  expect(token).toBeTruthy();
  return { res, token, cookie: `pw_session=${token}` };
}

const sha256 = async (text: string) => new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));

describe('sessions', () => {
  test('a token is <id>.<secret> and only the SHA-256 of the secret is stored', async () => {
    const { token, session } = await api.ctx.sessions.create('user-a');
    expect(token).toMatch(/^[\w-]{20}\.[\w-]{32}$/);
    const [id, secret] = token.split('.') as [string, string];
    expect(session.id).toBe(id);
    const rows = await api.ctx.sql`SELECT * FROM sessions WHERE id = ${id}`;
    expect(rows).toHaveLength(1);
    const row = rows[0]!;
    expect(new Uint8Array(row.secret_hash)).toEqual(await sha256(secret));
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(row.user_id).toBe('user-a');
  });

  test('a wrong or malformed secret is refused', async () => {
    const { token } = await api.ctx.sessions.create('user-a');
    const [id, secret] = token.split('.') as [string, string];
    expect(await api.ctx.sessions.validate(token)).toMatchObject({ id, userId: 'user-a' });
    const wrong = secret.slice(0, -1) + (secret.endsWith('A') ? 'B' : 'A');
    for (const bad of [`${id}.${wrong}`, `${id}.`, id, `${id}.${secret}.x`, `nope.${secret}`, '', undefined, null]) {
      expect(await api.ctx.sessions.validate(bad)).toBeNull();
    }
  });

  test('an expired session is refused and deleted', async () => {
    let now = Date.UTC(2026, 0, 1);
    const sessions = createSessionStore(api.ctx.sql, { lifetimeDays: 30, now: () => now });
    const { token, session } = await sessions.create('user-b');
    now += 30 * DAY + 1;
    expect(await sessions.validate(token)).toBeNull();
    expect(await api.ctx.sql`SELECT 1 FROM sessions WHERE id = ${session.id}`).toHaveLength(0);
  });

  test('the expiry slides forward once less than half the lifetime is left', async () => {
    const start = Date.UTC(2026, 0, 1);
    let now = start;
    const sessions = createSessionStore(api.ctx.sql, { lifetimeDays: 30, now: () => now });
    const { token, session } = await sessions.create('user-c');
    expect(session.expiresAt.getTime()).toBe(start + 30 * DAY);
    now = start + 10 * DAY;
    expect((await sessions.validate(token))!.expiresAt.getTime()).toBe(start + 30 * DAY);
    now = start + 20 * DAY;
    expect((await sessions.validate(token))!.expiresAt.getTime()).toBe(start + 50 * DAY);
    const [row] = await api.ctx.sql`SELECT expires_at FROM sessions WHERE id = ${session.id}`;
    expect(row!.expires_at.getTime()).toBe(start + 50 * DAY);
    now = start + 49 * DAY;
    expect(await sessions.validate(token)).not.toBeNull();
  });

  test('a renewed expiry reaches the browser cookie', async () => {
    const { token } = await demoSignIn();
    await api.ctx.sql`UPDATE sessions SET expires_at = now() + interval '1 day' WHERE id = ${token.split('.')[0]!}`;
    const res = await get('/api/auth/user', `pw_session=${token}`);
    expect(res.status).toBe(200);
    const expires = res.headers.get('set-cookie')!.match(/Expires=([^;]+)/i)![1]!;
    expect(new Date(expires).getTime()).toBeGreaterThan(Date.now() + 29 * DAY);
  });

  test('logout deletes the session and clears the cookie', async () => {
    const { token, cookie } = await demoSignIn();
    const res = await get('/api/logout', cookie);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/');
    const cleared = res.headers.get('set-cookie')!;
    expect(cleared).toStartWith('pw_session=;');
    expect(cleared).toContain('Max-Age=0');
    expect(await api.ctx.sql`SELECT 1 FROM sessions WHERE id = ${token.split('.')[0]!}`).toHaveLength(0);
    expect((await get('/api/auth/user', cookie)).status).toBe(401);
  });

  test('logout from our own pages (or typed in) signs out; from another site it changes nothing', async () => {
    for (const site of ['same-origin', 'none']) {
      const { token, cookie } = await demoSignIn();
      const res = await request('/api/logout', { headers: { cookie, 'sec-fetch-site': site } });
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/');
      expect(await api.ctx.sql`SELECT 1 FROM sessions WHERE id = ${token.split('.')[0]!}`).toHaveLength(0);
    }
    const { token, cookie } = await demoSignIn();
    const res = await request('/api/logout', { headers: { cookie, 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'navigate' } });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/');
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(await api.ctx.sql`SELECT 1 FROM sessions WHERE id = ${token.split('.')[0]!}`).toHaveLength(1);
    expect((await get('/api/auth/user', cookie)).status).toBe(200);
  });
});

describe('GET /api/auth/user', () => {
  test('signed out: 401 {"message":"Unauthorized"}', async () => {
    for (const cookie of [undefined, 'pw_session=garbage', 'pw_session=abc.def']) {
      const res = await get('/api/auth/user', cookie);
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(await res.text()).toBe('{"message":"Unauthorized"}');
    }
  });

  test('signed in: the current user', async () => {
    const { cookie } = await demoSignIn();
    const res = await get('/api/auth/user', cookie);
    expect(res.status).toBe(200);
    const user = await res.json();
    expect(Object.keys(user).sort()).toEqual([
      'authProvider',
      'currency',
      'email',
      'firstName',
      'id',
      'lastName',
      'plan',
      'profileImageUrl',
      'subscriptionPlan',
      'timezone',
    ]);
    expect(user).toMatchObject({
      email: 'demo@pricewatch.local',
      firstName: 'Demo',
      lastName: 'User',
      profileImageUrl: null,
      plan: 'free',
      subscriptionPlan: null,
      authProvider: 'demo',
      timezone: 'Europe/London',
      currency: 'GBP',
    });
    expect(user.id).toMatch(/^[0-9a-f]{32}$/);
  });

  test('the current user carries the time zone and currency of their settings', async () => {
    const { cookie } = await demoSignIn('?email=tz@example.com');
    const settings = {
      emailNotifications: true,
      priceDropAlerts: true,
      weeklyReports: false,
      checkFrequency: 'daily',
      currency: 'USD',
      timezone: 'America/New_York',
    };
    const put = await request('/api/settings', {
      method: 'PUT',
      headers: { cookie, origin: ORIGIN, 'content-type': 'application/json' },
      body: JSON.stringify(settings),
    });
    expect(put.status).toBe(200);
    expect(await (await get('/api/auth/user', cookie)).json()).toMatchObject({ timezone: 'America/New_York', currency: 'USD' });
  });
});

describe('demo sign-in', () => {
  test('/api/login goes to the demo sign-in, keeping a safe redirect', async () => {
    const res = await get('/api/login?redirect=/alerts');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/api/auth/demo?redirect=%2Falerts');
    expect((await get('/api/login')).headers.get('location')).toBe('/api/auth/demo?redirect=%2F');
  });

  test("'Continue with Google' signs into the demo account", async () => {
    const res = await get('/api/auth/google?redirect=/products');
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/api/auth/demo?redirect=%2Fproducts');
    expect((await get('/api/auth/google/callback?code=x&state=y')).status).toBe(404);
  });

  test('signs in and returns to the requested page with an HttpOnly, SameSite=Lax cookie', async () => {
    const { res } = await demoSignIn('?redirect=' + encodeURIComponent('/price-history?product=3#chart'));
    expect(res.headers.get('location')).toBe('/price-history?product=3#chart');
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).toContain('Path=/');
    expect(cookie).not.toContain('Secure'); // not in production
  });

  test('redirects to other origins fall back to /', async () => {
    for (const target of ['//evil.com', 'https://evil.com', '/\\evil.com', '/\\/evil.com', 'javascript:alert(1)', 'evil.com', '']) {
      const { res } = await demoSignIn(`?redirect=${encodeURIComponent(target)}`);
      expect(res.headers.get('location')).toBe('/');
    }
    expect(safeRedirect('/ok?a=1')).toBe('/ok?a=1');
    expect(safeRedirect(['/x'])).toBe('/');
  });

  test('email picks another user: two users side by side', async () => {
    const a = await demoSignIn('?email=alice@example.com');
    const b = await demoSignIn('?email=' + encodeURIComponent(' Bob@Example.com '));
    const alice = await (await get('/api/auth/user', a.cookie)).json();
    const bob = await (await get('/api/auth/user', b.cookie)).json();
    expect(alice).toMatchObject({ email: 'alice@example.com', firstName: 'Alice' });
    expect(bob).toMatchObject({ email: 'bob@example.com', firstName: 'Bob' });
    expect(alice.id).not.toBe(bob.id);
  });

  test('a bad email answers 400 naming the field and signs no one in', async () => {
    const before = (await api.ctx.sql`SELECT count(*)::int AS n FROM sessions`)[0]!.n;
    for (const email of ['not-an-email', 'a@b', 'x'.repeat(250) + '@example.com']) {
      const res = await get(`/api/auth/demo?email=${encodeURIComponent(email)}`);
      expect(res.status).toBe(400);
      expect(res.headers.get('set-cookie')).toBeNull();
      expect((await res.json()).field).toBe('email');
    }
    expect((await api.ctx.sql`SELECT count(*)::int AS n FROM sessions`)[0]!.n).toBe(before);
  });

  test('UserSignedUp is recorded once across two sign-ins', async () => {
    const first = await demoSignIn('?email=carol@example.com');
    const second = await demoSignIn('?email=carol@example.com');
    expect(first.token).not.toBe(second.token);
    const { id } = await (await get('/api/auth/user', second.cookie)).json();
    const { events } = await api.ctx.store.readStream(`user-${id}`);
    expect(events.map((e) => e.type)).toEqual(['UserSignedUp']);
    expect(events[0]!.data).toMatchObject({ userId: id, provider: 'demo', email: 'carol@example.com' });
  });

  test('is off when Google is configured, and production without Google does not start', async () => {
    expect(loadConfig({ GOOGLE_CLIENT_ID: 'id', GOOGLE_CLIENT_SECRET: 's' }).demo).toBe(false);
    expect(loadConfig({}).demo).toBe(true);
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/GOOGLE_CLIENT_ID/);
    // Production also needs real billing (api/billing/demo.test.ts).
    const stripe = {
      STRIPE_SECRET_KEY: 'sk',
      STRIPE_PUBLISHABLE_KEY: 'pk',
      STRIPE_WEBHOOK_SECRET: 'whsec',
      STRIPE_PRICE_STARTER: 'price_s',
      STRIPE_PRICE_GROWTH: 'price_g',
      STRIPE_PRICE_PRO: 'price_p',
    };
    const prod = loadConfig({ NODE_ENV: 'production', GOOGLE_CLIENT_ID: 'id', GOOGLE_CLIENT_SECRET: 's', PUBLIC_URL: 'https://pricewatch.example', ...stripe });
    expect(prod).toMatchObject({
      demo: false,
      google: { redirectUri: 'https://pricewatch.example/api/auth/google/callback', issuer: 'https://accounts.google.com' },
    });
  });
});

describe('insecure provider connections', () => {
  test('plain http is allowed only for an issuer on loopback', () => {
    for (const url of ['http://127.0.0.1:4000', 'http://localhost:4000', 'http://[::1]:4000']) expect(isLoopbackHttp(new URL(url))).toBe(true);
    for (const url of ['https://accounts.google.com', 'http://accounts.google.com', 'http://127.0.0.1.nip.io', 'http://10.0.0.1', 'https://127.0.0.1']) {
      expect(isLoopbackHttp(new URL(url))).toBe(false);
    }
  });
});

describe('Origin check on state-changing requests', () => {
  const settings = { ...DEFAULT_SETTINGS, currency: 'EUR' as const };
  const put = (cookie: string, headers: Record<string, string>, body: unknown = settings) =>
    request('/api/settings', { method: 'PUT', headers: { cookie, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  test('a foreign Origin is refused with 403 and changes nothing', async () => {
    const { cookie } = await demoSignIn('?email=origin@example.com');
    const foreign: Record<string, string>[] = [
      { origin: 'https://evil.com' },
      { origin: 'null' },
      { 'sec-fetch-site': 'cross-site' },
      { origin: 'http://localhost:3001' },
    ];
    for (const headers of foreign) {
      const res = await put(cookie, headers);
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual({ message: 'Cross-site request refused.' });
    }
    const { id } = await (await get('/api/auth/user', cookie)).json();
    expect((await api.ctx.store.readStream(`user-${id}`)).events.map((e) => e.type)).toEqual(['UserSignedUp']);
  });

  test('our own Origin is accepted', async () => {
    const { cookie } = await demoSignIn('?email=origin2@example.com');
    expect((await put(cookie, { origin: ORIGIN, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    expect(await (await get('/api/settings', cookie)).json()).toEqual(settings);
  });

  test('GET is never blocked', async () => {
    const { cookie } = await demoSignIn('?email=origin2@example.com');
    const res = await request('/api/settings', { headers: { cookie, origin: 'https://evil.com', 'sec-fetch-site': 'cross-site' } });
    expect(res.status).toBe(200);
  });
});
