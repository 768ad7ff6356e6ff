import { describe, expect, test } from 'bun:test';
import { parseManualPrice, PRICE_DECIMALS, PRICE_NOT_POSITIVE, PRICE_REQUIRED, PRICE_TOO_HIGH } from './manual-price.ts';

describe('parseManualPrice', () => {
  test('prices with up to 2 decimals, as text or number', () => {
    for (const [input, price] of [
      ['12.99', 12.99],
      [' 10 ', 10],
      ['12.', 12],
      ['.5', 0.5],
      ['0.01', 0.01],
      ['007', 7],
      [24.99, 24.99],
      [3, 3],
      ['1000000000', 1e9],
    ] as const) {
      expect(parseManualPrice(input)).toEqual({ price });
    }
  });

  test('nothing typed: required', () => {
    for (const input of [undefined, null, '', '   ']) expect(parseManualPrice(input)).toEqual({ error: PRICE_REQUIRED });
  });

  test('more than 2 decimals: says so', () => {
    for (const input of ['19.999', '0.001', '1.2345', 19.999]) expect(parseManualPrice(input)).toEqual({ error: PRICE_DECIMALS });
  });

  test('0, negative or not a plain number: must be greater than 0', () => {
    for (const input of ['0', '0.00', '-5', -3, 0, 'abc', '.', '1e3', '0x10', 'Infinity', 'NaN', '1,299.99', '£12', '12 99', true, ['5'], {}, Number.NaN]) {
      expect(parseManualPrice(input)).toEqual({ error: PRICE_NOT_POSITIVE });
    }
  });

  test('above a billion: too high', () => {
    for (const input of ['1000000000.01', '9'.repeat(400), '1'.repeat(1_000_000), 2e9]) expect(parseManualPrice(input)).toEqual({ error: PRICE_TOO_HIGH });
  });
});
