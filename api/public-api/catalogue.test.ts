import { describe, expect, test } from 'bun:test';
import { useTestApp } from '../testing/app.ts';
import { endSubscription, startTrial } from '../testing/plans.ts';
import { addProduct, observePrices } from '../testing/prices.ts';
import { handleCommand } from '../../events/decider.ts';
import type { PricingRule } from '../../domain/pricing.ts';
import { ownProductDecider, ownProductIdFor, ownProductStream, type OwnProductCommand } from '../../events/own-product.ts';

/** The own catalogue in the public API: the reads of /api/catalogue under /api/v1/catalogue. */

const ORIGIN = 'http://localhost:3000';
const api = useTestApp({ PUBLIC_URL: ORIGIN });

const v1 = (key: string | null, path: string) => api.request(`/api/v1${path}`, { headers: key === null ? {} : { authorization: `Bearer ${key}` } });

/** A signed-in user on `plan` (a trial), with an API key when the plan has the API. */
async function user(plan: 'growth' | 'pro' = 'pro') {
  const signed = await api.signedIn();
  const subscriptionId = await startTrial(api.ctx, signed.userId, plan);
  if (plan !== 'pro') return { ...signed, subscriptionId, key: null };
  const res = await api.request('/api/settings/api-key', { method: 'POST', headers: { cookie: signed.cookie, origin: ORIGIN } });
  expect(res.status).toBe(200);
  return { ...signed, subscriptionId, key: (await res.json()).key as string };
}

async function own(command: OwnProductCommand) {
  const { appended } = await handleCommand(api.ctx.store, ownProductStream(command.ownProductId), ownProductDecider, command);
  if (appended) await api.ctx.projections.waitFor({ transactionId: appended.transactionId, position: appended.lastPosition });
}

/** An own product from a CSV row (known by its SKU). */
async function ownProduct(userId: string, sku: string, title: string, price: number) {
  const ownProductId = ownProductIdFor(userId, null, sku);
  const item = { title, variant: null, sku, gtin: null, mpn: null, brand: null, regularPrice: null, cost: null, url: null, imageUrl: null, availability: null };
  await own({ type: 'Import', ownProductId, userId, sourceId: null, externalId: sku, item: { ...item, price, currency: 'GBP' }, at: new Date().toISOString() });
  return ownProductId;
}

/** A tracked competitor product priced `price` a minute ago (fresh). */
async function competitor(userId: string, name: string, price: number) {
  const productId = await addProduct(api.ctx, userId, { name });
  await observePrices(api.ctx, productId, userId, [[price, new Date(Date.now() - 60_000)]]);
  await api.ctx.projections.catchUp();
  return productId;
}

/** A Pro user whose kettle (£20) is linked to a competitor at £18, with a blender nobody is linked to and a lookalike of it tracked. */
async function shopOwner() {
  const me = await user('pro');
  const kettle = await ownProduct(me.userId, 'KET-1', 'Steel Kettle', 20);
  const blender = await ownProduct(me.userId, 'BLE-1', 'Glass Blender 1.5 L', 50);
  const rival = await competitor(me.userId, 'Steel Kettle at Rival', 18);
  const lookalike = await competitor(me.userId, 'Glass Blender 1.5 L', 55);
  await own({ type: 'Link', ownProductId: kettle, userId: me.userId, productId: rival, via: 'hand' });
  return { ...me, kettle, blender, rival, lookalike };
}

const READS = (id: string) => ['/catalogue', '/catalogue/position', '/catalogue/matches', `/catalogue/${id}`, `/catalogue/${id}/position-history`];

