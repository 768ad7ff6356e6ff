/**
 * GTINs (GS1 trade item numbers: EAN-8, UPC-A, EAN-13, GTIN-14) as shop feeds and product pages
 * write them, "5 012345 678900", "0-36000-29145-2". One number is one item whatever its length, so
 * every valid one is kept as 14 digits, zeros in front: an EAN-13 and the same code read as a
 * GTIN-14 then compare equal.
 */

const LENGTHS = new Set([8, 12, 13, 14]);

/** The GS1 mod-10 check: from the right, the digits before the check digit weigh 3, 1, 3, … */
function checkDigitHolds(digits: string): boolean {
  let sum = 0;
  for (let i = digits.length - 2, weight = 3; i >= 0; i--, weight = 4 - weight) sum += (digits.charCodeAt(i) - 48) * weight;
  return (10 - (sum % 10)) % 10 === digits.charCodeAt(digits.length - 1) - 48;
}

/**
 * The 14-digit GTIN the text holds, or null. Spaces and dashes between digits are allowed; any
 * other character means the text is something else (an MPN, "N/A") and is not read as a GTIN.
 * A wrong length, a wrong check digit or all zeros (a feed's placeholder) give null.
 */
export function normaliseGtin(text: string | null | undefined): string | null {
  if (!text) return null;
  const trimmed = text.trim();
  if (!/^[\d\s-]+$/.test(trimmed)) return null;
  const digits = trimmed.replace(/\D/g, '');
  if (!LENGTHS.has(digits.length) || /^0+$/.test(digits) || !checkDigitHolds(digits)) return null;
  return digits.padStart(14, '0');
}

/** Whether the text is a GTIN normaliseGtin accepts. */
export function isValidGtin(text: string | null | undefined): boolean {
  return normaliseGtin(text) !== null;
}
