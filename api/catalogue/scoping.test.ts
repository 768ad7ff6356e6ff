import { describe, expect, test } from 'bun:test';
import { useTestApp, type SignedIn } from '../testing/app.ts';
import { startTrial } from '../testing/plans.ts';
import { page, productsApi } from '../testing/products-api.ts';
import { importOwn, ownItem } from '../testing/own-catalogue.ts';
import { handleCommand } from '../../events/decider.ts';
import { sourceDecider, sourceStream } from '../../events/catalogue-source.ts';

/**
 * The catalogue's routes answer for the signed-in user's own things only: another user's own
 * product, store or competitor product is 404, like a missing one, and nothing is recorded.
 */

const api = useTestApp();
const { send, add, eventCount } = productsApi(api);

/** A user on a paid plan with an own product, a tracked competitor product linked to it, and a connected store. */
async function shopOwner(sku: string) {
  const user = await api.signedIn();
  await startTrial(api.ctx, user.userId, 'growth');
  const [own] = await importOwn(api.ctx, user.userId, [ownItem(`Kettle ${sku}`, 20, { sku })]);
  const competitor = (await add(user, page(`kettle-${sku.toLowerCase()}`))).id;
  expect((await send(user, 'PUT', `/api/catalogue/${own}/competitors/${competitor}`)).status).toBe(200);
  // Connected as the route records it; a real read of a store is the sources tests' business.
  const source = crypto.randomUUID();
  const connect = { type: 'Connect', sourceId: source, userId: user.userId, kind: 'shopify', url: `https://${sku.toLowerCase()}.shop.example/` } as const;
  const { appended } = await handleCommand(api.ctx.store, sourceStream(source), sourceDecider, connect);
  await api.ctx.projections.waitFor({ transactionId: appended!.transactionId, position: appended!.lastPosition });
  return { ...user, own: own!, competitor, source };
}

/** What `user` sees of their catalogue: the entry, its links, the stores and the suggestions. */
async function seen(user: SignedIn & { own: string }) {
  const read = async (path: string) => {
    const res = await send(user, 'GET', path);
    expect({ path, status: res.status }).toEqual({ path, status: 200 });
    return res.json();
  };
  const entry = await read(`/api/catalogue/${user.own}`);
  const sources = await read('/api/catalogue/sources');
  return {
    entry: { id: entry.id, price: entry.price, competitors: entry.competitors.map((c: { productId: string }) => c.productId) },
    sources: sources.map((s: { id: string; url: string }) => [s.id, s.url]),
    list: (await read('/api/catalogue')).map((e: { id: string }) => e.id),
    matches: await read('/api/catalogue/matches'),
  };
}

describe("another user's catalogue", () => {
  test("every route with A's own product, store or competitor product is 404 to B, and nothing changes", async () => {
    const a = await shopOwner('A-1');
    const b = await shopOwner('B-1');
    const aBefore = await seen(a);
    const bBefore = await seen(b);
    expect(aBefore.entry.competitors).toEqual([a.competitor]);
    expect(bBefore.list).toEqual([b.own]);

    const tries: [string, string, unknown?][] = [
      ['GET', `/api/catalogue/${a.own}`],
      ['DELETE', `/api/catalogue/${a.own}`],
      ['GET', `/api/catalogue/${a.own}/position-history`],
      ['GET', `/api/catalogue/${a.own}/position-history?timeFilter=all`],
      // A's own product with B's competitor, B's own product with A's, and A's with A's.
      ['PUT', `/api/catalogue/${a.own}/competitors/${b.competitor}`],
      ['DELETE', `/api/catalogue/${a.own}/competitors/${b.competitor}`],
      ['PUT', `/api/catalogue/${b.own}/competitors/${a.competitor}`],
      ['DELETE', `/api/catalogue/${b.own}/competitors/${a.competitor}`],
      ['PUT', `/api/catalogue/${a.own}/competitors/${a.competitor}`],
      ['DELETE', `/api/catalogue/${a.own}/competitors/${a.competitor}`],
      ...(['accept', 'reject'] as const).flatMap((decision): [string, string, unknown][] => [
        ['POST', '/api/catalogue/matches', { ownProductId: a.own, productId: b.competitor, decision }],
        ['POST', '/api/catalogue/matches', { ownProductId: b.own, productId: a.competitor, decision }],
        ['POST', '/api/catalogue/matches', { ownProductId: a.own, productId: a.competitor, decision }],
      ]),
      ['DELETE', `/api/catalogue/sources/${a.source}`],
      ['POST', `/api/catalogue/sources/${a.source}/sync`],
      // Ids of one kind where another is expected are not found either.
      ['DELETE', `/api/catalogue/sources/${b.own}`],
      ['GET', `/api/catalogue/${b.source}`],
      ['GET', `/api/catalogue/${b.competitor}`],
    ];
    const before = await eventCount();
    for (const [method, path, body] of tries) {
      const res = await send(b, method, path, body);
      expect({ method, path, body, status: res.status }).toEqual({ method, path, body, status: 404 });
      expect(typeof (await res.json()).message).toBe('string');
    }
    expect(await eventCount()).toBe(before);
    expect(await seen(a)).toEqual(aBefore);
    expect(await seen(b)).toEqual(bBefore);
  });

  test("B's lists, summary and suggestions hold nothing of A's", async () => {
    const a = await shopOwner('A-2');
    const b = await shopOwner('B-2');
    // A lookalike of B's kettle that only A tracks: never suggested to B.
    await add(a, page('kettle-b-2-lookalike', { name: 'Kettle B-2' }));
    const mine = await seen(b);
    expect(mine.list).toEqual([b.own]);
    expect(mine.sources.map(([id]: [string]) => id)).toEqual([b.source]);
    expect(JSON.stringify(mine.matches)).not.toContain(a.own);
    for (const id of [a.own, a.competitor, a.source]) expect(JSON.stringify(mine)).not.toContain(id);
    const position = await (await send(b, 'GET', '/api/position')).json();
    expect(position.cheapest + position.competitive + position.above + position.unpositioned).toBe(1);
  });
});

