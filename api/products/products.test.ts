import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { createApp } from '../server.ts';
import { testContext, usingPostgresServer } from '../testing/database.ts';
import { handleProductCommand, type ProductCommand } from '../../events/product.ts';
import type { Availability } from '../../events/catalogue.ts';
import { productsProjection } from '../../projections/products.ts';
import { alertsProjection } from '../../projections/alerts.ts';
import { transaction } from '../../db/index.ts';
import type { ProductItem } from './read-model.ts';
import { signInDemo } from '../testing/sign-in.ts';

// Starting a database takes longer than the 5 s default.
setDefaultTimeout(30_000);

const ORIGIN = 'http://localhost:3000';

let ctx: Awaited<ReturnType<typeof testContext>>;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  ctx = await testContext({ PUBLIC_URL: ORIGIN });
  app = createApp(ctx);
});
afterAll(() => ctx.close());

const request = (path: string, init: RequestInit = {}) => app.handle(new Request(new URL(path, ORIGIN), init));

const signedIn = () => signInDemo(app, ORIGIN);
type User = Awaited<ReturnType<typeof signedIn>>;

const send = (user: User | null, method: string, path: string, body?: unknown, raw?: { text: string; type: string }) =>
  request(path, {
    method,
    headers: { ...(user ? { cookie: user.cookie } : {}), origin: ORIGIN, ...(body !== undefined || raw ? { 'content-type': raw?.type ?? 'application/json' } : {}) },
    body: raw ? raw.text : body === undefined ? undefined : JSON.stringify(body),
  });

const list = async (user: User): Promise<ProductItem[]> => {
  const res = await send(user, 'GET', '/api/products');
  expect(res.status).toBe(200);
  return res.json();
};
const kettle = { name: 'Steel kettle', url: 'https://shop.example/kettle', selector: '.price', threshold: '-10' };
/** The same product as the edit dialog sends it: the threshold is a number. */
const kettleEdit = { ...kettle, threshold: 10 };
/** Another page of the shop: a user tracks each page once. */
const page = (name: string, extra: Record<string, unknown> = {}) => ({ ...kettle, name, url: `https://shop.example/${name}`, ...extra });
async function add(user: User, body: Record<string, unknown> = kettle): Promise<ProductItem> {
  const res = await send(user, 'POST', '/api/products', body);
  expect(res.status).toBe(201);
  return res.json();
}
const eventCount = async () => Number((await ctx.sql`SELECT count(*) AS n FROM events`)[0]!.n);

/** What the price-check worker does with a result: a command on the product, then the read models catch up. */
async function record(command: ProductCommand) {
  const { appended } = await handleProductCommand(ctx.store, command);
  await ctx.projections.waitFor({ transactionId: appended!.transactionId, position: appended!.lastPosition });
}
const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();
const observed = (productId: string, price: number, observedAt = new Date().toISOString(), availability: Availability | null = null): ProductCommand => ({
  type: 'RecordObservation', productId,
  observation: { price, currency: 'GBP', source: 'json-ld', selector: null, matchedText: `£${price}`, url: kettle.url, httpStatus: 200, pageHash: 'h', observedAt, availability, fetcher: 'static' },
});
const failed = (productId: string, reason = 'The price element was not found on the page.', availability: Availability | null = null): ProductCommand => ({
  type: 'RecordFailure', productId,
  failure: { code: 'selector_no_match', reason, httpStatus: 200, url: kettle.url, attemptedAt: new Date().toISOString(), availability },
});

describe('products API: signed out', () => {
  test('every route answers 401', async () => {
    const id = crypto.randomUUID();
    for (const [method, path, body] of [
      ['GET', '/api/products'], ['POST', '/api/products', kettle], ['PUT', `/api/products/${id}`, kettleEdit],
      ['DELETE', `/api/products/${id}`], ['POST', `/api/products/${id}/update-price`, { price: '10' }],
    ] as const) {
      const res = await send(null, method, path, body);
      expect(res.status).toBe(401);
      expect((await res.json()).message).toBe('Unauthorized');
    }
  });
});

