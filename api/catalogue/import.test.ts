import { describe, expect, test } from 'bun:test';
import { useTestApp, type SignedIn } from '../testing/app.ts';
import { startTrial } from '../testing/plans.ts';
import { page, productsApi } from '../testing/products-api.ts';
import { readCatalogue, type CatalogueEntry } from './read-model.ts';

const api = useTestApp({ PUBLIC_URL: 'http://localhost:3000' });
const { signedIn } = api;
const { send, add, eventCount } = productsApi(api);

const importCsv = (user: SignedIn | null, csv: string | Uint8Array<ArrayBuffer>, opts: { dryRun?: boolean; type?: string } = {}) =>
  api.request(`/api/catalogue/import${opts.dryRun ? '?dryRun=1' : ''}`, {
    method: 'POST',
    body: csv,
    headers: { origin: api.origin, 'content-type': opts.type ?? 'text/csv', ...(user ? { cookie: user.cookie } : {}) },
  });
const listed = async (user: SignedIn): Promise<CatalogueEntry[]> => {
  const res = await send(user, 'GET', '/api/catalogue');
  expect(res.status).toBe(200);
  return res.json();
};
// The list's answer cache is keyed by user read versions, which own-product events do not move,
// so reads after a write within its few seconds go to the read model itself.
const catalogue = (user: SignedIn) => readCatalogue(api.ctx.sql, api.ctx.config, user.userId);
const bySku = async (user: SignedIn) => new Map((await catalogue(user)).map((e) => [e.sku, e]));

const HEADER = 'sku,title,price,currency';
const csvOf = (...rows: string[]) => [HEADER, ...rows].join('\n') + '\n';
const rowsFor = (n: number, prefix = 'S') => Array.from({ length: n }, (_, i) => `${prefix}-${i},Product ${prefix} ${i},10.00,GBP`);

