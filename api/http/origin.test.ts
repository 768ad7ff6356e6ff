import { describe, expect, test } from 'bun:test';
import { Elysia } from 'elysia';
import { loadConfig } from '../config.ts';
import type { AppContext } from '../context.ts';
import { originCheck } from './origin.ts';

/** A state-changing route behind the check; the app sees the Host header as the request's URL. */
function appWith(env: Record<string, string>) {
  const ctx = { config: loadConfig({ NODE_ENV: 'test', PORT: '3000', ...env }) } as AppContext;
  return new Elysia()
    .use(originCheck(ctx))
    .post('/api/x', () => 'done')
    .get('/api/x', () => 'read');
}
const post = (app: ReturnType<typeof appWith>, url: string, headers: Record<string, string>) => app.handle(new Request(url, { method: 'POST', headers }));

describe('Origin check with PUBLIC_URL set', () => {
  const app = appWith({ PUBLIC_URL: 'https://pricewatch.example' });

  test('a forged Host matching a forged Origin is refused', async () => {
    const res = await post(app, 'http://evil.example/api/x', { origin: 'http://evil.example', host: 'evil.example' });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ message: 'Cross-site request refused.' });
  });

  test('the public origin is accepted, whatever Host the proxy passes on', async () => {
    for (const url of ['https://pricewatch.example/api/x', 'http://10.0.0.5:3000/api/x']) {
      const res = await post(app, url, { origin: 'https://pricewatch.example' });
      expect(res.status).toBe(200);
    }
  });

  test('a path in PUBLIC_URL does not change the origin', async () => {
    const under = appWith({ PUBLIC_URL: 'https://shop.example/pricewatch/' });
    expect((await post(under, 'https://shop.example/api/x', { origin: 'https://shop.example' })).status).toBe(200);
  });

  test('without Origin, Sec-Fetch-Site decides as before', async () => {
    expect((await post(app, 'http://evil.example/api/x', { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await post(app, 'http://evil.example/api/x', { 'sec-fetch-site': 'same-site' })).status).toBe(403);
    for (const headers of [{ 'sec-fetch-site': 'same-origin' }, { 'sec-fetch-site': 'none' }, {}] as Record<string, string>[]) {
      expect((await post(app, 'https://pricewatch.example/api/x', headers)).status).toBe(200);
    }
  });

  test('reads are never refused', async () => {
    const res = await app.handle(new Request('http://evil.example/api/x', { headers: { origin: 'http://evil.example' } }));
    expect(res.status).toBe(200);
  });
});

describe('Origin check without PUBLIC_URL (local use)', () => {
  const app = appWith({});

  test('the origin the request was made to is our own', async () => {
    expect((await post(app, 'http://127.0.0.1:3000/api/x', { origin: 'http://127.0.0.1:3000' })).status).toBe(200);
    expect((await post(app, 'http://localhost:3000/api/x', { origin: 'http://localhost:3000' })).status).toBe(200);
  });

  test('another origin is refused', async () => {
    expect((await post(app, 'http://localhost:3000/api/x', { origin: 'http://localhost:3001' })).status).toBe(403);
    expect((await post(app, 'http://localhost:3000/api/x', { origin: 'null' })).status).toBe(403);
  });
});
