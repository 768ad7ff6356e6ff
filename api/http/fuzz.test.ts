import { ApplyBody, BacktestBody, CostBody, RuleBody } from '../pricing/rule-input.ts';
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../server.ts';
import { APP_PAGES } from '../site.ts';
import { testContext } from '../testing/database.ts';
import { signInDemo } from '../testing/sign-in.ts';
import { startTrial } from '../testing/plans.ts';
import { addProduct, observePrices } from '../testing/prices.ts';
import { settle } from '../testing/alerts.ts';
import { DEFAULT_SETTINGS } from '../../events/settings.ts';
import { handleCommand } from '../../events/decider.ts';
import { ownProductDecider, ownProductIdFor, ownProductStream } from '../../events/own-product.ts';
import { sourceDecider, sourceStream } from '../../events/catalogue-source.ts';
import { MAX_JSON_BODY } from './input.ts';
import { chromiumPath, sharedRenderer } from '../fetching/browser.ts';

/**
 * Every route of the app, taken from the app itself (new routes are covered without a change
 * here), is sent hostile input: text PostgreSQL cannot store, huge strings and bodies, wrong
 * types, numbers JSON cannot carry, deep nesting, crafted cursors and dates, malformed session
 * cookies, another user's ids, and bodies in other content types. None may answer 5xx; the API
 * answers its refusals in JSON; and a refused request leaves the event log as it was.
 */

const ORIGIN = 'http://localhost:3000';

// The site's pages, so the site's routes answer without a build.
const siteDir = mkdtempSync(join(tmpdir(), 'pricewatch-fuzz-site-'));
for (const page of [...APP_PAGES, 'index', 'login', '404', 'unauthorized']) writeFileSync(join(siteDir, `${page}.html`), `<title>${page}</title>`);

const ctx = await testContext({ PUBLIC_URL: ORIGIN, SITE_DIR: siteDir });
const app = createApp(ctx);
afterAll(() => ctx.close());

const handle = (request: Request) => app.handle(request);

/**
 * An own product from a CSV row and a connected store on loopback (so reading it ends at once),
 * appended as the catalogue's routes would, with the read models caught up.
 */
async function catalogueOf(userId: string) {
  const ownProduct = ownProductIdFor(userId, null, 'FUZZ-1');
  const item = { title: 'Fuzz kettle', variant: null, sku: 'FUZZ-1', gtin: null, mpn: null, brand: null, regularPrice: null, cost: null };
  const details = { ...item, url: null, imageUrl: null, availability: null, price: 20, currency: 'GBP' };
  const at = new Date().toISOString();
  await handleCommand(ctx.store, ownProductStream(ownProduct), ownProductDecider, {
    type: 'Import',
    ownProductId: ownProduct,
    userId,
    sourceId: null,
    externalId: 'FUZZ-1',
    item: details,
    at,
  });
  const source = crypto.randomUUID();
  await handleCommand(ctx.store, sourceStream(source), sourceDecider, {
    type: 'Connect',
    sourceId: source,
    userId,
    kind: 'shopify',
    url: 'http://127.0.0.1:9/',
  });
  await ctx.projections.catchUp();
  return { ownProduct, source };
}

/** Another user with a product, an alert and a catalogue: their ids must be 404 to anyone else. */
const other = await signInDemo(app, ORIGIN);
const otherProduct = await addProduct(ctx, other.userId);
await observePrices(ctx, otherProduct, other.userId, [
  [10, new Date(Date.now() - 7_200_000)],
  [8, new Date(Date.now() - 3_600_000)],
]);
await settle(ctx);
const [otherAlert] = await ctx.sql<{ id: string }[]>`SELECT id FROM alerts WHERE user_id = ${other.userId}`;
if (!otherAlert) throw new Error('the other user should have an alert');
await startTrial(ctx, other.userId, 'starter');
const otherCatalogue = await catalogueOf(other.userId);
const otherChannel = (
  await (
    await handle(
      new Request(new URL('/api/channels', ORIGIN), {
        method: 'POST',
        headers: { cookie: other.cookie, origin: ORIGIN, 'content-type': 'application/json' },
        body: JSON.stringify({ type: 'slack', url: 'https://hooks.example.invalid/other' }),
      }),
    )
  ).json()
).id as string;

