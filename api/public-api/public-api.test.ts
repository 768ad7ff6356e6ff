import { describe, expect, test } from 'bun:test';
import { Elysia } from 'elysia';
import { usingPostgresServer } from '../testing/database.ts';
import { addProduct, failCheck, observed, observePrices } from '../testing/prices.ts';
import { endSubscription, startTrial } from '../testing/plans.ts';
import { errorHandling } from '../http/errors.ts';
import { appendingTransaction } from '../../events/store.ts';
import { publicApiRoutes } from './routes.ts';
import { hashKey } from './keys.ts';
import { useTestApp } from '../testing/app.ts';

const ORIGIN = 'http://localhost:3000';

const api = useTestApp({ PUBLIC_URL: ORIGIN });
const { request, signedIn } = api;

const keyCall = (cookie: string, method: 'GET' | 'POST' | 'DELETE') => request('/api/settings/api-key', { method, headers: { cookie, origin: ORIGIN } });

/** A Pro user (on a trial) with an API key. */
async function proUser() {
  const user = await signedIn();
  const subscriptionId = await startTrial(api.ctx, user.userId, 'pro');
  const res = await keyCall(user.cookie, 'POST');
  expect(res.status).toBe(200);
  const { key } = await res.json();
  return { ...user, key: key as string, subscriptionId };
}

const v1 = (key: string, path: string, handler: { handle: (r: Request) => Promise<Response> } = api.app) =>
  handler.handle(new Request(new URL(`/api/v1${path}`, ORIGIN), { headers: { authorization: `Bearer ${key}` } }));

describe('API keys (Settings > API Access)', () => {
  test('signed out: 401', async () => {
    expect((await request('/api/settings/api-key')).status).toBe(401);
  });

  test('a user without Pro sees why and cannot create a key', async () => {
    const { cookie, userId } = await signedIn();
    const status = await (await keyCall(cookie, 'GET')).json();
    expect(status).toEqual({ hasKey: false, maskedKey: null, createdAt: null, apiAccess: false, reason: expect.stringContaining('Pro plan') });
    const res = await keyCall(cookie, 'POST');
    expect(res.status).toBe(403);
    expect((await res.json()).message).toContain('your plan is Free');
    await startTrial(api.ctx, userId, 'growth');
    expect((await keyCall(cookie, 'POST')).status).toBe(403);
  });

  test('a Pro user gets the full key once; afterwards it is shown masked and stored only hashed', async () => {
    const { cookie, key, userId } = await proUser();
    expect(key).toMatch(/^pw_live_[A-Za-z0-9_-]{43}$/);
    const status = await (await keyCall(cookie, 'GET')).json();
    expect(status).toMatchObject({ hasKey: true, maskedKey: `pw_live_••••••••${key.slice(-4)}`, apiAccess: true, reason: null });
    expect(JSON.stringify(status)).not.toContain(key);
    const rows = await api.ctx.sql`SELECT * FROM api_keys WHERE user_id = ${userId}`;
    expect(rows).toHaveLength(1);
    expect(rows[0]!.key_hash).toBe(hashKey(key));
    expect(JSON.stringify(rows)).not.toContain(key.slice(8));
  });

  test('rotating replaces the key; revoking ends it: the old key is 401 at once', async () => {
    const { cookie, key } = await proUser();
    expect((await v1(key, '/products')).status).toBe(200);
    const rotated = await (await keyCall(cookie, 'POST')).json();
    expect(rotated.key).not.toBe(key);
    expect((await v1(key, '/products')).status).toBe(401);
    expect((await v1(rotated.key, '/products')).status).toBe(200);
    const revoked = await keyCall(cookie, 'DELETE');
    expect(await revoked.json()).toMatchObject({ hasKey: false, maskedKey: null });
    const res = await v1(rotated.key, '/products');
    expect(res.status).toBe(401);
    expect((await res.json()).message).toContain('revoked');
  });

  test('key changes are refused from another site', async () => {
    const { cookie } = await proUser();
    const res = await request('/api/settings/api-key', { method: 'POST', headers: { cookie, origin: 'https://evil.example' } });
    expect(res.status).toBe(403);
  });
});