describe('products API: add, list, edit, delete', () => {
  test('a new user has no products', async () => {
    expect(await list(await signedIn())).toEqual([]);
  });

  test('POST answers 201 with the product as the list shows it', async () => {
    const user = await signedIn();
    const product = await add(user, { ...kettle, name: '  Steel kettle  ' });
    expect(product).toEqual({
      id: expect.any(String), name: 'Steel kettle', url: kettle.url, selector: '.price',
      threshold: 10, alertRule: { kind: 'drop', percent: 10 },
      currentPrice: null, lastPriceAt: null, priceSource: null, currency: 'GBP', imageUrl: null, lastChecked: null, changePercent: null,
      isActive: true, lastCheckStatus: null, lastCheckError: null, checkStatus: 'pending', lastFailure: null, createdAt: expect.any(String),
      availability: null, stockAlerts: true, checksPaused: false,
    });
    expect(await list(user)).toEqual([product]);
  });

  test('stock alerts: on unless the add turns them off; an edit that does not name them keeps them', async () => {
    const user = await signedIn();
    expect((await add(user, page('Quiet', { stockAlerts: false }))).stockAlerts).toBe(false);
    const product = await add(user);
    let res = await send(user, 'PUT', `/api/products/${product.id}`, { ...kettleEdit, stockAlerts: false });
    expect(res.status).toBe(200);
    expect((await res.json()).stockAlerts).toBe(false);
    res = await send(user, 'PUT', `/api/products/${product.id}`, { ...kettleEdit, name: 'Renamed' });
    expect(await res.json()).toMatchObject({ name: 'Renamed', stockAlerts: false });
    res = await send(user, 'PUT', `/api/products/${product.id}`, { ...kettleEdit, name: 'Renamed', stockAlerts: true });
    expect((await res.json()).stockAlerts).toBe(true);
  });

  test('the list is newest first', async () => {
    const user = await signedIn();
    const first = await add(user, page('First'));
    const second = await add(user, page('Second'));
    expect((await list(user)).map((p) => p.id)).toEqual([second.id, first.id]);
  });

  test('every threshold of the add dialog is stored as its alert rule', async () => {
    const user = await signedIn();
    await ctx.sql`UPDATE users SET plan = 'pro' WHERE id = ${user.userId}`;
    const cases: [unknown, ProductItem['alertRule'], number | null][] = [
      ['none', { kind: 'none' }, null], ['any', { kind: 'any' }, null],
      ['-5', { kind: 'drop', percent: 5 }, 5], ['-10', { kind: 'drop', percent: 10 }, 10],
      ['-15', { kind: 'drop', percent: 15 }, 15], ['-20', { kind: 'drop', percent: 20 }, 20],
      [-15, { kind: 'drop', percent: 15 }, 15], [null, { kind: 'none' }, null], [undefined, { kind: 'none' }, null], ['', { kind: 'none' }, null],
    ];
    for (const [i, [threshold, alertRule, percent]] of cases.entries()) {
      const product = await add(user, page(`T${i}`, { threshold }));
      expect({ alertRule: product.alertRule, threshold: product.threshold }).toEqual({ alertRule, threshold: percent });
    }
  });

  test('PUT edits name, url, selector and threshold', async () => {
    const user = await signedIn();
    const { id } = await add(user);
    const res = await send(user, 'PUT', `/api/products/${id}`, { name: 'Kettle 2', url: 'http://other.example/k?x=1', selector: 'span[itemprop="price"]', threshold: 7.5 });
    expect(res.status).toBe(200);
    const edited = await res.json();
    expect(edited).toMatchObject({ id, name: 'Kettle 2', url: 'http://other.example/k?x=1', selector: 'span[itemprop="price"]', threshold: 7.5, alertRule: { kind: 'drop', percent: 7.5 } });
    expect((await list(user))[0]).toEqual(edited);
  });

  test('PUT threshold: null turns alerts off, 0 alerts on any drop, "any" and a missing threshold keep alerting on any change', async () => {
    const user = await signedIn();
    const { id } = await add(user, { ...kettle, threshold: 'any' });
    const put = async (threshold?: unknown) => (await send(user, 'PUT', `/api/products/${id}`, { ...kettle, threshold })).json();
    expect((await put(undefined)).alertRule).toEqual({ kind: 'any' });
    expect((await put('any')).alertRule).toEqual({ kind: 'any' });
    expect(await put(0)).toMatchObject({ threshold: 0, alertRule: { kind: 'drop', percent: 0 } });
    expect(await put(null)).toMatchObject({ threshold: null, alertRule: { kind: 'none' } });
  });

  test('an edit that changes nothing records nothing', async () => {
    const user = await signedIn();
    const { id } = await add(user);
    const before = await eventCount();
    const res = await send(user, 'PUT', `/api/products/${id}`, kettleEdit);
    expect(res.status).toBe(200);
    expect(await eventCount()).toBe(before);
  });

  test('DELETE removes the product; it is then not found', async () => {
    const user = await signedIn();
    const { id } = await add(user);
    const keep = await add(user, page('Keep'));
    const res = await send(user, 'DELETE', `/api/products/${id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, id });
    expect((await list(user)).map((p) => p.id)).toEqual([keep.id]);
    for (const [method, path, body] of [['DELETE', `/api/products/${id}`], ['PUT', `/api/products/${id}`, kettleEdit], ['POST', `/api/products/${id}/update-price`, { price: '5' }]] as const) {
      const again = await send(user, method, path, body);
      expect(again.status).toBe(404);
      expect((await again.json()).message).toBe('Product not found');
    }
  });
});

describe("products API: another user's products", () => {
  test('are not listed, and PUT, DELETE and update-price answer 404 without changing anything', async () => {
    const owner = await signedIn();
    const other = await signedIn();
    const product = await add(owner);
    expect(await list(other)).toEqual([]);
    const before = await eventCount();
    for (const [method, path, body] of [
      ['PUT', `/api/products/${product.id}`, { ...kettleEdit, name: 'Taken' }],
      ['DELETE', `/api/products/${product.id}`],
      ['POST', `/api/products/${product.id}/update-price`, { price: '1.00' }],
    ] as const) {
      const res = await send(other, method, path, body);
      expect(res.status).toBe(404);
      expect((await res.json()).message).toBe('Product not found');
    }
    expect(await eventCount()).toBe(before);
    expect(await list(owner)).toEqual([product]);
  });

  test('malformed and unknown ids answer 404', async () => {
    const user = await signedIn();
    const before = await eventCount();
    const ids = ['abc', '1', crypto.randomUUID(), crypto.randomUUID().toUpperCase(), 'x'.repeat(5000), "1' OR '1'='1", '%00', encodeURIComponent('../settings')];
    for (const id of ids) {
      for (const [method, path, body] of [['PUT', `/api/products/${id}`, kettleEdit], ['DELETE', `/api/products/${id}`], ['POST', `/api/products/${id}/update-price`, { price: '3' }]] as const) {
        const res = await send(user, method, path, body);
        expect(res.status).toBe(404);
        expect((await res.json()).message).toBeString();
      }
    }
    expect(await eventCount()).toBe(before);
  });
});

describe('products API: validation', () => {
  const huge = 'x'.repeat(1_000_000);
  const addCases: [string, unknown, string, string?][] = [
    ['empty name', { ...kettle, name: '' }, 'name', 'Product name is required'],
    ['blank name', { ...kettle, name: '   ' }, 'name', 'Product name is required'],
    ['missing name', { url: kettle.url, selector: '.p' }, 'name', 'Product name is required'],
    ['numeric name', { ...kettle, name: 42 }, 'name', 'Product name is required'],
    ['name of a million characters', { ...kettle, name: huge }, 'name'],
    ['missing url', { name: 'A', selector: '.p' }, 'url', 'Please enter a valid URL'],
    ['url that is not one', { ...kettle, url: 'not a url' }, 'url', 'Please enter a valid URL'],
    ['ftp url', { ...kettle, url: 'ftp://shop.example/k' }, 'url', 'Please enter a valid URL'],
    ['javascript url', { ...kettle, url: 'javascript:alert(1)' }, 'url', 'Please enter a valid URL'],
    ['mailto url', { ...kettle, url: 'mailto:a@b.co' }, 'url', 'Please enter a valid URL'],
    ['huge url', { ...kettle, url: `https://shop.example/${huge}` }, 'url', 'Please enter a valid URL'],
    ['url as an object', { ...kettle, url: { href: kettle.url } }, 'url', 'Please enter a valid URL'],
    ['url with a user name and password', { ...kettle, url: 'https://user:pass@shop.example/kettle' }, 'url', 'Links that contain a user name or password cannot be checked.'],
    ['url on a loopback address', { ...kettle, url: 'http://127.0.0.1/kettle' }, 'url', '127.0.0.1 leads to a private or internal network address, which Pricewatch does not visit for safety reasons.'],
    ['url on loopback written in hex', { ...kettle, url: 'http://0x7f.1/kettle' }, 'url', '127.0.0.1 leads to a private or internal network address, which Pricewatch does not visit for safety reasons.'],
    ['url on a private address', { ...kettle, url: 'http://192.168.1.20/kettle' }, 'url', '192.168.1.20 leads to a private or internal network address, which Pricewatch does not visit for safety reasons.'],
    ['url on the unspecified address', { ...kettle, url: 'http://0/kettle' }, 'url', '0.0.0.0 leads to a private or internal network address, which Pricewatch does not visit for safety reasons.'],
    ['url on IPv6 loopback', { ...kettle, url: 'http://[::1]/kettle' }, 'url', '::1 leads to a private or internal network address, which Pricewatch does not visit for safety reasons.'],
    ['url on an IPv6 unique-local address', { ...kettle, url: 'http://[fd00::5]/kettle' }, 'url', 'fd00::5 leads to a private or internal network address, which Pricewatch does not visit for safety reasons.'],
    ['url on an IPv6 link-local address', { ...kettle, url: 'http://[fe80::1]/kettle' }, 'url', 'fe80::1 leads to a private or internal network address, which Pricewatch does not visit for safety reasons.'],
    ['url on IPv4-mapped loopback', { ...kettle, url: 'http://[::ffff:127.0.0.1]/kettle' }, 'url', '::ffff:7f00:1 leads to a private or internal network address, which Pricewatch does not visit for safety reasons.'],
    ['url on the cloud metadata address', { ...kettle, url: 'http://169.254.169.254/latest/meta-data/' }, 'url', '169.254.169.254 leads to a private or internal network address, which Pricewatch does not visit for safety reasons.'],
    ['url on localhost', { ...kettle, url: 'http://localhost:3000/kettle' }, 'url', 'localhost leads to a private or internal network address, which Pricewatch does not visit for safety reasons.'],
    ['url on a port shops do not use', { ...kettle, url: 'https://shop.example:3000/kettle' }, 'url', 'Port 3000 is not a port shops serve pages on (80, 443, 8080 or 8443), so Pricewatch does not open it.'],
    ['empty selector', { ...kettle, selector: '' }, 'selector', 'CSS selector is required'],
    ['missing selector', { name: 'A', url: kettle.url }, 'selector', 'CSS selector is required'],
    ['selector with a syntax error', { ...kettle, selector: 'div[' }, 'selector', 'CSS selector is not valid'],
    ['selector with a pseudo-element', { ...kettle, selector: 'span::before' }, 'selector', 'CSS selector is not valid'],
    ['selector of a million characters', { ...kettle, selector: huge }, 'selector'],
    ['selector as an array', { ...kettle, selector: ['.p'] }, 'selector', 'CSS selector is required'],
    ['threshold 7', { ...kettle, threshold: '7' }, 'threshold'],
    ['threshold -7', { ...kettle, threshold: -7 }, 'threshold'],
    ['threshold true', { ...kettle, threshold: true }, 'threshold'],
    ['threshold as an object', { ...kettle, threshold: { kind: 'any' } }, 'threshold'],
    ['threshold "all"', { ...kettle, threshold: 'all' }, 'threshold'],
    ['stockAlerts as text', { ...kettle, stockAlerts: 'yes' }, 'stockAlerts', 'Stock alerts must be true or false'],
    ['stockAlerts null', { ...kettle, stockAlerts: null }, 'stockAlerts', 'Stock alerts must be true or false'],
  ];

  for (const [name, body, field, message] of addCases) test(`POST with ${name}: 400 naming the field, nothing recorded`, async () => {
    const user = await signedIn();
    const before = await eventCount();
    const res = await send(user, 'POST', '/api/products', body);
    expect(res.status).toBe(400);
    const error = await res.json();
    expect(error.field).toBe(field);
    if (message) expect(error.message).toBe(`${field}: ${message}`);
    expect(await eventCount()).toBe(before);
    expect(await list(user)).toEqual([]);
  });

  test('addresses a check can fetch are accepted: the usual ports, public IPs, names (vetted when fetched), the demo shop', async () => {
    const user = await signedIn();
    for (const url of ['http://shop.example:8080/k', 'https://shop.example:8443/k', 'https://93.184.216.34/k', 'https://[2606:4700::1111]/k', 'https://intranet.example/k', `${ORIGIN}/demo-shop/products/kettle`]) {
      const added = await add(user, { ...kettle, url });
      expect(added.url).toBe(url);
      expect((await send(user, 'PUT', `/api/products/${added.id}`, { ...kettleEdit, url })).status).toBe(200);
      expect((await send(user, 'DELETE', `/api/products/${added.id}`)).status).toBe(200);
    }
  });

  test('CHECK_ALLOW_PRIVATE (tests) accepts loopback servers on any port, never credentials or metadata', async () => {
    const open = createApp({ ...ctx, config: { ...ctx.config, checkAllowPrivate: true } });
    const user = await signInDemo(open, ORIGIN);
    const post = (url: string) => open.handle(new Request(`${ORIGIN}/api/products`, {
      method: 'POST', headers: { cookie: user.cookie, origin: ORIGIN, 'content-type': 'application/json' }, body: JSON.stringify({ ...kettle, url }),
    }));
    for (const url of ['http://127.0.0.1:40123/kettle', 'http://[::1]:5000/kettle']) expect((await post(url)).status).toBe(201);
    for (const url of ['http://u:p@127.0.0.1:40123/kettle', 'http://169.254.169.254/latest/meta-data/']) {
      const res = await post(url);
      expect(res.status).toBe(400);
      expect((await res.json()).field).toBe('url');
    }
  });

  test('POST bodies that are not a product object: 400 (415 when not sent as JSON), never 500, nothing recorded', async () => {
    const user = await signedIn();
    const before = await eventCount();
    const bodies: { text: string; type: string }[] = [
      { text: '{"name": "A", ', type: 'application/json' }, { text: '', type: 'application/json' },
      { text: 'null', type: 'application/json' }, { text: '[]', type: 'application/json' }, { text: '"kettle"', type: 'application/json' },
      { text: '42', type: 'application/json' }, { text: 'name=A&url=https://x.io', type: 'application/x-www-form-urlencoded' },
      { text: 'hello', type: 'text/plain' }, { text: '\u0000\u0001', type: 'application/json' },
      { text: JSON.stringify({ ...kettle, name: { $gt: '' } }), type: 'application/json' },
    ];
    for (const raw of bodies) {
      const res = await send(user, 'POST', '/api/products', undefined, raw);
      expect(res.status).toBe(raw.type === 'application/json' ? 400 : 415);
      expect((await res.json()).message).toBeString();
    }
    expect(await eventCount()).toBe(before);
  });

  const editCases: [string, unknown, string, string?][] = [
    ['threshold -1', { ...kettle, threshold: -1 }, 'threshold', 'Threshold must be a positive number'],
    ['threshold as text', { ...kettle, threshold: 'ten' }, 'threshold', 'Threshold must be a positive number'],
    ['threshold "-10"', { ...kettle, threshold: '-10' }, 'threshold', 'Threshold must be a positive number'],
    ['threshold 101', { ...kettle, threshold: 101 }, 'threshold'],
    ['threshold false', { ...kettle, threshold: false }, 'threshold', 'Threshold must be a positive number'],
    ['empty name', { ...kettle, threshold: 5, name: '' }, 'name', 'Product name is required'],
    ['bad url', { ...kettle, threshold: 5, url: 'shop.example' }, 'url', 'Please enter a valid URL'],
    ['url with a user name', { ...kettle, threshold: 5, url: 'https://admin@shop.example/kettle' }, 'url', 'Links that contain a user name or password cannot be checked.'],
    ['url on a private address', { ...kettle, threshold: 5, url: 'http://10.0.0.7/kettle' }, 'url', '10.0.0.7 leads to a private or internal network address, which Pricewatch does not visit for safety reasons.'],
    ['url on a port shops do not use', { ...kettle, threshold: 5, url: 'http://shop.example:6379/' }, 'url', 'Port 6379 is not a port shops serve pages on (80, 443, 8080 or 8443), so Pricewatch does not open it.'],
    ['bad selector', { ...kettle, threshold: 5, selector: '>>>' }, 'selector', 'CSS selector is not valid'],
    ['missing selector', { name: 'A', url: kettle.url, threshold: 5 }, 'selector', 'CSS selector is required'],
    ['stockAlerts as a number', { ...kettle, threshold: 5, stockAlerts: 1 }, 'stockAlerts', 'Stock alerts must be true or false'],
  ];

  for (const [name, body, field, message] of editCases) test(`PUT with ${name}: 400 naming the field, product unchanged`, async () => {
    const user = await signedIn();
    const product = await add(user);
    const before = await eventCount();
    const res = await send(user, 'PUT', `/api/products/${product.id}`, body);
    expect(res.status).toBe(400);
    const error = await res.json();
    expect(error.field).toBe(field);
    if (message) expect(error.message).toBe(`${field}: ${message}`);
    expect(await eventCount()).toBe(before);
    expect(await list(user)).toEqual([product]);
  });

  const priceCases: [string, unknown, string][] = [
    ['no price', {}, 'Price is required'],
    ['null', { price: null }, 'Price is required'],
    ['an empty price', { price: '' }, 'Price is required'],
    ['a blank price', { price: '   ' }, 'Price is required'],
    ['0', { price: '0' }, 'Please enter a valid price greater than 0'],
    ['0.001', { price: '0.001' }, 'Please enter a price with at most 2 decimals'],
    ['three decimals', { price: '19.999' }, 'Please enter a price with at most 2 decimals'],
    ['a negative price', { price: '-5' }, 'Please enter a valid price greater than 0'],
    ['a word', { price: 'abc' }, 'Please enter a valid price greater than 0'],
    ['an exponent', { price: '1e3' }, 'Please enter a valid price greater than 0'],
    ['hexadecimal', { price: '0x10' }, 'Please enter a valid price greater than 0'],
    ['Infinity', { price: 'Infinity' }, 'Please enter a valid price greater than 0'],
    ['a huge number', { price: '9'.repeat(400) }, 'Please enter a price of at most 1,000,000,000'],
    ['a number of a million digits', { price: '1'.repeat(1_000_000) }, 'Please enter a price of at most 1,000,000,000'],
    ['a boolean', { price: true }, 'Please enter a valid price greater than 0'],
    ['an array', { price: ['5'] }, 'Please enter a valid price greater than 0'],
    ['a negative number', { price: -3 }, 'Please enter a valid price greater than 0'],
  ];

  for (const [name, body, message] of priceCases) test(`update-price with ${name}: 400, price unchanged`, async () => {
    const user = await signedIn();
    const product = await add(user);
    const before = await eventCount();
    const res = await send(user, 'POST', `/api/products/${product.id}/update-price`, body);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: `price: ${message}`, field: 'price' });
    expect(await eventCount()).toBe(before);
    expect((await list(user))[0]!.currentPrice).toBeNull();
  });

  test('random bodies on every route never answer 500 and never record anything they should not', async () => {
    const user = await signedIn();
    const product = await add(user);
    const values = [null, true, 0, -1, 1.5, '', ' ', 'a', '-10', 'any', 'https://x.io', '.p', 'x'.repeat(3000), [], {}, [1], { a: 1 }];
    const fields = ['name', 'url', 'selector', 'threshold', 'price'];
    let seed = 7;
    const next = () => (seed = (seed * 48271) % 2147483647);
    const before = await eventCount();
    for (let i = 0; i < 120; i++) {
      const body: Record<string, unknown> = {};
      for (const f of fields) if (next() % 3) body[f] = values[next() % values.length];
      const [method, path] = ([['POST', '/api/products'], ['PUT', `/api/products/${product.id}`], ['POST', `/api/products/${product.id}/update-price`]] as const)[i % 3]!;
      const res = await send(user, method, path, body);
      expect([200, 201, 400, 403]).toContain(res.status);
      if (res.status === 400) expect((await res.json()).field).toBeString();
    }
    // Whatever was accepted left the account consistent: the read model agrees with the log.
    const added = Number((await ctx.sql`SELECT count(*) AS n FROM events WHERE type = 'ProductAdded' AND data->>'userId' = ${user.userId}`)[0]!.n);
    expect((await list(user)).length).toBe(added);
    expect(await eventCount()).toBeGreaterThanOrEqual(before);
  });
});