async function issueKey(cookie: string): Promise<string> {
  const res = await handle(new Request(new URL('/api/settings/api-key', ORIGIN), { method: 'POST', headers: { cookie, origin: ORIGIN } }));
  if (res.status !== 200) throw new Error(`issuing an API key answered ${res.status}`);
  return (await res.json()).key;
}

/**
 * A fresh Pro user with a product that has prices, and an API key: one per route, so what one
 * route's accepted requests do (sign out, revoke the key, delete the product) leaves the others whole.
 * The product's address is refused by the fetcher (loopback), so a check ends at once.
 */
async function fuzzer() {
  const user = await signInDemo(app, ORIGIN);
  await startTrial(ctx, user.userId, 'pro');
  const product = await addProduct(ctx, user.userId, { url: 'http://127.0.0.1:9/p' });
  await observePrices(ctx, product, user.userId, [
    [12, new Date(Date.now() - 7_200_000)],
    [11, new Date(Date.now() - 3_600_000)],
    [10, new Date()],
  ]);
  await ctx.projections.catchUp();
  const channel = await handle(
    new Request(new URL('/api/channels', ORIGIN), {
      method: 'POST',
      headers: { cookie: user.cookie, origin: ORIGIN, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'webhook', url: 'https://hooks.example.invalid/in' }),
    }),
  );
  if (channel.status !== 201) throw new Error(`adding a channel answered ${channel.status}`);
  const catalogue = await catalogueOf(user.userId);
  return { ...user, ...catalogue, product, channel: (await channel.json()).id as string, key: await issueKey(user.cookie) };
}
type Fuzzer = Awaited<ReturnType<typeof fuzzer>>;

const digest = async () => {
  const [row] = await ctx.sql<{ n: string; last: string | null }[]>`SELECT count(*) AS n, max(global_position) AS last FROM events`;
  return `${row!.n} events, last ${row!.last}`;
};

// ---- hostile values -------------------------------------------------------------------------

const KB100 = 'x'.repeat(100_000);
const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const now = new Date().toISOString();

/** Path segments, already encoded (a lone surrogate cannot be percent-encoded; its UTF-8 bytes are invalid). */
const PATH_VALUES: [string, string][] = [
  ['NUL', '%00'],
  ['NUL inside', 'a%00b'],
  ['surrogate bytes', '%ED%A0%80'],
  ['overlong NUL', '%C0%80'],
  ['bad escape', '%E0%A4%A'],
  ['100 kB', KB100],
  ['SQL', encodeURIComponent("1' OR '1'='1")],
  ['dot segments', '..%2F..%2Fsettings'],
  ['-0', '-0'],
  ['NaN', 'NaN'],
  ['Infinity', 'Infinity'],
  ['1e999', '1e999'],
  ['null', 'null'],
  ['object', '%7B%7D'],
  ['array', '%5B%5D'],
  ['upper-case UUID', crypto.randomUUID().toUpperCase()],
  ['nil UUID', '00000000-0000-0000-0000-000000000000'],
  ["another user's product", otherProduct],
  ["another user's alert", otherAlert.id],
  ["another user's channel", otherChannel],
  ["another user's own product", otherCatalogue.ownProduct],
  ["another user's store", otherCatalogue.source],
];

