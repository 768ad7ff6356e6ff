import { describe, expect, test } from 'bun:test';
import { parsePage } from './page.ts';
import { pickOffer, readOffers, variantAddress, type PageOffer } from './offers.ts';
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
      selection: { platform: 'shopify', params: { variant: '40123456788' }, current: false },
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

// Platforms: each reader on the markup its platform writes (see the reader's file for where it is from).
const at = (html: string, url: string) => {
  const offers = offersOf(html, url);
  return { offers, picked: pickOffer(offers, url) };
};
/** The address written for the offer, read back: the same offer. */
const roundTrip = (html: string, pageUrl: string, offer: PageOffer) => {
  const address = variantAddress(pageUrl, offersOf(html, pageUrl), offer);
  return { address, picked: address ? pickOffer(offersOf(html, address), address) : null };
};
const script = (id: string, value: unknown) => `<script type="application/json" ${id}>${JSON.stringify(value)}</script>`;

describe('selection: the address, else the variant with that address, else the one the page shows', () => {
  const json = {
    options: ['Size'],
    variants: [
      { id: 11, sku: 'S', price: 8900, available: true, option1: 'S' },
      { id: 12, sku: 'XL', price: 9900, available: false, option1: 'XL' },
    ],
  };
  const form = (selected: number) =>
    `<form method="post" action="/cart/add"><select name="id">${json.variants.map((v) => `<option value="${v.id}"${v.id === selected ? ' selected="selected"' : ''}>${v.sku}</option>`).join('')}</select></form>`;

  test("Shopify: ?variant= first, else the product form's selected variant (selected_or_first_available_variant)", () => {
    const html = page('', script('id="ProductJson-product-template"', json) + form(12));
    expect(at(html, `${BASE}?variant=11`).picked?.variant?.sku).toBe('S');
    expect(at(html, BASE).picked?.variant?.sku).toBe('XL');
    // Dawn's data-selected-variant script says the same without a select.
    const dawn = page('', script('data-product-json', json) + script('data-selected-variant', json.variants[0]));
    expect(at(dawn, BASE).picked?.variant?.sku).toBe('S');
    // Nothing shown as selected: no single offer.
    expect(at(page('', script('data-product-json', json)), BASE).picked).toBeNull();
  });

  test('rewritten: the variant parameter replaced, the other parameters kept', () => {
    const html = page('', script('data-product-json', json));
    const [, xl] = offersOf(html, BASE);
    expect(roundTrip(html, `${BASE}?utm_source=mail&variant=11#reviews`, xl!)).toEqual({
      address: `${BASE}?utm_source=mail&variant=12#reviews`,
      picked: expect.objectContaining({ variant: expect.objectContaining({ sku: 'XL' }) }),
    });
    // JSON-LD alone: the variant's own address.
    const [, red] = offersOf(page(group), BASE);
    expect(variantAddress(BASE, [], red!)).toBe(`${BASE}?variant=104`);
    expect(variantAddress('not a url', [], red!)).toBeNull();
    // Whatever a page writes as a variant's address, only a web address is offered.
    expect(variantAddress(BASE, [], { ...red!, variant: { ...red!.variant!, url: 'javascript:alert(1)' } })).toBeNull();
  });
});

