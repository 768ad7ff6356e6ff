import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Server } from 'bun';
import { createApp } from '../server.ts';
import { SETUP_TIMEOUT, testContext } from '../testing/database.ts';
import { startFakeOpenAI, type ChatRequest, type FakeOpenAI } from '../testing/fake-openai.ts';
import { addProduct, observePrices } from '../testing/prices.ts';
import { AI_DETECTION_NOT_IN_PLAN } from './routes.ts';
import { signInDemo } from '../testing/sign-in.ts';

const ORIGIN = 'http://localhost:3000';
const DAY = 86_400_000;

/** A competitor's product page: a sale price beside a was price, an instalment offer, related products. */
const KETTLE = `<!doctype html><html><head><title>Steel Kettle</title>
  <script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Steel Kettle","offers":{"@type":"Offer","price":"24.99","priceCurrency":"GBP"}}</script></head>
  <body><header><a href="/basket">Basket £0.00</a></header>
  <main><div class="product"><h1>Steel Kettle</h1>
    <div class="product-price" data-testid="product-price"><span class="price-now">£24.99</span> <s class="price-was">Was £30.00</s></div>
    <p class="instalments">or 3 payments of £8.33</p>
    <form action="/cart/add"><button type="submit">Add to basket</button></form></div>
  <section class="related"><h2>You may also like</h2><ul><li><a href="/mug">Mug</a> <span class="price">£9.99</span></li></ul></section></main></body></html>`;
/** A Shopify product of two sizes: the theme's product JSON knows each size's price, was-price and stock. */
const JACKET = `<!doctype html><html lang="en-GB"><head><title>Trail jacket</title><meta property="og:price:currency" content="GBP"></head><body><main>
  <h1>Trail jacket</h1><div class="product__price"><s>£59.99</s> <span class="price">£49.99</span></div>
  <form action="/cart/add" method="post"><select name="id"><option value="11" selected>S</option><option value="12">XL</option></select><button type="submit">Add to cart</button></form>
  <script type="application/json" id="ProductJson-main">${JSON.stringify({
    title: 'Trail jacket',
    options: ['Size'],
    variants: [
      { id: 11, sku: 'TJ-S', option1: 'S', price: 4999, compare_at_price: 5999, available: true },
      { id: 12, sku: 'TJ-XL', option1: 'XL', price: 5499, compare_at_price: null, available: false },
    ],
  })}</script></main></body></html>`;
const NO_PRICE = '<!doctype html><html><body><main><h1>Steel Kettle</h1><p>Sold out.</p></main></body></html>';

let ctx: Awaited<ReturnType<typeof testContext>>;
let app: ReturnType<typeof createApp>;
/** The same app without a model: what the heuristics answer alone. */
let plainApp: ReturnType<typeof createApp>;
let shop: Server<undefined>;
let model: FakeOpenAI;

beforeAll(async () => {
  shop = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      const { pathname } = new URL(request.url);
      if (pathname === '/kettle') return new Response(KETTLE, { headers: { 'content-type': 'text/html; charset=utf-8' } });
      if (pathname === '/products/trail-jacket') return new Response(JACKET, { headers: { 'content-type': 'text/html; charset=utf-8' } });
      if (pathname === '/sold-out') return new Response(NO_PRICE, { headers: { 'content-type': 'text/html; charset=utf-8' } });
      return new Response('Not found', { status: 404 });
    },
  });
  model = startFakeOpenAI();
  ctx = await testContext({
    PUBLIC_URL: ORIGIN,
    CHECK_ALLOW_PRIVATE: 'true',
    OPENAI_API_KEY: 'test-key',
    OPENAI_BASE_URL: model.url,
    OPENAI_MODEL: 'fake-model',
    OPENAI_TIMEOUT_MS: '800',
  });
  app = createApp(ctx);
  plainApp = createApp({ ...ctx, config: { ...ctx.config, ai: null } });
}, SETUP_TIMEOUT);
afterAll(async () => {
  await ctx?.close();
  shop?.stop(true);
  model?.stop();
});

const shopUrl = (path: string) => `http://127.0.0.1:${shop.port}${path}`;
const request = (path: string, init: RequestInit = {}, on = app) => on.handle(new Request(new URL(path, ORIGIN), init));

type User = { cookie: string; userId: string };
const signedIn = (): Promise<User> => signInDemo(app, ORIGIN);
const post = (user: User | null, path: string, body: unknown, on = app) =>
  request(
    path,
    { method: 'POST', headers: { origin: ORIGIN, 'content-type': 'application/json', ...(user ? { cookie: user.cookie } : {}) }, body: JSON.stringify(body) },
    on,
  );