describe('products API: one product per page', () => {
  test('adding a page the user already tracks, however its address is written, answers 409 naming the product and records nothing', async () => {
    const user = await signedIn();
    await add(user, page('Kettle', { url: 'https://shop.example/kettle?size=2' }));
    const before = await eventCount();
    for (const url of ['HTTPS://Shop.Example:443/kettle?size=2#reviews', 'https://shop.example/kettle?utm_source=mail&size=2&gclid=x&fbclid=y']) {
      const res = await send(user, 'POST', '/api/products', page('Again', { url }));
      expect(res.status).toBe(409);
      expect(await res.json()).toEqual({ message: 'You already track this page: Kettle', field: 'url' });
    }
    expect(await eventCount()).toBe(before);
    // Other parameters name other pages (a variant), and a path's trailing slash is kept.
    await add(user, page('Size 3', { url: 'https://shop.example/kettle?size=3' }));
    await add(user, page('Slash', { url: 'https://shop.example/kettle/?size=2' }));
  });

  test('another user may track the same page', async () => {
    await add(await signedIn(), page('Mine', { url: 'https://shop.example/shared' }));
    await add(await signedIn(), page('Theirs', { url: 'https://shop.example/shared' }));
  });

  test('the name is the current one; a removed product frees its page', async () => {
    const user = await signedIn();
    const { id } = await add(user, page('Old name'));
    await send(user, 'PUT', `/api/products/${id}`, page('Old name', { name: 'New name', threshold: 10 }));
    expect(await (await send(user, 'POST', '/api/products', page('Old name'))).json()).toMatchObject({ message: 'You already track this page: New name' });
    await send(user, 'DELETE', `/api/products/${id}`);
    await add(user, page('Old name'));
  });

  test("editing to another product's page answers 409 and changes nothing; a product keeps its own page", async () => {
    const user = await signedIn();
    const kettle = await add(user, page('Kettle'));
    const toaster = await add(user, page('Toaster'));
    const before = await eventCount();
    const res = await send(user, 'PUT', `/api/products/${toaster.id}`, page('Toaster', { url: `${kettle.url}#top`, threshold: 10 }));
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ message: 'You already track this page: Kettle', field: 'url' });
    expect(await eventCount()).toBe(before);
    expect((await list(user)).find((p) => p.id === toaster.id)!.url).toBe(toaster.url);
    const own = await send(user, 'PUT', `/api/products/${kettle.id}`, page('Kettle', { name: 'Kettle 2', url: `${kettle.url}?utm_source=x`, threshold: 10 }));
    expect(own.status).toBe(200);
  });

  test("another user's product is not found, even at a page the caller tracks", async () => {
    const owner = await signedIn(), other = await signedIn();
    const theirs = await add(owner, page('Theirs'));
    await add(other, page('Mine'));
    const res = await send(other, 'PUT', `/api/products/${theirs.id}`, page('Mine', { threshold: 10 }));
    expect(res.status).toBe(404);
  });
});

