import { describe, expect, test } from 'bun:test';
import { priceSourceOf, selectorMissNote } from './price-source.ts';

describe('price source', () => {
  test("an observation's evidence source as the screens tell it", () => {
    expect(priceSourceOf('selector')).toBe('selector');
    for (const s of ['json-ld', 'microdata', 'rdfa', 'opengraph', 'meta']) expect(priceSourceOf(s)).toBe('structured-data');
    expect(priceSourceOf('page')).toBe('visible');
    expect(priceSourceOf('script-state')).toBe('script-state');
    expect(priceSourceOf('manual')).toBe('manual');
    expect(priceSourceOf(null)).toBeNull();
    expect(priceSourceOf('toString')).toBeNull();
  });

  test('a sentence only when the selector did not give the price, saying how it failed', () => {
    expect(selectorMissNote('selector')).toBeNull();
    expect(selectorMissNote('manual')).toBeNull();
    expect(selectorMissNote('structured-data', 'selector-no-match')).toBe("Read from the page's structured data; your selector matched nothing.");
    expect(selectorMissNote('structured-data', 'no-price-in-text')).toBe("Read from the page's structured data; your selector matched no price.");
    expect(selectorMissNote('script-state', 'ambiguous')).toBe("Read from the data the page's scripts keep; your selector matched several different prices.");
    expect(selectorMissNote('visible')).toBe("Read from the page's price next to the product title; your selector matched nothing.");
  });
});