/** A user on a paid plan, through the demo billing flow (a Starter trial). */
async function paidUser(): Promise<User> {
  const user = await signedIn();
  const res = await post(user, '/api/billing/create-subscription', { plan: 'starter', paymentMethodId: 'pm_demo_visa4242' });
  expect(res.status).toBe(200);
  return user;
}

/** The verified selectors a request to the model listed. */
const listedSelectors = (req: ChatRequest): string[] => JSON.parse(req.messages.at(-1)!.content).verifiedSelectors.map((s: { selector: string }) => s.selector);

describe('POST /api/ai/detect-selector', () => {
  let paid: User;
  beforeAll(async () => {
    paid = await paidUser();
  }, SETUP_TIMEOUT);

  test('signed out: 401; free plan: 403 with a clear message', async () => {
    expect((await post(null, '/api/ai/detect-selector', { url: shopUrl('/kettle') })).status).toBe(401);
    const free = await signedIn();
    const res = await post(free, '/api/ai/detect-selector', { url: shopUrl('/kettle') });
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ message: AI_DETECTION_NOT_IN_PLAN });
  });

  test('bad input: 400 naming the field', async () => {
    for (const body of [{}, { url: '' }, { url: 'not a url' }, { url: 'ftp://example.com/x' }, { url: 42 }]) {
      const res = await post(paid, '/api/ai/detect-selector', body);
      expect(res.status).toBe(400);
      expect((await res.json()).field).toBe('url');
    }
  });

  test('an address no check could fetch: 400 naming the field, before any fetch', async () => {
    model.requests.length = 0;
    const strict = createApp({ ...ctx, config: { ...ctx.config, checkAllowPrivate: false } });
    const refused = [
      [strict, shopUrl('/kettle')],
      [strict, 'http://[::ffff:127.0.0.1]/kettle'],
      [strict, 'https://shop.example:3000/kettle'],
      // CHECK_ALLOW_PRIVATE never opens credentials or metadata services.
      [app, shopUrl('/kettle').replace('http://', 'http://user:pw@')],
      [app, 'http://169.254.169.254/latest/meta-data/'],
    ] as const;
    for (const [on, url] of refused) {
      const res = await post(paid, '/api/ai/detect-selector', { url }, on);
      expect(res.status).toBe(400);
      const error = await res.json();
      expect(error.field).toBe('url');
      expect(error.message).toStartWith('url: ');
    }
    expect(model.requests).toHaveLength(0);
  });

  test('without a model the heuristics answer: verified selectors, best first', async () => {
    model.requests.length = 0;
    const res = await post(paid, '/api/ai/detect-selector', { url: shopUrl('/kettle') }, plainApp);
    expect(res.status).toBe(200);
    const answer = await res.json();
    expect(answer.success).toBe(true);
    expect(answer.selectors[0]).toEqual({
      selector: '.price-now',
      description: "Sale price £24.99 next to the add-to-cart button, matching the page's JSON-LD offer",
      confidence: expect.any(Number),
    });
    expect(answer.selectors.length).toBeGreaterThan(1);
    expect(model.requests).toHaveLength(0);
  });

  test("a page of several variants: each with the address that selects it, and the selector that reads the address's variant", async () => {
    const res = await post(paid, '/api/ai/detect-selector', { url: shopUrl('/products/trail-jacket?utm_source=mail') }, plainApp);
    const answer = await res.json();
    expect(answer.selectors.length).toBeGreaterThan(0);
    expect(answer.variants).toEqual([
      {
        label: 'S',
        options: { size: 'S' },
        sku: 'TJ-S',
        price: 49.99,
        currency: 'GBP',
        availability: 'InStock',
        regularPrice: 59.99,
        url: shopUrl('/products/trail-jacket?utm_source=mail&variant=11'),
        selected: true,
      },
      {
        label: 'XL',
        options: { size: 'XL' },
        sku: 'TJ-XL',
        price: 54.99,
        currency: 'GBP',
        availability: 'OutOfStock',
        regularPrice: null,
        url: shopUrl('/products/trail-jacket?utm_source=mail&variant=12'),
        selected: false,
      },
    ]);
    expect(answer.variantSelector).toBe('#ProductJson-main');
    // An address that selects the XL: the shown price is the S's, so the variant data comes first.
    const xl = await (await post(paid, '/api/ai/detect-selector', { url: shopUrl('/products/trail-jacket?variant=12') }, plainApp)).json();
    expect(xl.selectors[0]).toEqual({
      selector: '#ProductJson-main',
      description: "Price £54.99 of the variant the address selects (XL), in the page's variant data",
      confidence: 90,
    });
    expect(xl.variants.map((v: { selected: boolean }) => v.selected)).toEqual([false, true]);
  });

  test('a page without a price: success with no selectors', async () => {
    const res = await post(paid, '/api/ai/detect-selector', { url: shopUrl('/sold-out') }, plainApp);
    expect(await res.json()).toEqual({ success: true, selectors: [], variants: [], variantSelector: null });
  });

  test("a page that cannot be fetched: a clear error with the fetcher's reason", async () => {
    const res = await post(paid, '/api/ai/detect-selector', { url: shopUrl('/gone') });
    expect(res.status).toBe(422);
    const { message } = await res.json();
    expect(message).toStartWith('The page could not be analysed: ');
    expect(message).toContain('404');
  });

  test('with a model: its order and descriptions for the verified selectors (structured output through the SDK)', async () => {
    model.requests.length = 0;
    model.answer = (req) => ({
      content: JSON.stringify({
        ranking: listedSelectors(req)
          .reverse()
          .map((selector, i) => ({ selector, description: `Option ${i + 1}: ${selector}`, confidence: 90 - i * 10 })),
      }),
    });
    const heuristic = (await (await post(paid, '/api/ai/detect-selector', { url: shopUrl('/kettle') }, plainApp)).json()).selectors;
    const res = await post(paid, '/api/ai/detect-selector', { url: shopUrl('/kettle') });
    const answer = await res.json();
    const reversed = heuristic.map((s: { selector: string }) => s.selector).reverse();
    expect(answer.selectors.map((s: { selector: string }) => s.selector)).toEqual(reversed);
    expect(answer.selectors[0]).toEqual({ selector: reversed[0], description: `Option 1: ${reversed[0]}`, confidence: 90 });
    // The request was a structured-output request naming the verified selectors only.
    const [sent] = model.requests;
    expect(sent!.model).toBe('fake-model');
    expect(sent!.response_format).toMatchObject({ type: 'json_schema', json_schema: { name: 'selector_ranking', strict: true } });
    expect(listedSelectors(sent!)).toEqual(heuristic.map((s: { selector: string }) => s.selector));
  });

  test('a selector the model names that was not verified is dropped', async () => {
    model.answer = (req) => ({
      content: JSON.stringify({
        ranking: [
          { selector: '.made-up-price', description: 'Invented', confidence: 99 },
          { selector: 'body', description: 'Everything', confidence: 98 },
          { selector: listedSelectors(req)[1]!, description: 'The second one', confidence: 80 },
        ],
      }),
    });
    const answer = await (await post(paid, '/api/ai/detect-selector', { url: shopUrl('/kettle') })).json();
    const selectors = answer.selectors.map((s: { selector: string }) => s.selector);
    expect(selectors).not.toContain('.made-up-price');
    expect(selectors).not.toContain('body');
    expect(answer.selectors[0].description).toBe('The second one');
    expect(selectors).toContain('.price-now'); // left out by the model, kept after its picks
  });

  for (const [name, answer] of [
    ['not JSON', () => ({ content: 'The price is in .price-now' })],
    ['the wrong shape', () => ({ content: JSON.stringify({ selectors: ['.price-now'] }) })],
    ['an error status', () => ({ status: 500, body: { error: { message: 'overloaded' } } })],
    ['too slow', () => ({ delayMs: 2_000, content: JSON.stringify({ ranking: [] }) })],
  ] as const) {
    test(`a model answer that is ${name}: the heuristics still answer`, async () => {
      model.answer = answer;
      const heuristic = await (await post(paid, '/api/ai/detect-selector', { url: shopUrl('/kettle') }, plainApp)).json();
      const started = performance.now();
      const res = await post(paid, '/api/ai/detect-selector', { url: shopUrl('/kettle') });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(heuristic);
      expect(performance.now() - started).toBeLessThan(1_800); // the 800 ms timeout, not the model's 2 s
    });
  }
});

