/**
 * Currencies in price text: the signs, codes and words that name a currency (certainly, or shared
 * by several and settled by a hint or the page's locale), and finding one next to an amount.
 */
import type { DecimalSeparator } from './price-text-types.ts';
import { REGION_CURRENCY } from './region-currencies.ts';
import { CLDR_WORD_LIST, cldrCurrencies, cldrWordNearDigit, localOnly, WORD_CODES } from './currency-words.ts';

/**
 * Signs whose currency is certain. "تومان" (toman) is not an ISO currency: it is ten Iranian
 * rials, so amounts in tomans are read as rials (IRR), the unit shops' structured data uses.
 */
const CURRENCY_SIGNS: Record<string, string> = {
  '£': 'GBP',
  '￡': 'GBP',
  '€': 'EUR',
  US$: 'USD',
  U$S: 'USD',
  U$: 'USD',
  'US $': 'USD',
  A$: 'AUD',
  AU$: 'AUD',
  'AU $': 'AUD',
  C$: 'CAD',
  CA$: 'CAD',
  'CA $': 'CAD',
  NZ$: 'NZD',
  'NZ $': 'NZD',
  HK$: 'HKD',
  'HK $': 'HKD',
  S$: 'SGD',
  SG$: 'SGD',
  R$: 'BRL',
  MX$: 'MXN',
  Mex$: 'MXN',
  NT$: 'TWD',
  'NT $': 'TWD',
  AR$: 'ARS',
  CLP$: 'CLP',
  COL$: 'COP',
  RD$: 'DOP',
  TT$: 'TTD',
  J$: 'JMD',
  EC$: 'XCD',
  $U: 'UYU',
  'JP¥': 'JPY',
  円: 'JPY',
  'CN¥': 'CNY',
  RMB: 'CNY',
  '₹': 'INR',
  '₩': 'KRW',
  '￦': 'KRW',
  원: 'KRW',
  '₽': 'RUB',
  руб: 'RUB',
  рублей: 'RUB',
  рубля: 'RUB',
  рубль: 'RUB',
  '₺': 'TRY',
  TL: 'TRY',
  '₪': 'ILS',
  'ש"ח': 'ILS',
  'ש״ח': 'ILS',
  '฿': 'THB',
  บาท: 'THB',
  '₫': 'VND',
  đ: 'VND',
  Đ: 'VND',
  '₱': 'PHP',
  '₴': 'UAH',
  грн: 'UAH',
  гривень: 'UAH',
  гривен: 'UAH',
  zł: 'PLN',
  Kč: 'CZK',
  Ft: 'HUF',
  lei: 'RON',
  Lei: 'RON',
  LEI: 'RON',
  'Fr.': 'CHF',
  'SFr.': 'CHF',
  RM: 'MYR',
  Rp: 'IDR',
  R: 'ZAR',
  '₦': 'NGN',
  '₵': 'GHS',
  'GH₵': 'GHS',
  'GH¢': 'GHS',
  '₸': 'KZT',
  тг: 'KZT',
  тенге: 'KZT',
  лв: 'BGN',
  лева: 'BGN',
  '₡': 'CRC',
  'E£': 'EGP',
  'S/': 'PEN',
  'S/.': 'PEN',
  Q: 'GTQ',
  '₲': 'PYG',
  Gs: 'PYG',
  Kn: 'HRK',
  kn: 'HRK',
  KN: 'HRK',
  Ks: 'MMK',
  ден: 'MKD',
  денари: 'MKD',
  дин: 'RSD',
  динара: 'RSD',
  динар: 'RSD',
  din: 'RSD',
  dinara: 'RSD',
  сомов: 'KGS',
  сум: 'UZS',
  'man.': 'AZN',
  манат: 'AZN',
  'бел. руб': 'BYN',
  'бел.руб': 'BYN',
  '₾': 'GEL',
  '֏': 'AMD',
  '₼': 'AZN',
  '₮': 'MNT',
  '₭': 'LAK',
  '៛': 'KHR',
  '৳': 'BDT',
  Tk: 'BDT',
  රු: 'LKR',
  KSh: 'KES',
  Ksh: 'KES',
  TSh: 'TZS',
  USh: 'UGX',
  DT: 'TND',
  'ر.س': 'SAR',
  'ر.ق': 'QAR',
  'ر.ع': 'OMR',
  'د.إ': 'AED',
  'د.ك': 'KWD',
  'د.ب': 'BHD',
  'د.أ': 'JOD',
  'ل.ل': 'LBP',
  'د.م': 'MAD',
  'د.ج': 'DZD',
  'د.ت': 'TND',
  'د.ع': 'IQD',
  'ل.س': 'SYP',
  'ج.م': 'EGP',
  جنيه: 'EGP',
  ریال: 'IRR',
  تومان: 'IRR',
};

