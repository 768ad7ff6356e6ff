import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../server.ts';
import { testContext, SETUP_TIMEOUT } from '../testing/database.ts';
import { signInDemo } from '../testing/sign-in.ts';
import { MAX_JSON_BODY } from './input.ts';

const ORIGIN = 'http://localhost:3000';

let ctx: Awaited<ReturnType<typeof testContext>>;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  const siteDir = mkdtempSync(join(tmpdir(), 'pricewatch-input-site-'));
  for (const page of ['index', 'dashboard', 'unauthorized', '404']) writeFileSync(join(siteDir, `${page}.html`), `<title>${page}</title>`);
  ctx = await testContext({ PUBLIC_URL: ORIGIN, SITE_DIR: siteDir });
  app = createApp(ctx);
}, SETUP_TIMEOUT);
afterAll(() => ctx.close());

const send = (path: string, init: RequestInit & { cookie?: string; type?: string } = {}) => {
  const headers = new Headers(init.headers);
  if (init.cookie) headers.set('cookie', init.cookie);
  if (init.type) headers.set('content-type', init.type);
  if (init.method && init.method !== 'GET') headers.set('origin', ORIGIN);
  return app.handle(new Request(new URL(path, ORIGIN), { ...init, headers }));
};
const eventCount = async () => Number((await ctx.sql`SELECT count(*) AS n FROM events`)[0]!.n);
const kettle = { name: 'Kettle', url: 'https://shop.example/kettle', selector: '.price', threshold: 'any' };

/** A body that counts what was read of it. */
function countedBody(bytes: number) {
  const chunk = new TextEncoder().encode(' '.repeat(64 * 1024));
  const read = { bytes: 0 };
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (read.bytes >= bytes) return controller.close();
        read.bytes += chunk.byteLength;
        controller.enqueue(chunk);
      },
    },
    { highWaterMark: 0 },
  ); // pulled only when someone reads
  return { body, read };
}

describe('session cookies that are not ours', () => {
  const malformed = ['pw_session=%00.x', 'pw_session=abc.%00', 'pw_session={}', 'pw_session=[1]', 'pw_session=123', 'pw_session=a.b.c', 'pw_session=%'];

  test('count as signed out: 401 on the API, the sign-in page on app pages, sign-out just redirects', async () => {
    for (const cookie of malformed) {
      const api = await send('/api/products', { cookie });
      expect({ cookie, status: api.status }).toEqual({ cookie, status: 401 });
      expect(await api.json()).toEqual({ message: 'Unauthorized' });
      expect(await (await send('/dashboard', { cookie })).text()).toBe('<title>unauthorized</title>');
      const logout = await send('/api/logout', { cookie });
      expect(logout.status).toBe(302);
      expect(logout.headers.get('location')).toBe('/');
    }
  });
});

describe('text the database cannot store', () => {
  test('a NUL or a lone surrogate in a product name or selector is 400 naming the field, on add and edit; nothing recorded', async () => {
    const { cookie } = await signInDemo(app, ORIGIN);
    const added = await send('/api/products', { method: 'POST', cookie, type: 'application/json', body: JSON.stringify(kettle) });
    expect(added.status).toBe(201);
    const { id } = await added.json();
    const before = await eventCount();
    for (const [field, value] of [
      ['name', 'Ket\u0000tle'],
      ['name', 'Kettle \ud800'],
      ['selector', '.price\u0000'],
      ['selector', '.price\udfff'],
    ] as const) {
      for (const [method, path, body] of [
        ['POST', '/api/products', { ...kettle, [field]: value }],
        ['PUT', `/api/products/${id}`, { ...kettle, threshold: 5, [field]: value }],
      ] as const) {
        const res = await send(path, { method, cookie, type: 'application/json', body: JSON.stringify(body) });
        expect({ method, field, status: res.status }).toEqual({ method, field, status: 400 });
        const error = await res.json();
        expect(error.field).toBe(field);
        expect(error.message).toStartWith(`${field}: `);
      }
    }
    expect(await eventCount()).toBe(before);
  });

  test('in an id it is not found; in a query it is 400 naming the parameter', async () => {
    const { cookie } = await signInDemo(app, ORIGIN);
    for (const [method, path] of [
      ['GET', '/api/price-history/detailed/%00'],
      ['POST', '/api/products/%00/check-price'],
      ['PATCH', '/api/alerts/%00/read'],
    ] as const) {
      const res = await send(path, { method, cookie });
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
    }
    const suggestions = await send('/api/price-suggestions', {
      method: 'POST',
      cookie,
      type: 'application/json',
      body: JSON.stringify({ productId: 'a\u0000', timeFilter: 'month' }),
    });
    expect(suggestions.status).toBe(400);
    expect((await suggestions.json()).field).toBe('productId');
    const demo = await send('/api/auth/demo?email=a%00@example.com');
    expect(demo.status).toBe(400);
    expect((await demo.json()).field).toBe('email');
  });
});