describe('WooCommerce', () => {
  const variations = [
    {
      variation_id: 301,
      sku: 'J-GRY-S',
      attributes: { attribute_pa_colour: 'grey', attribute_size: 'Small' },
      display_price: 59,
      display_regular_price: 79,
      is_in_stock: true,
    },
    {
      variation_id: 302,
      sku: 'J-FOR',
      attributes: { attribute_pa_colour: 'forest', attribute_size: '' },
      display_price: 64,
      display_regular_price: 64,
      is_in_stock: false,
    },
  ];
  const select = (name: string, values: string[], selected: string) =>
    `<select name="${name}"><option value="">Choose an option</option>${values.map((v) => `<option value="${v}"${v === selected ? " selected='selected'" : ''}>${v}</option>`).join('')}</select>`;
  const html = (colour: string, size: string) =>
    page(
      '',
      `<form class="variations_form cart" data-product_variations='${JSON.stringify(variations)}'>${select('attribute_pa_colour', ['grey', 'forest'], colour)}${select('attribute_size', ['Small', 'Large'], size)}</form>`,
    );
  const URL_ = 'https://shop.example/product/jumper/';

  test('the default attributes the selects start on name the variation the page shows; "any" takes every value', () => {
    expect(at(html('grey', 'Small'), URL_).picked?.variant?.id).toBe('301');
    expect(at(html('', ''), URL_).picked).toBeNull();
    expect(at(html('grey', 'Small'), `${URL_}?attribute_pa_colour=forest&attribute_size=Large`).picked).toMatchObject({
      price: 64,
      availability: 'OutOfStock',
    });
  });

  test('rewritten: attribute_* parameters, an "any" attribute left out', () => {
    const [, forest] = offersOf(html('grey', 'Small'), URL_);
    expect(roundTrip(html('grey', 'Small'), `${URL_}?attribute_size=Small&ref=7`, forest!)).toEqual({
      address: `${URL_}?ref=7&attribute_pa_colour=forest`,
      picked: expect.objectContaining({ variant: expect.objectContaining({ id: '302' }) }),
    });
  });
});

describe('Magento 2', () => {
  const config = {
    attributes: {
      93: {
        id: '93',
        code: 'color',
        label: 'Color',
        options: [
          { id: '49', label: 'Black', products: ['11', '12'] },
          { id: '50', label: 'Blue', products: ['13'] },
        ],
      },
      144: {
        id: '144',
        code: 'size',
        label: 'Size',
        options: [
          { id: '167', label: 'S', products: ['11'] },
          { id: '168', label: 'M', products: ['12', '13'] },
        ],
      },
    },
    optionPrices: {
      11: { oldPrice: { amount: 32 }, basePrice: { amount: 24 }, finalPrice: { amount: 24 } },
      12: { oldPrice: { amount: 32 }, basePrice: { amount: 24 }, finalPrice: { amount: 24 } },
      13: { oldPrice: { amount: 29 }, basePrice: { amount: 29 }, finalPrice: { amount: 29 } },
    },
    index: { 11: { 93: '49', 144: '167' }, 12: { 93: '49', 144: '168' }, 13: { 93: '50', 144: '168' } },
    salable: { 93: { 49: ['11'], 50: ['13'] }, 144: { 167: ['11'], 168: ['13'] } },
    canDisplayShowOutOfStockStatus: true,
  };
  const init = (value: object) => `<script type="text/x-magento-init">${JSON.stringify(value)}</script>`;
  const swatches = (jsonConfig: object) =>
    page(
      '',
      `<div class="swatch-opt" data-role="swatch-options"></div>${init({ '[data-role=swatch-options]': { 'Magento_Swatches/js/swatch-renderer': { jsonConfig } } })}`,
    );
  const URL_ = 'https://shop.example/helios-tee.html';

  test("the swatch renderer's config: each child with its options, final and old price, and stock from `salable`", () => {
    const offers = offersOf(swatches(config), URL_);
    expect(offers.map((o) => [o.variant?.id, o.price, o.regularPrice, o.availability, o.variant?.options])).toEqual([
      ['11', 24, 32, 'InStock', { color: 'Black', size: 'S' }],
      ['12', 24, 32, 'OutOfStock', { color: 'Black', size: 'M' }],
      ['13', 29, null, 'InStock', { color: 'Blue', size: 'M' }],
    ]);
    // The fragment swatch-renderer.js reads (attribute id = option id); else the query (attribute code = option id, or its label).
    expect(pickOffer(offers, `${URL_}#93=49&144=168`)?.variant?.id).toBe('12');
    expect(pickOffer(offers, `${URL_}?color=50&size=168`)?.variant?.id).toBe('13');
    expect(pickOffer(offers, `${URL_}?size=S&color=Black`)?.variant?.id).toBe('11');
    expect(pickOffer(offers, `${URL_}?size=S#93=50&144=168`)?.variant?.id).toBe('13');
    expect(pickOffer(offers, URL_)).toBeNull();
  });

  test("the dropdowns' spConfig, older: children listed in the options are the salable ones; a sku map; preconfigured values", () => {
    const older = {
      ...structuredClone(config),
      salable: undefined,
      canDisplayShowOutOfStockStatus: undefined,
      sku: { 11: 'HT-S-BLK', 13: 'HT-M-BLU' },
      defaultValues: { 93: '50', 144: '168' },
    };
    older.attributes[144].options[1]!.products = ['13'];
    const html = page('', init({ '#product_addtocart_form': { configurable: { spConfig: older } } }));
    const offers = offersOf(html, URL_);
    expect(offers.map((o) => [o.variant?.sku, o.availability])).toEqual([
      ['HT-S-BLK', 'InStock'],
      [null, 'OutOfStock'],
      ['HT-M-BLU', 'InStock'],
    ]);
    expect(pickOffer(offers, URL_)?.variant?.sku).toBe('HT-M-BLU');
  });

  test('rewritten: the fragment of attribute and option ids; the query’s own selection goes', () => {
    const [black] = offersOf(swatches(config), URL_);
    expect(roundTrip(swatches(config), `${URL_}?color=50&utm_medium=email`, black!)).toEqual({
      address: `${URL_}?utm_medium=email#93=49&144=167`,
      picked: expect.objectContaining({ variant: expect.objectContaining({ id: '11' }) }),
    });
  });
});