describe('/api/v1', () => {
  test('without a key, with a malformed or unknown key: 401 with a way forward', async () => {
    const none = await request('/api/v1/products');
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect((await none.json()).message).toContain('Authorization: Bearer');
    expect((await v1('nonsense', '/products')).status).toBe(401);
    expect((await v1(`pw_live_${'a'.repeat(43)}`, '/products')).status).toBe(401);
  });

  test('a key whose owner is no longer on Pro: 403 saying why', async () => {
    const { key, userId, subscriptionId } = await proUser();
    await endSubscription(api.ctx, userId, subscriptionId);
    const res = await v1(key, '/products');
    expect(res.status).toBe(403);
    expect((await res.json()).message).toContain('Pro plan');
  });

  test("a key reads its owner's products, prices, alerts and events only", async () => {
    const owner = await proUser();
    const other = await proUser();
    const mine = await addProduct(api.ctx, owner.userId, { name: 'Mine' });
    const theirs = await addProduct(api.ctx, other.userId, { name: 'Theirs' });
    const t0 = Date.parse('2025-01-01T00:00:00Z');
    await observePrices(api.ctx, mine, owner.userId, [
      [10, new Date(t0)],
      [12, new Date(t0 + 3_600_000)],
      [11, new Date(t0 + 7_200_000)],
    ]);
    await observePrices(api.ctx, theirs, other.userId, [[99, new Date(t0)]]);
    await api.ctx.projections.catchUp();

    const products = await (await v1(owner.key, '/products')).json();
    expect(products.products.map((p: { name: string }) => p.name)).toEqual(['Mine']);
    expect(products.products[0]).toMatchObject({ id: mine, currentPrice: 11, currency: 'GBP' });

    const prices = await (await v1(owner.key, `/products/${mine}/prices`)).json();
    expect(prices.prices.map((p: { price: number }) => p.price)).toEqual([10, 12, 11]);
    const window = await (await v1(owner.key, `/products/${mine}/prices?from=2025-01-01T00:30:00Z&to=2025-01-01T02:00:00Z`)).json();
    expect(window.prices).toEqual([{ price: 12, currency: 'GBP', source: 'selector', observedAt: '2025-01-01T01:00:00.000Z' }]);
    const first = await (await v1(owner.key, `/products/${mine}/prices?limit=2`)).json();
    const rest = await (await v1(owner.key, `/products/${mine}/prices?limit=2&cursor=${first.next}`)).json();
    expect([...first.prices, ...rest.prices].map((p: { price: number }) => p.price)).toEqual([10, 12, 11]);
    expect(rest.next).toBeNull();

    expect((await v1(owner.key, `/products/${theirs}/prices`)).status).toBe(404);
    expect((await v1(owner.key, '/products/no-such-product/prices')).status).toBe(404);

    const events = await (await v1(owner.key, '/events?limit=1000')).json();
    expect(events.events.length).toBeGreaterThan(0);
    expect(events.events.every((e: { data: { userId: string } }) => e.data.userId === owner.userId)).toBe(true);
    expect(events.events.map((e: { type: string }) => e.type)).toEqual(
      expect.arrayContaining(['UserSignedUp', 'TrialStarted', 'ProductAdded', 'PriceObserved']),
    );

    const alerts = await v1(owner.key, '/alerts');
    expect(alerts.status).toBe(200);
    const { alerts: list } = await alerts.json();
    expect(list.every((a: { productId: string }) => a.productId === mine)).toBe(true);
  });

  test('bad input is 400 naming the field', async () => {
    const { key } = await proUser();
    const limit = await v1(key, '/events?limit=0');
    expect(limit.status).toBe(400);
    expect((await limit.json()).field).toBe('limit');
    const after = await v1(key, '/events?after=not-a-cursor');
    expect(after.status).toBe(400);
    expect((await after.json()).field).toBe('after');
    const product = await addProduct(api.ctx, (await signedIn()).userId);
    expect((await v1(key, `/products/${product}/prices?from=yesterday`)).status).toBe(400);
  });

  test('cursors and dates a JavaScript date takes but PostgreSQL does not are 400 naming the field; impossible ids 404', async () => {
    const { key, userId } = await proUser();
    const product = await addProduct(api.ctx, userId);
    await observePrices(api.ctx, product, userId, [[10, new Date(Date.now() - 60_000)]]);
    await api.ctx.projections.catchUp();
    const cursor = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
    const now = new Date().toISOString();
    const refused: [string, string][] = [
      [`/products/${product}/prices?cursor=${cursor([now, '1.5'])}`, 'cursor'],
      [`/products/${product}/prices?cursor=${cursor(['+275760-09-13T00:00:00.000Z', '1'])}`, 'cursor'],
      [`/products/${product}/prices?cursor=${cursor(['-000001-01-01T00:00:00.000Z', '1'])}`, 'cursor'],
      [`/products/${product}/prices?from=${encodeURIComponent('+275760-09-13T00:00:00.000Z')}`, 'from'],
      [`/products/${product}/prices?to=${encodeURIComponent('-000001-01-01T00:00:00.000Z')}`, 'to'],
      [`/alerts?cursor=${cursor([now, 'a\u0000'])}`, 'cursor'],
      [`/alerts?cursor=${cursor(['+275760-09-13T00:00:00.000Z', crypto.randomUUID()])}`, 'cursor'],
      ['/alerts?cursor=%00', 'cursor'],
      [`/events?after=${cursor('99999999999999999999.1')}`, 'after'],
    ];
    for (const [path, field] of refused) {
      const res = await v1(key, path);
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expect((await res.json()).field).toBe(field);
    }
    for (const id of ['%00', 'x', crypto.randomUUID().toUpperCase()]) {
      expect((await v1(key, `/products/${id}/prices`)).status).toBe(404);
    }
    // The first and the last year both write alike are still taken.
    const first = await (await v1(key, `/products/${product}/prices?from=0001-01-01T00:00:00Z&to=9999-12-31T00:00:00Z`)).json();
    expect(first.prices).toHaveLength(1);
  });

  test('alerts are listed newest first, in pages', async () => {
    const { key, userId } = await proUser();
    const product = await addProduct(api.ctx, userId);
    const t0 = Date.now() - 3 * 3_600_000;
    await observePrices(api.ctx, product, userId, [
      [100, new Date(t0)],
      [80, new Date(t0 + 3_600_000)],
      [60, new Date(t0 + 7_200_000)],
    ]);
    await api.ctx.reactors.catchUp();
    await api.ctx.projections.catchUp();
    const all = await (await v1(key, '/alerts')).json();
    expect(all.alerts.length).toBe(2);
    expect(all.alerts.map((a: { currentPrice: number }) => a.currentPrice)).toEqual([60, 80]);
    const page = await (await v1(key, '/alerts?limit=1')).json();
    const next = await (await v1(key, `/alerts?limit=1&cursor=${page.next}`)).json();
    expect([...page.alerts, ...next.alerts]).toEqual(all.alerts);
  });

  test('products carry their availability; stock alerts are listed with the prices they know', async () => {
    const { key, userId } = await proUser();
    const product = await addProduct(api.ctx, userId, { name: 'Mixer' });
    const t0 = Date.now() - 3 * 3_600_000;
    await api.ctx.store.append(`product-${product}`, 'any', [observed(product, userId, 25, new Date(t0), 'InStock')]);
    await failCheck(api.ctx, product, userId, new Date(t0 + 3_600_000), 'OutOfStock');
    await api.ctx.reactors.catchUp();
    await api.ctx.projections.catchUp();
    const { products } = await (await v1(key, '/products')).json();
    expect(products[0]).toMatchObject({ id: product, availability: 'OutOfStock', stockAlerts: true, currentPrice: 25 });
    const { alerts } = await (await v1(key, '/alerts')).json();
    expect(alerts).toEqual([
      expect.objectContaining({
        type: 'out_of_stock',
        message: 'Out of stock',
        previousPrice: 25,
        currentPrice: null,
        changePercent: null,
        thresholdPercent: null,
      }),
    ]);
  });

  test('a key has a rate limit, shared by every API process: 429 with Retry-After', async () => {
    const { key } = await proUser();
    // Two servers on one database, as two API processes are.
    const limited = new Elysia().use(errorHandling).use(publicApiRoutes(api.ctx, { rateLimit: { capacity: 2, perSecond: 0.5 } }));
    const elsewhere = new Elysia().use(errorHandling).use(publicApiRoutes(api.ctx, { rateLimit: { capacity: 2, perSecond: 0.5 } }));
    expect((await v1(key, '/products', limited)).status).toBe(200);
    expect((await v1(key, '/products', elsewhere)).status).toBe(200);
    expect((await v1(key, '/products', elsewhere)).status).toBe(429);
    const res = await v1(key, '/products', limited);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('2');
    expect((await res.json()).message).toContain('Try again in 2 s');
    // Another key has its own bucket.
    expect((await v1((await proUser()).key, '/products', limited)).status).toBe(200);
  });

  test('the event feed pages in commit order without skipping or repeating while others append', async () => {
    const { key, userId } = await proUser();
    const products = await Promise.all([1, 2, 3, 4].map(() => addProduct(api.ctx, userId)));
    const noise = await addProduct(api.ctx, (await signedIn()).userId);
    let writing = true;
    // On PostgreSQL, writers hold their transactions open for a while, so positions commit out of order.
    const writers = products.map(async (productId, w) => {
      for (let i = 0; i < (usingPostgresServer() ? 25 : 10); i++) {
        await appendingTransaction(api.ctx.sql, async (tx) => {
          // The transaction id is taken now (with the append lock), the position later.
          if (usingPostgresServer()) await Bun.sleep(Math.random() * 10);
          await api.ctx.store.append(
            `product-${productId}`,
            'any',
            [
              {
                type: 'PriceCheckFailed',
                data: {
                  productId,
                  userId,
                  code: 'timeout',
                  reason: `writer ${w} try ${i}`,
                  httpStatus: null,
                  url: 'https://shop.example.com/p',
                  attemptedAt: new Date().toISOString(),
                },
              },
            ],
            tx,
          );
          if (usingPostgresServer()) await Bun.sleep(Math.random() * 15);
        });
        if (i % 5 === 0) await failCheck(api.ctx, noise, 'someone-else', new Date());
      }
    });
    const done = Promise.all(writers).then(() => {
      writing = false;
    });
    const unlimited = new Elysia().use(errorHandling).use(publicApiRoutes(api.ctx, { rateLimit: { capacity: 1e9, perSecond: 1e9 } }));
    const seen: number[] = [];
    let after: string | undefined;
    for (let drained = false; !drained; ) {
      const stillWriting = writing;
      const page = await (await v1(key, `/events?limit=7${after ? `&after=${after}` : ''}`, unlimited)).json();
      seen.push(...page.events.map((e: { position: number }) => e.position));
      after = page.next;
      if (page.events.length === 0) {
        drained = !stillWriting;
        await Bun.sleep(5);
      }
    }
    await done;
    const expected = await api.ctx.sql<{ position: string }[]>`
      SELECT global_position AS position FROM events WHERE data->>'userId' = ${userId} ORDER BY transaction_id, global_position`;
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(expected.map((r) => Number(r.position)));
    // Overlapping writers took positions out of transaction order and committed out of position order.
    if (usingPostgresServer()) expect(seen.some((p, i) => i > 0 && p < seen[i - 1]!)).toBe(true);
  });
});