/** Query values, already encoded. */
const QUERY_VALUES: [string, string][] = [
  ['NUL', '%00'],
  ['surrogate bytes', '%ED%A0%80'],
  ['overlong NUL', '%C0%80'],
  ['bad escape', '%'],
  ['100 kB', KB100],
  ['NaN', 'NaN'],
  ['Infinity', 'Infinity'],
  ['-0', '-0'],
  ['1e999', '1e999'],
  ['-1', '-1'],
  ['number', '42'],
  ['empty', ''],
  ['object', '%7B%7D'],
  ['array', '%5B%5D'],
  ['year +275760', encodeURIComponent('+275760-09-13T00:00:00.000Z')],
  ['year -1', encodeURIComponent('-000001-01-01T00:00:00.000Z')],
  ['year 0', '0000-01-01T00:00:00Z'],
  ['cursor: position not an integer', b64([now, '1.5'])],
  ['cursor: position as text', b64([now, 'x'])],
  ['cursor: position past bigint', b64([now, '99999999999999999999'])],
  ['cursor: NUL id', b64([now, 'a\u0000'])],
  ['cursor: year +275760', b64(['+275760-09-13T00:00:00.000Z', '1'])],
  ['cursor: year -1', b64(['-000001-01-01T00:00:00.000Z', '1'])],
  ['cursor: wrong types', b64([{}, []])],
  ['cursor: not JSON', b64('[')],
  ['cursor: not base64', '%%%'],
  ['event cursor past xid8', b64('99999999999999999999.1')],
  ['event cursor past bigint', b64('1.99999999999999999')],
  ['event cursor with NUL', b64('1.\u0000')],
];

/** JSON values for one field of a body. */
const deep = (depth: number): unknown => {
  let v: unknown = [];
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};
/** Refused as a whole body (nested too deeply) before any field is looked at. */
const DEEP = ['nested arrays'];
const FIELD_VALUES: [string, unknown][] = [
  ['NUL', 'a\u0000b'],
  ['lone surrogate', 'a\ud800b'],
  ['lone low surrogate', '\udc00'],
  ['100 kB', KB100],
  ['number', 42],
  ['huge number', 1e308],
  ['true', true],
  ['null', null],
  ['empty', ''],
  ['object', { a: 'b' }],
  ['array', ['a']],
  ['array of objects', [{}]],
  ['nested arrays', deep(1000)],
  ['object with a NUL key', { 'a\u0000': 1 }],
];
/** Numbers JSON cannot carry, written into the body text as they are. */
const RAW_FIELD_VALUES = ['NaN', 'Infinity', '-Infinity', '-0', '1e999', '-1e999', '1e-999'];

/** Whole bodies, as text. */
const BODIES: [string, string][] = [
  ['NUL string', JSON.stringify('\u0000')],
  ['raw NUL bytes', '\u0000\u0001'],
  ['invalid JSON', '{"a": '],
  ['empty', ''],
  ['null', 'null'],
  ['number', '42'],
  ['array', '[1,2]'],
  ['string', '"x"'],
  ['deeply nested arrays', '['.repeat(100_000) + ']'.repeat(100_000)],
  ['deeply nested objects', '{"a":'.repeat(10_000) + '1' + '}'.repeat(10_000)],
  ['100 kB string', JSON.stringify(KB100)],
];

const COOKIES: [string, string][] = [
  ['NUL', 'pw_session=%00.x'],
  ['NUL in the secret', 'pw_session=abc.%00'],
  ['surrogate bytes', 'pw_session=%ED%A0%80.x'],
  ['JSON object', 'pw_session={}'],
  ['JSON array', 'pw_session=[1]'],
  ['number', 'pw_session=123'],
  ['three parts', 'pw_session=a.b.c'],
  ['dot only', 'pw_session=.'],
  ['huge', `pw_session=${'x'.repeat(10_000)}.y`],
  ['bad escape', 'pw_session=%'],
];