describe('PrestaShop', () => {
  const SHOP = 'https://shop.example/en/dresses';
  /** 1.7: the combination the page renders, `$product.embedded_attributes` in #product-details. */
  const rendered = (ipa: number, size: [number, string], price: number, quantity: number) =>
    page(
      `<script type="text/javascript">var prestashop = ${JSON.stringify({ currency: { iso_code: 'EUR', sign: '€' } })};</script>`,
      `<div class="tab-pane fade" id="product-details" data-product="${JSON.stringify({
        id_product: 12,
        id_product_attribute: ipa,
        reference: `LSD-${size[1]}`,
        price_amount: price,
        price_without_reduction: 57,
        quantity,
        availability: quantity > 0 ? 'available' : 'unavailable',
        attributes: { 1: { id_attribute: String(size[0]), id_attribute_group: '1', name: size[1], group: 'Size' } },
      }).replace(/"/g, '&quot;')}"></div>`,
    );

  test('1.7: one combination per address, picked by id_product_attribute, group[…], the path or the fragment; rewritten in kind', () => {
    const small = offersOf(rendered(21, [1, 'S'], 45.6, 3), `${SHOP}/12-21-dress.html`);
    const large = offersOf(rendered(26, [3, 'L'], 49.6, 0), `${SHOP}/12-26-dress.html`);
    expect(large).toEqual([
      expect.objectContaining({
        price: 49.6,
        currency: 'EUR',
        availability: 'OutOfStock',
        regularPrice: 57,
        variant: expect.objectContaining({ id: '26', sku: 'LSD-L' }),
      }),
    ]);
    const both = [...small, ...large];
    for (const url of [
      `${SHOP}/12-26-dress.html`,
      `${SHOP}/12-dress.html?id_product_attribute=26`,
      `${SHOP}/12-dress.html?group[1]=3`,
      `${SHOP}/12-dress.html#/3-size-l`,
    ]) {
      expect(pickOffer(both, url)?.variant?.id).toBe('26');
    }
    expect(variantAddress(`${SHOP}/12-21-dress.html#/1-size-s`, both, large[0]!)).toBe(`${SHOP}/12-26-dress.html`);
    expect(variantAddress(`${SHOP}/12-dress.html?id_product_attribute=21&utm_source=x`, both, large[0]!)).toBe(
      `${SHOP}/12-dress.html?utm_source=x&id_product_attribute=26`,
    );
    // A page without PrestaShop's script variables is not read as PrestaShop's.
    expect(offersOf(rendered(21, [1, 'S'], 45.6, 3).replace('var prestashop', 'var other'), SHOP)).toEqual([]);
  });

  /** 1.6: every combination in product.tpl's script variables, priced as product.js's updatePrice() does. */
  const sixteen = (productPrice: number) => {
    const specific = { reduction: '0.200000', reduction_type: 'percentage', reduction_tax: '1', id_currency: '0', price: '-1.000000' };
    const combinations = {
      40: { attributes_values: { 1: 'S', 3: 'Navy' }, attributes: [1, 13], price: 0, specific_price: specific, quantity: 5, reference: 'P-S' },
      42: { attributes_values: { 1: 'L', 3: 'Navy' }, attributes: [3, 13], price: 2.5, specific_price: specific, quantity: 0, reference: 'P-L' },
      43: {
        attributes_values: { 1: 'M', 3: 'White' },
        attributes: [2, 14],
        price: 1,
        specific_price: { reduction: '2.000000', reduction_type: 'amount' },
        quantity: 8,
        reference: 'P-M',
      },
    };
    const anchors = [
      [1, 's', 1, 'size'],
      [2, 'm', 1, 'size'],
      [3, 'l', 1, 'size'],
      [13, 'navy', 3, 'color'],
      [14, 'white', 3, 'color'],
    ].map(([id, attribute, group, name]) => ({ id_attribute: String(id), attribute, id_attribute_group: String(group), group: name }));
    const vars = {
      allowBuyWhenOutOfStock: false,
      attribute_anchor_separator: '-',
      attributesCombinations: anchors,
      combinations,
      combinationsFromController: combinations,
    };
    const more = { productPrice, productPriceTaxExcluded: 20, productPriceTaxIncluded: 24, taxRate: 20, noTaxForThisProduct: false };
    const defs = Object.entries({ ...vars, ...more }).map(([name, value]) => `var ${name} = ${JSON.stringify(value)};`);
    return page(
      `<script type="text/javascript">\n${defs.join('\n')}\n</script>`,
      `<div id="attributes"><select name="group_1"><option value="1" selected="selected">S</option><option value="3">L</option></select><input type="hidden" class="color_pick_hidden" name="group_3" value="13" /></div>`,
    );
  };

  test('1.6: each combination priced from the base, its impact with tax and its specific price; selected by the fragment', () => {
    const URL_ = 'http://shop.example/polos/7-polo.html';
    const offers = offersOf(sixteen(19.2), URL_);
    expect(offers.map((o) => [o.variant?.id, o.price, o.regularPrice, o.availability, o.variant?.options])).toEqual([
      ['40', 19.2, 24, 'InStock', { size: 'S', color: 'Navy' }],
      ['42', 21.6, 27, 'OutOfStock', { size: 'L', color: 'Navy' }],
      ['43', 23.2, 25.2, 'InStock', { size: 'M', color: 'White' }],
    ]);
    expect(pickOffer(offers, `${URL_}#/3-size-l/13-color-navy`)?.variant?.id).toBe('42');
    expect(pickOffer(offers, `${URL_}?group_1=2`)?.variant?.id).toBe('43');
    // The fields start on the default combination, at the price the page shows.
    expect(pickOffer(offers, URL_)?.variant?.id).toBe('40');
    // Computed to another price than the page shows: not taken for the one shown.
    expect(pickOffer(offersOf(sixteen(18), URL_), URL_)).toBeNull();
    expect(roundTrip(sixteen(19.2), `${URL_}#/1-size-s/13-color-navy`, offers[2]!)).toEqual({
      address: `${URL_}#/2-size-m/14-color-white`,
      picked: expect.objectContaining({ variant: expect.objectContaining({ id: '43' }) }),
    });
  });
});

