/**
 * Numbers in price text: where a written number is, and its value, with "." and "," settled as
 * decimal or group separators by the caller, the currency and the locale.
 */
import type { DecimalSeparator } from './price-text-types.ts';
import { CURRENCY_DECIMALS, THREE_DECIMAL_CURRENCIES, ZERO_DECIMAL_CURRENCIES } from './currency-signs.ts';
import { localeFacts } from './locale-formats.ts';

/**
 * A written number: digits with group separators (, . ' ’ and spaces before three digits),
 * a decimal part, or ".–" / ",-" for "no cents". Also, needing a currency sign next to them:
 * a leading decimal point (".99") and a space after the decimal separator ("12, 99").
 */
export const NUMBER = /(?<![\p{L}\p{M}\d.,])\.\d{1,2}(?!\d)|\d+(?:[.,'’]\d+| \d{3}(?!\d))*(?:[.,](?:--?|–|—)|[.,] \d{2}(?![\d.,%]))?/gu;
export const SPACED_DECIMALS = /[.,] \d{2}$/;

export interface ReadNumberOptions {
  /** The caller's decimal separator: settles a lone "." or "," before three digits. */
  decimalSeparator?: DecimalSeparator | null;
  /** The page's language tag; its decimal separator settles the same when nothing stronger does. */
  locale?: string | null;
}

/** The value of a written number, or null when its separators make no sense. */
export function readNumber(written: string, currency: string | null = null, opts?: ReadNumberOptions): number | null {
  return readNumberIn(written, currency, opts?.decimalSeparator ?? null, localeFacts(opts?.locale).decimal);
}

export function readNumberIn(
  written: string,
  currency: string | null,
  callerDecimal: DecimalSeparator | null,
  localeDecimal: DecimalSeparator | null,
): number | null {
  let digits = written.replace(/’/g, "'");
  if (digits.startsWith('.')) return /^\.\d+$/.test(digits) ? Number(`0${digits}`) : null; // ".99"
  if (SPACED_DECIMALS.test(digits)) digits = `${digits.slice(0, -3)}${digits.slice(-2)}`; // "12, 99"
  const noCents = /[.,](?:--?|–|—)$/.test(digits);
  if (noCents) digits = digits.replace(/[.,](?:--?|–|—)$/, '');

  const groups = digits.split(/[.,' ]/);
  const separators = digits.match(/[.,' ]/g) ?? [];
  if (groups[0].length > 1 && groups[0].startsWith('0')) return null; // "0800 123 456"
  if (separators.length === 0) return Number(digits);

  const last = separators[separators.length - 1];
  const lastGroup = groups[groups.length - 1];
  if (lastGroup === '') return null;
  let decimalSeparator: string | null;
  if (noCents || last === ' ' || last === "'") decimalSeparator = null;
  else if (separators.some((separator) => separator !== last)) decimalSeparator = last;
  else if (separators.length > 1) decimalSeparator = null;
  else if (lastGroup.length !== 3 || groups[0] === '0')
    decimalSeparator = last; // "12,5", "0.750"
  else decimalSeparator = loneSeparatorIsDecimal(last as DecimalSeparator, currency, callerDecimal, localeDecimal) ? last : null;

  const integerGroups = decimalSeparator ? groups.slice(0, -1) : groups;
  const groupSeparators = decimalSeparator ? separators.slice(0, -1) : separators;
  if (new Set(groupSeparators).size > 1) return null;
  if (integerGroups.length > 1) {
    // Thousands ("1,299,999") or Indian lakhs ("1,29,999"): the last group has three digits.
    const [first, ...rest] = integerGroups;
    if (first.length > 3 || rest.at(-1)!.length !== 3 || rest.some((group) => group.length < 2 || group.length > 3)) return null;
  }
  const fraction = decimalSeparator ? lastGroup : '';
  return Number(integerGroups.join('') + (fraction ? `.${fraction}` : ''));
}

/** "23.450" / "23,450": a decimal part or a thousands group? */
function loneSeparatorIsDecimal(
  separator: DecimalSeparator,
  currency: string | null,
  callerDecimal: DecimalSeparator | null,
  localeDecimal: DecimalSeparator | null,
): boolean {
  if (callerDecimal) return separator === callerDecimal;
  if (currency && ZERO_DECIMAL_CURRENCIES.has(currency)) return false;
  // Three decimals: "19.990 د.ك" in Kuwait, "19,990 د.ت." where the locale writes a decimal comma (Tunisia).
  if (currency && THREE_DECIMAL_CURRENCIES.has(currency)) return separator === (CURRENCY_DECIMALS.get(currency) ?? localeDecimal ?? '.');
  // A page's language tag is often left at a template's default, so a currency whose home
  // format disagrees ("R$ 1.299" on an "en" page) keeps the thousands reading.
  const home = currency ? CURRENCY_DECIMALS.get(currency) : undefined;
  if (!localeDecimal || (home && home !== localeDecimal)) return false;
  return separator === localeDecimal;
}
