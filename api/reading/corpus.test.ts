/**
 * Extraction, detection and availability on real product pages saved from real shops
 * (bench/corpus/real-product-pages, people-annotated). These floors guard against regressions;
 * `bun bench/extract/run.ts` and `npm run bench:detect` print the figures.
 */
import { describe, expect, test } from 'bun:test';
import { detectPriceSelectors } from '../ai/detect.ts';
import { exactly, f1, loadCorpus, score } from '../../bench/corpus/corpus.ts';
import { extractPrice, extractPriceFromDocument } from './extract.ts';
import { parsePage } from './page.ts';

const pages = loadCorpus();

describe('real product pages', () => {
  test('the corpus is there: 72 pages from 34 sites', () => {
    expect(pages.length).toBe(72);
    expect(new Set(pages.map((page) => page.host)).size).toBeGreaterThanOrEqual(30);
  });

  test('price without a selector: F1 >= 0.85', { timeout: 60_000 }, () => {
    expect(f1(pages.map((page) => score(page.prices, priceOf(extractPrice(page.html, { url: page.url })))))).toBeGreaterThanOrEqual(0.85);
  });

  test('a selector that matches nothing reads every page as no selector does', { timeout: 60_000 }, () => {
    const differing = pages.flatMap((page) => {
      const document = parsePage(page.html);
      const missed = priceOf(extractPriceFromDocument(document, { selector: '.pricewatch-matches-nothing', url: page.url }));
      const without = priceOf(extractPriceFromDocument(document, { url: page.url }));
      return missed === without ? [] : [`${page.key}: ${missed} instead of ${without}`];
    });
    expect(differing).toEqual([]);
  });

  test('availability: F1 >= 0.93, and the sold-out pages read as sold out', { timeout: 60_000 }, () => {
    const results = pages.map((page) => ({ page, availability: extractPrice(page.html, { url: page.url }).availability }));
    expect(f1(results.map(({ page, availability }) => score(page.availability, availability, exactly)))).toBeGreaterThanOrEqual(0.93);
    const soldOut = results.filter(({ page }) => page.availability.includes('OutOfStock'));
    expect(soldOut.filter(({ availability }) => availability === 'OutOfStock').length).toBeGreaterThanOrEqual(soldOut.length - 1);
  });

  test('AI Detect: the top suggestion, followed by a check, gives the price (F1 >= 0.83); every suggestion is verified', { timeout: 60_000 }, () => {
    const tallies = pages.map((page) => {
      const document = parsePage(page.html);
      const suggestions = detectPriceSelectors(document, { url: page.url });
      for (const suggestion of suggestions) {
        const again = extractPriceFromDocument(document, { selector: suggestion.selector, url: page.url });
        expect(again.ok && again.source === 'selector' ? again.price : null).toBe(suggestion.price);
      }
      return score(page.prices, suggestions[0]?.price);
    });
    expect(f1(tallies)).toBeGreaterThanOrEqual(0.83);
  });

  test('pages without a price get neither a price nor a suggestion from another product', () => {
    for (const page of pages.filter((p) => p.prices.length === 0)) {
      const result = extractPrice(page.html, { url: page.url });
      expect(result.ok ? `${page.key}: ${result.price}` : null).toBeNull();
    }
  });
});

function priceOf(result: ReturnType<typeof extractPrice>): number | null {
  return result.ok ? result.price : null;
}
