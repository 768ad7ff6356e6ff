import { describe, expect, test } from 'bun:test';
import { extractPrice } from './extract.ts';

// How extraction reads the variant the address names (api/reading/offers.ts finds the offers).
const variants = [
  { id: 11, sku: 'TJ-S-BLU', barcode: '5012345678900', option1: 'S', option2: 'Blue', price: 4999, compare_at_price: 5999, available: true },
  { id: 12, sku: 'TJ-XL-RED', barcode: '4006381333931', option1: 'XL', option2: 'Red', price: 5499, compare_at_price: null, available: false },
];
const product = { title: 'Trail jacket', options: ['Size', 'Colour'], variants };
const page = `<!doctype html><html lang="en-GB"><head><title>Trail jacket</title>
  <script type="application/ld+json">${JSON.stringify({ '@type': 'Product', name: 'Trail jacket', gtin13: '5012345678900', sku: 'TJ', offers: { '@type': 'Offer', price: '49.99', priceCurrency: 'GBP', availability: 'https://schema.org/InStock' } })}</script>
  </head><body><h1>Trail jacket</h1><p class="price">£49.99</p><button>Add to basket</button>
  <script type="application/json" id="ProductJson-main">${JSON.stringify(product)}</script></body></html>`;
const url = 'https://shop.example/products/trail-jacket';

describe('the variant the address names', () => {
  test("its price, stock, regular price and identifiers, not the page's default", () => {
    const found = extractPrice(page, { url: `${url}?variant=12` });
    expect(found).toMatchObject({ ok: true, price: 54.99, currency: 'GBP', availability: 'OutOfStock', regularPrice: null });
    expect(found.ok && found.variant).toEqual({ id: '12', sku: 'TJ-XL-RED', gtin: '4006381333931', options: { size: 'XL', colour: 'Red' }, url: null });
    // The page's own GTIN is the default variant's: the chosen one's stands, so the catalogue matches the item sold.
    expect(found.ok && found.identifiers).toMatchObject({ gtin: '04006381333931', sku: 'TJ-XL-RED' });
  });

  test("a selector naming the variant data reads the address's variant; one naming the shown price reads what is shown", () => {
    expect(extractPrice(page, { url: `${url}?variant=12`, selector: '#ProductJson-main' })).toMatchObject({
      price: 54.99,
      source: 'selector',
      availability: 'OutOfStock',
    });
    expect(extractPrice(page, { url: `${url}?variant=12`, selector: '.price' })).toMatchObject({ price: 49.99, source: 'selector', variant: null });
  });

  test('without a variant in the address, the shown price is the default variant, with its was-price', () => {
    const found = extractPrice(page, { url });
    expect(found).toMatchObject({ ok: true, price: 49.99, availability: 'InStock', regularPrice: 59.99, variant: { sku: 'TJ-S-BLU' } });
    expect(found.ok && found.identifiers).toMatchObject({ gtin: '05012345678900', sku: 'TJ-S-BLU' });
  });
});
