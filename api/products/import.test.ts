import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { gunzipSync } from 'node:zlib';
import { createApp } from '../server.ts';
import { SETUP_TIMEOUT, testContext } from '../testing/database.ts';
import { signInDemo } from '../testing/sign-in.ts';
import { startTrial } from '../testing/plans.ts';
import { handleProductCommand } from '../../events/product.ts';
import type { ProductItem } from './read-model.ts';
import { MAX_IMPORT_ROWS } from './csv.ts';

const ORIGIN = 'http://localhost:3000';
let ctx: Awaited<ReturnType<typeof testContext>>;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  ctx = await testContext({ PUBLIC_URL: ORIGIN });
  app = createApp(ctx);
}, SETUP_TIMEOUT);
afterAll(() => ctx.close());

type User = Awaited<ReturnType<typeof signInDemo>>;
const signedIn = () => signInDemo(app, ORIGIN);
/** A user on a plan without a product limit. */
async function proUser() {
  const user = await signedIn();
  await startTrial(ctx, user.userId, 'pro');
  return user;
}

const request = (user: User | null, method: string, path: string, init: { body?: BodyInit; type?: string; headers?: Record<string, string> } = {}) =>
  app.handle(
    new Request(new URL(path, ORIGIN), {
      method,
      body: init.body,
      headers: { origin: ORIGIN, ...(user ? { cookie: user.cookie } : {}), ...(init.type ? { 'content-type': init.type } : {}), ...init.headers },
    }),
  );
const importCsv = (user: User, csv: string | Uint8Array<ArrayBuffer>, opts: { dryRun?: boolean; type?: string } = {}) =>
  request(user, 'POST', `/api/products/import${opts.dryRun ? '?dryRun=1' : ''}`, { body: csv, type: opts.type ?? 'text/csv' });
const bulk = (user: User, body: unknown) => request(user, 'POST', '/api/products/bulk', { body: JSON.stringify(body), type: 'application/json' });
const list = async (user: User): Promise<ProductItem[]> => (await request(user, 'GET', '/api/products')).json();
const exportCsv = (user: User, headers: Record<string, string> = {}) => request(user, 'GET', '/api/products/export.csv', { headers });
const eventCount = async () => Number((await ctx.sql`SELECT count(*) AS n FROM events`)[0]!.n);

const HEADER = 'name,url,selector,threshold';
const csvOf = (...rows: string[]) => [HEADER, ...rows].join('\n') + '\n';
const rowsFor = (n: number, prefix = 'p') => Array.from({ length: n }, (_, i) => `Product ${i},https://shop.example/${prefix}/${i},.price,-10`);

