import { describe, expect, test } from 'bun:test';
import { useTestApp } from '../testing/app.ts';
import { hoursAgo, observed, page, productsApi } from '../testing/products-api.ts';
import { importOwn, ownItem } from '../testing/own-catalogue.ts';
import { ownProductIdFor } from '../../events/own-product.ts';
import { startTrial } from '../testing/plans.ts';
import type { CatalogueEntry } from './read-model.ts';

const api = useTestApp();
const { send, add, record } = productsApi(api);

type User = Awaited<ReturnType<typeof api.signedIn>>;
const get = async <T>(user: User, path: string): Promise<T> => {
  const res = await send(user, 'GET', path);
  expect(res.status).toBe(200);
  return res.json();
};
const link = (user: User, ownId: string, productId: string) => send(user, 'PUT', `/api/catalogue/${ownId}/competitors/${productId}`);

/** A competitor product with a price observed `hours` ago. */
async function competitor(user: User, name: string, price: number, hours = 1, currency = 'GBP') {
  const product = await add(user, page(name));
  const command = observed(product.id, price, hoursAgo(hours));
  if (command.type === 'RecordObservation') command.observation.currency = currency;
  await record(command);
  return product.id;
}

describe('positions', () => {
  test('a linked catalogue shows rank, gap, band and what was left out, and the summary counts it', async () => {
    const user = await api.signedIn();
    await startTrial(api.ctx, user.userId, 'growth');
    const [kettle, toaster, lamp] = await importOwn(api.ctx, user.userId, [
      ownItem('Kettle 1.7L', 30, { sku: 'K-1' }),
      ownItem('Toaster', 50, { sku: 'T-1' }),
      ownItem('Lamp', 10, { sku: 'L-1' }),
    ]);
    const acme = await competitor(user, 'acme-kettle', 32);
    const bravo = await competitor(user, 'bravo-kettle', 28);
    const stale = await competitor(user, 'stale-kettle', 20, 24 * 10);
    const euro = await competitor(user, 'euro-kettle', 10, 1, 'EUR');
    const toasterRival = await competitor(user, 'toaster-rival', 49);
    for (const p of [acme, bravo, stale, euro]) expect((await link(user, kettle!, p)).status).toBe(200);
    expect((await link(user, toaster!, toasterRival)).status).toBe(200);

    const entries = await get<CatalogueEntry[]>(user, '/api/catalogue');
    expect(entries.map((e) => e.title)).toEqual(['Kettle 1.7L', 'Lamp', 'Toaster']);
    const k = entries.find((e) => e.id === kettle)!;
    expect(k.position).toEqual({
      rank: 2,
      of: 3,
      cheapest: { productId: bravo, price: 28 },
      average: 30,
      highest: 32,
      gap: 2,
      gapPercent: 7.14,
      band: 'above',
    });
    expect(k.competitors.map((c) => [c.productId, c.counted, c.reason])).toEqual([
      [acme, true, null],
      [bravo, true, null],
      [stale, false, 'stale'],
      [euro, false, 'other currency'],
    ]);
    expect(k.basis).toBe('based on 2 of 4: 1 stale, 1 other currency');
    expect(entries.find((e) => e.id === lamp)!.position).toBeNull();
    expect(entries.find((e) => e.id === toaster)!.position?.band).toBe('competitive');

    expect((await get<CatalogueEntry[]>(user, '/api/catalogue?band=above')).map((e) => e.id)).toEqual([kettle]);
    expect((await get<CatalogueEntry[]>(user, '/api/catalogue?band=unpositioned')).map((e) => e.id)).toEqual([lamp]);
    expect((await get<CatalogueEntry[]>(user, '/api/catalogue?q=t-1')).map((e) => e.id)).toEqual([toaster]);
    expect(await get(user, '/api/position')).toEqual({ index: 101, cheapest: 0, competitive: 1, above: 1, unpositioned: 1, undercutLast24h: 0 });

    // The owner's price moves: the position follows, and the history keeps both.
    await importOwn(api.ctx, user.userId, [ownItem('Kettle 1.7L', 27, { sku: 'K-1' })]);
    const after = await get<CatalogueEntry>(user, `/api/catalogue/${kettle}`);
    expect(after.position).toMatchObject({ rank: 1, band: 'cheapest', gap: -1 });
    const history = await get<{ price: number; cheapest: number | null; counted: number }[]>(user, `/api/catalogue/${kettle}/position-history?timeFilter=week`);
    expect(history.at(-1)).toMatchObject({ price: 27, cheapest: 28, counted: 2 });
    expect(history.some((p) => p.price === 30)).toBe(true);
  });

  test('unlinking takes a competitor out; a competitor removed from tracking leaves every catalogue', async () => {
    const user = await api.signedIn();
    const [own] = await importOwn(api.ctx, user.userId, [ownItem('Grinder', 100)]);
    const rival = await competitor(user, 'grinder-rival', 90);
    await link(user, own!, rival);
    expect((await send(user, 'DELETE', `/api/catalogue/${own}/competitors/${rival}`)).status).toBe(200);
    expect((await get<CatalogueEntry>(user, `/api/catalogue/${own}`)).competitors).toEqual([]);
    await link(user, own!, rival);
    expect((await send(user, 'DELETE', `/api/products/${rival}`)).status).toBe(200);
    expect((await get<CatalogueEntry>(user, `/api/catalogue/${own}`)).competitors).toEqual([]);
  });
});