describe('signed out', () => {
  test('every catalogue route is 401', async () => {
    const id = crypto.randomUUID();
    const routes: [string, string, unknown?][] = [
      ['GET', '/api/catalogue'],
      ['GET', `/api/catalogue/${id}`],
      ['DELETE', `/api/catalogue/${id}`],
      ['GET', '/api/position'],
      ['GET', '/api/catalogue/sources'],
      ['POST', '/api/catalogue/sources', { kind: 'shopify', url: 'https://shop.example/' }],
      ['DELETE', `/api/catalogue/sources/${id}`],
      ['POST', `/api/catalogue/sources/${id}/sync`],
      ['GET', '/api/catalogue/matches'],
      ['POST', '/api/catalogue/matches', { ownProductId: id, productId: id, decision: 'accept' }],
      ['GET', '/api/catalogue/settings'],
      ['PUT', '/api/catalogue/settings', { competitivePercent: 5, autoAcceptGtin: false }],
      ['GET', `/api/catalogue/${id}/position-history?timeFilter=week`],
      ['PUT', `/api/catalogue/${id}/competitors/${id}`],
      ['DELETE', `/api/catalogue/${id}/competitors/${id}`],
    ];
    const before = await eventCount();
    for (const [method, path, body] of routes) {
      expect({ method, path, status: (await send(null, method, path, body)).status }).toEqual({ method, path, status: 401 });
    }
    const csv = await send(null, 'POST', '/api/catalogue/import', undefined, { text: 'sku,title,price,currency\nA,Kettle,20,GBP\n', type: 'text/csv' });
    expect(csv.status).toBe(401);
    expect(await eventCount()).toBe(before);
  });
});

describe('refused input', () => {
  test('a competitive percent beyond 20 is 400 naming competitivePercent', async () => {
    const user = await api.signedIn();
    const before = await eventCount();
    for (const competitivePercent of [25, -1, 20.5]) {
      const res = await send(user, 'PUT', '/api/catalogue/settings', { competitivePercent, autoAcceptGtin: false });
      expect({ competitivePercent, status: res.status }).toEqual({ competitivePercent, status: 400 });
      expect(await res.json()).toMatchObject({ field: 'competitivePercent', message: expect.stringContaining('from 0 to 20') });
    }
    const cap = await send(user, 'PUT', '/api/catalogue/settings', { competitivePercent: 5, autoAcceptGtin: false, dailyChangeCap: 0 });
    expect({ status: cap.status, field: ((await cap.json()) as { field?: string }).field }).toEqual({ status: 400, field: 'dailyChangeCap' });
    // The automatic mode is Pro's.
    const automatic = await send(user, 'PUT', '/api/catalogue/settings', { competitivePercent: 5, autoAcceptGtin: false, autoApply: true });
    expect(automatic.status).toBe(403);
    expect(await eventCount()).toBe(before);
    expect(await (await send(user, 'GET', '/api/catalogue/settings')).json()).toEqual({
      competitivePercent: 5,
      autoAcceptGtin: false,
      autoApply: false,
      dailyChangeCap: 2,
    });
  });

  test('a store on a loopback, private or metadata address, or no address at all, is 400 naming url', async () => {
    const user = await api.signedIn();
    await startTrial(api.ctx, user.userId, 'growth');
    const before = await eventCount();
    const refused = [
      'http://127.0.0.1/',
      'http://localhost:8080/products.json',
      'http://[::1]/',
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/',
      'http://192.168.1.1/',
      'http://172.16.0.1/',
      'http://0.0.0.0/',
      'not a url',
      'ftp://shop.example/feed.xml',
      'javascript:alert(1)',
    ];
    for (const url of refused) {
      const res = await send(user, 'POST', '/api/catalogue/sources', { kind: 'shopify', url });
      expect({ url, status: res.status }).toEqual({ url, status: 400 });
      expect((await res.json()).field).toBe('url');
    }
    for (const url of ['', '   ', 42, null]) {
      const res = await send(user, 'POST', '/api/catalogue/sources', { kind: 'merchant-feed', url });
      expect({ url, status: res.status }).toEqual({ url, status: 400 });
      expect((await res.json()).field).toBe('url');
    }
    const kind = await send(user, 'POST', '/api/catalogue/sources', { kind: 'magento', url: 'https://shop.example/' });
    expect(kind.status).toBe(400);
    expect((await kind.json()).field).toBe('kind');
    expect(await eventCount()).toBe(before);
    expect(await (await send(user, 'GET', '/api/catalogue/sources')).json()).toEqual([]);
  });

  test('on Free, connecting a store is 403 saying why', async () => {
    const user = await api.signedIn();
    const before = await eventCount();
    const res = await send(user, 'POST', '/api/catalogue/sources', { kind: 'shopify', url: 'https://shop.example/' });
    expect(res.status).toBe(403);
    expect((await res.json()).message).toContain('paid plan');
    expect(await eventCount()).toBe(before);
  });
});