describe('/api/v1/events/stream', () => {
  async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, done: (text: string) => boolean, timeoutMs = 10_000) {
    const decoder = new TextDecoder();
    let text = '';
    const deadline = Date.now() + timeoutMs;
    while (!done(text)) {
      if (Date.now() > deadline) throw new Error(`stream did not deliver in time; got:\n${text}`);
      const chunk = await reader.read();
      if (chunk.done) return { text, ended: true };
      text += decoder.decode(chunk.value, { stream: true });
    }
    return { text, ended: false };
  }

  test("delivers the owner's events appended after connecting, then ends when the client goes", async () => {
    const { key, userId } = await proUser();
    const before = await addProduct(api.ctx, userId, { name: 'Before' });
    const res = await v1(key, '/events/stream');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reader = res.body!.getReader();
    const product = await addProduct(api.ctx, userId, { name: 'After' });
    await failCheck(api.ctx, product, userId, new Date());
    await addProduct(api.ctx, (await signedIn()).userId, { name: 'Someone else' });
    const { text } = await readUntil(reader, (t) => t.includes('event: PriceCheckFailed'));
    const events = text
      .split('\n\n')
      .filter((block) => block.startsWith('id: '))
      .map((block) => JSON.parse(block.split('\ndata: ')[1]!));
    expect(events.map((e) => e.type)).toEqual(['ProductAdded', 'PriceCheckFailed']);
    expect(events[0].data).toMatchObject({ productId: product, name: 'After' });
    expect(events.some((e) => e.data.productId === before)).toBe(false);
    expect(text).not.toContain('Someone else');
    await reader.cancel();
  });

  test('resumes after Last-Event-ID, sends heartbeats, and ends when its key is revoked', async () => {
    const { key, userId, cookie } = await proUser();
    const first = await addProduct(api.ctx, userId, { name: 'First' });
    const page = await (await v1(key, '/events?limit=1000')).json();
    const beforeFirst = page.events[page.events.length - 2].cursor;
    const quick = new Elysia().use(errorHandling).use(publicApiRoutes(api.ctx, { heartbeatMs: 50 }));
    const res = await quick.handle(
      new Request(new URL('/api/v1/events/stream', ORIGIN), { headers: { authorization: `Bearer ${key}`, 'last-event-id': beforeFirst } }),
    );
    const reader = res.body!.getReader();
    const { text } = await readUntil(reader, (t) => t.includes(': heartbeat'));
    expect(text).toContain(`"productId":"${first}"`);
    await keyCall(cookie, 'DELETE');
    const { ended } = await readUntil(reader, () => false);
    expect(ended).toBe(true);
  });

  /** A stream opened with `key` (the default 15 s heartbeat), read past its greeting. */
  async function openStream(key: string) {
    const reader = (await v1(key, '/events/stream')).body!.getReader();
    await readUntil(reader, (t) => t.includes(': connected'));
    return reader;
  }

  test('revoking or rotating a key ends its open streams at once; they deliver nothing after', async () => {
    for (const method of ['DELETE', 'POST'] as const) {
      const { key, userId, cookie } = await proUser();
      const streams = [await openStream(key), await openStream(key)];
      const started = Date.now();
      expect((await keyCall(cookie, method)).status).toBe(200);
      await addProduct(api.ctx, userId, { name: 'After the key changed' });
      for (const reader of streams) {
        expect(await readUntil(reader, () => false)).toEqual({ text: '', ended: true });
      }
      expect(Date.now() - started).toBeLessThan(500);
    }
  });

  test('a key revoked through another process: its stream delivers nothing more and ends', async () => {
    const { key, userId } = await proUser();
    const reader = await openStream(key);
    // As another API process revokes it: the row changes, and nothing in this process is told.
    await api.ctx.sql`UPDATE api_keys SET revoked_at = now() WHERE key_hash = ${hashKey(key)}`;
    await addProduct(api.ctx, userId, { name: 'After revoking' });
    expect(await readUntil(reader, () => false)).toEqual({ text: '', ended: true });
  });

  test('a stream of another key of the same process goes on', async () => {
    const revoked = await proUser(),
      kept = await proUser();
    const other = await openStream(kept.key);
    await openStream(revoked.key);
    await keyCall(revoked.cookie, 'DELETE');
    await addProduct(api.ctx, kept.userId, { name: 'Still delivered' });
    const { text } = await readUntil(other, (t) => t.includes('Still delivered'));
    expect(text).toContain('event: ProductAdded');
    await other.cancel();
  });
});