/** Valid bodies of the routes that take one, so that one hostile field at a time gets past the others ({} for any other). */
const bases = (me: Fuzzer): Record<string, Record<string, unknown>> => ({
  'POST /api/products/': { name: 'Fuzz', url: 'http://127.0.0.1:9/p', selector: '.price', threshold: 'any', stockAlerts: true },
  'PUT /api/products/:id': { name: 'Fuzz', url: 'http://127.0.0.1:9/p', selector: '.price', threshold: 5, stockAlerts: true },
  'POST /api/products/:id/update-price': { price: '9.99' },
  'PUT /api/settings/': { ...DEFAULT_SETTINGS },
  'POST /api/billing/create-subscription': { plan: 'pro', paymentMethodId: 'pm_card_visa' },
  'POST /api/ai/detect-selector': { url: 'http://127.0.0.1:9/p' },
  'POST /api/price-suggestions': { productId: me.product, timeFilter: 'month' },
  'POST /api/channels/': { type: 'webhook', url: 'https://hooks.example.invalid/in' },
  'PATCH /api/channels/:id': { name: 'Fuzz', enabled: true, alertTypes: ['price_drop'] },
  'POST /api/products/bulk': { action: 'set-threshold', ids: [me.product], threshold: 5 },
  'POST /api/catalogue/sources': { kind: 'shopify', url: 'http://127.0.0.1:9/' },
  'POST /api/catalogue/matches': { ownProductId: me.ownProduct, productId: me.product, decision: 'reject' },
  'PUT /api/catalogue/settings': { competitivePercent: 5, autoAcceptGtin: false },
  'PUT /api/catalogue/:id/rule': { strategy: 'beat-cheapest', offsetPercent: 1, floor: { amount: 5 }, rounding: '.99', maxStepPercent: 10 },
  'POST /api/catalogue/:id/rule/backtest': { timeFilter: 'month', rule: { strategy: 'match-cheapest', floor: { amount: 5 } } },
  'PATCH /api/catalogue/:id': { cost: 5 },
  'POST /api/catalogue/:id/recommendation/apply': { price: 5 },
  'POST /api/catalogue/:id/recommendation/dismiss': { price: 5 },
  'POST /api/catalogue/recommendations/apply': { ids: [] },
});

/** Routes that check their JSON body themselves, after finding the user's record (so others' ids are 404 first). */
const PARSED_BODIES: Record<string, unknown> = {
  'PUT /api/catalogue/:id/rule': RuleBody,
  'POST /api/catalogue/:id/rule/backtest': BacktestBody,
  'PATCH /api/catalogue/:id': CostBody,
  'POST /api/catalogue/:id/recommendation/apply': ApplyBody.unwrap(),
  'POST /api/catalogue/:id/recommendation/dismiss': ApplyBody.unwrap(),
};

/** Hostile files for the routes that take CSV (they read their body themselves). */
const CSV_HEADER = 'name,url,selector,threshold\n';
const OWN_HEADER = 'sku,title,price,currency\n';
const CSV_BODIES: Record<string, [string, BodyInit][]> = {
  'POST /api/products/import': [
    ['NUL', `${CSV_HEADER}a\u0000b,http://127.0.0.1:9/n,.p,none\n`],
    ['raw NUL bytes', '\u0000\u0001'],
    ['lone surrogate bytes', new Uint8Array([0x6e, 0x2c, 0xed, 0xa0, 0x80])],
    ['empty', ''],
    ['header only', CSV_HEADER],
    ['unclosed quote', `${CSV_HEADER}"a,b,c,d\n`],
    ['100 kB cell', `${CSV_HEADER}${KB100},http://127.0.0.1:9/k,.p,none\n`],
    ['10,000 columns', `${CSV_HEADER}${'a,'.repeat(10_000)}\n`],
    ['bad selector', `${CSV_HEADER}A,http://127.0.0.1:9/s,div[,none\n`],
    ['metadata address', `${CSV_HEADER}A,http://169.254.169.254/x,.p,none\n`],
    ['huge threshold', `${CSV_HEADER}A,http://127.0.0.1:9/t,.p,-1e999\n`],
    ['over 2 MB', `${CSV_HEADER}${'x'.repeat(2 * 1024 * 1024)}`],
    ['5,001 rows', CSV_HEADER + 'A,http://127.0.0.1:9/r,.p,none\n'.repeat(5_001)],
  ],
  'POST /api/catalogue/import': [
    ['NUL', `${OWN_HEADER}A\u0000,Kettle,20,GBP\n`],
    ['raw NUL bytes', '\u0000\u0001'],
    ['lone surrogate bytes', new Uint8Array([0x73, 0x6b, 0x75, 0x2c, 0xed, 0xa0, 0x80])],
    ['empty', ''],
    ['header only', OWN_HEADER],
    ['unclosed quote', `${OWN_HEADER}"A,Kettle,20,GBP\n`],
    ['100 kB cell', `${OWN_HEADER}A,${KB100},20,GBP\n`],
    ['10,000 columns', `${OWN_HEADER}${'a,'.repeat(10_000)}\n`],
    ['numbers JSON cannot carry', `${OWN_HEADER}A,Kettle,NaN,GBP\nB,Kettle,1e999,GBP\nC,Kettle,-0,GBP\nD,Kettle,-1,GBP\n`],
    ['bad currency and GTIN', `${OWN_HEADER.trim()},gtin\nA,Kettle,20,pounds,12345\n`],
    ['metadata address', `${OWN_HEADER.trim()},url\nA,Kettle,20,GBP,http://169.254.169.254/x\n`],
    ['the same SKU twice', `${OWN_HEADER}A,Kettle,20,GBP\nA,Kettle,21,GBP\n`],
    ['over 2 MB', `${OWN_HEADER}${'x'.repeat(2 * 1024 * 1024)}`],
    ['5,001 rows', OWN_HEADER + Array.from({ length: 5_001 }, (_, i) => `S${i},Kettle,20,GBP\n`).join('')],
  ],
};