describe.skipIf(!usingPostgresServer())('products API: one product per page under concurrent requests (real PostgreSQL)', () => {
  test('10 simultaneous adds of the same page: exactly one succeeds, several rounds', async () => {
    for (let round = 0; round < 3; round++) {
      const user = await signedIn();
      await ctx.sql`UPDATE users SET plan = 'pro' WHERE id = ${user.userId}`;
      const statuses = await Promise.all(Array.from({ length: 10 }, (_, i) =>
        send(user, 'POST', '/api/products', page(`Same ${i}`, { url: i % 2 ? 'https://shop.example/same' : 'https://SHOP.example/same#x' })).then((r) => r.status)));
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(9);
      expect(await list(user)).toHaveLength(1);
    }
  });

  test('an add and an edit to the same page at once: one of them wins', async () => {
    const user = await signedIn();
    const { id } = await add(user, page('Edited'));
    const [added, edited] = await Promise.all([
      send(user, 'POST', '/api/products', page('Added', { url: 'https://shop.example/contested' })),
      send(user, 'PUT', `/api/products/${id}`, page('Edited', { url: 'https://shop.example/contested', threshold: 10 })),
    ]);
    expect([201, 409]).toContain(added.status);
    expect([200, 409]).toContain(edited.status);
    expect(Number(added.status === 201) + Number(edited.status === 200)).toBe(1);
    expect((await list(user)).filter((p) => p.url === 'https://shop.example/contested')).toHaveLength(1);
  });

  test('the address check uses the index on the log', async () => {
    const plan = (await ctx.sql`EXPLAIN SELECT * FROM events WHERE data->>'userId' = 'x' AND type IN ('ProductAdded', 'ProductEdited', 'ProductRemoved')`)
      .map((r) => r['QUERY PLAN']).join('\n');
    // Each month's partition has its copy of the index, named after it (events_2026_11_product_details_by_user).
    expect(plan).toContain('_product_details_by_user');
    expect(plan).not.toContain('Seq Scan');
  });
});

