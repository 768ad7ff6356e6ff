import { describe, expect, test } from 'bun:test';
import { parseDocument } from 'htmlparser2';
import { bodyOf, descendants, MAX_PAGE_DEPTH, parsePage, textOf } from './page.ts';
import { extractPrice, extractPriceFromDocument, type ExtractionResult } from './extract.ts';
import { checkPage } from '../checks/check.ts';
import { pageAvailability } from './availability.ts';
import { looksScriptRendered } from './script-rendered.ts';
import { loadConfig } from '../config.ts';
import type { Fetcher } from '../fetching/fetcher.ts';
import type { Renderer } from '../fetching/browser.ts';

const page = (body: string, head = '') => `<!doctype html><html lang="en"><head><title>Steel Kettle</title>${head}</head><body>${body}</body></html>`;
const nested = (depth: number, inner: string) => `${'<div class="wrap">'.repeat(depth)}${inner}${'</div>'.repeat(depth)}`;
const jsonLd = (data: unknown) => `<script type="application/ld+json">${JSON.stringify(data)}</script>`;

function expectPrice(result: ExtractionResult, price: number, source: string) {
  if (!result.ok) throw new Error(`expected a price, got ${result.code}: ${result.reason}`);
  expect({ price: result.price, source: result.source as string }).toEqual({ price, source });
}

const TOO_DEEP_REASON = 'The page is nested too deeply to be read safely (more than 1,024 levels of elements).';
// A megabyte of <div>s: what a hostile shop page can send.
const hostile = (closed: boolean) => page(`${'<div>'.repeat(200_000)}<span class="price">£24.99</span>${closed ? '</div>'.repeat(200_000) : ''}`);

describe('a page nested too deeply', () => {
  test.each([
    ['never closed', false],
    ['closed', true],
  ])('200,000 levels (%s): page-too-deep with its reason, not a crash', (_, closed) => {
    const html = hostile(closed as boolean);
    for (const selector of [null, '.price']) {
      expect(extractPrice(html, { selector })).toEqual({ ok: false, code: 'page-too-deep', reason: TOO_DEEP_REASON, matchedText: null, availability: null });
      expect(extractPriceFromDocument(parsePage(html), { selector })).toMatchObject({ ok: false, code: 'page-too-deep' });
    }
  });

  test('a check (what Check Now and the workers run) records page-too-deep, without the browser', async () => {
    const url = 'https://shop.example/kettle';
    const html = hostile(false);
    const fetcher: Fetcher = {
      fetchPage: async () => ({ ok: true, url, status: 200, contentType: 'text/html', headers: {}, body: html, bytes: html.length, elapsedMs: 1 }),
    };
    const noBrowser = {
      render: async () => {
        throw new Error('a page refused is not rendered');
      },
    } as unknown as Renderer;
    const target = { productId: 'p1', userId: 'u1', url, selector: '.price', lease: null, render: null };
    const [outcome] = await checkPage(loadConfig({ NODE_ENV: 'test' }), url, [target], fetcher, { renderer: noBrowser });
    expect(outcome!.event).toMatchObject({
      type: 'PriceCheckFailed',
      data: { code: 'page-too-deep', reason: TOO_DEEP_REASON, httpStatus: 200, availability: null },
    });
  });

  test('parsing stops at the cap: quick, and nothing of the page is kept', () => {
    const html = hostile(false);
    const started = performance.now();
    const document = parsePage(html);
    // Building all 200,000 levels took over half a second; stopping at the cap takes about a millisecond.
    expect(performance.now() - started).toBeLessThan(200);
    expect(document.children).toEqual([]);
    expect(pageAvailability(document)).toBeNull();
    expect(looksScriptRendered(document)).toBe(false);
  });

  test('the cap itself is read; one level more is refused', () => {
    // <html> and <body> are the first two levels.
    const priceAt = (level: number) => page(`${'<div>'.repeat(level - 3)}<span class="price">£24.99</span>`);
    expectPrice(extractPrice(priceAt(MAX_PAGE_DEPTH), { selector: '.price' }), 24.99, 'selector');
    expect(extractPrice(priceAt(MAX_PAGE_DEPTH + 1), { selector: '.price' })).toMatchObject({ ok: false, code: 'page-too-deep' });
  });
});

describe('a page nested 500 levels deep reads as usual', () => {
  const product = (extra = '') =>
    nested(
      500,
      `<h1>Steel Kettle</h1>
    <div class="price-box"><span class="price">£24.99</span> <s class="was-price">£30.00</s></div>${extra}
    <form action="/cart/add"><button type="submit" class="add-to-cart">Add to basket</button></form>`,
    );

  test('by selector, and without one from the price block next to the title', () => {
    expectPrice(extractPrice(page(product()), { selector: '.price' }), 24.99, 'selector');
    expectPrice(extractPrice(page(product())), 24.99, 'page');
  });

  test('structured data inside the nesting: JSON-LD and microdata', () => {
    const offer = { '@type': 'Product', name: 'Steel Kettle', offers: { '@type': 'Offer', price: '24.99', priceCurrency: 'GBP' } };
    expectPrice(extractPrice(page(product(jsonLd(offer)))), 24.99, 'json-ld');
    const microdata = nested(
      500,
      `<div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">Steel Kettle</h1>
      <div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><meta itemprop="priceCurrency" content="GBP"><span itemprop="price" content="24.99">£24.99</span></div></div>`,
    );
    expectPrice(extractPrice(page(microdata)), 24.99, 'microdata');
  });

  test('availability: a sold-out notice and the buy button', () => {
    expect(extractPrice(page(product('<p class="stock-status">Sold out</p>')), { selector: '.price' })).toMatchObject({
      ok: true,
      price: 24.99,
      availability: 'OutOfStock',
    });
    expect(extractPrice(page(product()), { selector: '.price' })).toMatchObject({ ok: true, availability: 'InStock' });
  });
});

test('the tree helpers and the page-shell test walk without recursion', () => {
  // Built without the parser's cap, so nothing leans on it: deeper than a call stack goes.
  const depth = 60_000;
  const document = parseDocument(page(`<h1>Steel Kettle</h1>${'<span>'.repeat(depth)}Sold out${'</span>'.repeat(depth)}<p>£24.99</p>`));
  expect(descendants(document).length).toBeGreaterThan(depth);
  expect(descendants(bodyOf(document)!, 19)).toHaveLength(19);
  expect(textOf(bodyOf(document)!)).toBe('Steel KettleSold out£24.99');
  expect(looksScriptRendered(document)).toBe(false);
});
