/**
 * The rule for a price typed in by hand, shared by the Update Price dialog and the server so
 * both refuse the same input with the same words. Plain code: the browser imports it too.
 */
export const PRICE_REQUIRED = 'Price is required';
/** The Update Price dialog's message (docs/product.md#form-messages). */
export const PRICE_NOT_POSITIVE = 'Please enter a valid price greater than 0';
export const PRICE_DECIMALS = 'Please enter a price with at most 2 decimals';
export const MAX_MANUAL_PRICE = 1_000_000_000;
export const PRICE_TOO_HIGH = 'Please enter a price of at most 1,000,000,000';

/** Digits with an optional point and decimals ("12", "12.5", "12.", ".5"); no sign, exponent or separators. */
const PRICE_TEXT = /^(?=\.?\d)\d*(?:\.(\d*))?$/;

/** The price in what was typed (text as the dialog sends it, or a number), or why it is not one. */
export function parseManualPrice(input: unknown): { price: number } | { error: string } {
  if (input === undefined || input === null) return { error: PRICE_REQUIRED };
  if (typeof input !== 'string' && typeof input !== 'number') return { error: PRICE_NOT_POSITIVE };
  const text = typeof input === 'number' ? String(input) : input.trim();
  if (text === '') return { error: PRICE_REQUIRED };
  const match = PRICE_TEXT.exec(text);
  if (!match) return { error: PRICE_NOT_POSITIVE };
  if ((match[1]?.length ?? 0) > 2) return { error: PRICE_DECIMALS };
  const price = Number(text);
  if (!(price > 0)) return { error: PRICE_NOT_POSITIVE };
  if (price > MAX_MANUAL_PRICE) return { error: PRICE_TOO_HIGH };
  return { price };
}