describe('products API: plan limits', () => {
  test('the free plan allows 3 products: the fourth add answers 403 with the message the screen shows', async () => {
    const user = await signedIn();
    for (let i = 0; i < 3; i++) await add(user, page(`P${i}`));
    const before = await eventCount();
    const res = await send(user, 'POST', '/api/products', kettle);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ message: 'Your Free plan allows 3 products. Upgrade your plan to add more.' });
    expect(await eventCount()).toBe(before);
    expect(await list(user)).toHaveLength(3);
  });

  test('deleting a product makes room for another', async () => {
    const user = await signedIn();
    const products = [];
    for (let i = 0; i < 3; i++) products.push(await add(user, page(`P${i}`)));
    await send(user, 'DELETE', `/api/products/${products[0]!.id}`);
    await add(user);
    expect((await send(user, 'POST', '/api/products', page('P3'))).status).toBe(403);
  });

  test('the subscription plan counts over the account plan; unlimited pro', async () => {
    const user = await signedIn();
    await ctx.sql`UPDATE users SET plan = 'free', subscription_plan = 'pro' WHERE id = ${user.userId}`;
    for (let i = 0; i < 30; i++) await add(user, page(`P${i}`));
    expect(await list(user)).toHaveLength(30);
  });

  test('a downgraded user keeps every product but cannot add more until below the new limit', async () => {
    const user = await signedIn();
    await ctx.sql`UPDATE users SET subscription_plan = 'starter' WHERE id = ${user.userId}`;
    const products = [];
    for (let i = 0; i < 5; i++) products.push(await add(user, page(`P${i}`)));
    await ctx.sql`UPDATE users SET subscription_plan = NULL WHERE id = ${user.userId}`;
    expect(await list(user)).toHaveLength(5);
    const edit = await send(user, 'PUT', `/api/products/${products[0]!.id}`, page('P0', { name: 'Still mine', threshold: 10 }));
    expect(edit.status).toBe(200);
    expect((await send(user, 'POST', '/api/products', kettle)).status).toBe(403);
    await send(user, 'DELETE', `/api/products/${products[0]!.id}`);
    await send(user, 'DELETE', `/api/products/${products[1]!.id}`);
    expect((await send(user, 'POST', '/api/products', kettle)).status).toBe(403); // 3 left: still at the limit
    await send(user, 'DELETE', `/api/products/${products[2]!.id}`);
    await add(user);
    const starter = await signedIn();
    await ctx.sql`UPDATE users SET plan = 'starter' WHERE id = ${starter.userId}`;
    for (let i = 0; i < 25; i++) await add(starter, page(`S${i}`));
    expect(await send(starter, 'POST', '/api/products', kettle).then((r) => r.json()))
      .toEqual({ message: 'Your Starter plan allows 25 products. Upgrade your plan to add more.' });
  });
});