describe('/api/docs', () => {
  test('an OpenAPI 3.1 document of the public API only', async () => {
    const res = await request('/api/docs/json');
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc.openapi).toMatch(/^3\.1\./);
    expect(Object.keys(doc.paths).sort()).toEqual([
      '/api/v1/alerts',
      '/api/v1/catalogue',
      '/api/v1/catalogue/matches',
      '/api/v1/catalogue/position',
      '/api/v1/catalogue/recommendations',
      '/api/v1/catalogue/{id}',
      '/api/v1/catalogue/{id}/position-history',
      '/api/v1/catalogue/{id}/recommendation',
      '/api/v1/events',
      '/api/v1/events/stream',
      '/api/v1/products',
      '/api/v1/products/{id}/prices',
    ]);
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    const events = doc.paths['/api/v1/events'].get;
    expect(events.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['after', 'limit']);
    expect(JSON.stringify(events.responses['200'])).toContain('hasMore');
    const described = JSON.stringify(doc);
    for (const word of ['out_of_stock', 'back_in_stock', 'OutOfStock', 'stockAlerts']) expect(described).toContain(word);
  });

  test('a reference page at /api/docs', async () => {
    const res = await request('/api/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(await res.text()).toContain('/api/docs/json');
  });

  test('the reference page loads everything from the product itself: no other origin, no inline script', async () => {
    const html = await (await request('/api/docs')).text();
    const urls = [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
    expect(urls.length).toBeGreaterThan(2);
    for (const url of urls) expect(new URL(url, ORIGIN).origin).toBe(ORIGIN);
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    for (const url of urls.filter((u) => u.startsWith('/api/docs/'))) {
      const res = await request(url);
      expect(res.status).toBe(200);
      const text = await res.text();
      if (url.endsWith('.js') || url.endsWith('.css')) expect(text.length).toBeGreaterThan(url.endsWith('viewer.js') ? 50 : 10_000);
    }
    expect(await (await request('/api/docs/viewer.js')).text()).not.toMatch(/https?:/);
  });
});

describe('the shared rate limit under concurrent requests', () => {
  test('requests racing from several processes never take more than the bucket holds', async () => {
    const { key } = await proUser();
    const apps = [0, 1, 2].map(() => new Elysia().use(errorHandling).use(publicApiRoutes(api.ctx, { rateLimit: { capacity: 5, perSecond: 0.001 } })));
    const statuses = await Promise.all(Array.from({ length: 24 }, (_, i) => v1(key, '/products', apps[i % 3]).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(19);
  });
});