/** Amount multipliers for signs of a sub-unit or multiple of their ISO currency. */
const SIGN_SCALE: Record<string, number> = { تومان: 10 };

/** Signs shared by several currencies: the hint, else the locale's currency, picks one, else the first (or none). */
const AMBIGUOUS_SIGNS: Record<string, { fallback: string | null; currencies: string[] }> = {
  $: {
    fallback: 'USD',
    currencies: [
      'USD',
      'CAD',
      'AUD',
      'NZD',
      'SGD',
      'HKD',
      'MXN',
      'TWD',
      'ARS',
      'CLP',
      'COP',
      'UYU',
      'DOP',
      'JMD',
      'TTD',
      'BSD',
      'XCD',
      'FJD',
      'BND',
      'NAD',
      'LRD',
    ],
  },
  '＄': { fallback: 'USD', currencies: ['USD', 'CAD', 'AUD', 'NZD', 'SGD', 'HKD', 'MXN', 'TWD', 'ARS', 'CLP', 'COP'] },
  '¥': { fallback: 'JPY', currencies: ['JPY', 'CNY'] },
  '￥': { fallback: 'JPY', currencies: ['JPY', 'CNY'] },
  元: { fallback: 'CNY', currencies: ['CNY', 'TWD', 'HKD'] },
  Rs: { fallback: 'INR', currencies: ['INR', 'PKR', 'LKR', 'NPR', 'MUR', 'SCR'] },
  '₨': { fallback: 'INR', currencies: ['INR', 'PKR', 'LKR', 'NPR', 'MUR', 'SCR'] },
  // Devanagari "rupee": Nepal writes it most; Hindi pages mostly use "₹".
  रु: { fallback: 'NPR', currencies: ['NPR', 'INR'] },
  रू: { fallback: 'NPR', currencies: ['NPR', 'INR'] },
  kr: { fallback: null, currencies: ['SEK', 'NOK', 'DKK', 'ISK'] },
  ريال: { fallback: 'SAR', currencies: ['SAR', 'QAR', 'OMR', 'YER'] },
  درهم: { fallback: 'AED', currencies: ['AED', 'MAD'] },
  Bs: { fallback: 'BOB', currencies: ['BOB', 'VES'] },
  'Bs.S': { fallback: 'VES', currencies: ['VES'] },
  'Bs.F': { fallback: 'VES', currencies: ['VES'] },
  р: { fallback: 'RUB', currencies: ['RUB', 'BYN'] },
  Br: { fallback: 'BYN', currencies: ['BYN', 'ETB'] },
  manat: { fallback: 'AZN', currencies: ['AZN', 'TMT'] },
  // Kyrgyz som; Tajikistan's somoni is written "сом." too.
  сом: { fallback: 'KGS', currencies: ['KGS', 'TJS'] },
};

/** Signs written only after the amount ("120р.", "12,900원") or only before it ("Q 125.00"). */
const AFTER_ONLY = new Set(['р', '원', '円', '元', 'đ', 'Đ', 'сом', 'ден', 'дин', 'тг', 'din', 'dinara', 'сум']);
const BEFORE_ONLY = new Set(['Q', 'KGS']);

/** ISO 4217 codes recognised in text (upper case only, so words like "all" never match). */
export const CURRENCY_CODES = new Set(
  (
    'AED AMD ARS AUD AZN BAM BDT BGN BHD BOB BRL BYN CAD CHF CLP CNY COP CRC CZK DKK DOP DZD EGP ETB EUR ' +
    'GBP GEL GHS GTQ HKD HNL HRK HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KRW KWD KZT LAK LBP ' +
    'LKR LYD MAD MDL MKD MMK MNT MUR MXN MYR NGN NIO NOK NPR NZD OMR PAB PEN PHP PKR PLN PYG QAR RON RSD ' +
    'RUB SAR SEK SGD SYP THB TJS TND TRY TTD TWD TZS UAH UGX USD UYU UZS VES VND XAF XOF YER ZAR ' +
    // Every other current currency, but those whose codes are words too.
    [...REGION_CURRENCY.values()].filter((code) => !WORD_CODES.has(code)).join(' ')
  ).split(' '),
);