// ---- requests -------------------------------------------------------------------------------

type Route = (typeof app.routes)[number];
/** The own catalogue's routes, in the app and in the public API: their `:id` is an own product's. */
const CATALOGUE = /^\/api(\/v1)?\/(catalogue|position)(\/|$)/;
/** What the answer must be besides no 5xx: this status, and a 400 naming this field. */
type Expected = { status?: number; field?: string };
type Input = { label: string; method: string; path: string; query?: string; body?: BodyInit; type?: string; cookie?: string | null; expect?: Expected };

const keysOf = (schema: unknown): string[] => {
  const s = schema as { shape?: object; properties?: object } | undefined;
  return Object.keys(s?.shape ?? s?.properties ?? {});
};

/** The route's path with every parameter (and wildcard) replaced by `value`. */
const pathWith = (route: Route, value: (name: string) => string) =>
  route.path.replace(/:(\w+)/g, (_, name: string) => value(name)).replace(/\*$/, () => value('*'));

function* inputsFor(route: Route, me: Fuzzer): Generator<Input> {
  const methods = route.method === 'ALL' ? ['GET', 'POST', 'DELETE'] : [route.method];
  // The fuzzer's own ids get past ownership checks to the input behind them.
  const own = pathWith(route, (name) => {
    if (name === '*') return 'fuzz';
    if (route.path.startsWith('/api/channels/')) return me.channel;
    if (route.path.startsWith('/api/catalogue/sources/')) return me.source;
    return CATALOGUE.test(route.path) && name === 'id' ? me.ownProduct : me.product;
  });
  const bodySchema = route.hooks.body ?? PARSED_BODIES[`${route.method} ${route.path}`];
  const takesBody = !!bodySchema;
  // The catalogue's routes are held to the exact answers too: what is not an id is 404, a big body 413.
  const strict = CATALOGUE.test(route.path);
  const tooLarge = strict && route.path !== '/api/catalogue/import' ? { status: 413 } : undefined;
  for (const method of methods) {
    const hasParams = /[:*]/.test(route.path);
    if (hasParams) {
      for (const [label, value] of PATH_VALUES)
        yield { label: `path ${label}`, method, path: pathWith(route, () => value), expect: strict ? { status: 404 } : undefined };
    }
    for (const [label, cookie] of COOKIES) yield { label: `cookie ${label}`, method, path: own, cookie };

    const reads = method === 'GET';
    // Query strings: GET routes get them all; elsewhere only what must be refused before anything runs.
    for (const key of [...keysOf(route.hooks.query), 'x']) {
      for (const [label, value] of reads ? QUERY_VALUES : QUERY_VALUES.filter(([l]) => l === 'NUL')) {
        yield { label: `query ${key}=${label}`, method, path: own, query: `${key}=${value}` };
      }
      if (reads) yield { label: `query ${key} repeated`, method, path: own, query: `${key}=a&${key}=b` };
    }
    if (reads) continue;

    // Bodies in other content types, and too large ones, whether the route takes a body or not.
    const form = new FormData();
    form.set('name', 'Fuzz');
    yield { label: 'form body', method, path: own, body: 'name=Fuzz&price=1', type: 'application/x-www-form-urlencoded' };
    yield { label: 'multipart body', method, path: own, body: form };
    yield { label: 'text/plain body', method, path: own, body: '{}', type: 'text/plain' };
    yield { label: 'body without a content type', method, path: own, body: new TextEncoder().encode('{}') };
    const large = JSON.stringify({ name: 'x'.repeat(MAX_JSON_BODY) });
    yield { label: 'JSON body over 1 MB', method, path: own, body: large, type: 'application/json', expect: tooLarge };
    yield {
      label: 'chunked JSON body over 1 MB',
      method,
      path: own,
      type: 'application/json',
      expect: tooLarge,
      body: new ReadableStream({
        start(c) {
          for (let i = 0; i < 20; i++) c.enqueue(new TextEncoder().encode(' '.repeat(64 * 1024)));
          c.close();
        },
      }),
    };
    for (const [label, body] of CSV_BODIES[`${method} ${route.path}`] ?? []) {
      yield { label: `CSV ${label}`, method, path: own, body, type: 'text/csv', expect: strict && label === 'over 2 MB' ? { status: 413 } : undefined };
    }
    // JSON a route does not take would simply be ignored: hostile JSON goes to routes that take it.
    if (!takesBody) continue;
    for (const [label, text] of BODIES) yield { label: `body ${label}`, method, path: own, body: text, type: 'application/json' };
    const base = bases(me)[`${method} ${route.path}`] ?? {};
    for (const key of new Set([...keysOf(bodySchema), ...Object.keys(base)])) {
      for (const [label, value] of FIELD_VALUES) {
        const body = JSON.stringify({ ...base, [key]: value });
        yield {
          label: `${key}: ${label}`,
          method,
          path: own,
          body,
          type: 'application/json',
          expect: strict && !DEEP.includes(label) ? { field: key } : undefined,
        };
      }
      for (const raw of RAW_FIELD_VALUES) {
        yield {
          label: `${key}: ${raw}`,
          method,
          path: own,
          body: JSON.stringify({ ...base, [key]: '\u0001' }).replace('"\\u0001"', raw),
          type: 'application/json',
        };
      }
    }
  }
}

