import { describe, expect, test } from 'bun:test';
import { parsePage } from './page.ts';
import { pickOffer, readOffers } from './offers.ts';
import { extractPrice } from './extract.ts';

const page = (head: string, body = '<h1>Trail Jacket</h1>') =>
  `<!doctype html><html lang="en"><head><title>Trail Jacket</title>${head}</head><body>${body}</body></html>`;
const ld = (value: object) => `<script type="application/ld+json">${JSON.stringify(value)}</script>`;
const offersOf = (html: string, url?: string) => readOffers(parsePage(html), url);

const BASE = 'https://shop.example/products/trail-jacket';
const group = ld({
  '@context': 'https://schema.org',
  '@type': 'ProductGroup',
  name: 'Trail Jacket',
  productGroupID: 'TJ',
  variesBy: ['https://schema.org/size', 'https://schema.org/color'],
  hasVariant: [
    ['S', 'Blue', '101', '89.00', 'InStock'],
    ['XL', 'Red', '104', '99.00', 'OutOfStock'],
  ].map(([size, color, id, price, stock]) => ({
    '@type': 'Product',
    sku: `TJ-${size}-${color}`,
    gtin13: `40063813339${id!.slice(-2)}`,
    size,
    color,
    url: `${BASE}?variant=${id}`,
    offers: {
      '@type': 'Offer',
      price,
      priceCurrency: 'GBP',
      availability: `https://schema.org/${stock}`,
      url: `${BASE}?variant=${id}`,
      priceSpecification: { '@type': 'UnitPriceSpecification', priceType: 'https://schema.org/StrikethroughPrice', price: '120.00', priceCurrency: 'GBP' },
    },
  })),
});

