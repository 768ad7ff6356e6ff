import { describe, expect, test } from 'bun:test';
import { extractPrice } from './extract.ts';

const page = (block: string) =>
  `<!doctype html><html lang="en-GB"><head><title>Kettle</title></head><body><h1>Kettle</h1>${block}<button>Add to basket</button>
   <ul class="related"><li>Mug <s>£12.00</s> <span class="tile-price">£9.00</span></li></ul></body></html>`;

describe('the regular price beside the price read', () => {
  test('struck through, or worded as a was or list price, in the price block', () => {
    const cases: [string, string, number | null][] = [
      ['<div class="buy"><s class="was">£59.99</s> <span class="price">£49.99</span></div>', '.price', 59.99],
      ['<p class="price"><del><bdi>£20.00</bdi></del> <ins><bdi>£15.00</bdi></ins></p>', '.price ins', 20],
      ['<div class="pricing"><span class="now">£15.00</span><span class="rrp">RRP £25.00</span></div>', '.now', 25],
      ['<div class="pricing"><span class="now">£15.00</span><span style="text-decoration: line-through">£18.00</span></div>', '.now', 18],
      // A saving is not a regular price, nor is another product's struck price.
      ['<div class="pricing"><span class="now">£15.00</span><span>Save £5.00</span></div>', '.now', null],
      ['<div class="buy"><span class="price">£49.99</span></div>', '.price', null],
    ];
    for (const [block, selector, regular] of cases) {
      expect(extractPrice(page(block), { selector })).toMatchObject({ ok: true, regularPrice: regular });
    }
  });

  test('read without a selector too, from the price block next to the title', () => {
    expect(extractPrice(page('<div class="buy"><s>£59.99</s> <span class="price">£49.99</span></div>'))).toMatchObject({ price: 49.99, regularPrice: 59.99 });
  });
});