function requestOf(input: Input, me: Fuzzer, signal: AbortSignal): Request {
  const headers = new Headers({ authorization: `Bearer ${me.key}` });
  const cookie = input.cookie === undefined ? me.cookie : input.cookie;
  if (cookie) headers.set('cookie', cookie);
  if (input.method !== 'GET') headers.set('origin', ORIGIN);
  if (input.type) headers.set('content-type', input.type);
  const url = `${ORIGIN}${input.path}${input.query ? `?${input.query}` : ''}`;
  return new Request(url, {
    method: input.method,
    headers,
    body: input.body,
    signal,
    ...(input.body instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit);
}

/** Sends every input of a route; answers what went wrong, one line each. */
async function fuzz(route: Route): Promise<string[]> {
  const me = await fuzzer();
  const failures: string[] = [];
  for (const input of inputsFor(route, me)) {
    const where = `${input.method} ${input.path.slice(0, 80)}${input.query ? `?${input.query.slice(0, 80)}` : ''} (${input.label})`;
    const before = await digest();
    const abort = new AbortController();
    let res = await handle(requestOf(input, me, abort.signal));
    if (res.status === 429 && input.path.startsWith('/api/v1/')) {
      // The key's rate limit, not the input: go on with a new key.
      me.key = await issueKey(me.cookie);
      res = await handle(requestOf(input, me, abort.signal));
    }
    // An event stream stays open: the headers are the answer.
    const text = res.headers.get('content-type')?.startsWith('text/event-stream') ? '' : await res.text();
    abort.abort();
    if (res.status >= 500) failures.push(`${where}: ${res.status} ${text.slice(0, 200)}`);
    if (input.expect?.status && res.status !== input.expect.status) failures.push(`${where}: ${res.status}, not ${input.expect.status}: ${text.slice(0, 200)}`);
    if (res.status < 400) continue;
    if (input.path.startsWith('/api/')) {
      let answer: { message?: unknown; field?: unknown } = {};
      try {
        answer = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      if (!res.headers.get('content-type')?.includes('application/json') || typeof answer.message !== 'string') {
        failures.push(`${where}: ${res.status} without a JSON message: ${text.slice(0, 200)}`);
      }
      // A field inside it (`rule.strategy`, `ids.0`) names it too.
      const named = typeof answer.field === 'string' && (answer.field === input.expect?.field || answer.field.startsWith(`${input.expect?.field}.`));
      if (res.status === 400 && input.expect?.field && !named) {
        failures.push(`${where}: 400 naming ${String(answer.field)}, not ${input.expect.field}`);
      }
    }
    const after = await digest();
    if (after !== before) failures.push(`${where}: refused with ${res.status} but the event log changed (${before} -> ${after})`);
  }
  return failures;
}

describe('every route under hostile input', () => {
  test('the routes are taken from the app', () => {
    expect(app.routes.length).toBeGreaterThan(40);
    expect(app.routes.map((r) => `${r.method} ${r.path}`)).toContain('GET /api/v1/products/:id/prices');
  });

  test('the own catalogue and its reads in the public API are among them', () => {
    const routes = app.routes.map((r) => `${r.method} ${r.path}`);
    const catalogue = [
      ...['GET /api/catalogue', 'GET /api/catalogue/:id', 'DELETE /api/catalogue/:id', 'GET /api/position', 'POST /api/catalogue/import'],
      ...['GET /api/catalogue/sources', 'POST /api/catalogue/sources', 'DELETE /api/catalogue/sources/:id', 'POST /api/catalogue/sources/:id/sync'],
      ...['GET /api/catalogue/matches', 'POST /api/catalogue/matches', 'GET /api/catalogue/settings', 'PUT /api/catalogue/settings'],
      ...['GET /api/catalogue/:id/position-history', 'PUT /api/catalogue/:id/competitors/:productId', 'DELETE /api/catalogue/:id/competitors/:productId'],
      ...['GET /api/v1/catalogue', 'GET /api/v1/catalogue/:id', 'GET /api/v1/catalogue/:id/position-history', 'GET /api/v1/catalogue/matches'],
      'GET /api/v1/catalogue/position',
      ...['GET /api/v1/catalogue/recommendations', 'GET /api/v1/catalogue/:id/recommendation'],
      ...['GET /api/catalogue/:id/rule', 'PUT /api/catalogue/:id/rule', 'DELETE /api/catalogue/:id/rule', 'POST /api/catalogue/:id/rule/backtest'],
      ...['GET /api/catalogue/:id/recommendation', 'POST /api/catalogue/:id/recommendation/apply', 'POST /api/catalogue/:id/recommendation/dismiss'],
      ...['POST /api/catalogue/:id/recommendation/undo', 'GET /api/catalogue/recommendations', 'POST /api/catalogue/recommendations/apply'],
      ...['GET /api/catalogue/recommendations/export.csv', 'PATCH /api/catalogue/:id'],
      ...['GET /api/catalogue/sources/:id/write-access', 'PUT /api/catalogue/sources/:id/write-access', 'DELETE /api/catalogue/sources/:id/write-access'],
    ];
    expect(routes).toEqual(expect.arrayContaining(catalogue));
    expect(routes.filter((r) => CATALOGUE.test(r.split(' ')[1]!)).sort()).toEqual(catalogue.sort());
  });

  for (const route of app.routes) {
    test(`${route.method} ${route.path}: never 5xx, JSON refusals, nothing changed`, async () => {
      expect(await fuzz(route)).toEqual([]);
    });
  }
});

/** Shop pages on loopback, which checks may visit from this app. */
const shopApp = createApp({ ...ctx, config: { ...ctx.config, checkAllowPrivate: true } });

/** A fresh user's product on `url`, and how that user posts to the app that may reach it. */
async function shopProduct(url: string) {
  const me = await fuzzer();
  const product = await addProduct(ctx, me.userId, { url });
  await ctx.projections.catchUp();
  const post = (path: string, body?: unknown) =>
    shopApp.handle(
      new Request(new URL(path, ORIGIN), {
        method: 'POST',
        headers: { cookie: me.cookie, origin: ORIGIN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      }),
    );
  return { product, post };
}

describe('a product whose page is nested 200,000 levels deep', () => {
  // A megabyte of <div>s never closed, from a shop on loopback, which checks may visit here.
  const DEEP_PAGE = `<!doctype html><html><head><title>Steel Kettle</title></head><body>${'<div>'.repeat(200_000)}<span class="price">£24.99</span>`;
  const REASON = 'The page is nested too deeply to be read safely (more than 1,024 levels of elements).';
  const shop = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response(DEEP_PAGE, { headers: { 'content-type': 'text/html; charset=utf-8' } }) });
  afterAll(() => shop.stop(true));
  const url = `http://127.0.0.1:${shop.port}/kettle`;

  test('Check Now and AI Detect answer without 5xx, and the check records page-too-deep', async () => {
    const { product, post } = await shopProduct(url);

    const check = await post(`/api/products/${product}/check-price`);
    expect(check.status).toBe(200);
    expect(await check.json()).toEqual({ success: false, error: 'page-too-deep', message: REASON });
    const failed = (await ctx.store.readStream(`product-${product}`)).events.filter((e) => e.type === 'PriceCheckFailed');
    expect(failed.map((e) => e.data)).toMatchObject([{ code: 'page-too-deep', reason: REASON, httpStatus: 200 }]);

    const detect = await post('/api/ai/detect-selector', { url });
    expect(detect.status).toBe(422);
    expect((await detect.json()).message).toBe(`The page could not be analysed: ${REASON}`);
  });
});

describe.skipIf(!existsSync(chromiumPath()))('a product whose page opens popups while its price is coming', () => {
  // The page that once ended the process: a popup opened before the script writes the price.
  const POPUP_PAGE = `<div id=root></div><script>window.open('/child'); open('/other', '_blank', 'popup'); setTimeout(()=>root.innerHTML='<h1>Steel Kettle</h1><div class=price>£12.34</div>',1500)</script>`;
  let opened = 0;
  const shop = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req) {
      if (new URL(req.url).pathname !== '/kettle') opened++;
      return new Response(POPUP_PAGE, { headers: { 'content-type': 'text/html; charset=utf-8' } });
    },
  });
  afterAll(async () => {
    shop.stop(true);
    await sharedRenderer().close();
  });
  const url = `http://127.0.0.1:${shop.port}/kettle`;

  test('Check Now reads its price in the browser, AI Detect suggests the selector, and no popup is loaded', async () => {
    const { product, post } = await shopProduct(url);
    const check = await post(`/api/products/${product}/check-price`);
    expect(check.status).toBe(200);
    expect(await check.json()).toMatchObject({ success: true, price: 12.34 });

    const detect = await post('/api/ai/detect-selector', { url });
    expect(detect.status).toBe(200);
    expect((await detect.json()).selectors[0]).toMatchObject({ selector: expect.stringContaining('price'), description: expect.stringContaining('£12.34') });
    expect(opened).toBe(0);
  });
});