describe('import', () => {
  test('creates every row (201) with the details as written, quotes and all; the list shows them', async () => {
    const user = await signedIn();
    const res = await importCsv(
      user,
      '\uFEFFname,url,selector,threshold,notes\r\n"Kettle, ""steel""",https://shop.example/kettle,".price",-10,first\r\n\r\n"Lamp\r\nlarge",https://shop.example/lamp,span.p,any,\r\n',
    );
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ created: 2, skipped: 0, duplicates: [] });
    const products = await list(user);
    expect(products.map((p) => [p.name, p.url, p.selector, p.alertRule])).toEqual([
      ['Lamp\r\nlarge', 'https://shop.example/lamp', 'span.p', { kind: 'any' }],
      ['Kettle, "steel"', 'https://shop.example/kettle', '.price', { kind: 'drop', percent: 10 }],
    ]);
  });

  test('any invalid row imports nothing: 400 naming every bad line and column; a record spanning lines is reported where it starts', async () => {
    const user = await signedIn();
    const before = await eventCount();
    const res = await importCsv(
      user,
      csvOf(
        'Good,https://shop.example/good,.p,none',
        '"Two\nlines",notaurl,.p,none',
        ',https://shop.example/x,,-300',
        'Private,http://169.254.169.254/latest,.p,none',
      ),
    );
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.message).toBe('3 rows have errors. Nothing was imported.');
    expect(body.errors).toEqual([
      { line: 3, column: 'url', message: 'Please enter a valid URL' },
      { line: 5, column: 'name', message: 'Product name is required' },
      { line: 5, column: 'selector', message: 'CSS selector is required' },
      { line: 5, column: 'threshold', message: expect.stringContaining('Threshold must be') },
      { line: 6, column: 'url', message: expect.any(String) },
    ]);
    expect(await eventCount()).toBe(before);
    expect(await list(user)).toEqual([]);
  });

  test('a missing column is 400 naming it; broken quotes are 400 with the line', async () => {
    const user = await signedIn();
    let res = await importCsv(user, 'name,url,threshold\nA,https://shop.example/a,none\n');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ message: expect.stringContaining('no "selector" column'), errors: [{ line: 1, column: 'selector' }] });
    res = await importCsv(user, csvOf('A,https://shop.example/a,.p,none', '"B,https://shop.example/b,.p,none'));
    expect(res.status).toBe(400);
    expect((await res.json()).errors[0].line).toBe(3);
    res = await importCsv(user, `${HEADER}\n`);
    expect(res.status).toBe(400);
  });

  test('duplicates, already tracked and within the file, are skipped and listed', async () => {
    const user = await proUser();
    await importCsv(user, csvOf('Kettle,https://shop.example/kettle,.p,none'));
    const res = await importCsv(
      user,
      csvOf(
        'Kettle again,HTTPS://SHOP.example/kettle?utm_source=mail,.p,none',
        'Lamp,https://shop.example/lamp,.p,none',
        'Lamp twice,https://shop.example/lamp#reviews,.p,none',
      ),
    );
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({
      created: 1,
      skipped: 2,
      duplicates: [
        { line: 2, url: 'HTTPS://SHOP.example/kettle?utm_source=mail', reason: 'tracked' },
        { line: 4, url: 'https://shop.example/lamp#reviews', reason: 'repeated' },
      ],
    });
    // Nothing new: 200.
    const again = await importCsv(user, csvOf('Lamp,https://shop.example/lamp,.p,none'));
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({ created: 0, skipped: 1 });
    expect(await list(user)).toHaveLength(2);
  });

  test('a dry run answers the same checks with a preview and writes nothing', async () => {
    const user = await signedIn();
    const before = await eventCount();
    const res = await importCsv(user, csvOf('A,https://shop.example/a,.p,-5', 'B,https://shop.example/b,.p,none', 'B,https://shop.example/b,.p,none'), {
      dryRun: true,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      dryRun: true,
      created: 2,
      skipped: 1,
      duplicates: [{ line: 4, url: 'https://shop.example/b', reason: 'repeated' }],
      preview: [
        { line: 2, name: 'A', url: 'https://shop.example/a', selector: '.p', threshold: '-5' },
        { line: 3, name: 'B', url: 'https://shop.example/b', selector: '.p', threshold: 'none' },
        { line: 4, name: 'B', url: 'https://shop.example/b', selector: '.p', threshold: 'none' },
      ],
    });
    const bad = await importCsv(user, csvOf('A,nope,.p,none'), { dryRun: true });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ errors: [{ line: 2, column: 'url' }], preview: [{ line: 2, name: 'A' }] });
    expect(await eventCount()).toBe(before);
  });

  test('plan limit: an import past it imports nothing and says how many still fit', async () => {
    const user = await signedIn(); // free: 3 products
    await importCsv(user, csvOf('A,https://shop.example/a,.p,none'));
    const before = await eventCount();
    const res = await importCsv(user, csvOf(...rowsFor(3)));
    expect(res.status).toBe(403);
    const body = await res.json();
    expect(body).toMatchObject({ remaining: 2, message: expect.stringContaining('room for 2 more products') });
    expect(await eventCount()).toBe(before);
    // Duplicates do not count against it.
    expect((await importCsv(user, csvOf('A,https://shop.example/a,.p,none', ...rowsFor(2)))).status).toBe(201);
    expect(await list(user)).toHaveLength(3);
  });

  test('two concurrent imports that together pass the limit: one imports, the other imports nothing', async () => {
    for (let round = 0; round < 3; round++) {
      const user = await signedIn();
      await ctx.sql`UPDATE users SET plan = 'starter' WHERE id = ${user.userId}`; // 25 products
      const statuses = await Promise.all(['a', 'b'].map((prefix) => importCsv(user, csvOf(...rowsFor(15, prefix))).then((r) => r.status)));
      expect(statuses.sort()).toEqual([201, 403]);
      expect(await list(user)).toHaveLength(15);
    }
  });

  test(`${MAX_IMPORT_ROWS} rows import in one go and are projected at once; one more is refused`, async () => {
    const user = await proUser();
    const tooMany = await importCsv(user, csvOf(...rowsFor(MAX_IMPORT_ROWS + 1)));
    expect(tooMany.status).toBe(400);
    expect((await tooMany.json()).message).toContain('more than 5,000 products');
    const started = performance.now();
    const res = await importCsv(user, csvOf(...rowsFor(MAX_IMPORT_ROWS)));
    expect(res.status).toBe(201);
    expect((await res.json()).created).toBe(MAX_IMPORT_ROWS);
    console.log(`imported ${MAX_IMPORT_ROWS} rows in ${Math.round(performance.now() - started)} ms`);
    expect(await list(user)).toHaveLength(MAX_IMPORT_ROWS);
  }, 60_000); // 5,000 products to project: tens of seconds on the embedded database

  test("first checks are queued one shop page at a time: never all of one host's pages due at once", async () => {
    const user = await proUser();
    const rows = [...rowsFor(20, 'same'), 'Other,https://other.example/x,.p,none'];
    expect((await importCsv(user, csvOf(...rows))).status).toBe(201);
    const jobs = await ctx.sql<{ host: string; due: number }[]>`
      SELECT j.host, extract(epoch FROM j.run_at - now()) AS due FROM check_jobs j JOIN products p ON p.id = j.product_id WHERE p.user_id = ${user.userId}`;
    expect(jobs).toHaveLength(21);
    const shop = jobs
      .filter((j) => j.host === 'shop.example')
      .map((j) => Number(j.due))
      .sort((a, b) => a - b);
    expect(shop.filter((due) => due <= 0.5).length).toBeLessThanOrEqual(1);
    expect(shop.at(-1)! - shop[0]!).toBeGreaterThan(18);
    expect(Number(jobs.find((j) => j.host === 'other.example')!.due)).toBeLessThanOrEqual(0.5);
  });

  test('a body past 2 MB is 413 before it is read; other content types 415; not UTF-8 400; signed out 401', async () => {
    const user = await signedIn();
    const big = csvOf(...Array.from({ length: 30_000 }, (_, i) => `Product ${i} ${'x'.repeat(60)},https://shop.example/${i},.price,none`));
    expect(big.length).toBeGreaterThan(3 * 1024 * 1024 - 1);
    expect((await importCsv(user, big)).status).toBe(413);
    const chunked = new ReadableStream({
      start(c) {
        for (let i = 0; i < 48; i++) c.enqueue(new TextEncoder().encode('x'.repeat(64 * 1024)));
        c.close();
      },
    });
    const res = await app.handle(
      new Request(`${ORIGIN}/api/products/import`, {
        method: 'POST',
        body: chunked,
        headers: { cookie: user.cookie, origin: ORIGIN, 'content-type': 'text/csv' },
        duplex: 'half',
      } as RequestInit),
    );
    expect(res.status).toBe(413);
    for (const type of ['application/json', 'text/plain', 'multipart/form-data; boundary=x']) {
      const refused = await importCsv(user, csvOf('A,https://shop.example/a,.p,none'), { type });
      expect(refused.status).toBe(415);
      expect((await refused.json()).message).toContain('CSV');
    }
    expect((await importCsv(user, csvOf('A,https://shop.example/a,.p,none'), { type: 'text/csv; charset=utf-8' })).status).toBe(201);
    const latin1 = new Uint8Array([...new TextEncoder().encode(`${HEADER}\nCaf`), 0xe9, ...new TextEncoder().encode(',https://shop.example/c,.p,none\n')]);
    expect((await importCsv(user, latin1)).status).toBe(400);
    expect((await request(null, 'POST', '/api/products/import', { body: csvOf(), type: 'text/csv' })).status).toBe(401);
    // A request from another site is refused like every other change.
    const foreign = await app.handle(
      new Request(`${ORIGIN}/api/products/import`, {
        method: 'POST',
        body: csvOf('A,https://shop.example/z,.p,none'),
        headers: { cookie: user.cookie, origin: 'https://evil.example', 'content-type': 'text/csv' },
      }),
    );
    expect(foreign.status).toBe(403);
  });

  test('the JSON body cap of every other route stays 1 MB', async () => {
    const user = await signedIn();
    const res = await request(user, 'POST', '/api/products', { body: JSON.stringify({ name: 'x'.repeat(1_200_000) }), type: 'application/json' });
    expect(res.status).toBe(413);
  });
});