describe('matches', () => {
  test('a page with the same GTIN is suggested first; a rejection is remembered; accepting links', async () => {
    const user = await api.signedIn();
    const [kettle] = await importOwn(api.ctx, user.userId, [ownItem('Acme Kettle 1.7L', 30, { sku: 'K-9', gtin: '05012345678900' })]);
    const byGtin = await competitor(user, 'some-page', 31);
    const command = observed(byGtin, 31);
    if (command.type === 'RecordObservation') command.observation.identifiers = { gtin: '05012345678900', mpn: null, sku: null, brand: null };
    await record(command);
    const byTitle = (await add(user, page('kettle-title', { name: 'Acme Kettle 1.7 L stainless' }))).id;
    const wrongSize = (await add(user, page('kettle-small', { name: 'Acme Kettle 1.5 L stainless' }))).id;

    const matches = await get<{ ownProductId: string; productId: string; reason: string; confidence: number }[]>(user, '/api/catalogue/matches');
    expect(matches[0]).toMatchObject({ ownProductId: kettle, productId: byGtin, reason: 'gtin' });
    expect(matches.map((m) => m.productId)).toContain(byTitle);
    expect(matches.map((m) => m.productId)).not.toContain(wrongSize);

    const reject = await send(user, 'POST', '/api/catalogue/matches', { ownProductId: kettle, productId: byTitle, decision: 'reject' });
    expect(reject.status).toBe(200);
    const accept = await send(user, 'POST', '/api/catalogue/matches', { ownProductId: kettle, productId: byGtin, decision: 'accept' });
    expect(((await accept.json()) as CatalogueEntry).competitors.map((c) => c.productId)).toEqual([byGtin]);
    expect(await get(user, '/api/catalogue/matches')).toEqual([]);
  });

  test('with the setting on, GTIN matches are linked without asking', async () => {
    const user = await api.signedIn();
    const rival = await competitor(user, 'gtin-rival', 12);
    const command = observed(rival, 12);
    if (command.type === 'RecordObservation') command.observation.identifiers = { gtin: '04006381333931', mpn: null, sku: null, brand: null };
    await record(command);
    const [own] = await importOwn(api.ctx, user.userId, [ownItem('Pencil', 11, { gtin: '04006381333931' })]);
    const res = await send(user, 'PUT', '/api/catalogue/settings', { competitivePercent: 3, autoAcceptGtin: true });
    expect(await res.json()).toEqual({ competitivePercent: 3, autoAcceptGtin: true, autoApply: false, dailyChangeCap: 2 });
    expect((await get<CatalogueEntry>(user, `/api/catalogue/${own}`)).competitors.map((c) => c.productId)).toEqual([rival]);
  });
});

describe('own products', () => {
  test('the same SKU read again updates the product; removing it takes its links and history', async () => {
    const user = await api.signedIn();
    const [own] = await importOwn(api.ctx, user.userId, [ownItem('Mug', 8, { sku: 'M-1' })]);
    expect(own).toBe(ownProductIdFor(user.userId, null, 'M-1'));
    await importOwn(api.ctx, user.userId, [ownItem('Mug, large', 9, { sku: 'M-1' })]);
    expect(await get<CatalogueEntry>(user, `/api/catalogue/${own}`)).toMatchObject({ title: 'Mug, large', price: 9 });
    expect((await send(user, 'DELETE', `/api/catalogue/${own}`)).status).toBe(200);
    expect((await send(user, 'GET', `/api/catalogue/${own}`)).status).toBe(404);
    expect(await api.ctx.sql`SELECT 1 FROM own_price_points WHERE own_product_id = ${own!}`).toHaveLength(0);
  });
});

describe('the read model', () => {
  test('rebuilt from the log, the catalogue is the same, and so are the positions judged from it', async () => {
    const user = await api.signedIn();
    const [own] = await importOwn(api.ctx, user.userId, [ownItem('Scale', 20, { sku: 'S-1', gtin: '04006381333931' })]);
    await link(user, own!, await competitor(user, 'scale-rival', 19));
    await importOwn(api.ctx, user.userId, [ownItem('Scale', 18, { sku: 'S-1', gtin: '04006381333931' })]);
    const tables = async () => {
      const out: Record<string, unknown[]> = {};
      for (const table of [
        'own_products',
        'own_price_points',
        'own_product_links',
        'match_rejections',
        'product_identifiers',
        'catalogue_sources',
        'catalogue_settings',
      ]) {
        out[table] = await api.ctx.sql.unsafe(`SELECT * FROM ${table} ORDER BY 1, 2`);
      }
      return out;
    };
    const before = await tables();
    const entry = await get<CatalogueEntry>(user, `/api/catalogue/${own}`);
    expect(entry.position).toMatchObject({ band: 'cheapest', rank: 1 });
    expect(await api.ctx.projections.rebuild(['catalogue'])).toBeGreaterThan(0);
    expect(await tables()).toEqual(before);
    expect(await get<CatalogueEntry>(user, `/api/catalogue/${own}`)).toEqual(entry);
  });
});
