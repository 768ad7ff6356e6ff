import { describe, expect, test } from 'bun:test';
import { pageAvailability } from './availability.ts';
import { extractPrice } from './extract.ts';
import { parsePage } from './page.ts';
import { parseDocument } from 'htmlparser2';

const page = (body: string, head = '') =>
  `<!doctype html><html lang="en"><head><title>Steel Kettle</title>${head}</head><body><main><h1>Steel Kettle</h1>${body}</main></body></html>`;
const offer = (availability: string, extra = {}) =>
  `<script type="application/ld+json">${JSON.stringify({ '@type': 'Product', name: 'Steel Kettle', offers: { '@type': 'Offer', price: '24.99', priceCurrency: 'GBP', availability, ...extra } })}</script>`;
const availabilityOf = (html: string) => pageAvailability(parsePage(html), { url: 'https://shop.example/kettle' });
const BUY = '<form><button type="submit" class="add-to-cart">Add to basket</button></form>';

describe('what the page states', () => {
  test.each([
    ['https://schema.org/InStock', 'InStock'],
    ['http://schema.org/OutOfStock', 'OutOfStock'],
    ['OutOfStock', 'OutOfStock'],
    ['https://schema.org/SoldOut', 'OutOfStock'],
    ['https://schema.org/Discontinued', 'OutOfStock'],
    ['https://schema.org/PreOrder', 'PreOrder'],
    ['https://schema.org/BackOrder', 'BackOrder'],
    ['https://schema.org/LimitedAvailability', 'InStock'],
  ])('JSON-LD offer %s', (stated, expected) => {
    expect(availabilityOf(page('', offer(stated)))).toBe(expected as never);
  });
  test('microdata and product:availability', () => {
    expect(
      availabilityOf(page('<div itemscope itemtype="https://schema.org/Offer"><link itemprop="availability" href="https://schema.org/OutOfStock"></div>')),
    ).toBe('OutOfStock');
    expect(availabilityOf(page('', '<meta property="product:availability" content="out of stock">'))).toBe('OutOfStock');
    expect(availabilityOf(page('', '<meta property="product:availability" content="instock">'))).toBe('InStock');
  });
  test('variants: the product can be bought if any offer can', () => {
    const variants = `<script type="application/ld+json">${JSON.stringify({
      '@type': 'ProductGroup',
      name: 'Steel Kettle',
      hasVariant: [
        { '@type': 'Product', offers: { '@type': 'Offer', price: '24.99', availability: 'https://schema.org/OutOfStock' } },
        { '@type': 'Product', offers: { '@type': 'Offer', price: '26.99', availability: 'https://schema.org/InStock' } },
      ],
    })}</script>`;
    expect(availabilityOf(page('', variants))).toBe('InStock');
  });
  test('stated sold out while the page sells it: the page wins', () => {
    expect(availabilityOf(page(BUY, offer('https://schema.org/OutOfStock')))).toBe('InStock');
  });
});

describe('what the page shows', () => {
  test.each([
    ['<p class="availability">Currently unavailable.</p>'],
    ['<div id="stock-status">Ausverkauft</div>'],
    ['<span class="stock">Épuisé</span>'],
    ['<span class="stock-info">Agotado</span>'],
    ['<div class="availability">在庫切れ</div>'],
    ['<div class="product-stock">품절</div>'],
    ['<div class="availability">Non disponibile. Non sappiamo se o quando sarà di nuovo disponibile.</div>'],
    ['<p class="stock">Нет в наличии</p>'],
  ])('a sold-out notice: %s', (notice) => {
    expect(availabilityOf(page(notice + BUY))).toBe('OutOfStock');
  });
  test('a disabled buy button', () => {
    expect(availabilityOf(page('<button class="add-to-cart" disabled>Add to basket</button>'))).toBe('OutOfStock');
    expect(availabilityOf(page('<button class="add-to-cart">Sold out</button>'))).toBe('OutOfStock');
  });
  test('an enabled buy button, an in-stock notice', () => {
    expect(availabilityOf(page(BUY))).toBe('InStock');
    expect(availabilityOf(page('<p class="availability">In stock</p>'))).toBe('InStock');
  });
  test('notices elsewhere say nothing of this product', () => {
    const related = `<section class="related"><h2>You may also like</h2><div class="card"><a href="/p/2">Mug</a><span class="stock">Sold out</span></div></section>`;
    expect(availabilityOf(page(BUY + related))).toBe('InStock');
    const popup = '<div class="modal back-in-stock-popup"><p class="stock">Out of stock? Tell me when it is back.</p></div>';
    expect(availabilityOf(page(BUY + popup))).toBe('InStock');
    const hidden = '<div class="availability" style="display:none">Currently unavailable.</div>';
    expect(availabilityOf(page(BUY + hidden))).toBe('InStock');
    expect(availabilityOf(page('<div class="gallery-availability">Image not available</div>' + BUY))).toBe('InStock');
  });
  test('a page that says nothing: unknown, and in stock once it shows a price', () => {
    expect(availabilityOf(page('<p>A kettle.</p>'))).toBeNull();
    expect(extractPrice(page('<p class="price">£24.99</p>'), { selector: '.price' }).availability).toBe('InStock');
    const soldOut = extractPrice(page('<p class="availability">Sold out</p>'), { selector: '.price' });
    expect(soldOut.ok).toBe(false);
    expect(soldOut.availability).toBe('OutOfStock');
  });
  test('an out-of-stock page that still shows a price keeps it', () => {
    const result = extractPrice(page('<p class="price">£24.99</p><p class="availability">Out of stock</p>'), { selector: '.price' });
    expect(result.ok && result.price).toBe(24.99);
    expect(result.availability).toBe('OutOfStock');
  });
});

test('a page deeper than a call stack goes: read without recursion', () => {
  // Built without the parser's cap (which refuses such pages), so the walk does not lean on it.
  const depth = 60_000;
  const deep = (inner: string) => parseDocument(page(`${'<div class="box">'.repeat(depth)}${inner}${'</div>'.repeat(depth)}`));
  expect(pageAvailability(deep(`<p class="stock">Sold out</p>${BUY}`))).toBe('OutOfStock');
  expect(pageAvailability(deep(BUY))).toBe('InStock');
  const related =
    '<section class="related"><h2>You may also like</h2><div class="card"><a href="/p/2">Mug</a><span class="stock">Sold out</span></div></section>';
  expect(pageAvailability(deep(BUY + related))).toBe('InStock');
});
