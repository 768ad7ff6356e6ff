import { describe, expect, test } from 'bun:test';
import { parsePage } from './page.ts';
import { extractPrice, extractPriceFromDocument, type ExtractionResult } from './extract.ts';
import { parseDocument } from 'htmlparser2';
import { structuredDataPrices } from './structured-data.ts';
import { parsePriceText } from './price-text.ts';

function page(body: string, head = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Product</title>${head}</head><body>${body}</body></html>`;
}

function jsonLd(data: unknown): string {
  return `<script type="application/ld+json">${JSON.stringify(data)}</script>`;
}

function expectPrice(result: ExtractionResult, price: number, currency: string | null, source = 'selector') {
  if (!result.ok) throw new Error(`expected a price, got ${result.code}: ${result.reason}`);
  expect({ price: result.price, currency: result.currency, source: result.source as string }).toEqual({ price, currency, source });
  // The evidence is enough to read the same price again.
  expect(parsePriceText(result.matchedText, { currencyHint: result.currency })?.amount).toBe(price);
}

function expectFailure(result: ExtractionResult, code: string): string {
  if (result.ok) throw new Error(`expected ${code}, got ${result.price} from ${result.source}`);
  expect(result.code).toBe(code as typeof result.code);
  return result.reason;
}

const RELATED_PRODUCTS = `
  <section class="related"><h2>You may also like</h2>
    <div class="card"><a href="/p/2">Mug</a><span class="price">£9.99</span></div>
    <div class="card"><a href="/p/3">Teapot</a><span class="price">£34.00</span></div>
  </section>`;

describe('Shopify', () => {
  const dawn = (regular: string, sale: string, onSale: boolean) => `
    <div class="price price--large${onSale ? ' price--on-sale' : ''} price--show-badge">
      <div class="price__container">
        <div class="price__regular">
          <span class="visually-hidden visually-hidden--inline">Regular price</span>
          <span class="price-item price-item--regular">${regular}</span>
        </div>
        <div class="price__sale">
          <span class="visually-hidden visually-hidden--inline">Regular price</span>
          <span><s class="price-item price-item--regular">${regular}</s></span>
          <span class="visually-hidden visually-hidden--inline">Sale price</span>
          <span class="price-item price-item--sale price-item--last">${sale}</span>
        </div>
        <small class="unit-price caption hidden">
          <span class="visually-hidden">Unit price</span>
          <span class="price-item price-item--last"><span></span><span aria-hidden="true">/</span><span class="visually-hidden">&nbsp;per&nbsp;</span><span></span></span>
        </small>
      </div>
    </div>`;

  test('Dawn price block, not on sale', () => {
    expectPrice(extractPrice(page(dawn('£30.00 GBP', '£30.00 GBP', false)), { selector: '.price' }), 30, 'GBP');
  });
  test('Dawn price block on sale takes the sale price', () => {
    expectPrice(extractPrice(page(dawn('£40.00 GBP', '£30.00 GBP', true)), { selector: '.price' }), 30, 'GBP');
  });
  test('selecting the regular price element itself', () => {
    expectPrice(extractPrice(page(dawn('£30.00', '£30.00', false)), { selector: '.price__regular .price-item--regular' }), 30, 'GBP');
  });
  test('older themes: compare-at price next to the price', () => {
    const html = page(`<div class="product-single__prices">
      <span class="product-price__price product-price__sale"><span>$24.00</span></span>
      <s class="product-single__price--compare">$32.00</s>
    </div>`);
    expectPrice(extractPrice(html, { selector: '.product-single__prices' }), 24, 'USD');
  });
});

describe('WooCommerce', () => {
  const amount = (symbol: string, value: string) =>
    `<span class="woocommerce-Price-amount amount"><bdi><span class="woocommerce-Price-currencySymbol">${symbol}</span>${value}</bdi></span>`;

  test('simple product', () => {
    expectPrice(extractPrice(page(`<p class="price">${amount('&pound;', '24.99')}</p>`), { selector: 'p.price' }), 24.99, 'GBP');
  });
  test('sale with <del>/<ins> and screen-reader texts', () => {
    const html = page(
      `<p class="price"><del aria-hidden="true">${amount('&pound;', '30.00')}</del> <span class="screen-reader-text">Original price was: &pound;30.00.</span><ins aria-hidden="true">${amount('&pound;', '24.99')}</ins><span class="screen-reader-text">Current price is: &pound;24.99.</span></p>`,
    );
    expectPrice(extractPrice(html, { selector: '.summary .price, p.price' }), 24.99, 'GBP');
  });
  test('older sale markup without screen-reader texts', () => {
    const html = page(`<p class="price"><del><span class="amount">£30.00</span></del> <ins><span class="amount">£24.99</span></ins></p>`);
    expectPrice(extractPrice(html, { selector: 'p.price' }), 24.99, 'GBP');
  });
  test('variable product range takes the lowest price', () => {
    const html = page(`<p class="price">${amount('&pound;', '10.00')} &ndash; ${amount('&pound;', '20.00')}</p>`);
    expectPrice(extractPrice(html, { selector: 'p.price' }), 10, 'GBP');
  });
  test('euro shop with the symbol after the amount', () => {
    const html = page(
      `<p class="price"><span class="woocommerce-Price-amount amount"><bdi>1.299,00&nbsp;<span class="woocommerce-Price-currencySymbol">&euro;</span></bdi></span></p>`,
    );
    expectPrice(extractPrice(html, { selector: 'p.price' }), 1299, 'EUR');
  });
});

describe('Magento 2', () => {
  const priceBox = `
    <div class="price-box price-final_price" data-role="priceBox" data-product-id="42">
      <span class="special-price"><span class="price-container price-final_price tax weee">
        <span class="price-label">Special Price</span>
        <span id="product-price-42" data-price-amount="1299.99" data-price-type="finalPrice" class="price-wrapper "><span class="price">£1,299.99</span></span>
      </span></span>
      <span class="old-price"><span class="price-container price-final_price tax weee">
        <span class="price-label">Regular Price</span>
        <span id="old-price-42" data-price-amount="1499.99" data-price-type="oldPrice" class="price-wrapper "><span class="price">£1,499.99</span></span>
      </span></span>
    </div>`;

  test('whole price box with an old price', () => {
    expectPrice(extractPrice(page(priceBox), { selector: '.product-info-main .price-box, .price-box' }), 1299.99, 'GBP');
  });
  test('final price wrapper', () => {
    expectPrice(extractPrice(page(priceBox), { selector: '[data-price-type="finalPrice"]' }), 1299.99, 'GBP');
  });
  test('data-price-amount when the wrapper is still empty', () => {
    const html = page(
      `<span data-price-amount="89.5" data-price-type="finalPrice" class="price-wrapper"></span>`,
      '<meta property="product:price:currency" content="GBP">',
    );
    expectPrice(extractPrice(html, { selector: '.price-wrapper' }), 89.5, 'GBP');
  });
});

describe('Amazon-style split prices', () => {
  test('a-offscreen next to whole and fraction', () => {
    const html = page(`<div id="corePrice_feature_div">
      <span class="a-price aok-align-center priceToPay" data-a-size="xl"><span class="a-offscreen">£24.99</span><span aria-hidden="true"><span class="a-price-symbol">£</span><span class="a-price-whole">24<span class="a-price-decimal">.</span></span><span class="a-price-fraction">99</span></span></span>
      <span class="a-size-small">List Price: <span class="a-price a-text-price" data-a-strike="true"><span class="a-offscreen">£39.99</span><span aria-hidden="true">£39.99</span></span></span>
    </div>`);
    expectPrice(extractPrice(html, { selector: '#corePrice_feature_div' }), 24.99, 'GBP');
    expectPrice(extractPrice(html, { selector: '.priceToPay' }), 24.99, 'GBP');
  });
  test('whole and fraction without a decimal point between them', () => {
    const html = page(
      `<span class="a-price"><span class="a-price-symbol">$</span><span class="a-price-whole">1,299</span><span class="a-price-fraction">00</span></span>`,
    );
    expectPrice(extractPrice(html, { selector: '.a-price' }), 1299, 'USD');
  });
  test('cents in <sup>', () => {
    expectPrice(extractPrice(page(`<div class="price">£24<sup>99</sup></div>`), { selector: '.price' }), 24.99, 'GBP');
    expectPrice(extractPrice(page(`<div class="price"><sup>$</sup>199<sup>00</sup></div>`), { selector: '.price' }), 199, 'USD');
  });
  test('a footnote mark in <sup> is not cents', () => {
    expectPrice(extractPrice(page(`<div class="price">£24.99<sup>1</sup></div>`), { selector: '.price' }), 24.99, 'GBP');
  });
  test('whole, separator and fraction spans in a euro shop', () => {
    const html = page(
      `<span class="price"><span class="price__whole">24</span><span class="price__decimal">,</span><span class="price__fraction">99</span><span class="price__currency">€</span></span>`,
    );
    expectPrice(extractPrice(html, { selector: '.price' }), 24.99, 'EUR');
  });
});

describe('BigCommerce', () => {
  const view = (was: string) => `
    <div class="productView-price">
      <div class="price-section price-section--withoutTax rrp-price--withoutTax" style="display: none;">RRP: <span data-product-rrp-price-without-tax class="price price--rrp"></span></div>
      <div class="price-section price-section--withoutTax non-sale-price--withoutTax"${was ? '' : ' style="display: none;"'}>Was: <span data-product-non-sale-price-without-tax class="price price--non-sale">${was}</span></div>
      <div class="price-section price-section--withoutTax"><span class="price-label">Price:</span> <span data-product-price-without-tax class="price price--withoutTax">$49.95</span></div>
    </div>`;
  test('regular price', () => {
    expectPrice(extractPrice(page(view('')), { selector: '.productView-price' }), 49.95, 'USD');
  });
  test('sale price with the non-sale price shown', () => {
    expectPrice(extractPrice(page(view('$59.95')), { selector: '.productView-price' }), 49.95, 'USD');
  });
});

describe('PrestaShop', () => {
  const prices = `
    <div class="product-prices">
      <div class="product-discount"><span class="regular-price">39,99&nbsp;€</span></div>
      <div class="product-price h5 has-discount" itemprop="offers" itemscope itemtype="https://schema.org/Offer">
        <link itemprop="availability" href="https://schema.org/InStock">
        <meta itemprop="priceCurrency" content="EUR">
        <div class="current-price"><span itemprop="price" content="29.99">29,99&nbsp;€</span>
          <span class="discount discount-percentage">Économisez 25%</span></div>
      </div>
      <div class="tax-shipping-delivery-label">TTC</div>
    </div>`;
  test('price block with a discount', () => {
    expectPrice(extractPrice(page(prices), { selector: '.product-prices' }), 29.99, 'EUR');
  });
  test('current price element', () => {
    expectPrice(extractPrice(page(prices), { selector: '.current-price [itemprop="price"]' }), 29.99, 'EUR');
  });
  test('the same page without a selector reads the microdata', () => {
    expectPrice(extractPrice(page(prices)), 29.99, 'EUR', 'microdata');
  });
});

describe('distractors around the selected price', () => {
  test('grocery price with a per-kg price', () => {
    const html = page(
      `<div class="price-details"><p class="price-per-sellable-unit"><span class="value">£2.50</span></p><p class="price-per-quantity-weight"><span class="value">£1.25</span><span class="weight">/kg</span></p></div>`,
    );
    expectPrice(extractPrice(html, { selector: '.price-details' }), 2.5, 'GBP');
  });
  test('per 100 g price', () => {
    expectPrice(
      extractPrice(page(`<div class="pricing"><span>£1.80</span><span class="unit">(£0.36 per 100g)</span></div>`), { selector: '.pricing' }),
      1.8,
      'GBP',
    );
  });
  test('instalment offer inside the price block', () => {
    const html = page(
      `<div class="product-price"><span class="now">£499.00</span><klarna-placement><p>or 3 interest-free payments of £166.33</p></klarna-placement></div>`,
    );
    expectPrice(extractPrice(html, { selector: '.product-price' }), 499, 'GBP');
  });
  test('RRP and saving next to the price', () => {
    const html = page(`<div class="prices"><span class="rrp">RRP £30.00</span><span class="our-price">£24.99</span><span class="save">Save £5.01</span></div>`);
    expectPrice(extractPrice(html, { selector: '.prices' }), 24.99, 'GBP');
  });
  test('delivery charge and free delivery threshold', () => {
    const html = page(
      `<div class="buy-box"><div class="price">£24.99</div><div class="delivery">Delivery £3.99 · Free delivery on orders over £50</div></div>`,
    );
    expectPrice(extractPrice(html, { selector: '.buy-box' }), 24.99, 'GBP');
  });
  test('hidden elements and scripts inside the selected element are ignored', () => {
    const html = page(
      `<div class="price"><span hidden>£99.99</span><span style="display:none">£88.00</span><script>var p = "£77";</script><span>£24.99</span></div>`,
    );
    expectPrice(extractPrice(html, { selector: '.price' }), 24.99, 'GBP');
  });
  test('text in neighbouring blocks is not glued together', () => {
    const html = page(`<div class="price"><div>24.99</div><div>3</div></div>`);
    expectFailure(extractPrice(html, { selector: '.price' }), 'ambiguous');
  });
});

describe('selector attributes', () => {
  test('meta content', () => {
    const html = page(`<meta itemprop="price" content="24.99"><meta itemprop="priceCurrency" content="GBP">`);
    expectPrice(extractPrice(html, { selector: 'meta[itemprop="price"]' }), 24.99, 'GBP');
  });
  test('input value', () => {
    expectPrice(extractPrice(page(`<input type="hidden" id="product-price" value="€ 19,95">`), { selector: '#product-price' }), 19.95, 'EUR');
  });
  test('the currency comes from the page when the text has none or an ambiguous sign', () => {
    const head = jsonLd({
      '@context': 'https://schema.org',
      '@type': 'Product',
      name: 'X',
      offers: { '@type': 'Offer', price: '19.99', priceCurrency: 'CAD' },
    });
    expectPrice(extractPrice(page(`<span class="price">$19.99</span>`, head), { selector: '.price' }), 19.99, 'CAD');
    expectPrice(extractPrice(page(`<span class="price">19.99</span>`, head), { selector: '.price' }), 19.99, 'CAD');
  });
});

describe('several matches', () => {
  test('the same price twice (sticky header) is fine', () => {
    const html = page(`<header class="sticky"><span class="price">£24.99</span></header><main><span class="price">£24.99</span></main>`);
    const result = extractPrice(html, { selector: '.price' });
    expectPrice(result, 24.99, 'GBP');
    expect(result.ok && result.selector).toBe('.price');
  });
  test('different prices are ambiguous and named', () => {
    const html = page(`<main><span class="price">£24.99</span></main>${RELATED_PRODUCTS}`);
    const reason = expectFailure(extractPrice(html, { selector: '.price' }), 'ambiguous');
    expect(reason).toContain('£24.99');
    expect(reason).toContain('£9.99');
    expect(reason).toContain('.price');
  });
  test('a precise selector avoids related products', () => {
    const html = page(`<main class="product-main"><span class="price">£24.99</span></main>${RELATED_PRODUCTS}`);
    expectPrice(extractPrice(html, { selector: '.product-main .price' }), 24.99, 'GBP');
  });
  test('elements without a price are skipped when another one has it', () => {
    const html = page(`<span class="price"></span><span class="price">£24.99</span>`);
    expectPrice(extractPrice(html, { selector: '.price' }), 24.99, 'GBP');
  });
});

describe('selector failures', () => {
  test('an invalid selector is a failure naming it, not an exception', () => {
    const head = jsonLd({ '@type': 'Product', offers: { price: '24.99', priceCurrency: 'GBP' } });
    for (const selector of ['div[', '.price >> span', 'span::before']) {
      const reason = expectFailure(extractPrice(page('<span class="price">£24.99</span>', head), { selector }), 'invalid-selector');
      expect(reason).toContain(selector);
    }
  });
  test('a selector that matches nothing on a page without a price of its own', () => {
    const reason = expectFailure(extractPrice(page('<h1>Kettle</h1><p>Out of the box</p>'), { selector: '.price' }), 'selector-no-match');
    expect(reason).toContain('.price');
    expect(reason).toContain('matched nothing');
  });
  test("a selector that matches nothing: the page's visible price block stands in, as without a selector", () => {
    const german = `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>Kaffeevollautomat X9 | Kaffeehaus</title></head><body>
      <h1>Kaffeevollautomat X9</h1><div class="produkt-preis"><span class="betrag">1.399,00 €</span><span class="mwst">inkl. MwSt.</span></div>
      <button class="in-den-warenkorb">In den Warenkorb</button></body></html>`;
    const result = extractPrice(german, { selector: '.price' });
    expectPrice(result, 1399, 'EUR', 'page');
    expect(result.ok && result.selector).toBeNull();
    expect(result.ok && result.selectorFailure).toBe('selector-no-match');
    expect(result.ok && result.warning).toContain('next to the product title');
    // The same reading as without a selector.
    expect(extractPrice(german)).toMatchObject({ ok: true, price: 1399, currency: 'EUR', source: 'page', matchedText: result.ok ? result.matchedText : null });
  });
  test('a selected text without a price records the text', () => {
    const result = extractPrice(page('<span class="price">Sold out</span>'), { selector: '.price' });
    const reason = expectFailure(result, 'no-price-in-text');
    expect(reason).toContain('Sold out');
    expect(!result.ok && result.matchedText).toBe('Sold out');
  });
  test('a selected text with only a was price says so', () => {
    const reason = expectFailure(extractPrice(page('<span class="price">Was £30.00</span>'), { selector: '.price' }), 'no-price-in-text');
    expect(reason).toContain('was');
  });
  test('a selected text with several prices', () => {
    expectFailure(extractPrice(page('<span class="price">£24.99 £19.99</span>'), { selector: '.price' }), 'ambiguous');
  });
  test('structured data stands in when the selector fails, with a warning', () => {
    const head = jsonLd({ '@type': 'Product', offers: { price: '24.99', priceCurrency: 'GBP' } });
    const result = extractPrice(page('<span class="cost">£24.99</span>', head), { selector: '.price' });
    expectPrice(result, 24.99, 'GBP', 'json-ld');
    expect(result.ok && result.selector).toBeNull();
    expect(result.ok && result.warning).toContain('.price');
    expect(result.ok && result.selectorFailure).toBe('selector-no-match');
    const noPrice = extractPrice(page('<span class="price">Call us</span>', head), { selector: '.price' });
    expect(noPrice.ok && noPrice.selectorFailure).toBe('no-price-in-text');
    expect(extractPrice(page('<span class="price">£24.99</span>', head), { selector: '.price' })).not.toHaveProperty('selectorFailure');
  });
  test('a blank selector means structured data only', () => {
    const head = jsonLd({ '@type': 'Product', offers: { price: 5, priceCurrency: 'GBP' } });
    expectPrice(extractPrice(page('', head), { selector: '  ' }), 5, 'GBP', 'json-ld');
  });
});

describe('JSON-LD', () => {
  const product = (offers: unknown, extra: Record<string, unknown> = {}) =>
    jsonLd({ '@context': 'https://schema.org/', '@type': 'Product', name: 'Kettle', sku: 'K-1', ...extra, offers });

  test('Product with an Offer', () => {
    expectPrice(
      extractPrice(page('', product({ '@type': 'Offer', price: '24.99', priceCurrency: 'GBP', availability: 'https://schema.org/InStock' }))),
      24.99,
      'GBP',
      'json-ld',
    );
  });
  test('a numeric price', () => {
    expectPrice(extractPrice(page('', product({ '@type': 'Offer', price: 1299.5, priceCurrency: 'EUR' }))), 1299.5, 'EUR', 'json-ld');
  });
  test('a price written with locale separators', () => {
    expectPrice(extractPrice(page('', product({ '@type': 'Offer', price: '1.299,00', priceCurrency: 'EUR' }))), 1299, 'EUR', 'json-ld');
  });
  test('AggregateOffer takes the low price', () => {
    const offers = { '@type': 'AggregateOffer', lowPrice: '19.00', highPrice: '29.00', priceCurrency: 'USD', offerCount: 3 };
    expectPrice(extractPrice(page('', product(offers))), 19, 'USD', 'json-ld');
  });
  test('several offers take the lowest, unless one is for this url', () => {
    const offers = [
      { '@type': 'Offer', price: '29.00', priceCurrency: 'GBP', url: 'https://shop.example/products/kettle?variant=2' },
      { '@type': 'Offer', price: '24.00', priceCurrency: 'GBP', url: 'https://shop.example/products/kettle?variant=1' },
    ];
    expectPrice(extractPrice(page('', product(offers))), 24, 'GBP', 'json-ld');
    expectPrice(extractPrice(page('', product(offers)), { url: 'https://shop.example/products/kettle?variant=2' }), 29, 'GBP', 'json-ld');
  });
  test('@graph from SEO plugins', () => {
    const graph = {
      '@context': 'https://schema.org',
      '@graph': [
        { '@type': 'WebPage', '@id': 'https://shop.example/kettle/', name: 'Kettle' },
        { '@type': 'BreadcrumbList', itemListElement: [] },
        {
          '@type': 'Product',
          '@id': 'https://shop.example/kettle/#product',
          name: 'Kettle',
          offers: [
            {
              '@type': 'Offer',
              price: '24.99',
              priceValidUntil: '2026-12-31',
              priceSpecification: { price: '24.99', priceCurrency: 'GBP', valueAddedTaxIncluded: 'true' },
              priceCurrency: 'GBP',
            },
          ],
        },
      ],
    };
    expectPrice(extractPrice(page('', jsonLd(graph))), 24.99, 'GBP', 'json-ld');
  });
  test('priceSpecification with a strikethrough list price', () => {
    const offers = {
      '@type': 'Offer',
      priceSpecification: [
        { '@type': 'UnitPriceSpecification', priceType: 'https://schema.org/StrikethroughPrice', price: 40, priceCurrency: 'EUR' },
        { '@type': 'UnitPriceSpecification', price: 32, priceCurrency: 'EUR' },
      ],
    };
    expectPrice(extractPrice(page('', product(offers))), 32, 'EUR', 'json-ld');
  });
  test('types written as arrays or full urls', () => {
    const data = {
      '@context': 'http://schema.org',
      '@type': ['Product', 'Car'],
      offers: { '@type': 'http://schema.org/Offer', price: '18500', priceCurrency: 'GBP' },
    };
    expectPrice(extractPrice(page('', jsonLd(data))), 18500, 'GBP', 'json-ld');
  });
  test('ProductGroup with variants', () => {
    const data = {
      '@type': 'ProductGroup',
      name: 'T-shirt',
      hasVariant: [
        { '@type': 'Product', name: 'T-shirt S', offers: { '@type': 'Offer', price: '15.00', priceCurrency: 'GBP' } },
        { '@type': 'Product', name: 'T-shirt XL', offers: { '@type': 'Offer', price: '17.00', priceCurrency: 'GBP' } },
      ],
    };
    expectPrice(extractPrice(page('', jsonLd(data))), 15, 'GBP', 'json-ld');
  });
  test('a WebPage whose main entity is the product', () => {
    const data = { '@type': 'ItemPage', mainEntity: { '@type': 'Product', offers: { '@type': 'Offer', price: '42.00', priceCurrency: 'USD' } } };
    expectPrice(extractPrice(page('', jsonLd(data))), 42, 'USD', 'json-ld');
  });
  test('the product of the page, not related products', () => {
    const data = [
      {
        '@type': 'Product',
        name: 'Kettle',
        url: 'https://shop.example/kettle',
        offers: { price: '24.99', priceCurrency: 'GBP' },
        isRelatedTo: { '@type': 'Product', offers: { price: '9.99', priceCurrency: 'GBP' } },
      },
    ];
    expectPrice(extractPrice(page('', jsonLd(data))), 24.99, 'GBP', 'json-ld');
  });
  test('several blocks, one broken, one with the product', () => {
    const head =
      jsonLd({ '@type': 'Organization', name: 'Shop' }) +
      '<script type="application/ld+json">{ "@type": "BreadcrumbList", "itemListElement": [], }</script>' +
      '<script type="application/ld+json">{ "@type": "Product", "offers": { "price": "12.00", "priceCurrency": "GBP" }, }</script>';
    expectPrice(extractPrice(page('', head)), 12, 'GBP', 'json-ld');
  });
  test('a block inside an HTML comment is not read', () => {
    const head = `<!-- ${product({ price: '99.00', priceCurrency: 'GBP' })} -->` + '<meta property="product:price:amount" content="24.99">';
    expectPrice(extractPrice(page('', head)), 24.99, null, 'opengraph');
  });
  test('JSON-LD blocks are found whatever quotes their type, beside blocks of other types', () => {
    const head = `${product({ price: '24.99', priceCurrency: 'GBP' })}<script type='application/ld+json' id="x">{"@type":"Thing"}</script>`;
    expect(structuredDataPrices(parsePage(page('', head)))).toEqual([{ source: 'json-ld', amount: 24.99, currency: 'GBP', raw: '24.99' }]);
    expectPrice(extractPrice(page('', head)), 24.99, 'GBP', 'json-ld');
  });
  test('a zero price is not a price', () => {
    expectFailure(extractPrice(page('', product({ '@type': 'Offer', price: '0.00', priceCurrency: 'GBP' }))), 'no-price');
  });
  test('a category page list is not a product price', () => {
    const data = {
      '@type': 'ItemList',
      itemListElement: [{ '@type': 'ListItem', position: 1, item: { '@type': 'Product', offers: { price: '5.00', priceCurrency: 'GBP' } } }],
    };
    expectFailure(extractPrice(page('', jsonLd(data))), 'no-price');
  });
});

describe('microdata', () => {
  test('Product with an Offer and content attributes', () => {
    const html = page(`<div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">Kettle</h1>
      <div itemprop="offers" itemscope itemtype="https://schema.org/Offer">
        <span itemprop="priceCurrency" content="USD">$</span><span itemprop="price" content="1299.00">1,299.00</span>
      </div></div>`);
    expectPrice(extractPrice(html), 1299, 'USD', 'microdata');
  });
  test('price as text only', () => {
    const html = page(
      `<div itemscope itemtype="http://schema.org/Product"><div itemprop="offers" itemscope itemtype="http://schema.org/Offer"><span itemprop="price">£24.99</span></div></div>`,
    );
    expectPrice(extractPrice(html), 24.99, 'GBP', 'microdata');
  });
  test('related products nested in the product are skipped', () => {
    const html = page(`<div itemscope itemtype="https://schema.org/Product">
      <div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><meta itemprop="priceCurrency" content="GBP"><meta itemprop="price" content="24.99"></div>
      <div itemprop="isRelatedTo" itemscope itemtype="https://schema.org/Product"><div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><meta itemprop="price" content="9.99"></div></div>
    </div>`);
    expectPrice(extractPrice(html), 24.99, 'GBP', 'microdata');
  });
});

describe('OpenGraph', () => {
  test('product:price meta', () => {
    const head =
      '<meta property="og:type" content="product"><meta property="product:price:amount" content="24.99"><meta property="product:price:currency" content="GBP">';
    expectPrice(extractPrice(page('', head)), 24.99, 'GBP', 'opengraph');
  });
  test('og:price meta', () => {
    expectPrice(
      extractPrice(page('', '<meta property="og:price:amount" content="19,90"><meta property="og:price:currency" content="EUR">')),
      19.9,
      'EUR',
      'opengraph',
    );
  });
  test('a sale price wins', () => {
    const head =
      '<meta property="product:price:amount" content="30.00"><meta property="product:price:currency" content="GBP"><meta property="product:sale_price:amount" content="24.00"><meta property="product:sale_price:currency" content="GBP">';
    expectPrice(extractPrice(page('', head)), 24, 'GBP', 'opengraph');
  });
});

describe('structured data order and failures', () => {
  test('JSON-LD before microdata before OpenGraph', () => {
    const head = jsonLd({ '@type': 'Product', offers: { price: '24.99', priceCurrency: 'GBP' } }) + '<meta property="product:price:amount" content="25.99">';
    const body = '<div itemscope itemtype="https://schema.org/Product"><meta itemprop="price" content="26.99"></div>';
    expect(structuredDataPrices(parsePage(page(body, head))).map((p) => [p.source, p.amount])).toEqual([
      ['json-ld', 24.99],
      ['microdata', 26.99],
      ['opengraph', 25.99],
    ]);
    expectPrice(extractPrice(page(body, head)), 24.99, 'GBP', 'json-ld');
  });
  test('no price anywhere says what was looked for and what to do', () => {
    const reason = expectFailure(extractPrice(page('<h1>Kettle</h1><p>£24.99</p>')), 'no-price');
    expect(reason).toContain('structured data');
    expect(reason).toContain('selector');
  });
  test('a failing selector on a page without a price says what else was looked at', () => {
    const reason = expectFailure(extractPrice(page('<p>Kettle</p>'), { selector: '.price' }), 'selector-no-match');
    expect(reason).toContain('structured data');
    expect(reason).toContain('next to the product title');
  });
  test('garbage input does not throw', () => {
    for (const html of ['', 'not html at all', '<<<>>>', '<script type="application/ld+json">{{{</script>']) {
      expectFailure(extractPrice(html), 'no-price');
    }
  });
});

describe("the page's country settles a shared currency sign", () => {
  const shop = (lang: string, price: string) =>
    `<!doctype html><html lang="${lang}"><head><title>Bolso</title></head><body><h1>Bolso</h1><span class="precio">${price}</span></body></html>`;
  test('"$24.990" on a Chilean page is 24,990 pesos', () => {
    expectPrice(extractPrice(shop('es-CL', '$24.990'), { selector: '.precio' }), 24990, 'CLP');
  });
  test('"$19.99" at a Canadian address is Canadian dollars', () => {
    expectPrice(extractPrice(shop('en', '$19.99'), { selector: '.precio', url: 'https://shop.example.ca/p/1' }), 19.99, 'CAD');
  });
  test('a currency the page states wins over its country', () => {
    const head = '<meta property="product:price:currency" content="USD">';
    const html = shop('es-CL', '$19.99').replace('</head>', `${head}</head>`);
    expectPrice(extractPrice(html, { selector: '.precio' }), 19.99, 'USD');
  });
});

describe('pages deeper than a call stack goes are read without recursion', () => {
  // Built without the parser's cap (which refuses such pages), so the readers do not lean on it.
  const depth = 60_000;
  const chain = (inner: string) => `${'<span class="box">'.repeat(depth)}${inner}${'</span>'.repeat(depth)}`;
  const about = 'A kettle of brushed steel that boils a litre in no time, with a filter that keeps scale out of your tea. '.repeat(2);

  test('the text of a selected element', () => {
    const document = parseDocument(page(chain('£24.99')));
    expectPrice(extractPriceFromDocument(document, { selector: 'body > .box' }), 24.99, 'GBP');
  });

  test('without a selector: the stated price shown, and the visible price', () => {
    const html = (head: string) =>
      page(`<h1>Product</h1>${chain(`<p>${about}</p>`)}<p class="price">£24.99</p><button class="add-to-cart">Add to basket</button>`, head);
    const stated = jsonLd({ '@type': 'Product', name: 'Product', offers: { '@type': 'Offer', price: '24.99', priceCurrency: 'GBP' } });
    expectPrice(extractPriceFromDocument(parseDocument(html(stated))), 24.99, 'GBP', 'json-ld');
    expectPrice(extractPriceFromDocument(parseDocument(html(''))), 24.99, 'GBP', 'page');
  });
});
