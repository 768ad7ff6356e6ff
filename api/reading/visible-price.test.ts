import { describe, expect, test } from 'bun:test';
import { extractPrice } from './extract.ts';
import { parsePage } from './page.ts';
import { MAX_PRICE_READS, scoreCandidates } from './visible-price.ts';
import { analysePage } from './page-analysis.ts';

/**
 * Hostile pages read without a selector. Check Now reads a page in the API process, so the time
 * one page takes holds every other user's requests: reading must grow with the page, not with its
 * square (50,000 price paragraphs took 26 s), nor with its size times its depth.
 */
const page = (body: string, head = '') => `<!doctype html><html lang="en"><head><title>Steel Kettle</title>${head}</head><body>${body}</body></html>`;
const times = (count: number, make: (index: number) => string) => Array.from({ length: count }, (_, index) => make(index)).join('');
const stated = `<script type="application/ld+json">${JSON.stringify({ '@type': 'Product', name: 'Steel Kettle', offers: { '@type': 'Offer', price: '1.23', priceCurrency: 'GBP' } })}</script>`;

const flatParagraphs = () => page(times(50_000, (i) => `<p>£${i}.99</p>`));

describe('reading a hostile page without a selector', () => {
  test.each([
    ['50,000 price paragraphs', flatParagraphs, 'no-price'],
    ['50,000 priced items in one list', () => page(`<ul>${times(50_000, (i) => `<li><span class=price>£${i}.99</span></li>`)}</ul>`), 'no-price'],
    [
      '20,000 product tiles, each with a title, a price and a button',
      () =>
        page(
          `<div class="grid">${times(20_000, (i) => `<div class="tile"><a href="/p/${i}"><h3>Kettle ${i}</h3></a><span class="price">£${i}.99</span><button class="add-to-cart">Add to cart</button></div>`)}</div>`,
        ),
      'no-price',
    ],
    ['50,000 price paragraphs, each of its own class', () => page(times(50_000, (i) => `<p class="c${i}">£${i}.99</p>`)), 'no-price'],
    ['50,000 price paragraphs and a stated price shown nowhere', () => page(stated + times(50_000, (i) => `<p>£${i}.99</p>`)), 1.23],
    [
      'a price inside 1,000 nested blocks over 100,000 empty elements',
      () => page(`${'<div>'.repeat(1_000)}£1${'<i></i>'.repeat(100_000)}${'</div>'.repeat(1_000)}`, stated),
      1.23,
    ],
    [
      'a price after 200,000 letters of one paragraph',
      () => page(`<h1>Steel Kettle</h1><p>${'x'.repeat(200_000)} <span class="price">£24.99</span></p><button>Add to cart</button>`),
      24.99,
    ],
  ])('%s: read in a moment, without throwing', (_, make, expected) => {
    const html = make();
    const started = performance.now();
    const result = extractPrice(html);
    expect(performance.now() - started).toBeLessThan(3_000);
    const read: number | string = result.ok ? result.price : result.code;
    expect(read).toBe(expected);
  });

  test(`no more than ${MAX_PRICE_READS} elements are read as prices`, () => {
    const candidates = scoreCandidates(analysePage(parsePage(flatParagraphs()), undefined));
    expect(candidates.length).toBe(MAX_PRICE_READS);
  });
});
