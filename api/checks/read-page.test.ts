import { describe, expect, test } from 'bun:test';
import { extractPrice } from '../reading/extract.ts';
import { needsRendering, renderHelped } from './read-page.ts';

const page = (body: string, head = '') => `<!doctype html><html lang="en"><head><title>Kettle</title>${head}</head><body><h1>Kettle</h1>${body}</body></html>`;
const jsonLd = `<script type="application/ld+json">{"@type":"Product","name":"Kettle","offers":{"price":"24.99","priceCurrency":"GBP"}}</script>`;

describe('when a check turns to the browser', () => {
  test('a selector that matched nothing while the price came from the price block: scripts may write what it names', () => {
    const guessed = extractPrice(page('<span class="amount">£24.99</span>'), { selector: '.live-price' });
    expect(guessed).toMatchObject({ ok: true, source: 'page', selectorFailure: 'selector-no-match' });
    expect(needsRendering(guessed, false)).toBe(true);
  });

  test("the page's statement, the selector's own price, or no selector at all: not rendered unless the page is a shell", () => {
    const stated = extractPrice(page('<span class="amount">£24.99</span>', jsonLd), { selector: '.live-price' });
    const selected = extractPrice(page('<span class="amount">£24.99</span>'), { selector: '.amount' });
    const noSelector = extractPrice(page('<span class="amount">£24.99</span>'));
    for (const found of [stated, selected, noSelector]) expect(needsRendering(found, false)).toBe(false);
    expect(needsRendering(stated, true)).toBe(true);
    expect(needsRendering(selected, true)).toBe(false);
  });

  test('no price at all, or a selector that found none', () => {
    expect(needsRendering(extractPrice(page('<p>Soon</p>'), { selector: '.price' }), false)).toBe(true);
    expect(needsRendering(extractPrice(page('<span class="price"></span>'), { selector: '.price' }), false)).toBe(true);
    expect(needsRendering(extractPrice(page('<p>Soon</p>'), { selector: 'div[' }), false)).toBe(false);
  });
});

describe('whether the browser helped', () => {
  const guessed = extractPrice(page('<span class="amount">£24.99</span>'), { selector: '.live-price' });
  const written = extractPrice(page('<span class="amount">£24.99</span><span class="live-price">£21.99</span>'), { selector: '.live-price' });
  const none = extractPrice(page('<p>Soon</p>'), { selector: '.live-price' });

  test("a guessed price is replaced only by the selector's own", () => {
    expect(renderHelped(guessed, written, false)).toBe(true);
    expect(renderHelped(guessed, guessed, false)).toBe(false);
    expect(renderHelped(guessed, none, false)).toBe(false);
  });

  test('a page without a price is helped by any price; a shell by its built page', () => {
    expect(renderHelped(none, guessed, false)).toBe(true);
    expect(renderHelped(none, none, false)).toBe(false);
    expect(renderHelped(guessed, guessed, true)).toBe(true);
  });
});
