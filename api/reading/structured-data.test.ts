import { describe, expect, test } from 'bun:test';
import { parsePage } from './page.ts';
import { statedAvailability, structuredDataPrices } from './structured-data.ts';
import type { Availability, StructuredSource } from './structured-values.ts';
import { extractPrice } from './extract.ts';
import { detectPriceSelectors } from '../ai/detect.ts';

function page(body: string, head = '', title = 'Acme Kettle 1.7L | Homeware Shop'): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title>${head}</head><body>${body}</body></html>`;
}

const state = (name: string, value: unknown) => `<script>window.${name} = ${JSON.stringify(value)};</script>`;
const nextData = (pageProps: unknown) =>
  `<script id="__NEXT_DATA__" type="application/json">${JSON.stringify({ props: { pageProps }, page: '/p/[slug]', buildId: 'x' })}</script>`;
const H1 = '<h1>Acme Kettle 1.7L</h1>';

type Case = {
  name: string;
  html: string;
  url?: string;
  /** [source, amount, currency] of every price read, in order. */
  prices: [StructuredSource, number, string | null][];
  availability?: Availability | null;
};

const rdfa: Case[] = [
  {
    name: 'vocab + typeof Product > Offer, content attributes (Drupal, WordPress themes)',
    html: page(`<div vocab="http://schema.org/" typeof="Product">${H1.replace('<h1>', '<h1 property="name">')}
      <div property="offers" typeof="Offer"><span property="priceCurrency" content="GBP">£</span><span property="price" content="24.99">24.99</span>
      <link property="availability" href="http://schema.org/InStock"></div></div>`),
    prices: [['rdfa', 24.99, 'GBP']],
    availability: 'InStock',
  },
  {
    name: 'schema: prefix, price as text only, currency in a meta',
    html: page(`<div prefix="schema: http://schema.org/" typeof="schema:Product"><h1 property="schema:name">Acme Kettle 1.7L</h1>
      <div property="schema:offers" typeof="schema:Offer"><meta property="schema:priceCurrency" content="EUR"><span property="schema:price">19,90 €</span>
      <meta property="schema:availability" content="https://schema.org/OutOfStock"></div></div>`),
    prices: [['rdfa', 19.9, 'EUR']],
    availability: 'OutOfStock',
  },
  {
    name: 'related products nested in the product are skipped',
    html: page(`<div vocab="https://schema.org/" typeof="Product"><h1 property="name">Acme Kettle 1.7L</h1>
      <div property="offers" typeof="Offer"><meta property="price" content="24.99"><meta property="priceCurrency" content="GBP"></div>
      <div property="isRelatedTo" typeof="Product"><span property="name">Mug</span><div property="offers" typeof="Offer"><meta property="price" content="9.99"></div></div></div>`),
    prices: [['rdfa', 24.99, 'GBP']],
  },
  {
    name: 'a bare property="price" outside any typed resource is not RDFa',
    html: page(`${H1}<span property="price" content="24.99">£24.99</span>`),
    prices: [],
  },
];

const meta: Case[] = [
  {
    name: 'Twitter product card: label1 Price, data1 the price (Shopify themes)',
    html: page(H1, '<meta name="twitter:label1" content="Price"><meta name="twitter:data1" content="£24.99 GBP">'),
    prices: [['meta', 24.99, 'GBP']],
  },
  {
    name: 'Twitter label in German, price as text with the currency after',
    html: page(
      H1,
      '<meta name="twitter:label1" content="Verfügbarkeit"><meta name="twitter:data1" content="Auf Lager"><meta name="twitter:label2" content="Preis"><meta name="twitter:data2" content="19,99 €">',
    ),
    prices: [['meta', 19.99, 'EUR']],
  },
  {
    name: 'Twitter data under a label that is not a price is not read',
    html: page(H1, '<meta name="twitter:label1" content="Written by"><meta name="twitter:data1" content="24 authors">'),
    prices: [],
  },
  {
    name: 'meta name="price" with the currency OpenGraph declares',
    html: page(H1, '<meta property="og:price:currency" content="USD"><meta name="price" content="24.99">'),
    prices: [['meta', 24.99, 'USD']],
  },
];

const scriptState: Case[] = [
  {
    name: 'Next.js: __NEXT_DATA__ with a current/was price object; a related product is left out',
    html: page(
      H1,
      nextData({
        product: { name: 'Acme Kettle 1.7L', price: { was: { value: 34.99, currency: 'GBP' }, current: { value: 24.99, currency: 'GBP' } }, inStock: true },
        related: [{ name: 'Acme Mug', price: { current: { value: 9.99, currency: 'GBP' } } }],
      }),
    ),
    prices: [['script-state', 24.99, 'GBP']],
    availability: 'InStock',
  },
  {
    name: 'Redux: window.__INITIAL_STATE__, salePrice before listPrice, stock status',
    html: page(
      H1,
      state('__INITIAL_STATE__', {
        pdp: { product: { title: 'Acme Kettle 1.7L', listPrice: 34.99, salePrice: 24.99, currencyCode: 'USD', stockStatus: 'OUT_OF_STOCK' } },
      }),
    ),
    prices: [['script-state', 24.99, 'USD']],
    availability: 'OutOfStock',
  },
  {
    name: 'window.__PRELOADED_STATE__ = JSON.parse("...")',
    html: page(
      H1,
      `<script>window.__PRELOADED_STATE__ = JSON.parse(${JSON.stringify(JSON.stringify({ item: { productName: 'Acme Kettle 1.7L', finalPrice: '24.99', currency: 'EUR', soldOut: false } }))});</script>`,
    ),
    prices: [['script-state', 24.99, 'EUR']],
    availability: 'InStock',
  },
  {
    name: 'Nuxt 2: window.__NUXT__ as a function call is not JSON, so not read',
    html: page(H1, '<script>window.__NUXT__=(function(a,b){return {data:[{product:{name:"Acme Kettle 1.7L",price:a}}]}}(24.99,"GBP"));</script>'),
    prices: [],
  },
  {
    name: 'Apollo: normalised cache, price by reference',
    html: page(
      H1,
      state('__APOLLO_STATE__', {
        ROOT_QUERY: { 'product({"slug":"acme-kettle"})': { __ref: 'Product:1' } },
        'Product:1': { __typename: 'Product', name: 'Acme Kettle 1.7L', price: { __ref: 'Money:1' } },
        'Money:1': { __typename: 'Money', amount: '24.99', currencyCode: 'EUR' },
      }),
    ),
    prices: [['script-state', 24.99, 'EUR']],
  },
  {
    name: 'Shopify data-product-json: whole numbers are cents, the "from" price',
    html: page(
      H1,
      `<script type="application/json" data-product-json>${JSON.stringify({
        id: 1,
        title: 'Acme Kettle 1.7L',
        handle: 'acme-kettle',
        price: 2499,
        price_min: 2499,
        price_max: 2999,
        compare_at_price: 3499,
        available: true,
        variants: [
          { id: 11, title: 'Black', price: 2499, available: true },
          { id: 12, title: 'White', price: 2999, available: false },
        ],
      })}</script>`,
      'Acme Kettle 1.7L – Acme',
    ),
    prices: [['script-state', 24.99, null]],
    availability: 'InStock',
  },
  {
    name: 'Shopify ProductJson-*: the variant the url names',
    url: 'https://acme.example/products/acme-kettle?variant=12',
    html: page(
      H1,
      `<script type="application/json" id="ProductJson-product-template">${JSON.stringify({
        id: 1,
        title: 'Acme Kettle 1.7L',
        price: 2499,
        price_min: 2499,
        price_max: 2999,
        available: true,
        variants: [
          { id: 11, title: 'Black', price: 2499, available: true },
          { id: 12, title: 'White', price: 2999, available: false },
        ],
      })}</script>`,
      'Acme Kettle 1.7L – Acme',
    ),
    prices: [['script-state', 29.99, null]],
    availability: 'OutOfStock',
  },
  {
    name: 'Shopify analytics meta: named only by its variants, cents',
    html: page(
      H1,
      `<script>window.ShopifyAnalytics = window.ShopifyAnalytics || {};
      window.ShopifyAnalytics.meta = window.ShopifyAnalytics.meta || {};
      var meta = ${JSON.stringify({
        product: {
          id: 1,
          vendor: 'Acme',
          variants: [
            { id: 11, price: 2499, name: 'Acme Kettle 1.7L - Black', public_title: 'Black' },
            { id: 12, price: 2499, name: 'Acme Kettle 1.7L - White', public_title: 'White' },
          ],
        },
        page: { pageType: 'product' },
      })};
      for (var attr in meta) { window.ShopifyAnalytics.meta[attr] = meta[attr]; }</script>`,
      'Acme Kettle 1.7L – Acme',
    ),
    prices: [['script-state', 24.99, null]],
  },
  {
    name: 'minor units in generic state, told by the price the page shows (19.50)',
    html: page(
      `${H1}<div class="price">CHF 19.50</div>`,
      state('__PRELOADED_STATE__', { product: { name: 'Acme Kettle 1.7L', prices: { price: 1950, original_price: 1950 } } }),
    ),
    prices: [['script-state', 19.5, null]],
  },
  {
    name: 'whole units in generic state, told by the price the page shows (¥1,950)',
    html: page(`${H1}<div class="price">¥1,950</div>`, state('__PRELOADED_STATE__', { product: { name: 'Acme Kettle 1.7L', price: 1950, currency: 'JPY' } })),
    prices: [['script-state', 1950, 'JPY']],
  },
  {
    name: 'a whole number the page does not show either way is not read',
    html: page(H1, state('__PRELOADED_STATE__', { product: { name: 'Acme Kettle 1.7L', price: 1950 } })),
    prices: [],
  },
  {
    name: 'commercetools money: centAmount and fractionDigits',
    html: page(
      H1,
      nextData({
        product: {
          name: { en: 'x' },
          masterVariant: {},
          productName: 'Acme Kettle 1.7L',
          price: { value: { centAmount: 2499, currencyCode: 'EUR', fractionDigits: 2 } },
        },
      }),
    ),
    prices: [['script-state', 24.99, 'EUR']],
  },
  {
    name: "two products with the title's words and different prices: nothing",
    html: page(
      '<h1>Acme Kettle</h1>',
      `<script type="application/json">${JSON.stringify({
        items: [
          { name: 'Acme Kettle Black', price: 24.99 },
          { name: 'Acme Kettle White', price: 29.99 },
        ],
      })}</script>`,
      'Acme Kettle | Shop',
    ),
    prices: [],
  },
  {
    name: 'the same product twice at the same price is one witness',
    html: page(
      H1,
      `<script type="application/json">${JSON.stringify({ a: { name: 'Acme Kettle 1.7L', price: '24.99', currency: 'GBP' }, recent: [{ name: 'Acme Kettle 1.7L', price: 24.99 }] })}</script>`,
    ),
    prices: [['script-state', 24.99, 'GBP']],
  },
  {
    name: "a product whose name is not the page's is not read",
    html: page(H1, nextData({ giftCard: { name: 'Gift card', price: 50 }, banner: { title: 'Summer sale', price: 10 } })),
    prices: [],
  },
  {
    name: 'scripts without a state marker are not read',
    html: page(H1, `<script>var product = ${JSON.stringify({ name: 'Acme Kettle 1.7L', price: 24.99 })};</script>`),
    prices: [],
  },
  {
    name: 'broken JSON in a state script does not throw',
    html: page(
      H1,
      '<script type="application/json">{"name": "Acme Kettle 1.7L", "price": 24.99,, }</script><script>window.__INITIAL_STATE__ = {name: "Acme Kettle 1.7L", price: 24.99};</script>',
    ),
    prices: [],
  },
];

function run(cases: Case[]) {
  for (const c of cases) {
    test(c.name, () => {
      const document = parsePage(c.html);
      expect(structuredDataPrices(document, { url: c.url }).map((p) => [p.source, p.amount, p.currency])).toEqual(c.prices);
      if (c.availability !== undefined) expect(statedAvailability(document, c.url)).toBe(c.availability);
    });
  }
}

describe('RDFa', () => run(rdfa));
describe('meta tags', () => run(meta));
describe('script state', () => run(scriptState));

describe('order and availability', () => {
  test('JSON-LD, microdata, RDFa, OpenGraph, meta, script state', () => {
    const head =
      `<script type="application/ld+json">${JSON.stringify({ '@type': 'Product', name: 'Acme Kettle 1.7L', offers: { price: '24.99', priceCurrency: 'GBP' } })}</script>` +
      '<meta property="product:price:amount" content="25.99"><meta name="twitter:label1" content="Price"><meta name="twitter:data1" content="£26.49">' +
      nextData({ product: { name: 'Acme Kettle 1.7L', price: 27.49, currency: 'GBP' } });
    const body = `${H1}<div itemscope itemtype="https://schema.org/Product"><meta itemprop="price" content="26.99"></div>
      <div vocab="http://schema.org/" typeof="Offer"><meta property="price" content="27.99"></div>`;
    expect(structuredDataPrices(parsePage(page(body, head))).map((p) => [p.source, p.amount])).toEqual([
      ['json-ld', 24.99],
      ['microdata', 26.99],
      ['rdfa', 27.99],
      ['opengraph', 25.99],
      ['meta', 26.49],
      ['script-state', 27.49],
    ]);
  });
  test('script state without a currency takes the one the page states elsewhere', () => {
    const head =
      '<meta property="og:price:amount" content="24.99"><meta property="og:price:currency" content="CHF">' +
      nextData({ product: { name: 'Acme Kettle 1.7L', price: '24.99' } });
    expect(structuredDataPrices(parsePage(page(H1, head))).map((p) => [p.source, p.currency])).toEqual([
      ['opengraph', 'CHF'],
      ['script-state', 'CHF'],
    ]);
  });
  test('script state speaks of stock only where nothing else does', () => {
    const stateSaysSoldOut = nextData({ product: { name: 'Acme Kettle 1.7L', price: 24.99, isInStock: false } });
    const jsonLd = `<script type="application/ld+json">${JSON.stringify({ '@type': 'Product', offers: { price: '24.99', availability: 'https://schema.org/InStock' } })}</script>`;
    expect(statedAvailability(parsePage(page(H1, stateSaysSoldOut + jsonLd)), undefined)).toBe('InStock');
    expect(statedAvailability(parsePage(page(H1, stateSaysSoldOut)), undefined)).toBe('OutOfStock');
  });
});

describe('checks follow what AI Detect suggests', () => {
  const pages: [string, string, StructuredSource][] = [
    ['script#__NEXT_DATA__', page(H1, nextData({ product: { name: 'Acme Kettle 1.7L', price: { amount: 24.99, currency: 'GBP' } } })), 'script-state'],
    [
      'script[data-product-json]',
      page(
        H1,
        `<script type="application/json" data-product-json>${JSON.stringify({ title: 'Acme Kettle 1.7L', price: 2499, price_min: 2499, variants: [{ id: 1, price: 2499 }] })}</script>`,
      ),
      'script-state',
    ],
    [
      'script:not([src])',
      page(H1, '<script src="/app.js"></script>' + state('__INITIAL_STATE__', { product: { name: 'Acme Kettle 1.7L', salePrice: 24.99, currency: 'GBP' } })),
      'script-state',
    ],
    [
      '[property="price"]',
      page(`${H1}<div vocab="http://schema.org/" typeof="Offer"><meta property="price" content="24.99"><meta property="priceCurrency" content="GBP"></div>`),
      'rdfa',
    ],
    ['meta[name="twitter:data1"]', page(H1, '<meta name="twitter:label1" content="Price"><meta name="twitter:data1" content="£24.99">'), 'meta'],
  ];
  for (const [selector, html, source] of pages) {
    test(`${source}: ${selector} gives the same price back`, () => {
      const [suggestion] = detectPriceSelectors(parsePage(html));
      expect(suggestion?.selector).toBe(selector);
      expect(suggestion?.price).toBe(24.99);
      const result = extractPrice(html, { selector });
      expect(result.ok && [result.price, result.source]).toEqual([24.99, 'selector']);
      // Without a selector the page's statement is the price too.
      const unaided = extractPrice(html);
      expect(unaided.ok && [unaided.price, unaided.source]).toEqual([24.99, source]);
    });
  }
  test('a state selector on a page whose state names another product fails with a reason', () => {
    const html = page(H1, nextData({ product: { name: 'Gift card', price: 50 } }));
    const result = extractPrice(html, { selector: 'script#__NEXT_DATA__' });
    expect(result.ok).toBe(false);
  });
});

test('statements nested 200,000 levels deep are walked or skipped without recursion; the product beside them is read', () => {
  const levels = 200_000;
  const block = (json: string) => `<script type="application/ld+json">${json}</script>`;
  const html = page(
    `${H1}<p class="price">£24.99</p>`,
    [
      block(`${'{"@graph":'.repeat(levels)}{}${'}'.repeat(levels)}`),
      block(`${'{"@type":"WebPage","mainEntity":'.repeat(levels)}{}${'}'.repeat(levels)}`),
      block(
        `{"@type":"Product","name":"Gift card","offers":${'{"@type":"AggregateOffer","offers":'.repeat(levels)}{"@type":"Offer","price":"1.00"}${'}'.repeat(levels)}}`,
      ),
      block(`${'['.repeat(levels)}${']'.repeat(levels)}`),
      `<script id="__NEXT_DATA__" type="application/json">${'{"price":'.repeat(levels)}1${'}'.repeat(levels)}</script>`,
      block(JSON.stringify({ '@type': 'Product', name: 'Acme Kettle 1.7L', offers: { '@type': 'Offer', price: '24.99', priceCurrency: 'GBP' } })),
    ].join(''),
  );
  expect(structuredDataPrices(parsePage(html))[0]).toEqual({ source: 'json-ld', amount: 24.99, currency: 'GBP', raw: '24.99' });
  const result = extractPrice(html);
  expect(result.ok && [result.price, result.source]).toEqual([24.99, 'json-ld']);
});

test('offers inside offers are read a few levels deep', () => {
  const nestedOffers = (levels: number) =>
    `${'{"@type":"AggregateOffer","offers":'.repeat(levels)}{"@type":"Offer","price":"24.99","priceCurrency":"GBP"}${'}'.repeat(levels)}`;
  const prices = (levels: number) =>
    structuredDataPrices(
      parsePage(page(H1, `<script type="application/ld+json">{"@type":"Product","name":"Acme Kettle 1.7L","offers":${nestedOffers(levels)}}</script>`)),
    );
  expect(prices(3)).toEqual([{ source: 'json-ld', amount: 24.99, currency: 'GBP', raw: '24.99' }]);
  expect(prices(5)).toEqual([]);
});

describe('pages with thousands of offers are read in time linear in their size', () => {
  // Each offer asked the whole list for its currency and walked the tree for its scope: 8,000
  // offers took 15 s. Timings are not what is tested elsewhere; here the old cost was minutes.
  const offers = (n: number, wrap: (offer: string) => string) =>
    Array.from({ length: n }, (_, i) =>
      wrap(
        `<div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><meta itemprop="price" content="${(i % 90) + 10}.99"><meta itemprop="priceCurrency" content="EUR"><link itemprop="url" href="/o/${i}"></div>`,
      ),
    ).join('');

  test('20,000 microdata offers in one product', () => {
    const html = `<div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">Lamp</h1>${offers(20_000, (o) => o)}</div>`;
    const started = performance.now();
    const prices = structuredDataPrices(parsePage(html));
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(prices[0]).toMatchObject({ source: 'microdata', amount: 10.99, currency: 'EUR' });
  });

  test('5,000 RDFa offers under 900 levels of nesting', () => {
    const rdfaOffer = (i: number) =>
      `<div property="offers" typeof="Offer"><meta property="price" content="${(i % 90) + 10}.50"><meta property="priceCurrency" content="USD"></div>`;
    const html = `<div vocab="https://schema.org/" typeof="Product"><h1 property="name">Lamp</h1>${'<div>'.repeat(900)}${Array.from({ length: 5_000 }, (_, i) => rdfaOffer(i)).join('')}${'</div>'.repeat(900)}</div>`;
    const started = performance.now();
    const prices = structuredDataPrices(parsePage(html));
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(prices[0]).toMatchObject({ source: 'rdfa', amount: 10.5, currency: 'USD' });
  });
});