/** Currencies with three decimals, where "12.500" is twelve and a half. */
export const THREE_DECIMAL_CURRENCIES = new Set(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND']);

/** Currencies priced in whole units in practice, where "23.450" and "23,450" both group thousands. */
export const ZERO_DECIMAL_CURRENCIES = new Set(
  'JPY KRW CLP COP VND IDR HUF ISK PYG UGX TWD IRR LAK KHR MMK UZS LBP KMF GNF RWF XAF XOF XPF VUV BIF DJF MGA'.split(' '),
);

/** The decimal separator of each currency's home format (null: it varies, e.g. EUR, CAD). */
export const CURRENCY_DECIMALS = new Map<string, DecimalSeparator>([
  ...'USD GBP AUD NZD SGD HKD MXN PHP MYR THB JPY CNY KRW INR PKR LKR NPR BDT ILS TWD NGN KES GHS EGP SAR AED QAR KWD BHD OMR JOD PEN GTQ DOP CHF IRR MMK MNT'
    .split(' ')
    .map((code) => [code, '.'] as const),
  ...'BRL ARS CLP COP UYU PYG BOB VES PLN CZK HUF RON BGN RUB UAH BYN KZT TRY SEK NOK DKK ISK IDR VND RSD MKD HRK GEL AMD AZN KGS MDL BAM'
    .split(' ')
    .map((code) => [code, ','] as const),
]);

// Maps, so that a slice of text such as "toString" never finds an inherited property.
const CERTAIN_SIGNS = new Map(Object.entries(CURRENCY_SIGNS));
const SHARED_SIGNS = new Map(Object.entries(AMBIGUOUS_SIGNS));
const HAND_SIGNS = [...CERTAIN_SIGNS.keys(), ...SHARED_SIGNS.keys(), ...CURRENCY_CODES];

const ALL_SIGNS = [...new Set([...HAND_SIGNS, ...CLDR_WORD_LIST, ...WORD_CODES])];
/** Every text a sign can be written as (shared signs in any case, any sign with a dot). */
const WRITTEN_SIGNS = new Set(
  ALL_SIGNS.flatMap((sign) => {
    const cases = SHARED_SIGNS.has(sign) ? [sign, sign.toUpperCase(), sign[0]!.toUpperCase() + sign.slice(1)] : [sign];
    return cases.flatMap((written) => [written, `${written}.`]);
  }),
);

/**
 * The lengths of signs to try at a position, longest first, by the two characters a sign starts
 * (after an amount) or ends with (before it) there; one-character signs apart. Most positions
 * start no sign at all, and one look-up says so.
 */
function lengthIndex(edge: (sign: string) => string): { byEdge: Map<string, number[]>; single: Set<string> } {
  const byEdge = new Map<string, Set<number>>();
  const single = new Set<string>();
  for (const sign of WRITTEN_SIGNS) {
    if (sign.length === 1) single.add(sign);
    else byEdge.set(edge(sign), (byEdge.get(edge(sign)) ?? new Set()).add(sign.length));
  }
  return { byEdge: new Map([...byEdge].map(([key, lengths]) => [key, [...lengths].sort((a, b) => b - a)])), single };
}
const AFTER = lengthIndex((sign) => sign.slice(0, 2));
const BEFORE = lengthIndex((sign) => sign.slice(-2));
const NO_LENGTHS: number[] = [];

const ANY_SIGN = [...new Set(HAND_SIGNS)]
  .sort((a, b) => b.length - a.length)
  .map((sign) => sign.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
  .join('|');
/** A currency sign, code or word right next to a digit, or "99p": what every price mention has. */
const MONEY_NEAR_DIGIT = new RegExp(`(?:\\p{Sc}|${ANY_SIGN})\\.?\\s?[\\d.]|\\d\\s?(?:\\p{Sc}|${ANY_SIGN}|[p¢](?!\\p{L}))`, 'u');

/** A cheap test before reading a text: false means it mentions no amount of money with a currency. */
export function mayMentionMoney(text: string): boolean {
  return MONEY_NEAR_DIGIT.test(text) || cldrWordNearDigit(text);
}
export const LETTER = /[\p{L}\p{M}]/u;
const WORD_CHARACTER = /[\p{L}\p{M}\d]/u;

export interface CurrencySign {
  sign: string;
  currency: string | null;
  certain: boolean;
  scale?: number;
}

export interface Context {
  hint: string | null;
  localeCurrency: string | null;
  localeDecimal: DecimalSeparator | null;
  decimalSeparator: DecimalSeparator | null;
}

/** The currency of a sign as written; "руб." and "лв." are looked up without their dot. The hand-made tables come first. */
function currencyOfSign(sign: string, context: Pick<Context, 'hint' | 'localeCurrency'>): CurrencySign | null {
  const bare = sign.length >= 2 && sign.endsWith('.') ? sign.slice(0, -1) : null;
  const withoutDot = (look: typeof handSign) => (bare === null ? null : look(bare, context, sign));
  return handSign(sign, context) ?? withoutDot(handSign) ?? cldrSign(sign, context) ?? withoutDot(cldrSign);
}

function handSign(sign: string, { hint, localeCurrency }: Pick<Context, 'hint' | 'localeCurrency'>, written = sign): CurrencySign | null {
  if (CURRENCY_CODES.has(sign)) return { sign: written, currency: sign, certain: true };
  const code = CERTAIN_SIGNS.get(sign);
  if (code) return { sign: written, currency: code, certain: true, scale: SIGN_SCALE[sign] };
  const shared = SHARED_SIGNS.get(sign) ?? SHARED_SIGNS.get(sign.toLowerCase());
  if (!shared) return null;
  if (hint && shared.currencies.includes(hint)) return { sign: written, currency: hint, certain: true };
  if (localeCurrency && shared.currencies.includes(localeCurrency)) return { sign: written, currency: localeCurrency, certain: true };
  return { sign: written, currency: shared.fallback, certain: false };
}

/** A word CLDR writes for a currency; short Latin ones and word-like codes only where the page pays in their currency. */
function cldrSign(sign: string, { hint, localeCurrency }: Pick<Context, 'hint' | 'localeCurrency'>, written = sign): CurrencySign | null {
  const named = WORD_CODES.has(sign) ? [sign] : cldrCurrencies(sign);
  if (!named) return null;
  const local = [hint, localeCurrency].find((currency) => currency && named.includes(currency));
  if (local) return { sign: written, currency: local, certain: true };
  if (WORD_CODES.has(sign) || localOnly(sign)) return null;
  return named.length === 1 ? { sign: written, currency: named[0]!, certain: true } : { sign: written, currency: null, certain: false };
}

function baseSign(sign: string): string {
  return sign.length > 1 && sign.endsWith('.') ? sign.slice(0, -1) : sign;
}

export type PlacedSign = CurrencySign & { start: number; end: number };

/** A currency sign ending right before `end` (spaces allowed between). */
export function signBefore(text: string, end: number, context: Context): PlacedSign | null {
  let at = end;
  while (at > 0 && text[at - 1] === ' ' && end - at < 2) at--;
  const lengths = BEFORE.byEdge.get(text.slice(Math.max(0, at - 2), at)) ?? NO_LENGTHS;
  for (const length of BEFORE.single.has(text[at - 1] ?? '') ? [...lengths, 1] : lengths) {
    if (length > at) continue;
    const sign = text.slice(at - length, at);
    const found = WRITTEN_SIGNS.has(sign) ? currencyOfSign(sign, context) : null;
    if (!found || AFTER_ONLY.has(baseSign(sign))) continue;
    // Not inside a word or a model number ("IQ 5", "QE55Q60").
    if (LETTER.test(sign[0]) && WORD_CHARACTER.test(text[at - length - 1] ?? '')) continue;
    return { ...found, start: at - length, end: at };
  }
  return null;
}

/** A currency sign starting right after `start` (spaces allowed between). */
export function signAfter(text: string, start: number, context: Context): PlacedSign | null {
  let at = start;
  while (text[at] === ' ' && at - start < 2) at++;
  const lengths = AFTER.byEdge.get(text.slice(at, at + 2)) ?? NO_LENGTHS;
  for (const length of AFTER.single.has(text[at] ?? '') ? [...lengths, 1] : lengths) {
    if (at + length > text.length) continue;
    const sign = text.slice(at, at + length);
    const found = WRITTEN_SIGNS.has(sign) ? currencyOfSign(sign, context) : null;
    if (!found || BEFORE_ONLY.has(baseSign(sign))) continue;
    if (LETTER.test(sign[sign.length - 1]) && LETTER.test(text[at + length] ?? '')) continue;
    return { ...found, start: at, end: at + length };
  }
  return null;
}