describe('Salesforce Commerce Cloud, BigCommerce, Shopware: the page states the variant it shows', () => {
  const SFCC = 'https://shop.example/mens/classic-chino/25604455M.html';
  const sfcc = (pid: string, color: string, price: number, available: boolean) =>
    page(
      ld({
        '@type': 'Product',
        sku: pid,
        offers: { '@type': 'Offer', price: String(price), priceCurrency: 'USD', availability: `http://schema.org/${available ? 'InStock' : 'OutOfStock'}` },
      }),
      `<div class="container product-detail product-wrapper" data-pid="${pid}">
        <div data-attr="color"><button class="color-attribute" data-url="/on/demandware.store/Sites-X-Site/en_US/Product-Variation?dwvar_25604455M_size=32&amp;pid=25604455M"><span data-attr-value="${color}" class="color-value swatch-value selected selectable"></span></button></div>
        <div data-attr="size"><select class="select-size"><option value="/Product-Variation?dwvar_25604455M_color=${color}&amp;pid=25604455M" data-attr-value="32" selected>32</option></select></div>
        <div class="prices"><div class="price"><span><span class="strike-through list"><span class="value" content="69.50">$69.50</span></span><span class="sales"><span class="value" content="${price}">$${price}</span></span></span></div></div>
      </div><script src="/on/demandware.static/Sites-X-Site/-/en_US/v1/js/main.js"></script>`,
    );

  test('Salesforce: the variant of the dwvar_ parameters, its options the selected values; rewritten as dwvar_<master>_<attribute>', () => {
    const navy = offersOf(sfcc('701-NAVY-32', 'NAVYBL', 49.99, true), SFCC);
    const khaki = offersOf(sfcc('701-KHAKI-32', 'KHAKI', 59.99, false), SFCC);
    expect(navy).toEqual([
      expect.objectContaining({
        price: 49.99,
        currency: 'USD',
        availability: 'InStock',
        regularPrice: 69.5,
        variant: { id: '701-NAVY-32', sku: '701-NAVY-32', gtin: null, options: { color: 'NAVYBL', size: '32' }, url: null },
      }),
    ]);
    const address = variantAddress(`${SFCC}?dwvar_25604455M_color=NAVYBL&dwvar_25604455M_size=32&cgid=pants`, [], khaki[0]!);
    expect(address).toBe(`${SFCC}?dwvar_25604455M_color=KHAKI&dwvar_25604455M_size=32&cgid=pants`);
    expect(pickOffer([...navy, ...khaki], address!)?.variant?.id).toBe('701-KHAKI-32');
    // Without the JSON-LD: the price block's decimal price.
    const bare = sfcc('701-NAVY-32', 'NAVYBL', 49.99, true).replace(/<script type="application\/ld\+json">.*?<\/script>/s, '');
    expect(offersOf(bare, SFCC)).toEqual([expect.objectContaining({ source: 'script-state', price: 49.99, regularPrice: 69.5 })]);
    // Not a Commerce Cloud page: its script is not there.
    expect(offersOf(sfcc('701-NAVY-32', 'NAVYBL', 49.99, true).replaceAll('demandware', 'cdn'), SFCC)).toEqual([expect.objectContaining({ variant: null })]);
  });

  const bc = (base: boolean) =>
    page(
      `<script type="text/javascript">var BCData = ${JSON.stringify({
        product_attributes: {
          sku: 'POS-WHT',
          gtin: null,
          upc: '0860001234561',
          base,
          price: { without_tax: { value: 48, currency: 'USD' }, non_sale_price_without_tax: { value: 60, currency: 'USD' } },
          instock: true,
          purchasable: true,
        },
      })};</script>`,
      `<form data-cart-item-add><div class="form-field"><label class="form-label">Glaze: <span data-option-value></span><small>Required</small></label>
        <input type="radio" id="a_69" name="attribute[131]" value="69" checked><label for="a_69"><span>Speckled White</span></label>
        <input type="radio" id="a_70" name="attribute[131]" value="70"><label for="a_70"><span>Charcoal</span></label></div></form>`,
    );

  test("BigCommerce: BCData's product_attributes, the options the cart form starts on; its address is the page's own", () => {
    const URL_ = 'https://shop.example/pour-over-set/';
    const [offer] = offersOf(bc(false), URL_);
    expect(offer).toEqual({
      source: 'script-state',
      price: 48,
      currency: 'USD',
      availability: 'InStock',
      regularPrice: 60,
      variant: { id: null, sku: 'POS-WHT', gtin: '0860001234561', options: { glaze: 'Speckled White' }, url: null },
      selection: { platform: 'bigcommerce', params: { 'attribute[131]': '69' }, current: true },
    });
    expect(variantAddress(`${URL_}?utm_source=x`, [offer!], offer!)).toBe(`${URL_}?utm_source=x`);
    // No variant chosen yet (`base`): the product's own price, no variant.
    expect(offersOf(bc(true), URL_)).toEqual([]);
  });

  const shopware = (number: string, option: string, price: number, stock: string) =>
    page(
      '',
      `<div class="product-detail-buy"><div itemprop="offers" itemscope itemtype="https://schema.org/Offer">
        <meta itemprop="url" content="https://shop.example/Board/${number}"><meta itemprop="priceCurrency" content="EUR">
        <div class="product-detail-price-container"><meta itemprop="price" content="${price}"><p class="product-detail-price">${price} €*</p><span class="list-price-price">49,95 €*</span></div>
        <link itemprop="availability" href="https://schema.org/${stock}"/>
        <form data-variant-switch="true"><div class="product-detail-configurator-group"><div class="product-detail-configurator-group-title">Size</div>
          <input type="radio" name="g1" value="o1" id="g1-o1"${option === 'o1' ? ' checked="checked"' : ''}><label for="g1-o1" title="Small">Small</label>
          <input type="radio" name="g1" value="o2" id="g1-o2"${option === 'o2' ? ' checked="checked"' : ''}><label for="g1-o2" title="Large">Large</label></div></form>
      </div><meta itemprop="productID" content="p-${number}"/><span class="product-detail-ordernumber" itemprop="sku">${number}</span></div>`,
    );

  test('Shopware: the microdata of the buy widget, the checked configurator options, the variant at its own address', () => {
    const small = offersOf(shopware('SW1.1', 'o1', 39.95, 'InStock'), 'https://shop.example/Board/SW1.1');
    const large = offersOf(shopware('SW1.2', 'o2', 59.95, 'OutOfStock'), 'https://shop.example/Board/SW1.2');
    expect(large[0]).toMatchObject({
      price: 59.95,
      currency: 'EUR',
      availability: 'OutOfStock',
      regularPrice: null,
      variant: { id: 'p-SW1.2', sku: 'SW1.2', options: { size: 'Large' }, url: 'https://shop.example/Board/SW1.2' },
    });
    expect(small[0]).toMatchObject({ regularPrice: 49.95, variant: { options: { size: 'Small' } } });
    const address = variantAddress('https://shop.example/Board/SW1.1?utm_campaign=x', [], large[0]!);
    expect(address).toBe('https://shop.example/Board/SW1.2');
    expect(pickOffer([...small, ...large], address!)?.variant?.sku).toBe('SW1.2');
  });
});

test('broken platform data gives no offers, and never throws', () => {
  for (const html of [
    page('', '<script type="text/x-magento-init">{"[data-role=swatch-options]": {"x": {"jsonConfig": {"attributes": 5, "optionPrices": []}}}}</script>'),
    page('', '<script type="text/x-magento-init">{ jsonConfig: </script>'),
    page('<script>var prestashop = {};</script>', '<div id="product-details" data-product="{&quot;id_product_attribute&quot;: 0}"></div>'),
    page('<script>var combinationsFromController = {"1": 5}; var productPriceTaxExcluded = "x";</script>'),
    page('<script>var BCData = {"product_attributes": {"base": false, "price": {}}};</script>'),
    page('<script>var BCData = {"product_attributes": </script>'),
    page('', '<form data-variant-switch="true"></form>'),
  ]) {
    expect(offersOf(html, `${BASE}?variant=1#93=1`)).toEqual([]);
  }
});