describe('request bodies', () => {
  test('over 1 MB with a declared length: 413 before a byte is read, even signed out', async () => {
    const { body, read } = countedBody(2 * MAX_JSON_BODY);
    const res = await send('/api/products', {
      method: 'POST',
      type: 'application/json',
      headers: { 'content-length': String(2 * MAX_JSON_BODY) },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect((await res.json()).message).toContain('1 MB');
    expect(read.bytes).toBe(0);
  });

  test('over 1 MB in chunks of unknown length: 413, reading stops just past the cap', async () => {
    const { cookie } = await signInDemo(app, ORIGIN);
    const before = await eventCount();
    const { body, read } = countedBody(8 * MAX_JSON_BODY);
    const res = await send('/api/products', { method: 'POST', cookie, type: 'application/json', body, duplex: 'half' } as RequestInit);
    expect(res.status).toBe(413);
    expect(read.bytes).toBeLessThan(MAX_JSON_BODY + 256 * 1024);
    expect(await eventCount()).toBe(before);
  });

  test('other content types: 415; no body where a route takes none still works', async () => {
    const { cookie } = await signInDemo(app, ORIGIN);
    const before = await eventCount();
    const form = new FormData();
    form.set('name', 'Kettle');
    for (const [body, type] of [
      ['name=Kettle', 'application/x-www-form-urlencoded'],
      [form, undefined],
      [JSON.stringify(kettle), 'text/plain'],
      [new TextEncoder().encode(JSON.stringify(kettle)), undefined],
    ] as const) {
      const res = await send('/api/products', { method: 'POST', cookie, type, body });
      expect(res.status).toBe(415);
      expect((await res.json()).message).toContain('application/json');
    }
    expect(await eventCount()).toBe(before);
    expect((await send('/api/notifications/mark-all-read', { method: 'POST', cookie })).status).toBe(200);
    expect((await send('/api/settings/api-key', { method: 'DELETE', cookie })).status).toBe(200);
    const charset = await send('/api/products', { method: 'POST', cookie, type: 'application/json; charset=utf-8', body: JSON.stringify(kettle) });
    expect(charset.status).toBe(201);
  });

  test('nested deeper than any body the API takes: 400', async () => {
    const { cookie } = await signInDemo(app, ORIGIN);
    const res = await send('/api/products', {
      method: 'POST',
      cookie,
      type: 'application/json',
      body: JSON.stringify({ ...kettle, name: JSON.parse('['.repeat(1000) + ']'.repeat(1000)) }),
    });
    expect(res.status).toBe(400);
    expect((await res.json()).message).toContain('nested');
  });
});

test("an unknown API path is a JSON 404 for every method; unknown pages stay the site's", async () => {
  for (const method of ['GET', 'POST', 'DELETE']) {
    const res = await send('/api/no-such-thing', { method });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: 'Not found' });
  }
  const page = await send('/no-such-page');
  expect(page.status).toBe(404);
  expect(await page.text()).toBe('<title>404</title>');
});