describe('catalogue import', () => {
  test('creates every row (201), columns in any order with optional and unknown ones; the catalogue shows them', async () => {
    const user = await signedIn();
    const res = await importCsv(
      user,
      '\uFEFFtitle,notes,currency,price,sku,gtin,cost,mpn,brand,url\r\n' +
        '"Kettle, ""steel""",ignored,gbp,12.50,K-1,4006381333931,7.25,KT-100,Acme,https://myshop.example/kettle\r\n' +
        '\r\n' +
        "'=Lamp,,EUR,0,L-1,,,,,\r\n" +
        'Chair,,USD,99,C-1, 0-36000-29145-2 ,,,,\r\n',
    );
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ created: 3, updated: 0, skipped: 0, duplicates: [] });
    const entries = new Map((await listed(user)).map((e) => [e.sku, e]));
    expect(entries.size).toBe(3);
    expect(entries.get('K-1')).toMatchObject({
      title: 'Kettle, "steel"',
      price: 12.5,
      currency: 'GBP',
      gtin: '04006381333931',
      cost: 7.25,
      mpn: 'KT-100',
      brand: 'Acme',
      url: 'https://myshop.example/kettle',
      sourceId: null,
    });
    // A formula cell as the export neutralises it is read back as written.
    expect(entries.get('L-1')).toMatchObject({ title: '=Lamp', price: 0, currency: 'EUR', gtin: null, cost: null, mpn: null, brand: null, url: null });
    expect(entries.get('C-1')).toMatchObject({ title: 'Chair', gtin: '00036000291452' });
  });

  test('importing again updates by SKU: a new price is a price history point, unchanged rows are not counted', async () => {
    const user = await signedIn();
    await startTrial(api.ctx, user.userId, 'starter');
    expect((await importCsv(user, csvOf('A,Alpha,12.50,GBP', 'B,Beta,5,GBP'))).status).toBe(201);
    const before = await bySku(user);

    const res = await importCsv(user, csvOf('A,Alpha,14.00,GBP', 'B,Beta,5,GBP', 'C,Gamma,3,GBP'));
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ created: 1, updated: 1, skipped: 0, duplicates: [] });
    const after = await bySku(user);
    expect(after.size).toBe(3);
    expect(after.get('A')).toMatchObject({ id: before.get('A')!.id, price: 14 });
    expect(after.get('B')!.id).toBe(before.get('B')!.id);
    const points = await api.ctx.sql<{ price: number }[]>`
      SELECT price FROM own_price_points WHERE own_product_id = ${before.get('A')!.id} ORDER BY at, event_position`;
    expect(points.map((p) => Number(p.price))).toEqual([12.5, 14]);

    // Only details changed, nothing new: 200.
    const again = await importCsv(user, 'sku,title,price,currency,brand\nA,Alpha II,14.00,GBP,Acme\n');
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ created: 0, updated: 1, skipped: 0, duplicates: [] });
    expect((await bySku(user)).get('A')).toMatchObject({ title: 'Alpha II', brand: 'Acme', price: 14 });
  });

  test('a dry run answers the counts with a preview and writes nothing', async () => {
    const user = await signedIn();
    await importCsv(user, csvOf('A,Alpha,12.50,GBP'));
    const before = await eventCount();
    const res = await importCsv(user, csvOf('A,Alpha,13,GBP', 'B,Beta,5,eur'), { dryRun: true });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      dryRun: true,
      created: 1,
      updated: 1,
      skipped: 0,
      duplicates: [],
      preview: [
        { line: 2, sku: 'A', title: 'Alpha', price: '13', currency: 'GBP', gtin: '', mpn: '', brand: '', cost: '', url: '' },
        { line: 3, sku: 'B', title: 'Beta', price: '5', currency: 'eur', gtin: '', mpn: '', brand: '', cost: '', url: '' },
      ],
    });
    expect(await eventCount()).toBe(before);
    expect((await catalogue(user)).map((e) => [e.sku, e.price])).toEqual([['A', 12.5]]);

    const bad = await importCsv(user, csvOf('B,Beta,five,GBP'), { dryRun: true });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ message: '1 row has errors. Fix them and choose the file again.', errors: [{ line: 2, column: 'price' }] });
    expect(await eventCount()).toBe(before);
  });

  test('any invalid row imports nothing: 400 naming every bad line and column', async () => {
    const user = await signedIn();
    const before = await eventCount();
    const res = await importCsv(
      user,
      'sku,title,price,currency,gtin,cost,url\n' +
        'OK,Good,1.00,GBP,,,\n' +
        'P1,Comma price,"12,50",GBP,,,\n' +
        'P2,Bad currency,3,pounds,,,\n' +
        'P3,Bad GTIN,3,GBP,4006381333932,,\n' +
        '"OK",Same SKU again,3,GBP,,,\n' +
        'P4,,-1,,,£2,ftp://myshop.example/x\n',
    );
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.message).toBe('5 rows have errors. Nothing was imported.');
    expect(body.errors).toEqual([
      { line: 3, column: 'price', message: expect.stringContaining('dot for decimals') },
      { line: 4, column: 'currency', message: expect.stringContaining('three-letter ISO 4217 code') },
      { line: 5, column: 'gtin', message: expect.stringMatching(/^GTIN "4006381333932" is not a valid GTIN-8\/12\/13\/14/) },
      { line: 6, column: 'sku', message: expect.stringContaining('already on line 2') },
      { line: 7, column: 'title', message: 'Title is required' },
      { line: 7, column: 'currency', message: 'Currency is required' },
      { line: 7, column: 'price', message: 'Price cannot be negative' },
      { line: 7, column: 'cost', message: expect.stringContaining('Cost must be a number') },
      { line: 7, column: 'url', message: expect.stringContaining('http://') },
    ]);
    expect(body.preview).toHaveLength(5);
    expect(await eventCount()).toBe(before);
    expect(await catalogue(user)).toEqual([]);
  });

  test('a missing column, broken quotes, or a header alone are 400 with the line', async () => {
    const user = await signedIn();
    let res = await importCsv(user, 'sku,title,currency\nA,Alpha,GBP\n');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ message: expect.stringContaining('no "price" column'), errors: [{ line: 1, column: 'price' }] });
    res = await importCsv(user, csvOf('A,Alpha,1,GBP', '"B,Beta,1,GBP'));
    expect(res.status).toBe(400);
    expect((await res.json()).errors[0].line).toBe(3);
    res = await importCsv(user, csvOf());
    expect(res.status).toBe(400);
    expect((await res.json()).message).toContain('no products');
    // A record spanning lines is reported where it starts.
    res = await importCsv(user, csvOf('"A",Alpha,1,GBP', 'B,"Two\nlines",1,GBP', 'C,Gamma,x,GBP'));
    expect((await res.json()).errors).toEqual([{ line: 5, column: 'price', message: expect.any(String) }]);
    expect(await catalogue(user)).toEqual([]);
  });

  test('Free plan: 3 own products; a file past it imports nothing, one that fits is fine; competitor products do not count', async () => {
    const user = await signedIn();
    for (const name of ['a', 'b', 'c']) await add(user, page(name));
    const before = await eventCount();
    const res = await importCsv(user, csvOf(...rowsFor(4)));
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({
      remaining: 3,
      message: 'Your Free plan has room for 3 more own products, and this file would add 4. Nothing was imported. Remove some rows or upgrade your plan.',
    });
    expect(await eventCount()).toBe(before);
    expect(await catalogue(user)).toEqual([]);

    expect((await importCsv(user, csvOf(...rowsFor(3)))).status).toBe(201);
    expect(await catalogue(user)).toHaveLength(3);
    // Updates add nothing, so a full plan still takes them; a new SKU does not fit.
    const update = await importCsv(user, csvOf('S-0,Renamed,11,GBP'));
    expect(update.status).toBe(200);
    const full = await importCsv(user, csvOf('S-0,Renamed,11,GBP', 'S-9,New,1,GBP'));
    expect(full.status).toBe(403);
    expect(await full.json()).toMatchObject({ remaining: 0, message: expect.stringContaining('room for 0 more own products, and this file would add 1') });
  });

  test('two concurrent imports that together pass the limit: one imports, the other imports nothing', async () => {
    for (let round = 0; round < 3; round++) {
      const user = await signedIn();
      expect((await importCsv(user, csvOf('FIRST,First,1,GBP'))).status).toBe(201);
      const statuses = await Promise.all(['a', 'b'].map((prefix) => importCsv(user, csvOf(...rowsFor(2, prefix))).then((r) => r.status)));
      expect(statuses.sort()).toEqual([201, 403]);
      expect(await catalogue(user)).toHaveLength(3);
    }
  });

  test("another user's import neither sees nor touches the first user's products", async () => {
    const first = await signedIn();
    const second = await signedIn();
    await importCsv(first, csvOf('SAME,Mine,10,GBP'));
    const res = await importCsv(second, csvOf('SAME,Theirs,20,EUR'));
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ created: 1, updated: 0 });
    const [mine] = await catalogue(first);
    const [theirs] = await catalogue(second);
    expect(mine).toMatchObject({ title: 'Mine', price: 10, currency: 'GBP' });
    expect(theirs).toMatchObject({ title: 'Theirs', price: 20, currency: 'EUR' });
    expect(theirs!.id).not.toBe(mine!.id);
    expect(await catalogue(first)).toHaveLength(1);
  });

  test('a body past 2 MB is 413 before it is read; other content types 415; not UTF-8 400; signed out 401', async () => {
    const user = await signedIn();
    const big = csvOf(...Array.from({ length: 30_000 }, (_, i) => `S${i},Product ${i} ${'x'.repeat(80)},1,GBP`));
    expect(big.length).toBeGreaterThan(2 * 1024 * 1024);
    expect((await importCsv(user, big)).status).toBe(413);
    const chunked = new ReadableStream({
      start(c) {
        for (let i = 0; i < 48; i++) c.enqueue(new TextEncoder().encode('x'.repeat(64 * 1024)));
        c.close();
      },
    });
    const streamed = await api.request('/api/catalogue/import', {
      method: 'POST',
      body: chunked,
      headers: { cookie: user.cookie, origin: api.origin, 'content-type': 'text/csv' },
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    for (const type of ['application/json', 'text/plain']) {
      const refused = await importCsv(user, csvOf('A,Alpha,1,GBP'), { type });
      expect(refused.status).toBe(415);
      expect((await refused.json()).message).toContain('CSV');
    }
    const latin1 = new Uint8Array([...new TextEncoder().encode(`${HEADER}\nA,Caf`), 0xe9, ...new TextEncoder().encode(',1,GBP\n')]);
    expect((await importCsv(user, latin1)).status).toBe(400);
    expect((await importCsv(null, csvOf('A,Alpha,1,GBP'))).status).toBe(401);
    expect(await catalogue(user)).toEqual([]);
    expect((await importCsv(user, csvOf('A,Alpha,1,GBP'), { type: 'text/csv; charset=utf-8' })).status).toBe(201);
  });
});
