import { describe, expect, test } from 'bun:test';
import { currencyDecimals } from './money.ts';

describe('currencyDecimals', () => {
  test("each currency's own decimals, and 2 for a code Intl does not know", () => {
    expect([currencyDecimals('GBP'), currencyDecimals('jpy'), currencyDecimals('KWD'), currencyDecimals('XXQ')]).toEqual([2, 0, 3, 2]);
  });
});