describe('POST /api/price-suggestions', () => {
  /** A product whose competitor cut the price from £120 to £96 over two weeks. */
  async function fallingProduct(user: User) {
    const productId = await addProduct(ctx, user.userId, { name: 'Kettle' });
    const prices = [120, 120, 120, 115, 115, 115, 110, 110, 105, 105, 100, 100, 96, 96, 96];
    const start = Date.now() - (prices.length - 1) * DAY - 3_600_000;
    await observePrices(
      ctx,
      productId,
      user.userId,
      prices.map((price, i) => [price, new Date(start + i * DAY)] as const),
    );
    await ctx.projections.catchUp();
    return productId;
  }

  test("bad input: 400 naming the field; unknown or another user's product: 404", async () => {
    const user = await signedIn();
    const other = await signedIn();
    const theirs = await fallingProduct(other);
    for (const [body, field] of [
      [{ productId: theirs, timeFilter: 'decade' }, 'timeFilter'],
      [{ productId: theirs }, 'timeFilter'],
      [{ timeFilter: 'month' }, 'productId'],
    ] as const) {
      const res = await post(user, '/api/price-suggestions', body);
      expect(res.status).toBe(400);
      expect((await res.json()).field).toBe(field);
    }
    for (const productId of [theirs, crypto.randomUUID(), 'not-an-id']) {
      const res = await post(user, '/api/price-suggestions', { productId, timeFilter: 'month' });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ message: 'Product not found' });
    }
    expect((await post(null, '/api/price-suggestions', { productId: theirs, timeFilter: 'month' })).status).toBe(401);
  });

  test('too little history: one honest suggestion', async () => {
    const user = await signedIn();
    const productId = await addProduct(ctx, user.userId);
    await observePrices(ctx, productId, user.userId, [[10, new Date(Date.now() - 3_600_000)]]);
    await ctx.projections.catchUp();
    const res = await post(user, '/api/price-suggestions', { productId, timeFilter: 'week' }, plainApp);
    const { suggestions } = await res.json();
    expect(suggestions).toEqual([
      {
        title: 'Not enough price history yet',
        description: expect.stringContaining('Only 1 recorded price in the last 7 days.'),
        confidence: 0.95,
        recommendedAction: expect.any(String),
      },
    ]);
  });

  test('without a model: the rules on the real history of the range', async () => {
    const user = await signedIn();
    const productId = await fallingProduct(user);
    const month = (await (await post(user, '/api/price-suggestions', { productId, timeFilter: 'month' }, plainApp)).json()).suggestions;
    expect(month.map((s: { title: string }) => s.title)).toContain('Competitor is 12.7% below its 30-day median');
    expect(month.map((s: { title: string }) => s.title)).toContain('Prices are falling: down 20.0%');
    for (const s of month) {
      expect(s.confidence).toBeGreaterThan(0);
      expect(s.confidence).toBeLessThanOrEqual(1);
    }
    // The last 7 days hold only the end of the fall.
    const week = (await (await post(user, '/api/price-suggestions', { productId, timeFilter: 'week' }, plainApp)).json()).suggestions;
    expect(week).not.toEqual(month);
  });

  test('with a model: its rewrite, when every figure it states was computed', async () => {
    const user = await signedIn();
    const productId = await fallingProduct(user);
    model.requests.length = 0;
    model.answer = () => ({
      content: JSON.stringify({
        suggestions: [
          {
            title: 'They cut to £96.00, 12.7% under their usual price',
            description: 'Down 20.0% over the last 30 days from £120.00, in 5 cuts.',
            confidence: 0.8,
            recommendedAction: 'Hold your price for now and compete on service.',
          },
        ],
      }),
    });
    const { suggestions } = await (await post(user, '/api/price-suggestions', { productId, timeFilter: 'month' })).json();
    expect(suggestions).toEqual([
      {
        title: 'They cut to £96.00, 12.7% under their usual price',
        description: 'Down 20.0% over the last 30 days from £120.00, in 5 cuts.',
        confidence: 0.8,
        recommendedAction: 'Hold your price for now and compete on service.',
      },
    ]);
    const sent = JSON.parse(model.requests[0]!.messages.at(-1)!.content);
    expect(sent.figures).toContain('Current price: £96.00');
    expect(model.requests[0]!.response_format?.json_schema?.name).toBe('pricing_suggestions');
  });

  for (const [name, answer] of [
    [
      'states a figure that was not computed',
      () => ({
        content: JSON.stringify({
          suggestions: [{ title: 'Cut to £89.99 now', description: 'They are 15% cheaper.', confidence: 0.9, recommendedAction: 'Undercut them.' }],
        }),
      }),
    ],
    ['is not JSON', () => ({ content: 'Lower your price.' })],
    ['is too slow', () => ({ delayMs: 2_000, content: '{"suggestions":[]}' })],
  ] as const) {
    test(`a model answer that ${name}: the rules answer`, async () => {
      const user = await signedIn();
      const productId = await fallingProduct(user);
      model.answer = answer;
      const rules = await (await post(user, '/api/price-suggestions', { productId, timeFilter: 'month' }, plainApp)).json();
      const res = await post(user, '/api/price-suggestions', { productId, timeFilter: 'month' });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(rules);
    });
  }
});
