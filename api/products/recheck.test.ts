import { describe, expect, test } from 'bun:test';
import { editNeedsCheck } from './recheck.ts';

describe('an edit that is checked at once', () => {
  const before = { url: 'https://shop.example/kettle', selector: '.price' };

  test('a new address or a new selector: what a check reads changes', () => {
    expect(editNeedsCheck(before, { ...before, url: 'https://shop.example/kettle-2' })).toBe(true);
    expect(editNeedsCheck(before, { ...before, selector: '.product-price' })).toBe(true);
  });

  test('the same address and selector (a rename, a new alert rule): nothing to check', () => {
    expect(editNeedsCheck(before, { ...before })).toBe(false);
    expect(editNeedsCheck(before, { ...before, name: 'Kettle' } as typeof before)).toBe(false);
  });
});