describe('export', () => {
  test("a CSV download of the signed-in user's products only, oldest first, threshold as import takes it", async () => {
    const user = await proUser();
    const other = await signedIn();
    await importCsv(other, csvOf('Secret,https://shop.example/secret,.p,none'));
    await importCsv(user, csvOf('Kettle "steel",https://shop.example/kettle,.price,-10', 'Lamp,https://shop.example/lamp,.p,any'));
    const [kettle] = (await list(user)).filter((p) => p.name.startsWith('Kettle'));
    await handleProductCommand(ctx.store, { type: 'SetPriceManually', productId: kettle!.id, userId: user.userId, price: 12.5, currency: 'GBP' });
    await ctx.projections.catchUp();
    const res = await exportCsv(user);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="pricewatch-products-\d{4}-\d{2}-\d{2}\.csv"$/);
    const text = await res.text();
    const lines = text.trimEnd().split('\r\n');
    expect(lines[0]).toBe('name,url,selector,threshold,currentPrice,currency,lastChecked,checkStatus');
    expect(lines[1]).toMatch(/^"Kettle ""steel""",https:\/\/shop\.example\/kettle,\.price,-10,12\.5,GBP,\d{4}-.*Z,pending$/);
    expect(lines[2]).toBe('Lamp,https://shop.example/lamp,.p,any,,GBP,,pending');
    expect(text).not.toContain('Secret');
    expect((await request(null, 'GET', '/api/products/export.csv')).status).toBe(401);
  });

  test('streamed in pages: 1,200 products all arrive, gzipped as they stream when asked', async () => {
    const user = await proUser();
    await importCsv(user, csvOf(...rowsFor(1200)));
    const res = await exportCsv(user, { 'accept-encoding': 'gzip' });
    expect(res.headers.get('content-encoding')).toBe('gzip');
    const text = new TextDecoder().decode(gunzipSync(new Uint8Array(await res.arrayBuffer())));
    const lines = text.trimEnd().split('\r\n');
    expect(lines).toHaveLength(1201);
    expect(new Set(lines).size).toBe(1201);
  });

  test('round trip: export, delete all with one bulk request, import the file: the same products back', async () => {
    const user = await proUser();
    await importCsv(
      user,
      csvOf(
        '"Kettle, steel",https://shop.example/kettle,.price,-10',
        '"Lamp\nlarge",https://shop.example/lamp,div[data-p="1"],any',
        'Chair,https://shop.example/chair,.p,',
        '"=HYPERLINK(""http://x"")",https://shop.example/formula,.p,-5',
        "''@quoted,https://shop.example/quoted,.p,none",
      ),
    );
    const [chair] = (await list(user)).filter((p) => p.name === 'Chair');
    // A threshold only the edit dialog offers.
    expect(
      (
        await request(user, 'PUT', `/api/products/${chair!.id}`, {
          body: JSON.stringify({ name: 'Chair', url: chair!.url, selector: '.p', threshold: 7.5 }),
          type: 'application/json',
        })
      ).status,
    ).toBe(200);
    const shape = (products: ProductItem[]) =>
      products.map((p) => ({ name: p.name, url: p.url, selector: p.selector, alertRule: p.alertRule })).sort((a, b) => a.url.localeCompare(b.url));
    const before = await list(user);
    expect(before.map((p) => p.name)).toContain('=HYPERLINK("http://x")');
    expect(before.map((p) => p.name)).toContain("'@quoted");
    const file = await (await exportCsv(user)).text();
    // Formulas are neutralised for spreadsheets; the import reads the cells back as they were.
    expect(file).toContain(`"'=HYPERLINK(""http://x"")",https://shop.example/formula,.p,-5,`);
    expect(file).toContain("''@quoted,https://shop.example/quoted,.p,none,");
    const deleted = await bulk(user, { action: 'delete', ids: before.map((p) => p.id) });
    expect(await deleted.json()).toEqual({ action: 'delete', count: 5 });
    expect(await list(user)).toEqual([]);
    const res = await importCsv(user, file);
    expect(res.status).toBe(201);
    expect(shape(await list(user))).toEqual(shape(before));
  });
});

