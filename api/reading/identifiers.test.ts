import { describe, expect, test } from 'bun:test';
import { parsePage } from './page.ts';
import { readIdentifiers, type IdentifierOptions, type ProductIdentifiers } from './identifiers.ts';
import { extractPrice } from './extract.ts';
import { productPage } from '../demo-shop/pages.ts';
import { DEMO_PRODUCTS } from '../demo-shop/shop.ts';

function page(body: string, head = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme Kettle 1.7L</title>${head}</head><body>${body}</body></html>`;
}
const ld = (value: unknown) => `<script type="application/ld+json">${JSON.stringify(value)}</script>`;
const offer = (price: string, extra: Record<string, unknown> = {}) => ({ '@type': 'Offer', price, priceCurrency: 'GBP', ...extra });
const ids = (partial: Partial<ProductIdentifiers>): ProductIdentifiers => ({ gtin: null, mpn: null, sku: null, brand: null, ...partial });

// 5012345678900 and 4006381333931 are valid EAN-13s; 036000291452 a valid UPC-A.
const EAN = '5012345678900';
const EAN14 = '05012345678900';

type Case = { name: string; html: string; opts?: IdentifierOptions; expected: ProductIdentifiers | null };

const jsonLd: Case[] = [
  {
    name: 'Product with gtin13, mpn, sku and a brand as a string',
    html: page('', ld({ '@type': 'Product', name: 'Kettle', gtin13: EAN, mpn: 'KX-200', sku: 'KET-17', brand: 'Acme', offers: offer('24.99') })),
    expected: ids({ gtin: EAN14, mpn: 'KX-200', sku: 'KET-17', brand: 'Acme' }),
  },
  {
    name: 'a Brand object, a UPC-A as gtin12, values trimmed and their whitespace collapsed',
    html: page(
      '',
      ld({ '@type': 'Product', gtin12: '036000291452', mpn: '  KX\n 200 ', brand: { '@type': 'Brand', name: ' Acme   Home ' }, offers: offer('24.99') }),
    ),
    expected: ids({ gtin: '00036000291452', mpn: 'KX 200', brand: 'Acme Home' }),
  },
  {
    name: 'brand as an array of Organizations: the first that names one; gtin written as a number',
    html: page('', ld({ '@type': 'Product', gtin: 4006381333931, brand: [{ '@type': 'Organization', name: ' ' }, { name: 'Faber' }], offers: offer('3') })),
    expected: ids({ gtin: '04006381333931', brand: 'Faber' }),
  },
  {
    name: 'the GTIN and SKU on the offer, the brand on the product, in a @graph',
    html: page(
      '',
      ld({
        '@context': 'https://schema.org',
        '@graph': [
          { '@type': 'WebPage', name: 'Kettle' },
          { '@type': 'Product', brand: { name: 'Acme' }, offers: { '@id': '#offer' } },
          { '@id': '#offer', '@type': 'Offer', price: '24.99', gtin14: EAN14, sku: 'KET-17' },
        ],
      }),
    ),
    expected: ids({ gtin: EAN14, sku: 'KET-17', brand: 'Acme' }),
  },
  {
    name: 'an invalid GTIN (wrong check digit) is dropped, the rest kept',
    html: page('', ld({ '@type': 'Product', gtin13: '5012345678901', sku: 'KET-17', offers: offer('24.99') })),
    expected: ids({ sku: 'KET-17' }),
  },
  {
    name: 'placeholders and unfilled templates are no values: nothing found is null',
    html: page('', ld({ '@type': 'Product', gtin: 'N/A', mpn: 'Does not apply', sku: '{{product.sku}}', brand: 'Unbranded', offers: offer('24.99') })),
    expected: null,
  },
  {
    name: 'a value over 100 characters is capped; entities left in the script are decoded',
    html: page('', ld({ '@type': 'Product', mpn: 'X'.repeat(150), brand: 'Marks &amp; Spencer', offers: offer('24.99') })),
    expected: ids({ mpn: 'X'.repeat(100), brand: 'Marks & Spencer' }),
  },
  {
    name: 'ProductGroup: the variant the url names, its brand from the group',
    html: page(
      '',
      ld({
        '@type': 'ProductGroup',
        brand: { '@type': 'Brand', name: 'Stride' },
        productGroupID: 'TR5',
        hasVariant: [
          { '@type': 'Product', sku: 'TR5-41', gtin: '4006381333931', offers: offer('115.00', { url: 'https://shop.example/tr5?size=41' }) },
          { '@type': 'Product', sku: 'TR5-42', gtin: EAN, offers: offer('115.00', { url: 'https://shop.example/tr5?size=42' }) },
        ],
      }),
    ),
    opts: { url: 'https://shop.example/tr5?size=42', price: 115 },
    expected: ids({ gtin: EAN14, sku: 'TR5-42', brand: 'Stride' }),
  },
  {
    name: 'AggregateOffer: the inner offer at the price read',
    html: page(
      '',
      ld({
        '@type': 'Product',
        brand: 'Acme',
        offers: { '@type': 'AggregateOffer', lowPrice: '19.99', offers: [offer('24.99', { sku: 'BIG' }), offer('19.99', { sku: 'SMALL' })] },
      }),
    ),
    opts: { price: 19.99 },
    expected: ids({ sku: 'SMALL', brand: 'Acme' }),
  },
];

const listing: Case[] = [
  {
    name: 'a listing of products: the one offered at the price read',
    html: page(
      '',
      ld({ '@type': 'Product', sku: 'A-1', brand: 'Acme', offers: offer('9.99') }) +
        ld({ '@type': 'Product', sku: 'B-2', brand: 'Bolt', gtin13: EAN, offers: offer('24.99') }) +
        ld({ '@type': 'Product', sku: 'C-3', brand: 'Core', offers: offer('39.00') }),
    ),
    opts: { price: 24.99 },
    expected: ids({ gtin: EAN14, sku: 'B-2', brand: 'Bolt' }),
  },
  {
    name: 'without a price, the one the url names',
    html: page(
      '',
      ld([
        { '@type': 'Product', sku: 'A-1', url: 'https://shop.example/a', offers: offer('9.99') },
        { '@type': 'Product', sku: 'B-2', url: 'https://shop.example/b', offers: offer('24.99') },
      ]),
    ),
    opts: { url: 'https://shop.example/b' },
    expected: ids({ sku: 'B-2' }),
  },
  {
    name: 'a price no product is offered at: the first product',
    html: page(
      '',
      ld([
        { '@type': 'Product', sku: 'A-1', offers: offer('9.99') },
        { '@type': 'Product', sku: 'B-2', offers: offer('24.99') },
      ]),
    ),
    opts: { price: 5 },
    expected: ids({ sku: 'A-1' }),
  },
  {
    name: 'related products nested in the product are not the product',
    html: page('', ld({ '@type': 'Product', sku: 'MAIN', offers: offer('24.99'), isRelatedTo: { '@type': 'Product', sku: 'OTHER', gtin13: EAN } })),
    expected: ids({ sku: 'MAIN' }),
  },
];

const microdata: Case[] = [
  {
    name: 'itemprops with content attributes and text; a Brand scope with its name',
    html: page(`<div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">Kettle</h1>
      <meta itemprop="gtin13" content="${EAN}"><span itemprop="mpn">KX-200</span><meta itemprop="sku" content="KET-17">
      <div itemprop="brand" itemscope itemtype="https://schema.org/Brand"><span itemprop="name">Acme</span></div>
      <div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><meta itemprop="price" content="24.99"></div></div>`),
    expected: ids({ gtin: EAN14, mpn: 'KX-200', sku: 'KET-17', brand: 'Acme' }),
  },
  {
    name: 'a Brand scope written as a meta with content (Vue shops); the GTIN inside the offer',
    html: page(`<div itemscope itemtype="http://schema.org/Product">
      <meta itemtype="http://schema.org/Brand" itemscope="itemscope" itemprop="brand" content="CALVIN KLEIN">
      <div itemprop="offers" itemscope itemtype="http://schema.org/Offer"><meta itemprop="gtin8" content="96385074"><meta itemprop="price" content="59"></div></div>`),
    expected: ids({ gtin: '00000096385074', brand: 'CALVIN KLEIN' }),
  },
  {
    name: 'a listing of product scopes: the one at the price read; a related product nested inside is not it',
    html: page(`<ul>
      <li itemscope itemtype="https://schema.org/Product"><meta itemprop="sku" content="A-1"><span itemprop="offers" itemscope itemtype="https://schema.org/Offer"><span itemprop="price">£9.99</span></span></li>
      <li itemscope itemtype="https://schema.org/Product"><meta itemprop="sku" content="B-2"><span itemprop="offers" itemscope itemtype="https://schema.org/Offer"><span itemprop="price">£24.99</span></span>
        <div itemprop="isRelatedTo" itemscope itemtype="https://schema.org/Product"><meta itemprop="sku" content="REL"><meta itemprop="price" content="24.99"></div></li></ul>`),
    opts: { price: 24.99 },
    expected: ids({ sku: 'B-2' }),
  },
  {
    name: 'an invalid GTIN in microdata is dropped',
    html: page(
      `<div itemscope itemtype="https://schema.org/Product"><meta itemprop="gtin13" content="1234567890123"><meta itemprop="mpn" content="KX-200"></div>`,
    ),
    expected: ids({ mpn: 'KX-200' }),
  },
];

const meta: Case[] = [
  {
    name: 'OpenGraph product tags: retailer item id, brand, EAN and part number',
    html: page(
      '<h1>Kettle</h1>',
      `<meta property="product:retailer_item_id" content="KET-17"><meta property="product:brand" content="Acme"><meta property="product:ean" content="${EAN}"><meta property="product:mfr_part_no" content="KX-200">`,
    ),
    expected: ids({ gtin: EAN14, mpn: 'KX-200', sku: 'KET-17', brand: 'Acme' }),
  },
  {
    name: 'og:brand and og:upc as name attributes',
    html: page('<h1>Kettle</h1>', '<meta name="og:brand" content="Acme"><meta name="og:upc" content="036000291452">'),
    expected: ids({ gtin: '00036000291452', brand: 'Acme' }),
  },
  {
    name: 'each field from the first source that states it: JSON-LD, then microdata, then meta tags',
    html: page(
      `<div itemscope itemtype="https://schema.org/Product"><meta itemprop="sku" content="MICRO"><meta itemprop="mpn" content="KX-200"></div>`,
      `${ld({ '@type': 'Product', sku: 'LD', offers: offer('24.99') })}<meta property="product:brand" content="Acme"><meta property="product:retailer_item_id" content="META">`,
    ),
    expected: ids({ mpn: 'KX-200', sku: 'LD', brand: 'Acme' }),
  },
  {
    name: 'a page that states nothing',
    html: page('<h1>Kettle</h1><p class="price">£24.99</p>'),
    expected: null,
  },
];

describe('readIdentifiers', () => {
  for (const [group, cases] of Object.entries({ jsonLd, listing, microdata, meta })) {
    describe(group, () => {
      for (const c of cases) {
        test(c.name, () => {
          expect(readIdentifiers(parsePage(c.html), c.opts)).toEqual(c.expected);
        });
      }
    });
  }

  test('the same page read for several prices gives each price its product', () => {
    const document = parsePage(
      page(
        '',
        ld([
          { '@type': 'Product', sku: 'A-1', offers: offer('9.99') },
          { '@type': 'Product', sku: 'B-2', offers: offer('24.99') },
        ]),
      ),
    );
    expect(readIdentifiers(document, { price: 24.99 })?.sku).toBe('B-2');
    expect(readIdentifiers(document, { price: 9.99 })?.sku).toBe('A-1');
  });
});

describe('extracted prices carry the identifiers of their product', () => {
  test('a listing page: the product whose price the selector read', () => {
    const html = page(
      `<ul><li class="a"><span class="price">£9.99</span></li><li class="b"><span class="price">£24.99</span></li></ul>`,
      ld([
        { '@type': 'Product', sku: 'A-1', offers: offer('9.99') },
        { '@type': 'Product', sku: 'B-2', brand: 'Bolt', offers: offer('24.99') },
      ]),
    );
    expect(extractPrice(html, { selector: '.b .price' })).toMatchObject({ ok: true, price: 24.99, identifiers: ids({ sku: 'B-2', brand: 'Bolt' }) });
    expect(extractPrice(html)).toMatchObject({ ok: true, price: 9.99, identifiers: ids({ sku: 'A-1' }) });
  });

  test('a page that states none: null', () => {
    expect(extractPrice(page('<h1>Kettle</h1><p class="price">£24.99</p>'))).toMatchObject({ ok: true, identifiers: null });
  });

  test("every demo shop page states its product's GTIN, MPN, SKU and brand", () => {
    const gtins = new Set<string>();
    for (const product of DEMO_PRODUCTS) {
      const found = extractPrice(productPage('http://localhost:3000', product, { at: new Date('2025-06-01T12:00:00Z') }));
      expect(found.ok && found.identifiers).toMatchObject({ sku: product.slug.toUpperCase(), brand: product.brand, gtin: expect.stringMatching(/^\d{14}$/) });
      expect(found.ok && found.identifiers?.mpn).toBeString();
      if (found.ok && found.identifiers?.gtin) gtins.add(found.identifiers.gtin);
    }
    expect(gtins.size).toBe(DEMO_PRODUCTS.length);
  });
});
