import { describe, expect, test } from 'bun:test';
import { createApp } from '../server.ts';
import { signInDemo } from '../testing/sign-in.ts';
import { useTestApp } from '../testing/app.ts';
import { kettle, kettleEdit, page, productsApi } from '../testing/products-api.ts';
import type { ProductItem } from './read-model.ts';

// The products API: signed out, adding, listing, editing and deleting, other users' products, validation.
// One product per page and plan limits: products-limits.test.ts; prices and the projection: products-prices.test.ts.

const ORIGIN = 'http://localhost:3000';

const api = useTestApp({ PUBLIC_URL: ORIGIN });
const { signedIn } = api;
const { send, list, add, eventCount } = productsApi(api);

describe('products API: signed out', () => {
  test('every route answers 401', async () => {
    const id = crypto.randomUUID();
    for (const [method, path, body] of [
      ['GET', '/api/products'],
      ['POST', '/api/products', kettle],
      ['PUT', `/api/products/${id}`, kettleEdit],
      ['DELETE', `/api/products/${id}`],
      ['POST', `/api/products/${id}/update-price`, { price: '10' }],
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
      id: expect.any(String),
      name: 'Steel kettle',
      url: kettle.url,
      selector: '.price',
      threshold: 10,
      alertRule: { kind: 'drop', percent: 10 },
      currentPrice: null,
      lastPriceAt: null,
      priceSource: null,
      regularPrice: null,
      variant: null,
      currency: 'GBP',
      imageUrl: null,
      lastChecked: null,
      changePercent: null,
      isActive: true,
      lastCheckStatus: null,
      lastCheckError: null,
      checkStatus: 'pending',
      lastFailure: null,
      createdAt: expect.any(String),
      availability: null,
      stockAlerts: true,
      checksPaused: false,
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
    await api.ctx.sql`UPDATE users SET plan = 'pro' WHERE id = ${user.userId}`;
    const cases: [unknown, ProductItem['alertRule'], number | null][] = [
      ['none', { kind: 'none' }, null],
      ['any', { kind: 'any' }, null],
      ['-5', { kind: 'drop', percent: 5 }, 5],
      ['-10', { kind: 'drop', percent: 10 }, 10],
      ['-15', { kind: 'drop', percent: 15 }, 15],
      ['-20', { kind: 'drop', percent: 20 }, 20],
      [-15, { kind: 'drop', percent: 15 }, 15],
      [null, { kind: 'none' }, null],
      [undefined, { kind: 'none' }, null],
      ['', { kind: 'none' }, null],
    ];
    for (const [i, [threshold, alertRule, percent]] of cases.entries()) {
      const product = await add(user, page(`T${i}`, { threshold }));
      expect({ alertRule: product.alertRule, threshold: product.threshold }).toEqual({ alertRule, threshold: percent });
    }
  });

  test('PUT edits name, url, selector and threshold', async () => {
    const user = await signedIn();
    const { id } = await add(user);
    const res = await send(user, 'PUT', `/api/products/${id}`, {
      name: 'Kettle 2',
      url: 'http://other.example/k?x=1',
      selector: 'span[itemprop="price"]',
      threshold: 7.5,
    });
    expect(res.status).toBe(200);
    const edited = await res.json();
    expect(edited).toMatchObject({
      id,
      name: 'Kettle 2',
      url: 'http://other.example/k?x=1',
      selector: 'span[itemprop="price"]',
      threshold: 7.5,
      alertRule: { kind: 'drop', percent: 7.5 },
    });
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
    for (const [method, path, body] of [
      ['DELETE', `/api/products/${id}`],
      ['PUT', `/api/products/${id}`, kettleEdit],
      ['POST', `/api/products/${id}/update-price`, { price: '5' }],
    ] as const) {
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
    const ids = [
      'abc',
      '1',
      crypto.randomUUID(),
      crypto.randomUUID().toUpperCase(),
      'x'.repeat(5000),
      "1' OR '1'='1",
      '%00',
      encodeURIComponent('../settings'),
    ];
    for (const id of ids) {
      for (const [method, path, body] of [
        ['PUT', `/api/products/${id}`, kettleEdit],
        ['DELETE', `/api/products/${id}`],
        ['POST', `/api/products/${id}/update-price`, { price: '3' }],
      ] as const) {
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
    [
      'url with a user name and password',
      { ...kettle, url: 'https://user:pass@shop.example/kettle' },
      'url',
      'Links that contain a user name or password cannot be checked.',
    ],
    [
      'url on a loopback address',
      { ...kettle, url: 'http://127.0.0.1/kettle' },
      'url',
      '127.0.0.1 leads to a private or internal network address, which Pricewatch does not visit for safety reasons.',
    ],
    [
      'url on loopback written in hex',
      { ...kettle, url: 'http://0x7f.1/kettle' },
      'url',
      '127.0.0.1 leads to a private or internal network address, which Pricewatch does not visit for safety reasons.',
    ],
    [
      'url on a private address',
      { ...kettle, url: 'http://192.168.1.20/kettle' },
      'url',
      '192.168.1.20 leads to a private or internal network address, which Pricewatch does not visit for safety reasons.',
    ],
    [
      'url on the unspecified address',
      { ...kettle, url: 'http://0/kettle' },
      'url',
      '0.0.0.0 leads to a private or internal network address, which Pricewatch does not visit for safety reasons.',
    ],
    [
      'url on IPv6 loopback',
      { ...kettle, url: 'http://[::1]/kettle' },
      'url',
      '::1 leads to a private or internal network address, which Pricewatch does not visit for safety reasons.',
    ],
    [
      'url on an IPv6 unique-local address',
      { ...kettle, url: 'http://[fd00::5]/kettle' },
      'url',
      'fd00::5 leads to a private or internal network address, which Pricewatch does not visit for safety reasons.',
    ],
    [
      'url on an IPv6 link-local address',
      { ...kettle, url: 'http://[fe80::1]/kettle' },
      'url',
      'fe80::1 leads to a private or internal network address, which Pricewatch does not visit for safety reasons.',
    ],
    [
      'url on IPv4-mapped loopback',
      { ...kettle, url: 'http://[::ffff:127.0.0.1]/kettle' },
      'url',
      '::ffff:7f00:1 leads to a private or internal network address, which Pricewatch does not visit for safety reasons.',
    ],
    [
      'url on the cloud metadata address',
      { ...kettle, url: 'http://169.254.169.254/latest/meta-data/' },
      'url',
      '169.254.169.254 leads to a private or internal network address, which Pricewatch does not visit for safety reasons.',
    ],
    [
      'url on localhost',
      { ...kettle, url: 'http://localhost:3000/kettle' },
      'url',
      'localhost leads to a private or internal network address, which Pricewatch does not visit for safety reasons.',
    ],
    [
      'url on a port shops do not use',
      { ...kettle, url: 'https://shop.example:3000/kettle' },
      'url',
      'Port 3000 is not a port shops serve pages on (80, 443, 8080 or 8443), so Pricewatch does not open it.',
    ],
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

  for (const [name, body, field, message] of addCases)
    test(`POST with ${name}: 400 naming the field, nothing recorded`, async () => {
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
    for (const url of [
      'http://shop.example:8080/k',
      'https://shop.example:8443/k',
      'https://93.184.216.34/k',
      'https://[2606:4700::1111]/k',
      'https://intranet.example/k',
      `${ORIGIN}/demo-shop/products/kettle`,
    ]) {
      const added = await add(user, { ...kettle, url });
      expect(added.url).toBe(url);
      expect((await send(user, 'PUT', `/api/products/${added.id}`, { ...kettleEdit, url })).status).toBe(200);
      expect((await send(user, 'DELETE', `/api/products/${added.id}`)).status).toBe(200);
    }
  });

  test('CHECK_ALLOW_PRIVATE (tests) accepts loopback servers on any port, never credentials or metadata', async () => {
    const open = createApp({ ...api.ctx, config: { ...api.ctx.config, checkAllowPrivate: true } });
    const user = await signInDemo(open, ORIGIN);
    const post = (url: string) =>
      open.handle(
        new Request(`${ORIGIN}/api/products`, {
          method: 'POST',
          headers: { cookie: user.cookie, origin: ORIGIN, 'content-type': 'application/json' },
          body: JSON.stringify({ ...kettle, url }),
        }),
      );
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
      { text: '{"name": "A", ', type: 'application/json' },
      { text: '', type: 'application/json' },
      { text: 'null', type: 'application/json' },
      { text: '[]', type: 'application/json' },
      { text: '"kettle"', type: 'application/json' },
      { text: '42', type: 'application/json' },
      { text: 'name=A&url=https://x.io', type: 'application/x-www-form-urlencoded' },
      { text: 'hello', type: 'text/plain' },
      { text: '\u0000\u0001', type: 'application/json' },
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
    [
      'url with a user name',
      { ...kettle, threshold: 5, url: 'https://admin@shop.example/kettle' },
      'url',
      'Links that contain a user name or password cannot be checked.',
    ],
    [
      'url on a private address',
      { ...kettle, threshold: 5, url: 'http://10.0.0.7/kettle' },
      'url',
      '10.0.0.7 leads to a private or internal network address, which Pricewatch does not visit for safety reasons.',
    ],
    [
      'url on a port shops do not use',
      { ...kettle, threshold: 5, url: 'http://shop.example:6379/' },
      'url',
      'Port 6379 is not a port shops serve pages on (80, 443, 8080 or 8443), so Pricewatch does not open it.',
    ],
    ['bad selector', { ...kettle, threshold: 5, selector: '>>>' }, 'selector', 'CSS selector is not valid'],
    ['missing selector', { name: 'A', url: kettle.url, threshold: 5 }, 'selector', 'CSS selector is required'],
    ['stockAlerts as a number', { ...kettle, threshold: 5, stockAlerts: 1 }, 'stockAlerts', 'Stock alerts must be true or false'],
  ];

  for (const [name, body, field, message] of editCases)
    test(`PUT with ${name}: 400 naming the field, product unchanged`, async () => {
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

  for (const [name, body, message] of priceCases)
    test(`update-price with ${name}: 400, price unchanged`, async () => {
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
      const [method, path] = (
        [
          ['POST', '/api/products'],
          ['PUT', `/api/products/${product.id}`],
          ['POST', `/api/products/${product.id}/update-price`],
        ] as const
      )[i % 3]!;
      const res = await send(user, method, path, body);
      expect([200, 201, 400, 403]).toContain(res.status);
      if (res.status === 400) expect((await res.json()).field).toBeString();
    }
    // Whatever was accepted left the account consistent: the read model agrees with the log.
    const added = Number((await api.ctx.sql`SELECT count(*) AS n FROM events WHERE type = 'ProductAdded' AND data->>'userId' = ${user.userId}`)[0]!.n);
    expect((await list(user)).length).toBe(added);
    expect(await eventCount()).toBeGreaterThanOrEqual(before);
  });
});