describe.skipIf(!usingPostgresServer())('products API: plan limit under concurrent adds (real PostgreSQL)', () => {
  const addedBy = async (userId: string) =>
    Number((await ctx.sql`SELECT count(*) AS n FROM events WHERE type = 'ProductAdded' AND data->>'userId' = ${userId}`)[0]!.n);

  test('10 concurrent adds by a new free user: exactly 3 succeed', async () => {
    const user = await signedIn();
    const statuses = await Promise.all(Array.from({ length: 10 }, (_, i) => send(user, 'POST', '/api/products', page(`C${i}`)).then((r) => r.status)));
    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    expect(statuses.filter((s) => s === 403)).toHaveLength(7);
    expect(await addedBy(user.userId)).toBe(3);
    expect(await list(user)).toHaveLength(3);
  });

  test('10 concurrent adds one below the limit: exactly 1 succeeds, several rounds', async () => {
    for (let round = 0; round < 5; round++) {
      const user = await signedIn();
      await add(user); await add(user, page('Second'));
      const statuses = await Promise.all(Array.from({ length: 10 }, (_, i) => send(user, 'POST', '/api/products', page(`C${i}`)).then((r) => r.status)));
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(await addedBy(user.userId)).toBe(3);
    }
  });

  test('concurrent adds and deletes never leave more products than the plan allows', async () => {
    const user = await signedIn();
    const first = [await add(user, page('A')), await add(user, page('B')), await add(user, page('C'))];
    await Promise.all([
      ...first.map((p) => send(user, 'DELETE', `/api/products/${p.id}`)),
      ...Array.from({ length: 10 }, (_, i) => send(user, 'POST', '/api/products', page(`N${i}`))),
    ]);
    expect((await list(user)).length).toBeLessThanOrEqual(3);
    const live = Number((await ctx.sql`
      SELECT count(*) FILTER (WHERE type = 'ProductAdded') - count(*) FILTER (WHERE type = 'ProductRemoved') AS n
      FROM events WHERE data->>'userId' = ${user.userId}`)[0]!.n);
    expect(live).toBe((await list(user)).length);
  });

  test('the limit count uses the index on the log', async () => {
    const plan = (await ctx.sql`EXPLAIN SELECT count(*) FROM events WHERE data->>'userId' = 'x' AND type IN ('ProductAdded', 'ProductRemoved')`)
      .map((r) => r['QUERY PLAN']).join('\n');
    expect(plan).toContain('_product_lifecycle_by_user');
    expect(plan).not.toContain('Seq Scan');
  });
});