describe('/api/v1/catalogue', () => {
  test('a Pro key reads its own catalogue, one product, the summary, the matches and a position history', async () => {
    const me = await shopOwner();

    const list = await v1(me.key, '/catalogue');
    expect(list.status).toBe(200);
    const { catalogue } = await list.json();
    expect(catalogue.map((e: { title: string }) => e.title)).toEqual(['Glass Blender 1.5 L', 'Steel Kettle']);
    const kettle = catalogue[1];
    expect(kettle).toMatchObject({ id: me.kettle, price: 20, currency: 'GBP', sku: 'KET-1', basis: 'based on 1 of 1' });
    expect(kettle.position).toMatchObject({ rank: 2, of: 2, cheapest: { productId: me.rival, price: 18 }, band: 'above', gap: 2 });
    expect(kettle.competitors).toEqual([expect.objectContaining({ productId: me.rival, price: 18, counted: true, reason: null, host: 'shop.example.com' })]);

    const filtered = async (query: string) => (await (await v1(me.key, `/catalogue?${query}`)).json()).catalogue.map((e: { id: string }) => e.id);
    expect(await filtered('band=above')).toEqual([me.kettle]);
    expect(await filtered('band=unpositioned')).toEqual([me.blender]);
    expect(await filtered('band=cheapest')).toEqual([]);
    expect(await filtered('q=ble-1')).toEqual([me.blender]);

    const one = await v1(me.key, `/catalogue/${me.kettle}`);
    expect(one.status).toBe(200);
    expect(await one.json()).toEqual(kettle);

    const position = await v1(me.key, '/catalogue/position');
    expect(position.status).toBe(200);
    const summary = await position.json();
    expect(summary).toEqual({
      index: expect.any(Number),
      cheapest: 0,
      competitive: 0,
      above: 1,
      unpositioned: 1,
      undercutLast24h: expect.any(Number),
    });
    // The same summary as the app's own GET /api/position.
    expect(summary).toEqual(await (await api.request('/api/position', { headers: { cookie: me.cookie } })).json());

    const matches = await (await v1(me.key, '/catalogue/matches')).json();
    expect(matches.matches).toContainEqual(expect.objectContaining({ ownProductId: me.blender, productId: me.lookalike, reason: 'title' }));
    expect(matches.matches.some((m: { productId: string }) => m.productId === me.rival)).toBe(false);

    const history = await v1(me.key, `/catalogue/${me.kettle}/position-history?timeFilter=week`);
    expect(history.status).toBe(200);
    const { id, timeFilter, points } = await history.json();
    expect({ id, timeFilter }).toEqual({ id: me.kettle, timeFilter: 'week' });
    expect(points.at(-1)).toMatchObject({ price: 20, cheapest: 18, average: 18, counted: 1 });
    expect((await (await v1(me.key, `/catalogue/${me.kettle}/position-history`)).json()).timeFilter).toBe('month');
  });

  test('price recommendations: the waiting ones, every rule with include=all, one product; never the rule’s working figures', async () => {
    const me = await shopOwner();
    const second = await competitor(me.userId, 'Steel Kettle at Second', 19);
    await own({ type: 'Link', ownProductId: me.kettle, userId: me.userId, productId: second, via: 'hand' });
    const rule: PricingRule = {
      ...{
        strategy: 'match-cheapest' as const,
        offsetPercent: null,
        offsetAmount: null,
        rounding: 'none',
        maxStepPercent: 20,
        minCompetitors: 2,
        spikePercent: 40,
      },
      ...{ floor: { costMarginPercent: null, amount: 10 }, ceiling: { amount: null, regular: false }, competitors: null, rounding: 'none' as const },
    };
    for (const ownProductId of [me.kettle, me.blender]) await own({ type: 'SetRule', ownProductId, userId: me.userId, rule, at: new Date().toISOString() });

    const waiting = await (await v1(me.key, '/catalogue/recommendations')).json();
    expect(waiting.recommendations).toHaveLength(1);
    const [kettle] = waiting.recommendations;
    expect(kettle).toMatchObject({ ownProductId: me.kettle, title: 'Steel Kettle', waiting: true, decision: null, store: null });
    expect(kettle.recommendation).toMatchObject({ status: 'change', price: 18, currentPrice: 20, bounds: { floor: 10, decidedBy: 'target' } });
    expect(kettle.recommendation.evidence.map((e: { productId: string }) => e.productId).sort()).toEqual([me.rival, second].sort());
    expect(Object.keys(kettle.recommendation).sort()).toEqual(['bounds', 'currency', 'currentPrice', 'evidence', 'explanation', 'price', 'status']);

    const all = await (await v1(me.key, '/catalogue/recommendations?include=all')).json();
    expect(all.recommendations.map((e: { ownProductId: string; recommendation: { status: string } }) => [e.ownProductId, e.recommendation.status])).toEqual([
      [me.blender, 'hold'],
      [me.kettle, 'change'],
    ]);
    expect(await (await v1(me.key, `/catalogue/${me.kettle}/recommendation`)).json()).toEqual(kettle);
    const other = await user('pro');
    expect((await v1(other.key, `/catalogue/${me.kettle}/recommendation`)).status).toBe(404);
    expect((await (await v1(other.key, '/catalogue/recommendations')).json()).recommendations).toEqual([]);
  });

  test("another user's own products are 404, like missing ones; their lists hold nothing of it", async () => {
    const owner = await shopOwner();
    const other = await user('pro');
    for (const path of [`/catalogue/${owner.kettle}`, `/catalogue/${owner.kettle}/position-history`]) {
      const res = await v1(other.key, path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect((await res.json()).message).toBe('Product not found');
    }
    for (const id of ['not-an-id', '%00', crypto.randomUUID(), crypto.randomUUID().toUpperCase(), owner.rival]) {
      expect((await v1(owner.key, `/catalogue/${id}`)).status).toBe(404);
      expect((await v1(owner.key, `/catalogue/${id}/position-history`)).status).toBe(404);
    }
    expect((await (await v1(other.key, '/catalogue')).json()).catalogue).toEqual([]);
    expect((await (await v1(other.key, '/catalogue/matches')).json()).matches).toEqual([]);
    expect(await (await v1(other.key, '/catalogue/position')).json()).toMatchObject({ index: null, above: 0, unpositioned: 0 });
  });

  test('every read needs a key, and a plan with the API', async () => {
    const owner = await shopOwner();
    const growth = await user('growth');
    for (const path of READS(owner.kettle)) {
      const none = await v1(null, path);
      expect({ path, status: none.status }).toEqual({ path, status: 401 });
      expect(none.headers.get('www-authenticate')).toBe('Bearer');
      expect((await v1(`pw_live_${'a'.repeat(43)}`, path)).status).toBe(401);
      // Sessions do not open the API.
      const cookie = await api.request(`/api/v1${path}`, { headers: { cookie: growth.cookie } });
      expect(cookie.status).toBe(401);
    }
    await endSubscription(api.ctx, owner.userId, owner.subscriptionId);
    for (const path of READS(owner.kettle)) {
      const res = await v1(owner.key, path);
      expect({ path, status: res.status }).toEqual({ path, status: 403 });
      expect((await res.json()).message).toContain('Pro plan');
    }
  });

  test('bad query values are 400 naming the field', async () => {
    const me = await shopOwner();
    const refused: [string, string][] = [
      ['/catalogue?band=cheap', 'band'],
      [`/catalogue?q=${'x'.repeat(201)}`, 'q'],
      ['/catalogue?q=%00', 'q'],
      [`/catalogue/${me.kettle}/position-history?timeFilter=decade`, 'timeFilter'],
    ];
    for (const [path, field] of refused) {
      const res = await v1(me.key, path);
      expect({ path, status: res.status }).toEqual({ path, status: 400 });
      expect((await res.json()).field).toBe(field);
    }
  });

  test('the OpenAPI document describes the catalogue reads and their fields', async () => {
    const doc = await (await api.request('/api/docs/json')).json();
    const paths = [
      '/api/v1/catalogue',
      '/api/v1/catalogue/position',
      '/api/v1/catalogue/matches',
      '/api/v1/catalogue/{id}',
      '/api/v1/catalogue/{id}/position-history',
    ];
    for (const path of paths) {
      expect(doc.paths[path]?.get?.tags).toEqual(['Catalogue']);
      expect(doc.paths[path].get.security).toEqual([{ apiKey: [] }]);
    }
    expect(doc.paths['/api/v1/catalogue'].get.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['band', 'q']);
    expect(doc.paths['/api/v1/catalogue/{id}/position-history'].get.parameters.map((p: { name: string }) => p.name).sort()).toEqual(['id', 'timeFilter']);
    const described = JSON.stringify(doc.paths['/api/v1/catalogue']);
    for (const words of ['Where your price stands', 'When a competitor last went below your price', 'Why it does not count', 'unpositioned']) {
      expect(described).toContain(words);
    }
    expect(JSON.stringify(doc.paths['/api/v1/catalogue/position'])).toContain('undercutLast24h');
    expect(JSON.stringify(doc.paths['/api/v1/catalogue/matches'])).toContain('The same GTIN');
    expect(JSON.stringify(doc.paths['/api/v1/catalogue/{id}/position-history'])).toContain('cheapest counted competitor then');
  });
});
