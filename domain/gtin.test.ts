import { expect, test } from 'bun:test';
import fc from 'fast-check';
import { isValidGtin, normaliseGtin } from './gtin.ts';

test.each([
  ['EAN-13', '5012345678900', '05012345678900'],
  ['EAN-13', '4006381333931', '04006381333931'],
  ['EAN-13 (ISBN)', '9780306406157', '09780306406157'],
  ['UPC-A', '036000291452', '00036000291452'],
  ['GTIN-8', '96385074', '00000096385074'],
  ['GTIN-8', '73513537', '00000073513537'],
  ['GTIN-14', '00012345600012', '00012345600012'],
  ['spaces', '5 012345 678900', '05012345678900'],
  ['dashes', '0-36000-29145-2', '00036000291452'],
  ['spaces around', '  4006381333931 ', '04006381333931'],
] as const)('%s %p reads as %p', (_kind, text, gtin) => {
  expect(normaliseGtin(text)).toBe(gtin);
  expect(isValidGtin(text)).toBe(true);
});

test.each([
  ['wrong check digit', '5012345678901'],
  ['wrong check digit (UPC)', '036000291453'],
  ['wrong check digit (GTIN-8)', '96385075'],
  ['too short', '1234567'],
  ['length 9', '123456789'],
  ['length 10', '1234567890'],
  ['length 11', '12345678901'],
  ['too long', '123456789012345'],
  ['all zeros', '0000000000000'],
  ['all zeros (GTIN-8)', '00000000'],
  ['letters', 'EAN5012345678900'],
  ['an MPN', '24361-70'],
  ['dots', '5.012345.678900'],
  ['placeholder', 'N/A'],
  ['empty', ''],
  ['blank', '   '],
  ['null', null],
  ['undefined', undefined],
] as const)('%s (%p) is not a GTIN', (_why, text) => {
  expect(normaliseGtin(text)).toBeNull();
  expect(isValidGtin(text)).toBe(false);
});

test('the same item written at different lengths compares equal', () => {
  expect(normaliseGtin('036000291452')).toBe(normaliseGtin('0036000291452'));
  expect(normaliseGtin('0036000291452')).toBe(normaliseGtin('00036000291452'));
});

test('changing any one digit of a valid GTIN breaks its check digit', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 12 }), fc.integer({ min: 1, max: 9 }), (at, by) => {
      const digits = '4006381333931'.split('').map(Number);
      digits[at] = (digits[at]! + by) % 10;
      expect(normaliseGtin(digits.join(''))).toBeNull();
    }),
  );
});

test('every accepted GTIN is 14 digits and reads back as itself', () => {
  fc.assert(
    fc.property(fc.stringMatching(/^\d{12}$/), (body) => {
      // Complete a random EAN-13 body with its check digit.
      const candidates = Array.from({ length: 10 }, (_, d) => `${body}${d}`).filter((code) => isValidGtin(code));
      if (/^0+$/.test(body)) return;
      expect(candidates).toHaveLength(1);
      const gtin = normaliseGtin(candidates[0])!;
      expect(gtin).toMatch(/^\d{14}$/);
      expect(normaliseGtin(gtin)).toBe(gtin);
    }),
  );
});