describe('products API: prices', () => {
  test('update-price sets the current price, a price point and, when it differs, a price change', async () => {
    const user = await signedIn();
    const { id } = await add(user);
    const res = await send(user, 'POST', `/api/products/${id}/update-price`, { price: '12.50' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ price: 12.5, currency: 'GBP' });
    let [product] = await list(user);
    expect(product).toMatchObject({ currentPrice: 12.5, currency: 'GBP', lastChecked: expect.any(String), changePercent: 0, lastCheckStatus: null });

    expect(await (await send(user, 'POST', `/api/products/${id}/update-price`, { price: ' 10 ' })).json()).toEqual({ price: 10, currency: 'GBP' });
    expect(await (await send(user, 'POST', `/api/products/${id}/update-price`, { price: 10 })).json()).toEqual({ price: 10, currency: 'GBP' });
    [product] = await list(user);
    expect(product!.currentPrice).toBe(10);
    expect(product!.changePercent).toBe(-20); // against the product's first price, set within the last 24 hours

    const points = await ctx.sql`SELECT price, currency, source, user_id FROM price_points WHERE product_id = ${id} ORDER BY event_position`;
    expect(points.map((p) => ({ ...p }))).toEqual([12.5, 10, 10].map((price) => ({ price, currency: 'GBP', source: 'manual', user_id: user.userId })));
    const changes = await ctx.sql`SELECT previous_price, current_price, change_percent, user_id FROM price_changes WHERE product_id = ${id}`;
    expect(changes.map((c) => ({ ...c }))).toEqual([{ previous_price: 12.5, current_price: 10, change_percent: -20, user_id: user.userId }]);
  });

  test("a price typed in is in the product's currency, else in the user's currency setting", async () => {
    const user = await signedIn();
    const settings = { emailNotifications: true, priceDropAlerts: true, weeklyReports: false, checkFrequency: 'daily', currency: 'USD', timezone: 'America/New_York' };
    expect((await send(user, 'PUT', '/api/settings', settings)).status).toBe(200);
    const { id: unpriced } = await add(user, page('Unpriced'));
    expect(await (await send(user, 'POST', `/api/products/${unpriced}/update-price`, { price: '.5' })).json()).toEqual({ price: 0.5, currency: 'USD' });
    const { id: euro } = await add(user, page('Euro'));
    await record({ ...observed(euro, 10), observation: { ...(observed(euro, 10) as any).observation, currency: 'EUR' } } as ProductCommand);
    expect(await (await send(user, 'POST', `/api/products/${euro}/update-price`, { price: '9.99' })).json()).toEqual({ price: 9.99, currency: 'EUR' });
    const points = await ctx.sql`SELECT product_id, price, currency FROM price_points WHERE source = 'manual' AND user_id = ${user.userId} ORDER BY event_position`;
    expect(points.map((p) => ({ ...p }))).toEqual([{ product_id: unpriced, price: 0.5, currency: 'USD' }, { product_id: euro, price: 9.99, currency: 'EUR' }]);
    expect(Object.fromEntries((await list(user)).map((p) => [p.name, p.currency]))).toEqual({ Unpriced: 'USD', Euro: 'EUR' });
  });

  test('check status: pending until the first check; a failing product says so and why, and keeps its last good price and its date', async () => {
    const user = await signedIn();
    const { id } = await add(user);
    expect((await list(user))[0]).toMatchObject({ checkStatus: 'pending', lastFailure: null, currentPrice: null, lastPriceAt: null, priceSource: null });

    const pricedAt = hoursAgo(2);
    await record(observed(id, 25, pricedAt));
    expect((await list(user))[0]).toMatchObject({ checkStatus: 'ok', lastFailure: null, currentPrice: 25, lastPriceAt: pricedAt, priceSource: 'structured-data' });

    const failedCheck = failed(id, 'The shop took too long to answer.');
    await record(failedCheck);
    const firstFailure = (failedCheck as Extract<ProductCommand, { type: 'RecordFailure' }>).failure.attemptedAt;
    expect((await list(user))[0]).toMatchObject({
      checkStatus: 'failing', currentPrice: 25, lastPriceAt: pricedAt, priceSource: 'structured-data',
      lastFailure: { code: 'selector_no_match', message: 'The shop took too long to answer.', at: firstFailure },
    });
    // The last failure since the last success.
    const blockedAt = new Date().toISOString();
    await record({ type: 'RecordFailure', productId: id, failure: { code: 'blocked', reason: 'The shop refused the check (Cloudflare).', httpStatus: 403, url: kettle.url, attemptedAt: blockedAt, availability: null } });
    expect((await list(user))[0]).toMatchObject({
      checkStatus: 'failing', currentPrice: 25, lastPriceAt: pricedAt,
      lastFailure: { code: 'blocked', message: 'The shop refused the check (Cloudflare).', at: blockedAt },
    });

    // A price typed in is the current price, but says nothing about checks.
    await send(user, 'POST', `/api/products/${id}/update-price`, { price: '24' });
    expect((await list(user))[0]).toMatchObject({ checkStatus: 'failing', lastFailure: { code: 'blocked' }, currentPrice: 24, priceSource: 'manual' });

    await record({ type: 'RecordObservation', productId: id, observation: { ...(observed(id, 23) as any).observation, source: 'selector', selector: '.price' } });
    expect((await list(user))[0]).toMatchObject({ checkStatus: 'ok', lastFailure: null, currentPrice: 23, priceSource: 'selector' });
  });

  test("currency: the page's, else the user's currency setting", async () => {
    const user = await signedIn();
    const { id: stated } = await add(user, page('Stated'));
    const { id: unstated } = await add(user, page('Unstated'));
    await record(observed(stated, 10));
    await record({ ...observed(unstated, 10), observation: { ...(observed(unstated, 10) as any).observation, currency: null } } as ProductCommand);
    const currencies = async () => Object.fromEntries((await list(user)).map((p) => [p.name, p.currency]));
    expect(await currencies()).toEqual({ Stated: 'GBP', Unstated: 'GBP' });
    const settings = { emailNotifications: true, priceDropAlerts: true, weeklyReports: false, checkFrequency: 'daily', currency: 'USD', timezone: 'America/New_York' };
    expect((await send(user, 'PUT', '/api/settings', settings)).status).toBe(200);
    expect(await currencies()).toEqual({ Stated: 'GBP', Unstated: 'USD' });
  });

  test('24h change compares with the price in effect 24 hours ago', async () => {
    const user = await signedIn();
    const { id } = await add(user);
    await record(observed(id, 100, hoursAgo(30)));
    await record(observed(id, 90, hoursAgo(25)));
    await record(observed(id, 110, hoursAgo(10)));
    await record(observed(id, 99));
    const [product] = await list(user);
    expect(product).toMatchObject({ currentPrice: 99, changePercent: 10, lastCheckStatus: 'ok', isActive: true });
    const changes = await ctx.sql`SELECT change_percent FROM price_changes WHERE product_id = ${id} ORDER BY event_position`;
    expect(changes.map((c) => c.change_percent)).toEqual([-10, 22.2222, -10]);
  });

  test('a price older than 24 hours and nothing since: no change', async () => {
    const user = await signedIn();
    const { id } = await add(user);
    await record(observed(id, 40, hoursAgo(48)));
    expect((await list(user))[0]).toMatchObject({ currentPrice: 40, changePercent: 0 });
  });

  test('failed checks keep the last good price; three in a row make the product inactive until the next success', async () => {
    const user = await signedIn();
    const { id } = await add(user);
    await record({ ...observed(id, 25), observation: { ...(observed(id, 25) as any).observation, imageUrl: 'https://shop.example/k.jpg', currency: null } } as ProductCommand);
    await record(failed(id));
    await record(failed(id));
    let [product] = await list(user);
    expect(product).toMatchObject({ currentPrice: 25, imageUrl: 'https://shop.example/k.jpg', isActive: true, lastCheckStatus: 'failed', lastCheckError: 'The price element was not found on the page.' });
    await record(failed(id, 'The shop took too long to answer.'));
    [product] = await list(user);
    expect(product).toMatchObject({ currentPrice: 25, isActive: false, lastCheckStatus: 'failed', lastCheckError: 'The shop took too long to answer.' });
    await record(observed(id, 26));
    [product] = await list(user);
    expect(product).toMatchObject({ currentPrice: 26, currency: 'GBP', isActive: true, lastCheckStatus: 'ok', lastCheckError: null });
    const [{ n }] = await ctx.sql`SELECT count(*)::int AS n FROM price_points WHERE product_id = ${id}` as any;
    expect(n).toBe(2);
  });

  test('availability: the last one a page stated, from observations and from failed checks; a page that says nothing keeps it', async () => {
    const user = await signedIn();
    const { id } = await add(user);
    const availability = async () => (await list(user)).find((p) => p.id === id)!.availability;
    await record(observed(id, 20));
    expect(await availability()).toBeNull();
    await record(observed(id, 20, undefined, 'InStock'));
    expect(await availability()).toBe('InStock');
    await record(failed(id, 'No price found on the page.', 'OutOfStock'));
    let [product] = await list(user);
    expect(product).toMatchObject({ availability: 'OutOfStock', currentPrice: 20, lastCheckStatus: 'failed' });
    await record(failed(id));
    await record(observed(id, 20));
    expect(await availability()).toBe('OutOfStock');
    // A sold-out page that still shows its price keeps the price.
    await record(observed(id, 21, undefined, 'OutOfStock'));
    [product] = await list(user);
    expect(product).toMatchObject({ availability: 'OutOfStock', currentPrice: 21 });
    await record(observed(id, 21, undefined, 'PreOrder'));
    expect(await availability()).toBe('PreOrder');
  });

  test('a price of 0 is a price: stored, listed, and changes from it have no percent', async () => {
    const user = await signedIn();
    const { id } = await add(user);
    await record(observed(id, 10, hoursAgo(30)));
    await record(observed(id, 0, hoursAgo(2)));
    let [product] = await list(user);
    expect(product).toMatchObject({ currentPrice: 0, changePercent: -100 });
    await record(observed(id, 5));
    [product] = await list(user);
    expect(product).toMatchObject({ currentPrice: 5, changePercent: -50 });
    const changes = await ctx.sql`SELECT previous_price, current_price, change_percent FROM price_changes WHERE product_id = ${id} ORDER BY event_position`;
    expect(changes.map((c) => ({ ...c }))).toEqual([
      { previous_price: 10, current_price: 0, change_percent: -100 },
      { previous_price: 0, current_price: 5, change_percent: null },
    ]);
    // Every screen that averages or compares prices takes it.
    const dashboard = await send(user, 'GET', '/api/dashboard/stats');
    expect(dashboard.status).toBe(200);
    const stats = await dashboard.json();
    expect(stats.recentChanges.map((c: { changePercent: number | null }) => c.changePercent)).toEqual([null, -100]);
    for (const path of ['/api/price-history/products?timeFilter=month', `/api/price-history/detailed/${id}?timeFilter=month`]) {
      const res = await send(user, 'GET', path);
      expect(res.status).toBe(200);
      expect(JSON.stringify(await res.json())).not.toMatch(/NaN|Infinity/);
    }
  });

  test('check results for a removed product are refused and leave nothing behind', async () => {
    const user = await signedIn();
    const { id } = await add(user);
    await record(observed(id, 10));
    await record(observed(id, 12));
    await send(user, 'DELETE', `/api/products/${id}`);
    expect(handleProductCommand(ctx.store, observed(id, 11))).rejects.toThrow('Product not found');
    for (const table of ['products', 'price_points', 'price_changes']) {
      const [{ n }] = await ctx.sql.unsafe(`SELECT count(*)::int AS n FROM ${table} WHERE ${table === 'products' ? 'id' : 'product_id'} = $1`, [id]) as any;
      expect(n).toBe(0);
    }
  });
});