describe('a page as a set of offers', () => {
  test('a ProductGroup: each variant with its options, stock, regular price and address; the address picks one', () => {
    const offers = offersOf(page(group), `${BASE}?variant=104`);
    expect(offers).toEqual([
      {
        source: 'json-ld',
        price: 89,
        currency: 'GBP',
        availability: 'InStock',
        regularPrice: 120,
        variant: { id: 'TJ-S-Blue', sku: 'TJ-S-Blue', gtin: '4006381333901', options: { size: 'S', color: 'Blue' }, url: `${BASE}?variant=101` },
      },
      {
        source: 'json-ld',
        price: 99,
        currency: 'GBP',
        availability: 'OutOfStock',
        regularPrice: 120,
        variant: { id: 'TJ-XL-Red', sku: 'TJ-XL-Red', gtin: '4006381333904', options: { size: 'XL', color: 'Red' }, url: `${BASE}?variant=104` },
      },
    ]);
    // The XL in red, sold out, although the S in blue is in stock.
    expect(pickOffer(offers, `${BASE}?variant=104`)).toMatchObject({ price: 99, availability: 'OutOfStock', variant: { options: { size: 'XL' } } });
    // No variant named: no single offer (the shown price decides, never the cheapest of the range).
    expect(pickOffer(offers, BASE)).toBeNull();
  });

  test('an Offer list and an AggregateOffer: each offer with its own sku and address', () => {
    const product = (offers: object) => page(ld({ '@type': 'Product', name: 'Trail Jacket', offers }));
    const list = offersOf(
      product([
        { '@type': 'Offer', sku: 'A', price: 10, priceCurrency: 'EUR', url: 'https://shop.example/j?size=s' },
        { '@type': 'Offer', sku: 'B', price: 12, priceCurrency: 'EUR', url: 'https://shop.example/j?size=m' },
      ]),
    );
    expect(list.map((o) => [o.price, o.variant?.sku])).toEqual([
      [10, 'A'],
      [12, 'B'],
    ]);
    expect(pickOffer(list, 'https://shop.example/j?size=m')?.price).toBe(12);
    const aggregate = offersOf(
      product({
        '@type': 'AggregateOffer',
        lowPrice: 10,
        highPrice: 12,
        priceCurrency: 'EUR',
        offers: [
          { '@type': 'Offer', sku: 'A', price: 10 },
          { '@type': 'Offer', sku: 'B', price: 12 },
        ],
      }),
    );
    expect(aggregate.map((o) => o.price)).toEqual([10, 12]);
    // One offer is the product's own: no variant to name.
    expect(offersOf(product({ '@type': 'Offer', price: '5.00', priceCurrency: 'GBP' }))).toEqual([
      { source: 'json-ld', price: 5, currency: 'GBP', availability: null, regularPrice: null, variant: null },
    ]);
  });

  test("Shopify's product JSON: prices in minor units, compare-at, availability, ?variant= picks", () => {
    const json = {
      id: 7,
      options: [{ name: 'Size' }, { name: 'Colour' }],
      variants: [
        { id: 40123456788, sku: 'TJ-S', barcode: '4006381333931', price: 8900, compare_at_price: 12000, available: true, option1: 'S', option2: 'Blue' },
        { id: 40123456789, sku: 'TJ-XL', barcode: null, price: 9900, compare_at_price: null, available: false, option1: 'XL', option2: 'Red' },
      ],
    };
    const html = page(
      ld({ '@type': 'Product', name: 'Trail Jacket', offers: { '@type': 'Offer', price: '89.00', priceCurrency: 'GBP' } }),
      `<h1>Trail Jacket</h1><script type="application/json" id="ProductJson-main">${JSON.stringify(json)}</script>`,
    );
    const offers = offersOf(html, `${BASE}?variant=40123456789`);
    expect(offers).toHaveLength(2);
    expect(offers[0]).toEqual({
      source: 'script-state',
      price: 89,
      currency: 'GBP',
      availability: 'InStock',
      regularPrice: 120,
      variant: { id: '40123456788', sku: 'TJ-S', gtin: '4006381333931', options: { size: 'S', colour: 'Blue' }, url: null },
    });
    expect(pickOffer(offers, `${BASE}?variant=40123456789`)).toMatchObject({
      price: 99,
      availability: 'OutOfStock',
      variant: { options: { size: 'XL', colour: 'Red' } },
    });
  });

  test("WooCommerce's variations: attribute_* parameters pick the variation", () => {
    const variations = [
      { variation_id: 301, sku: 'TJ-S', attributes: { attribute_pa_size: 's' }, display_price: 89, display_regular_price: 120, is_in_stock: true },
      { variation_id: 302, sku: 'TJ-XL', attributes: { attribute_pa_size: 'xl' }, display_price: 99, display_regular_price: 99, is_in_stock: false },
    ];
    const html = page(
      '',
      `<h1>Trail Jacket</h1><form class="variations_form cart" data-product_variations='${JSON.stringify(variations)}'><select name="attribute_pa_size"></select></form>`,
    );
    const offers = readOffers(parsePage(html), 'https://shop.example/product/trail-jacket/?attribute_pa_size=xl', 'GBP');
    expect(offers.map((o) => [o.price, o.regularPrice, o.availability, o.variant?.options])).toEqual([
      [89, 120, 'InStock', { size: 's' }],
      [99, null, 'OutOfStock', { size: 'xl' }],
    ]);
    expect(pickOffer(offers, 'https://shop.example/product/trail-jacket/?attribute_pa_size=XL')?.variant?.sku).toBe('TJ-XL');
    expect(pickOffer(offers, 'https://shop.example/product/trail-jacket/')).toBeNull();
  });

  test('a check of a variant’s address reads that variant: its price and its stock, not the page’s default', () => {
    const json = {
      options: ['Size'],
      variants: [
        { id: 11, sku: 'S', price: 8900, available: true, option1: 'S' },
        { id: 12, sku: 'XL', price: 9900, available: false, option1: 'XL' },
      ],
    };
    const html = page(
      ld({
        '@type': 'Product',
        name: 'Trail Jacket',
        offers: { '@type': 'Offer', price: '89.00', priceCurrency: 'GBP', availability: 'https://schema.org/InStock' },
      }),
      `<h1>Trail Jacket</h1><p class="price">£89.00</p><script type="application/json" data-product-json>${JSON.stringify(json)}</script>`,
    );
    expect(extractPrice(html, { url: `${BASE}?variant=12` })).toMatchObject({
      ok: true,
      price: 99,
      currency: 'GBP',
      source: 'script-state',
      availability: 'OutOfStock',
    });
    expect(extractPrice(html, { url: BASE })).toMatchObject({ ok: true, price: 89, availability: 'InStock' });
    // A selector the owner gave still wins.
    expect(extractPrice(html, { url: `${BASE}?variant=12`, selector: 'p.price' })).toMatchObject({ ok: true, price: 89, source: 'selector' });
  });

  test('broken and hostile data gives no offers, and never throws', () => {
    for (const html of [
      page('<script type="application/ld+json">{"@type":"Product","offers":</script>'),
      page('', `<script type="application/json" id="ProductJson-x">{"variants":[{"price":"x"}]}</script>`),
      page('', `<form class="variations_form" data-product_variations="not json"></form>`),
      page(ld({ '@type': 'ProductGroup', hasVariant: [{ '@type': 'Product', offers: { price: 'soon' } }] })),
    ]) {
      expect(offersOf(html, `${BASE}?variant=1`)).toEqual([]);
    }
    expect(pickOffer([], 'not a url')).toBeNull();
  });
});