describe('bulk actions', () => {
  async function userWith(n: number) {
    const user = await proUser();
    await importCsv(user, csvOf(...rowsFor(n)));
    return { user, ids: (await list(user)).map((p) => p.id) };
  }

  test('delete removes the chosen products in one request', async () => {
    const { user, ids } = await userWith(4);
    const res = await bulk(user, { action: 'delete', ids: [ids[0], ids[1], ids[1]] });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ action: 'delete', count: 2 });
    expect((await list(user)).map((p) => p.id)).toEqual(ids.slice(2));
  });

  test('set-threshold sets the alert rule, as the edit dialog sends it, and keeps everything else', async () => {
    const { user, ids } = await userWith(3);
    let res = await bulk(user, { action: 'set-threshold', ids: ids.slice(0, 2), threshold: 15 });
    expect(await res.json()).toEqual({ action: 'set-threshold', count: 2, changed: 2 });
    res = await bulk(user, { action: 'set-threshold', ids: ids.slice(0, 2), threshold: 15 });
    expect(await res.json()).toEqual({ action: 'set-threshold', count: 2, changed: 0 });
    await bulk(user, { action: 'set-threshold', ids: [ids[2]], threshold: 'any' });
    const products = await list(user);
    expect(products.map((p) => p.alertRule)).toEqual([{ kind: 'drop', percent: 15 }, { kind: 'drop', percent: 15 }, { kind: 'any' }]);
    expect(products.every((p) => p.selector === '.price' && p.name.startsWith('Product'))).toBe(true);
    res = await bulk(user, { action: 'set-threshold', ids });
    expect(res.status).toBe(400);
    expect((await res.json()).message).toContain('Choose a threshold');
  });

  test('check-now queues the checks (politely per shop) instead of fetching in the request', async () => {
    const { user, ids } = await userWith(5);
    await ctx.sql`DELETE FROM check_jobs WHERE product_id = ANY(${ids}::text[])`;
    await ctx.sql`INSERT INTO host_backoff (host, until, failures, reason, blocked_at) VALUES ('resting.example', now() + interval '1 hour', 1, 'Blocked.', now())
      ON CONFLICT (host) DO UPDATE SET until = EXCLUDED.until`;
    await importCsv(user, csvOf('Resting,https://resting.example/r,.p,none'));
    const resting = (await list(user)).find((p) => p.name === 'Resting')!;
    const res = await bulk(user, { action: 'check-now', ids: [...ids, resting.id] });
    expect(await res.json()).toEqual({ action: 'check-now', count: 6, queued: 6, paused: 1, beyondPlan: 0 });
    const due = await ctx.sql<
      { due: number }[]
    >`SELECT extract(epoch FROM run_at - now()) AS due FROM check_jobs WHERE product_id = ANY(${ids}::text[]) ORDER BY run_at`;
    expect(due).toHaveLength(5);
    expect(Number(due.at(-1)!.due) - Number(due[0]!.due)).toBeGreaterThan(3);
  });

  test("another user's or an unknown id answers 404 naming none of them, and nothing changes", async () => {
    const { user, ids } = await userWith(2);
    const other = await userWith(1);
    const before = await eventCount();
    for (const action of ['delete', 'set-threshold', 'check-now']) {
      for (const stranger of [other.ids[0], crypto.randomUUID(), 'not-an-id']) {
        const res = await bulk(user, { action, ids: [ids[0], stranger], threshold: 5 });
        expect(res.status).toBe(404);
        expect(await res.json()).toEqual({ message: 'Product not found' });
      }
    }
    expect(await eventCount()).toBe(before);
    expect(await list(user)).toHaveLength(2);
    expect(await list(other.user)).toHaveLength(1);
    // The other user's products cannot be touched with their ids alone either.
    expect((await bulk(user, { action: 'delete', ids: other.ids })).status).toBe(404);
    expect(await list(other.user)).toHaveLength(1);
  });

  test('bad bodies are 400 naming the field: no ids, too many, an unknown action', async () => {
    const user = await signedIn();
    for (const [body, field] of [
      [{ action: 'delete', ids: [] }, 'ids'],
      [{ action: 'delete', ids: Array.from({ length: 1001 }, () => crypto.randomUUID()) }, 'ids'],
      [{ action: 'explode', ids: [crypto.randomUUID()] }, 'action'],
      [{ action: 'delete', ids: 'x' }, 'ids'],
      [{ action: 'set-threshold', ids: [crypto.randomUUID()], threshold: -5 }, 'threshold'],
    ] as const) {
      const res = await bulk(user, body);
      expect(res.status).toBe(400);
      expect((await res.json()).field).toBe(field);
    }
    expect(
      (await request(null, 'POST', '/api/products/bulk', { body: JSON.stringify({ action: 'delete', ids: [crypto.randomUUID()] }), type: 'application/json' }))
        .status,
    ).toBe(401);
  });
});