describe('products projection', () => {
  test('tables made before a price of 0 or stock alerts existed are brought up to date by the DDL', async () => {
    await transaction(ctx.sql, async (tx) => {
      await tx.unsafe('CREATE SCHEMA IF NOT EXISTS before_stock');
      await tx.unsafe('SET LOCAL search_path TO before_stock, public');
      // As the tables were made by the previous version.
      await tx.unsafe(`
        CREATE TABLE products (id text PRIMARY KEY, user_id text NOT NULL, name text NOT NULL, url text NOT NULL, selector text NOT NULL,
          alert_rule jsonb NOT NULL, threshold double precision, current_price double precision CHECK (current_price > 0), currency text,
          image_url text, price_updated_at timestamptz, last_checked timestamptz, last_check_at timestamptz, last_check_status text,
          last_check_error text, consecutive_failures integer NOT NULL DEFAULT 0, is_active boolean NOT NULL DEFAULT true,
          created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL);
        CREATE TABLE price_points (event_position bigint PRIMARY KEY, product_id text NOT NULL, user_id text NOT NULL,
          price double precision NOT NULL CHECK (price > 0), currency text, source text NOT NULL, observed_at timestamptz NOT NULL);
        CREATE TABLE price_changes (event_position bigint PRIMARY KEY, product_id text NOT NULL, user_id text NOT NULL,
          previous_price double precision NOT NULL, current_price double precision NOT NULL, change_percent double precision NOT NULL,
          changed_at timestamptz NOT NULL);
        CREATE TABLE alerts (id text PRIMARY KEY, user_id text NOT NULL, product_id text NOT NULL, type text NOT NULL,
          product_name text NOT NULL, product_url text NOT NULL, product_image text, message text NOT NULL,
          previous_price double precision NOT NULL, current_price double precision NOT NULL, currency text,
          change_percent double precision NOT NULL, threshold_percent double precision, trigger_position bigint NOT NULL,
          is_read boolean NOT NULL DEFAULT false, read_at timestamptz, created_at timestamptz NOT NULL);
        INSERT INTO products (id, user_id, name, url, selector, alert_rule, created_at, updated_at) VALUES ('p', 'u', 'n', 'https://x.io', '.p', '{}', now(), now());`);
      for (let i = 0; i < 2; i++) { await tx.unsafe(productsProjection.ddl); await tx.unsafe(alertsProjection.ddl); } // and again, as every start does
      await tx`UPDATE products SET current_price = 0 WHERE id = 'p'`;
      await tx`INSERT INTO price_points VALUES (1, 'p', 'u', 0, 'GBP', 'json-ld', now())`;
      await tx`INSERT INTO price_changes VALUES (2, 'p', 'u', 0, 5, NULL, now())`;
      await tx`INSERT INTO alerts (id, user_id, product_id, type, product_name, product_url, message, trigger_position, created_at)
               VALUES ('a', 'u', 'p', 'out_of_stock', 'n', 'https://x.io', 'Out of stock', 3, now())`;
      const [row] = await tx`SELECT availability, stock_alerts FROM products WHERE id = 'p'`;
      expect({ ...row }).toEqual({ availability: null, stock_alerts: true });
      const checks = await tx`SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint
        WHERE connamespace = 'before_stock'::regnamespace AND conname IN ('price_points_price_check', 'products_current_price_check') ORDER BY conname`;
      expect(checks.map((c) => c.def)).toEqual([expect.stringContaining('>= (0)'), expect.stringContaining('>= (0)')]);
      await tx.unsafe('DROP SCHEMA before_stock CASCADE');
    });
  });

  const snapshot = async () => {
    const out: Record<string, unknown[]> = {};
    for (const t of productsProjection.tables) out[t] = await ctx.sql.unsafe(`SELECT * FROM ${t} ORDER BY ${t === 'products' ? 'id' : 'event_position'}`);
    return out;
  };

  // The API projected this log one command at a time; the rebuild reads it in batches of up to 2,000.
  test('rebuilding from zero yields identical tables for a log with products, prices, failures, edits and removals', async () => {
    const user = await signedIn();
    await ctx.sql`UPDATE users SET plan = 'pro' WHERE id = ${user.userId}`;
    for (let i = 0; i < 12; i++) {
      const { id } = await add(user, page(`R${i}`, { threshold: i % 2 ? 'any' : '-5' }));
      const stock = (j: number): Availability | null => (['InStock', null, 'OutOfStock', 'PreOrder'] as const)[(i + j) % 4]!;
      for (let j = 0; j < 6; j++) {
        await record(j % 3 === 2 ? failed(id, undefined, stock(j)) : observed(id, j === 4 ? 0 : 10 + ((i + j) % 4), hoursAgo(40 - j * 7), stock(j)));
      }
      if (i % 3 === 0) expect((await send(user, 'PUT', `/api/products/${id}`, page(`R${i}`, { threshold: 10, stockAlerts: false }))).status).toBe(200);
      await send(user, 'POST', `/api/products/${id}/update-price`, { price: String(9 + i) });
      if (i % 4 === 0) expect((await send(user, 'PUT', `/api/products/${id}`, page(`R${i}`, { name: `R${i} edited`, threshold: 3 }))).status).toBe(200);
      if (i % 5 === 0) await send(user, 'DELETE', `/api/products/${id}`);
    }
    const before = await snapshot();
    expect(before.products!.length).toBeGreaterThanOrEqual(9);
    expect(before.price_changes!.length).toBeGreaterThan(10);
    expect(await ctx.projections.rebuild(['products'])).toBeGreaterThan(100);
    expect(await snapshot()).toEqual(before);
    const list1 = await list(user);
    await ctx.projections.rebuild(['products']);
    expect(await list(user)).toEqual(list1);

    // A database made before the price source and failure code were kept learns them on start, as a rebuild would set them.
    expect(before.products!.some((p: any) => p.last_failure_code !== null)).toBe(true);
    await ctx.sql`ALTER TABLE products DROP COLUMN price_source, DROP COLUMN last_failure_code`;
    await ctx.sql.unsafe(productsProjection.ddl);
    expect(await snapshot()).toEqual(before);
  });
});
