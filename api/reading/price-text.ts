/**
 * Reads prices out of text as people write them: "£1,299.99", "1.299,00 €", "1 299,00 zł",
 * "CHF 1'299.–", "₹1,29,999", "¥12,800", "99p", "12,900원", "١٢٣٫٤٥ ر.س", "Free".
 *
 * The text is cut into mentions (an amount with its currency), each mention gets a role from
 * the words around it ("was", "save", "/kg", "or 4 payments of", "delivery"...), and the
 * selling price is chosen from the roles:
 * - a mention without a distracting label is the price;
 * - otherwise a weak one stands in: regular/list price, ex-tax price, per-unit or per-month
 *   price (a loose-goods or subscription page shows nothing else);
 * - was, saving, instalment, delivery, minimum-order and multi-buy amounts are never taken;
 * - a range ("£10 - £20", "$10 to $20") gives its first, lowest price, like "From £10";
 * - next to a tax-inclusive price ("£120.00 inc VAT") a lower unlabelled one is the ex-tax price;
 * - a price followed at once by a higher one ("€24,99 €29,99") is a sale price and its was price;
 * - zero ("£0.00") and "Free" / "Gratis" / "無料" read as 0 when nothing positive is the price
 *   (callers that scan whole pages drop zeros themselves); "Free delivery" is a delivery charge;
 * - negative amounts are never a price.
 *
 * A lone "." or "," before exactly three digits ("23.450") groups thousands unless the caller
 * says otherwise: `decimalSeparator` wins over everything, then zero-decimal currencies (JPY,
 * CLP...) group and three-decimal ones (KWD...) take "." as decimal, then the `locale`'s own
 * decimal separator decides (unless the currency written is one whose home format disagrees).
 */

export type PriceRole =
  | 'price'
  | 'regular'
  | 'excl-tax'
  | 'unit'
  | 'period'
  | 'range-end'
  | 'was'
  | 'saving'
  | 'instalment'
  | 'shipping'
  | 'threshold'
  | 'multibuy';

export interface PriceMention {
  /** Negative when written with a minus sign ("-£5.00"); such amounts are never a price. 0 for "Free". */
  amount: number;
  currency: string | null;
  /** False when the currency is a guess: no sign at all, or "$", "¥", "kr" without a hint. */
  currencyCertain: boolean;
  role: PriceRole;
  /** The mention as written, e.g. "£1,299.99". */
  text: string;
  start: number;
  end: number;
}

export type PriceReading =
  | { ok: true; amount: number; currency: string | null; mention: PriceMention }
  | { ok: false; code: 'no-price' | 'ambiguous'; reason: string; mentions: PriceMention[] };

export type DecimalSeparator = '.' | ',';

export interface PriceTextOptions {
  /** ISO 4217 code to use when the text has no currency or an ambiguous sign such as "$". */
  currencyHint?: string | null;
  /**
   * BCP-47 tag of the page ("de-DE", "es-CL", "en-IN", "pt-BR", "de"): its decimal separator
   * reads "23.450" / "23,450", and its country settles "$", "kr", "¥" when no hint does.
   */
  locale?: string | null;
  /** The decimal separator, when the caller knows it: wins over the locale, currency and every guess. */
  decimalSeparator?: DecimalSeparator | null;
}

/** The selling price written in `text`, or null when there is none or several. */
export function parsePriceText(text: string, opts?: PriceTextOptions): { amount: number; currency: string | null } | null {
  const reading = readPrice(text, opts);
  return reading.ok ? { amount: reading.amount, currency: reading.currency } : null;
}

// ---------------------------------------------------------------------------------------------
// Currencies

/**
 * Signs whose currency is certain. "تومان" (toman) is not an ISO currency: it is ten Iranian
 * rials, so amounts in tomans are read as rials (IRR), the unit shops' structured data uses.
 */
const CURRENCY_SIGNS: Record<string, string> = {
  '£': 'GBP', '￡': 'GBP', '€': 'EUR', 'US$': 'USD', 'U$S': 'USD', 'U$': 'USD', 'US $': 'USD',
  'A$': 'AUD', 'AU$': 'AUD', 'AU $': 'AUD', 'C$': 'CAD', 'CA$': 'CAD', 'CA $': 'CAD', 'NZ$': 'NZD',
  'NZ $': 'NZD', 'HK$': 'HKD', 'HK $': 'HKD', 'S$': 'SGD', 'SG$': 'SGD', 'R$': 'BRL', 'MX$': 'MXN',
  'Mex$': 'MXN', 'NT$': 'TWD', 'NT $': 'TWD', 'AR$': 'ARS', 'CLP$': 'CLP', 'COL$': 'COP', 'RD$': 'DOP',
  'TT$': 'TTD', 'J$': 'JMD', 'EC$': 'XCD', '$U': 'UYU',
  'JP¥': 'JPY', '円': 'JPY', 'CN¥': 'CNY', 'RMB': 'CNY', '₹': 'INR', '₩': 'KRW', '￦': 'KRW', '원': 'KRW',
  '₽': 'RUB', 'руб': 'RUB', 'рублей': 'RUB', 'рубля': 'RUB', 'рубль': 'RUB',
  '₺': 'TRY', 'TL': 'TRY', '₪': 'ILS', 'ש"ח': 'ILS', 'ש״ח': 'ILS', '฿': 'THB', 'บาท': 'THB',
  '₫': 'VND', 'đ': 'VND', 'Đ': 'VND', '₱': 'PHP', '₴': 'UAH', 'грн': 'UAH', 'гривень': 'UAH', 'гривен': 'UAH',
  'zł': 'PLN', 'Kč': 'CZK', 'Ft': 'HUF', 'lei': 'RON', 'Lei': 'RON', 'LEI': 'RON', 'Fr.': 'CHF', 'SFr.': 'CHF',
  'RM': 'MYR', 'Rp': 'IDR', 'R': 'ZAR', '₦': 'NGN', '₵': 'GHS', 'GH₵': 'GHS', 'GH¢': 'GHS',
  '₸': 'KZT', 'тг': 'KZT', 'тенге': 'KZT', 'лв': 'BGN', 'лева': 'BGN', '₡': 'CRC', 'E£': 'EGP',
  'S/': 'PEN', 'S/.': 'PEN', 'Q': 'GTQ', '₲': 'PYG', 'Gs': 'PYG', 'Kn': 'HRK', 'kn': 'HRK', 'KN': 'HRK',
  'Ks': 'MMK', 'ден': 'MKD', 'денари': 'MKD', 'дин': 'RSD', 'динара': 'RSD', 'динар': 'RSD', 'din': 'RSD', 'dinara': 'RSD',
  'сом': 'KGS', 'сомов': 'KGS', 'бел. руб': 'BYN', 'бел.руб': 'BYN', '₾': 'GEL', '֏': 'AMD', '₼': 'AZN',
  '₮': 'MNT', '₭': 'LAK', '៛': 'KHR', '৳': 'BDT', 'Tk': 'BDT', 'රු': 'LKR', 'KSh': 'KES', 'Ksh': 'KES',
  'TSh': 'TZS', 'USh': 'UGX', 'DT': 'TND',
  'ر.س': 'SAR', 'ر.ق': 'QAR', 'ر.ع': 'OMR', 'د.إ': 'AED', 'د.ك': 'KWD', 'د.ب': 'BHD', 'د.أ': 'JOD',
  'ل.ل': 'LBP', 'د.م': 'MAD', 'د.ج': 'DZD', 'د.ت': 'TND', 'د.ع': 'IQD', 'ل.س': 'SYP', 'ج.م': 'EGP',
  'جنيه': 'EGP', 'ریال': 'IRR', 'تومان': 'IRR',
};

/** Amount multipliers for signs of a sub-unit or multiple of their ISO currency. */
const SIGN_SCALE: Record<string, number> = { 'تومان': 10 };

/** Signs shared by several currencies: the hint, else the locale's currency, picks one, else the first (or none). */
const AMBIGUOUS_SIGNS: Record<string, { fallback: string | null; currencies: string[] }> = {
  '$': { fallback: 'USD', currencies: ['USD', 'CAD', 'AUD', 'NZD', 'SGD', 'HKD', 'MXN', 'TWD', 'ARS', 'CLP', 'COP', 'UYU', 'DOP', 'JMD', 'TTD', 'BSD', 'XCD', 'FJD', 'BND', 'NAD', 'LRD'] },
  '＄': { fallback: 'USD', currencies: ['USD', 'CAD', 'AUD', 'NZD', 'SGD', 'HKD', 'MXN', 'TWD', 'ARS', 'CLP', 'COP'] },
  '¥': { fallback: 'JPY', currencies: ['JPY', 'CNY'] },
  '￥': { fallback: 'JPY', currencies: ['JPY', 'CNY'] },
  '元': { fallback: 'CNY', currencies: ['CNY', 'TWD', 'HKD'] },
  'Rs': { fallback: 'INR', currencies: ['INR', 'PKR', 'LKR', 'NPR', 'MUR', 'SCR'] },
  '₨': { fallback: 'INR', currencies: ['INR', 'PKR', 'LKR', 'NPR', 'MUR', 'SCR'] },
  // Devanagari "rupee": Nepal writes it most; Hindi pages mostly use "₹".
  'रु': { fallback: 'NPR', currencies: ['NPR', 'INR'] },
  'रू': { fallback: 'NPR', currencies: ['NPR', 'INR'] },
  'kr': { fallback: null, currencies: ['SEK', 'NOK', 'DKK', 'ISK'] },
  'ريال': { fallback: 'SAR', currencies: ['SAR', 'QAR', 'OMR', 'YER'] },
  'درهم': { fallback: 'AED', currencies: ['AED', 'MAD'] },
  'Bs': { fallback: 'BOB', currencies: ['BOB', 'VES'] },
  'Bs.S': { fallback: 'VES', currencies: ['VES'] },
  'Bs.F': { fallback: 'VES', currencies: ['VES'] },
  'р': { fallback: 'RUB', currencies: ['RUB', 'BYN'] },
  'Br': { fallback: 'BYN', currencies: ['BYN', 'ETB'] },
};

/** Signs written only after the amount ("120р.", "12,900원") or only before it ("Q 125.00"). */
const AFTER_ONLY = new Set(['р', '원', '円', '元', 'đ', 'Đ', 'сом', 'ден', 'дин', 'тг', 'din', 'dinara']);
const BEFORE_ONLY = new Set(['Q', 'KGS']);

/** ISO 4217 codes recognised in text (upper case only, so words like "all" never match). */
export const CURRENCY_CODES = new Set(
  ('AED AMD ARS AUD AZN BAM BDT BGN BHD BOB BRL BYN CAD CHF CLP CNY COP CRC CZK DKK DOP DZD EGP ETB EUR ' +
    'GBP GEL GHS GTQ HKD HNL HRK HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KRW KWD KZT LAK LBP ' +
    'LKR LYD MAD MDL MKD MMK MNT MUR MXN MYR NGN NIO NOK NPR NZD OMR PAB PEN PHP PKR PLN PYG QAR RON RSD ' +
    'RUB SAR SEK SGD SYP THB TJS TND TRY TTD TWD TZS UAH UGX USD UYU UZS VES VND XAF XOF YER ZAR').split(' '),
);

/** Currencies with three decimals, where "12.500" is twelve and a half. */
const THREE_DECIMAL_CURRENCIES = new Set(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND']);

/** Currencies priced in whole units in practice, where "23.450" and "23,450" both group thousands. */
const ZERO_DECIMAL_CURRENCIES = new Set(
  'JPY KRW CLP COP VND IDR HUF ISK PYG UGX TWD IRR LAK KHR MMK UZS LBP KMF GNF RWF XAF XOF XPF VUV BIF DJF MGA'.split(' '),
);

/** The decimal separator of each currency's home format (null: it varies, e.g. EUR, CAD). */
const CURRENCY_DECIMALS = new Map<string, DecimalSeparator>([
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
const ALL_SIGNS = [...CERTAIN_SIGNS.keys(), ...SHARED_SIGNS.keys(), ...CURRENCY_CODES];
const LONGEST_SIGN = Math.max(...ALL_SIGNS.map((sign) => sign.length)) + 1; // + a trailing dot

const ANY_SIGN = [...new Set(ALL_SIGNS)].sort((a, b) => b.length - a.length).map((sign) => sign.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|');
/** A currency sign, code or word right next to a digit, or "99p": what every price mention has. */
const MONEY_NEAR_DIGIT = new RegExp(`(?:\\p{Sc}|${ANY_SIGN})\\.?\\s?[\\d.]|\\d\\s?(?:\\p{Sc}|${ANY_SIGN}|[p¢](?!\\p{L}))`, 'u');

/** A cheap test before reading a text: false means it mentions no amount of money with a currency. */
export function mayMentionMoney(text: string): boolean {
  return MONEY_NEAR_DIGIT.test(text);
}
const LETTER = /[\p{L}\p{M}]/u;
const WORD_CHARACTER = /[\p{L}\p{M}\d]/u;

interface CurrencySign {
  sign: string;
  currency: string | null;
  certain: boolean;
  scale?: number;
}

interface Context {
  hint: string | null;
  localeCurrency: string | null;
  localeDecimal: DecimalSeparator | null;
  decimalSeparator: DecimalSeparator | null;
}

/** The currency of a sign as written; "руб." and "лв." are looked up without their dot. */
function currencyOfSign(sign: string, context: Pick<Context, 'hint' | 'localeCurrency'>): CurrencySign | null {
  const found = exactSign(sign, context);
  if (found || sign.length < 2 || !sign.endsWith('.')) return found;
  const bare = exactSign(sign.slice(0, -1), context);
  return bare && { ...bare, sign };
}

function exactSign(sign: string, { hint, localeCurrency }: Pick<Context, 'hint' | 'localeCurrency'>): CurrencySign | null {
  if (CURRENCY_CODES.has(sign)) return { sign, currency: sign, certain: true };
  const code = CERTAIN_SIGNS.get(sign);
  if (code) return { sign, currency: code, certain: true, scale: SIGN_SCALE[sign] };
  const shared = SHARED_SIGNS.get(sign) ?? SHARED_SIGNS.get(sign.toLowerCase());
  if (!shared) return null;
  if (hint && shared.currencies.includes(hint)) return { sign, currency: hint, certain: true };
  if (localeCurrency && shared.currencies.includes(localeCurrency)) return { sign, currency: localeCurrency, certain: true };
  return { sign, currency: shared.fallback, certain: false };
}

function baseSign(sign: string): string {
  return sign.length > 1 && sign.endsWith('.') ? sign.slice(0, -1) : sign;
}

type PlacedSign = CurrencySign & { start: number; end: number };

/** A currency sign ending right before `end` (spaces allowed between). */
function signBefore(text: string, end: number, context: Context): PlacedSign | null {
  let at = end;
  while (at > 0 && text[at - 1] === ' ' && end - at < 2) at--;
  for (let length = Math.min(LONGEST_SIGN, at); length >= 1; length--) {
    const sign = text.slice(at - length, at);
    const found = currencyOfSign(sign, context);
    if (!found || AFTER_ONLY.has(baseSign(sign))) continue;
    // Not inside a word or a model number ("IQ 5", "QE55Q60").
    if (LETTER.test(sign[0]) && WORD_CHARACTER.test(text[at - length - 1] ?? '')) continue;
    return { ...found, start: at - length, end: at };
  }
  return null;
}

/** A currency sign starting right after `start` (spaces allowed between). */
function signAfter(text: string, start: number, context: Context): PlacedSign | null {
  let at = start;
  while (text[at] === ' ' && at - start < 2) at++;
  for (let length = Math.min(LONGEST_SIGN, text.length - at); length >= 1; length--) {
    const sign = text.slice(at, at + length);
    const found = currencyOfSign(sign, context);
    if (!found || BEFORE_ONLY.has(baseSign(sign))) continue;
    if (LETTER.test(sign[sign.length - 1]) && LETTER.test(text[at + length] ?? '')) continue;
    return { ...found, start: at, end: at + length };
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Locales

interface LocaleFacts {
  decimal: DecimalSeparator | null;
  currency: string | null;
}

const COMMA_LANGUAGES = new Set(
  ('de fr es it pt nl pl cs sk ro ru tr id vi da sv nb nn no fi el hu uk be bg mk sr hr sl bs sq lt lv et is ' +
    'ca eu gl af az kk ky uz ka hy km lo tk').split(' '),
);
const DOT_LANGUAGES = new Set(
  'en ja zh ko he iw th hi mn ms fil tl sw ur bn ne si ta te mr gu kn ml pa my fa ar ga cy mt am yo ha ig zu xh'.split(' '),
);
/** Countries whose format differs from their language's: Mexico and Central America, Switzerland, Maghreb. */
const DOT_REGIONS = new Set('MX US PR DO GT HN NI PA SV PE CH LI ZA'.split(' '));
const COMMA_REGIONS = new Set('MA DZ TN LY MR'.split(' '));

/** Currencies that settle a shared sign ("$", "kr", "¥", "Rs") from a page's country or language. */
const REGION_CURRENCIES: Record<string, string> = {
  US: 'USD', CA: 'CAD', AU: 'AUD', NZ: 'NZD', SG: 'SGD', HK: 'HKD', MX: 'MXN', TW: 'TWD', AR: 'ARS', CL: 'CLP',
  CO: 'COP', UY: 'UYU', DO: 'DOP', EC: 'USD', SV: 'USD', PR: 'USD', PA: 'USD', JM: 'JMD', TT: 'TTD', JP: 'JPY',
  CN: 'CNY', SE: 'SEK', NO: 'NOK', DK: 'DKK', IS: 'ISK', FO: 'DKK', GL: 'DKK', IN: 'INR', PK: 'PKR', LK: 'LKR',
  NP: 'NPR', MU: 'MUR', BO: 'BOB', VE: 'VES', BY: 'BYN', RU: 'RUB', ET: 'ETB', SA: 'SAR', QA: 'QAR', OM: 'OMR',
  YE: 'YER', AE: 'AED', MA: 'MAD', BN: 'BND', FJ: 'FJD', NA: 'NAD', BS: 'BSD',
};
const LANGUAGE_CURRENCIES: Record<string, string> = {
  ja: 'JPY', zh: 'CNY', sv: 'SEK', nb: 'NOK', nn: 'NOK', no: 'NOK', da: 'DKK', is: 'ISK', ne: 'NPR', si: 'LKR',
  ur: 'PKR', ko: 'KRW', be: 'BYN', am: 'ETB', fa: 'IRR',
};

/** The currency of a country (ISO 3166 code) where its sign is one several currencies share; null otherwise. */
export function currencyOfRegion(region: string): string | null {
  const code = region.toUpperCase();
  return (Object.hasOwn(REGION_CURRENCIES, code) && REGION_CURRENCIES[code]) || null;
}

const localeCache = new Map<string, LocaleFacts>();

function localeFacts(locale: string | null | undefined): LocaleFacts {
  if (!locale) return { decimal: null, currency: null };
  const cached = localeCache.get(locale);
  if (cached) return cached;
  const [language = '', ...rest] = locale.trim().toLowerCase().split(/[-_]/);
  const region = rest.find((part) => /^(?:[a-z]{2}|\d{3})$/.test(part))?.toUpperCase() ?? null;
  let decimal: DecimalSeparator | null = COMMA_LANGUAGES.has(language) ? ',' : DOT_LANGUAGES.has(language) ? '.' : null;
  if (decimal && region && DOT_REGIONS.has(region) && ['es', 'de', 'fr', 'it', 'rm', 'en'].includes(language)) decimal = '.';
  if (decimal && region && COMMA_REGIONS.has(region) && language === 'ar') decimal = ',';
  const currency = (region && Object.hasOwn(REGION_CURRENCIES, region) && REGION_CURRENCIES[region]) || (Object.hasOwn(LANGUAGE_CURRENCIES, language) && LANGUAGE_CURRENCIES[language]) || null;
  const facts = { decimal, currency };
  if (localeCache.size < 500) localeCache.set(locale, facts);
  return facts;
}

/**
 * The decimal separator a page most likely writes, from its language tag (`<html lang>`,
 * a country from the host's TLD as "xx-CL") or else the currency; null when neither tells.
 */
export function decimalSeparatorFor(locale: string | null, currency: string | null): DecimalSeparator | null {
  return localeFacts(locale).decimal ?? (currency ? CURRENCY_DECIMALS.get(currency.trim().toUpperCase()) ?? null : null);
}

// ---------------------------------------------------------------------------------------------
// Numbers

/**
 * A written number: digits with group separators (, . ' ’ and spaces before three digits),
 * a decimal part, or ".–" / ",-" for "no cents". Also, needing a currency sign next to them:
 * a leading decimal point (".99") and a space after the decimal separator ("12, 99").
 */
const NUMBER = /(?<![\p{L}\p{M}\d.,])\.\d{1,2}(?!\d)|\d+(?:[.,'’]\d+| \d{3}(?!\d))*(?:[.,](?:--?|–|—)|[.,] \d{2}(?![\d.,%]))?/gu;
const SPACED_DECIMALS = /[.,] \d{2}$/;

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

function readNumberIn(written: string, currency: string | null, callerDecimal: DecimalSeparator | null, localeDecimal: DecimalSeparator | null): number | null {
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
  else if (lastGroup.length !== 3 || groups[0] === '0') decimalSeparator = last; // "12,5", "0.750"
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
  if (currency && THREE_DECIMAL_CURRENCIES.has(currency)) return separator === '.';
  // A page's language tag is often left at a template's default, so a currency whose home
  // format disagrees ("R$ 1.299" on an "en" page) keeps the thousands reading.
  const home = currency ? CURRENCY_DECIMALS.get(currency) : undefined;
  if (!localeDecimal || (home && home !== localeDecimal)) return false;
  return separator === localeDecimal;
}

// ---------------------------------------------------------------------------------------------
// Words around an amount

function words(alternatives: string[]): string {
  return alternatives.map((word) => word.replace(/[.+$]/g, (c) => `\\${c}`).replace(/ /g, '\\s*')).join('|');
}

/** Short words that are labels only right before the amount: "De R$ 199,90 por R$ 149,90". */
function rightBefore(alternatives: string[], openingText = false): string {
  return `${openingText ? '(?<=^[^\\p{L}\\d]*)' : ''}(?:${alternatives.join('|')})(?=\\s*$)`;
}

/** A tax-inclusive label: the price, and the consumer price when an ex-tax one is shown too. */
type Label = PriceRole | 'incl-tax';

const TAXES = 'vat|tax|taxes|gst|hst|mwst|ust|btw|tva|iva|moms|mva|alv|dph|áfa|afa|pvm|kdv|ндс|пдв|φπα|ддс|pdv|ppn';

/** A label before an amount: the last label with no digit between it and the amount. */
const PREFIX_LABELS: [Label, RegExp][] = (
  [
    ['price', `${words(['now', 'sale', 'sale price', 'our price', 'price', 'your price', 'special price', 'offer price', 'current price', 'deal price', 'from', 'only', 'just', 'today', 'jetzt', 'nur', 'ab', 'preis', 'aktionspreis', 'angebot', 'sonderpreis', 'maintenant', 'prix', 'prix promo', 'à partir de', 'a partir de', 'dès', 'desde', 'ahora', 'precio', 'oferta', 'precio final', 'preço', 'adesso', 'ora', 'prezzo', 'cena', 'teraz', 'pris', 'nu', 'vanaf', 'prijs', 'fiyat', 'цена', 'ціна', 'hinta', '価格', '販売価格', '特価', '价格', '價格', '售价', '가격', '판매가', '할인가'])}|${rightBefore(['por', 'voor'])}`],
    ['incl-tax', `${words(['incl. vat', 'incl vat', 'inc vat', 'inc. vat', 'including vat', 'inkl. mwst.', 'inkl. mwst', 'inkl mwst', 'incl. btw', 'ttc'])}`],
    ['regular', words(['regular price', 'regular', 'reg.', 'reg', 'list price', 'list', 'normal price', 'normalpreis', 'standard price', 'prix normal', 'precio normal', 'precio regular', 'normalpris', 'ordinarie pris', 'ord. pris', '通常価格'])],
    ['was', `${words(['was', 'were', 'previously', 'prev.', 'before', 'old price', 'original price', 'originally', 'rrp', 'srp', 'msrp', 'uvp', 'compare at', 'compare-at', 'compared at', 'compare', 'instead of', 'statt', 'anstatt', 'vorher', 'bisher', 'ehemals', 'alter preis', 'streichpreis', 'avant', 'au lieu de', 'ancien prix', 'prix barré', 'prix initial', 'prix conseillé', 'antes', 'precio anterior', 'precio original', 'pvp', 'preço original', 'prima', 'era', 'invece di', 'prezzo consigliato', 'stara cena', 'poprzednia cena', 'старая цена', 'было', 'eski fiyat', 'önceki fiyat', 'før', 'förr', 'tidligere', 'aiemmin', 'retail price', 'retail', 'typical price', 'usual price', 'normally', 'value', 'worth', 'high street price', '定価', '参考価格', '希望小売価格', '原价', '原價', '정가'])}|${rightBefore(['de', 'van'], true)}|(?:lowest|niedrigster|prix le plus bas|najniższa|laagste|precio más bajo|prezzo più basso|nejnižší|legalacsonyabb|lägsta|laveste|alhaisin)[^\\d]{0,50}?\\d{1,3}\\s*(?:days|tage[n]?|jours|dni|días|dias|giorni|dagen|dagar|dage|dní|nap|zile|päivän)\\p{L}*`],
    ['saving', words(['save', 'you save', 'saving', 'savings', 'discount', 'reduced by', 'sparen', 'sie sparen', 'ersparnis', 'économisez', 'economisez', 'ahorra', 'ahorras', 'ahorro', 'risparmi', 'risparmia', 'bespaar', 'oszczędzasz', 'economize'])],
    ['instalment', `${words(['payments of', 'payment of', 'instalments of', 'installments of', 'instalments', 'installments', 'interest-free', 'interest free', 'monthly payments', 'klarna', 'afterpay', 'clearpay', 'affirm', 'laybuy', 'sezzle', 'paypal', 'ratenzahlung', 'raten', 'rate da', 'cuotas de', 'mensualités de', 'parcelas de'])}|pay\\s*in\\s*\\d+|en\\s*\\d+\\s*fois|\\d{1,2}\\s*x(?:\\s*de)?`],
    ['shipping', words(['shipping', 'delivery', 'postage', 'p&p', 'p+p', 'freight', 'carriage', 'versand', 'versandkosten', 'lieferung', 'livraison', 'frais de port', 'envío', 'envio', 'entrega', 'frete', 'spedizione', 'consegna', 'porto', 'verzending', 'verzendkosten', 'bezorging', 'frakt', 'fragt', 'leverans', 'toimitus', 'wysyłka', 'dostawa', 'dostava', 'doprava', 'szállítás', 'kargo', 'доставка', '送料', '配送料', '运费', '運費', '배송비'])],
    ['threshold', words(['over', 'above', 'orders over', 'orders of', 'spend', 'when you spend', 'minimum', 'minimum order', 'min.'])],
    ['multibuy', `\\d+\\s*(?:for|für|pour)|any\\s*\\d+\\s*for|buy\\s*\\d+`],
    ['unit', `${words(['unit price', 'price per', 'per', 'grundpreis', 'prix au kilo', 'prix au kg', 'prix au litre', 'prix unitaire', 'precio por', 'precio unitario', 'prezzo al kg', 'prezzo unitario', 'jämförpris', 'kilopris', 'literpris'])}|per\\s*\\d+\\s*\\p{L}+`],
    ['excl-tax', `(?:ex|exc|excl|excluding|exclusive of|zzgl|ohne|plus|hors|sans|sin|bez|exkl|ekskl|before)\\.?\\s*(?:${TAXES})|${words(['net', 'netto', 'net price'])}`],
  ] as [Label, string][]
).map(([role, alternatives]) => [role, new RegExp(`(?<![\\p{L}\\d])(?:${alternatives})(?!\\p{L})(?=\\D*$)`, 'giu')]);

const UNITS =
  'kg|kilo|kilogram|g|gr|gram|grams|mg|lb|lbs|oz|fl\\.?\\s?oz|l|ltr|litre|liter|litres|liters|ml|cl|dl|m|cm|mm|m2|m²|m3|m³|' +
  'sq\\.?\\s?ft|ft|yd|unit|units|item|items|piece|pieces|pc|pcs|stk|stück|st|count|ct|sheet|sheets|wash|washes|dose|doses|' +
  'tablet|tablets|capsule|capsules|serving|servings|kilo';
const PERIODS = 'month|months|mo|mth|mnth|week|wk|year|yr|annum|day|monat|mois|mes|mese';

/** Words right after an amount that belong to it. `null` role: belongs to it, changes nothing. */
const SUFFIXES: [Label | null, RegExp][] = (
  [
    ['unit', `(?:/|per\\b|pro\\b|par\\b|le\\b|la\\b|au\\b)\\s*(?:\\d+(?:[.,]\\d+)?\\s*)?(?:${UNITS})\\.?(?!\\p{L})|(?:each|ea|apiece)\\b`],
    ['period', `(?:/|per\\s|a\\s|an\\s|every\\s)\\s*(?:${PERIODS})\\.?(?!\\p{L})|(?:monthly|p/m|pcm|pm)(?!\\p{L})`],
    ['excl-tax', `(?:ex|exc|excl|excluding|zzgl|ohne|plus|\\+|hors|sans|sin|bez|exkl|ekskl|before)\\.?\\s*(?:${TAXES})\\.?(?!\\p{L})|(?:HT|net|netto)(?!\\p{L})|税抜|税別|不含税`],
    ['incl-tax', `(?:inc|incl|including|inkl|inklusive|incluido|incluye|inclusief|con|avec|mit|med|z|s)\\.?\\s*(?:${TAXES})\\.?(?!\\p{L})|(?:${TAXES})\\.?\\s*(?:inc|incl|included|incluido|incluida|inkl|inclusa|incluse|comprise|compris)\\.?(?!\\p{L})|(?:TTC|brutto)(?!\\p{L})|税込み?|含税`],
    ['saving', `off(?!\\p{L})`],
  ] as [Label | null, string][]
).map(([role, pattern]) => [role, new RegExp(`^[\\s(*（]*(?:${pattern})[)）]?`, 'iu')]);

/** Labels that follow an amount only at the end of the text ("£30 RRP", "+ £3.99 delivery"). */
const TAIL_SUFFIXES: [PriceRole, RegExp][] = (
  [
    ['was', 'rrp|uvp|msrp|srp|was|list'],
    ['shipping', 'shipping|delivery|postage|p&p|versand|livraison'],
  ] as [PriceRole, string][]
).map(([role, pattern]) => [role, new RegExp(`^[\\s(*]*(?:${pattern})(?!\\p{L})`, 'iu')]);

/** What follows a bare number that counts things rather than money. */
const NOT_MONEY_AFTER = new RegExp(`^(?:\\p{L}| ?%| ?(?:${UNITS}|x|left|in stock|reviews?|ratings?|stars?|out of)(?!\\p{L}))`, 'iu');

const RANGE_JOINER = /^\s*(?:-|–|—|to|bis|à|a|til|till|~|〜|～)\s*$/i;

/** "Free" as a price: alone, after a label ("Now FREE", "Delivery: Free"), never inside a phrase ("gluten free"). */
const FREE_WORD =
  /(?<![\p{L}\p{M}\d-])(?:free|gratis|gratuit|gratuite|gratuito|gratuita|grátis|kostenlos|kostenlose|kostenloser|umsonst|бесплатно|бесплатная|безкоштовно|безкоштовна|ücretsiz|zdarma|darmowa|darmowy|besplatna|besplatno|ingyenes|δωρεάν|ilmainen)(?![\p{L}\p{M}-])|免费|免費|無料|무료/giu;
const FREE_SHIPPING_AFTER =
  /^ ?(?:delivery|shipping|postage|p&p|returns?|uk delivery|standard delivery|next day delivery|click & collect|collection|versand|lieferung|livraison|envío|envio|entrega|spedizione|consegna|frete|verzending|bezorging|levering|frakt|fragt|leverans|toimitus|wysyłka|dostawa|dostava|doprava|szállítás|kargo|доставка|配送|送货|送貨|運送|配達|배송|택배)(?![\p{L}\p{M}])/iu;
const FREE_CJK = /^[免無무]/u;

function labelBefore(text: string): { role: Label; end: number } | null {
  const window = text.slice(-60);
  let best: { role: Label; end: number; length: number } | null = null;
  for (const [role, pattern] of PREFIX_LABELS) {
    for (const match of window.matchAll(pattern)) {
      const end = match.index + match[0].length;
      if (!best || end > best.end || (end === best.end && match[0].length > best.length)) {
        best = { role, end, length: match[0].length };
      }
    }
  }
  return best && { role: best.role, end: best.end + text.length - window.length };
}

function labelAfter(text: string, atEnd: boolean): { role: Label | null; length: number } | null {
  for (const [role, pattern] of atEnd ? [...SUFFIXES, ...TAIL_SUFFIXES] : SUFFIXES) {
    const match = pattern.exec(text);
    // "(netto 1.037,00 €)": a label opening a parenthesis belongs to the amount inside it.
    if (match && !atEnd && /[(（][^)）]*$/.test(match[0])) return null;
    if (match) return { role, length: match[0].length };
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Mentions

const OTHER_DIGITS = /[\u0660-\u0669\u06f0-\u06f9\u0966-\u096f\u09e6-\u09ef\u0e50-\u0e59\uff10-\uff19\u066b\u066c\uff0c\uff0e]/g;

/** Arabic-Indic, Persian, Devanagari, Bengali, Thai and full-width digits as 0-9; ٫ and ٬ as . and ,. */
function westernDigit(character: string): string {
  const code = character.charCodeAt(0);
  if (character === '\u066b' || character === '\uff0e') return '.';
  if (character === '\u066c' || character === '\uff0c') return ',';
  for (const zero of [0x0660, 0x06f0, 0x0966, 0x09e6, 0x0e50, 0xff10]) if (code >= zero && code <= zero + 9) return String(code - zero);
  return character;
}

/** Collapses every kind of space (NBSP, thin, narrow) and drops invisible characters; digits of every script as 0-9. */
export function normalizePriceText(text: string): string {
  return text
    .replace(/[\u200b-\u200f\u2060\u061c\u202a-\u202e\u2066-\u2069\ufeff]/g, '')
    .replace(OTHER_DIGITS, westernDigit)
    .replace(/\u2212/g, '-')
    .replace(/\s+/g, ' ')
    .trim();
}

function normalizeHint(hint: string | null | undefined): string | null {
  const code = hint?.trim().toUpperCase();
  return code && /^[A-Z]{3}$/.test(code) ? code : null;
}

function contextOf(opts: PriceTextOptions | undefined): Context {
  const facts = localeFacts(opts?.locale);
  const decimalSeparator = opts?.decimalSeparator === '.' || opts?.decimalSeparator === ',' ? opts.decimalSeparator : null;
  return { hint: normalizeHint(opts?.currencyHint), localeCurrency: facts.currency, localeDecimal: facts.decimal, decimalSeparator };
}

interface WrittenNumber {
  start: number;
  end: number;
  written: string;
  before: PlacedSign | null;
  after: PlacedSign | null;
}

interface NumberToken {
  start: number;
  end: number;
  amount: number;
  sign: CurrencySign | null;
  /** "Free delivery": a delivery charge whatever the words before it say. */
  role?: PriceRole;
}

/** Every well-formed number with the currency signs next to it. */
function writtenNumbers(text: string, context: Context): WrittenNumber[] {
  const numbers: WrittenNumber[] = [];
  NUMBER.lastIndex = 0;
  for (let match = NUMBER.exec(text); match; match = NUMBER.exec(text)) {
    const start = match.index;
    // Try the longest reading first, then cut at spaces: "£1.50 100g" is £1.50 then 100g.
    for (let written = match[0]; written; written = written.includes(' ') ? written.slice(0, written.lastIndexOf(' ')) : '') {
      if (readNumberIn(written, null, null, null) === null) continue;
      const end = start + written.length;
      NUMBER.lastIndex = end;
      numbers.push({ start, end, written, before: signBefore(text, start, context), after: signAfter(text, end, context) });
      break;
    }
  }
  // A sign between two numbers belongs to the first only when the text writes signs after
  // numbers ("19,99 € 24,99 €"); otherwise to the second ("Size 10 £25", "£24.99£24.99").
  numbers.forEach((number, index) => {
    const next = numbers[index + 1];
    if (!number.after || !next?.before || next.before.start >= number.after.end) return;
    if (!number.before && next.after) next.before = null;
    else number.after = null;
  });
  for (const number of numbers) {
    // A currency code against a model number is not money: "AMD 5950X".
    if (number.before && CURRENCY_CODES.has(number.before.sign) && LETTER.test(text[number.end] ?? '')) number.before = null;
    // "Q" is a quetzal only before a price with cents or thousands ("Q125.00", "Q 1,250"): not "Q60".
    if (number.before?.sign === 'Q' && !/[.,]\d{2,3}$/.test(number.written)) number.before = null;
  }
  // ".99" and "12, 99" need a currency sign; "12. 99" may also be the whole text. A sign
  // before "12, 99" is not enough when words follow: "£5, 10 items".
  return numbers.flatMap((number) => {
    if (number.written.startsWith('.')) return number.before || number.after || number.written === text ? [number] : [];
    if (!SPACED_DECIMALS.test(number.written) || number.after) return [number];
    if (number.before && !/^\s*[\p{L}\d%]/u.test(text.slice(number.end))) return [number];
    if (number.written === text && number.written.includes('.')) return [number];
    // "10, 12": two numbers.
    const written = number.written.slice(0, -4);
    const second = { ...number, start: number.end - 2, written: number.written.slice(-2) };
    return [{ ...number, written, end: number.start + written.length }, second];
  });
}

/** Every amount in the text, without roles. */
function numberTokens(text: string, context: Context): NumberToken[] {
  const tokens: NumberToken[] = [];
  for (const { start, end, written, before, after } of writtenNumbers(text, context)) {
    // "$1,299.99 USD": the certain sign names the currency.
    const sign = before && after && !before.certain && after.certain ? after : (before ?? after);
    const currency = sign?.currency ?? context.hint ?? context.localeCurrency;
    const amount = readNumberIn(written, currency, context.decimalSeparator, context.localeDecimal)! * (sign?.scale ?? 1);
    const pence = !sign && /^\d{1,2}$/.test(written) && /^[p¢](?!\p{L})/u.test(text.slice(end));
    if (pence) {
      const currency = text[end] === 'p' ? 'GBP' : 'USD';
      tokens.push({ start, end: end + 1, amount: amount / 100, sign: { sign: text[end], currency, certain: true } });
    } else if (sign) {
      tokens.push({ start: before?.start ?? start, end: after ? after.end : end, amount, sign });
    } else if (!LETTER.test(text[start - 1] ?? '') && !NOT_MONEY_AFTER.test(text.slice(end, end + 20)) && (amount !== 0 || /[.,]/.test(written))) {
      tokens.push({ start, end, amount, sign: null }); // a bare number, not "SKU123", "500 ml", "20%" or a count of 0
    }
  }
  return tokens;
}

/** "Free", "Gratis", "無料"... as an amount of 0: alone or right after a label or an amount. */
function freeTokens(text: string, context: Context): NumberToken[] {
  const tokens: NumberToken[] = [];
  for (const match of text.matchAll(FREE_WORD)) {
    const start = match.index;
    let end = start + match[0].length;
    const rest = text.slice(end);
    const shipping = FREE_SHIPPING_AFTER.exec(rest);
    if (shipping) end += shipping[0].length;
    else if ((FREE_CJK.test(match[0]) ? /^[\p{L}\p{M}]/u.test(rest) : /^ ?[\p{L}\p{M}]/u.test(rest)) && !signAfter(text, end, context)) continue; // "Free gift", "free with Prime"
    const before = text.slice(0, start).replace(/[\s:：|]+$/, '');
    const label = labelBefore(before);
    const standsAlone = before === '' || !LETTER.test(before[before.length - 1]) || label?.end === before.length;
    if (!shipping && !standsAlone) continue; // "Gluten free", "Duty free"
    tokens.push({ start, end, amount: 0, sign: null, role: shipping ? 'shipping' : undefined });
  }
  return tokens;
}

/** Every amount in the text with its currency and role, in reading order. */
export function findPriceMentions(text: string, opts?: PriceTextOptions): PriceMention[] {
  const clean = normalizePriceText(text);
  const context = contextOf(opts);
  const tokens = numberTokens(clean, context);
  // Bare numbers count only when no amount in the text carries a currency.
  const withCurrency = tokens.filter((token) => token.sign);
  const chosen = [...(withCurrency.length > 0 ? withCurrency : tokens), ...freeTokens(clean, context)].sort((a, b) => a.start - b.start);

  const mentions: PriceMention[] = [];
  const prefixRoles: (Label | null)[] = [];
  const suffixRoles: (Label | null)[] = [];
  const repeats = new Set<number>();
  const roleOf = (index: number): Label => chosen[index].role ?? suffixRoles[index] ?? prefixRoles[index] ?? 'price';

  chosen.forEach((token, index) => {
    const mention: PriceMention = {
      amount: token.amount,
      currency: token.sign ? token.sign.currency : context.hint,
      currencyCertain: token.sign ? token.sign.certain : false,
      role: 'price',
      text: clean.slice(token.start, token.end),
      start: token.start,
      end: token.end,
    };
    mentions.push(mention);
    suffixRoles.push(null);
    const gap = clean.slice(index > 0 ? chosen[index - 1].end : 0, token.start);
    // The same amount written again right away is one price shown twice ("£39.99£39.99").
    if (index > 0 && gap.trim() === '' && mention.amount === mentions[index - 1].amount) {
      repeats.add(index);
      prefixRoles.push(null);
      return;
    }
    if (index > 0 && RANGE_JOINER.test(gap)) {
      prefixRoles.push('range-end');
      return;
    }
    let prefix = gap;
    if (index > 0) {
      const suffix = labelAfter(gap, false);
      if (suffix) {
        suffixRoles[index - 1] = suffixRole(suffix.role, prefixRoles[index - 1]);
        prefix = gap.slice(suffix.length);
      }
    }
    if (prefix.endsWith('-')) mention.amount = -mention.amount; // "-£5.00", not "Add to basket - £5.00"
    const label = labelBefore(prefix)?.role ?? null;
    // A was price is higher than the price next to it: "£30.00 RRP £24.99".
    if (label === 'was' && index > 0 && roleOf(index - 1) === 'price' && mentions[index - 1].amount > mention.amount) {
      prefixRoles[index - 1] = 'was';
      prefixRoles.push(null);
    } else {
      prefixRoles.push(label);
    }
  });
  if (chosen.length > 0) {
    const tail = labelAfter(clean.slice(chosen[chosen.length - 1].end), true);
    if (tail) suffixRoles[chosen.length - 1] = suffixRole(tail.role, prefixRoles[chosen.length - 1]);
  }
  const labels = mentions.map((_, index) => (repeats.has(index) ? null : roleOf(index)));
  labels.forEach((label, index) => {
    if (repeats.has(index)) labels[index] = labels[index - 1];
  });
  mentions.forEach((mention, index) => (mention.role = labels[index] === 'incl-tax' ? 'price' : (labels[index] as PriceRole)));
  settleTaxPairs(mentions, labels);
  settleSalePair(mentions, clean, repeats, labels, chosen);
  return mentions;
}

/** "inc VAT" after an amount marks a plain price; it does not undo "Excl. VAT:" before it. */
function suffixRole(suffix: Label | null, prefix: Label | null): Label | null {
  return suffix === 'incl-tax' && prefix && prefix !== 'price' ? null : suffix;
}

/** Next to a tax-inclusive price, a lower unlabelled one in the same currency is its ex-tax price. */
function settleTaxPairs(mentions: PriceMention[], labels: (Label | null)[]): void {
  const inclusive = mentions.filter((_, index) => labels[index] === 'incl-tax');
  if (inclusive.length === 0) return;
  for (const [index, mention] of mentions.entries()) {
    if (labels[index] !== 'price' || mention.amount <= 0) continue;
    // VAT and sales taxes stay under 30%.
    const taxed = inclusive.some((other) => other.currency === mention.currency && other.amount > mention.amount && other.amount <= mention.amount * 1.3);
    if (taxed) mention.role = 'excl-tax';
  }
}

/**
 * A price followed at once by a higher one in the same currency ("€ 24,99 € 29,99") is a sale
 * price and its struck-through was price whose markup was lost. A higher one first stays
 * ambiguous: it may as well be two products' prices.
 */
function settleSalePair(mentions: PriceMention[], text: string, repeats: Set<number>, labels: (Label | null)[], tokens: NumberToken[]): void {
  const prices = mentions.map((mention, index) => ({ mention, index })).filter(({ mention, index }) => mention.role === 'price' && !repeats.has(index));
  // Bare numbers side by side are more likely a list ("10, 12") than a sale.
  if (prices.length !== 2 || prices.some(({ index }) => labels[index] === 'incl-tax' || !tokens[index].sign)) return;
  const [first, second] = prices;
  const between = text.slice(mentions[second.index - 1].end, second.mention.start);
  if (first.mention.currency !== second.mention.currency || /[\p{L}\p{M}\d]/u.test(between) || mentions.slice(first.index + 1, second.index).some((m, i) => !repeats.has(first.index + 1 + i))) return;
  if (first.mention.amount <= 0 || second.mention.amount <= first.mention.amount) return;
  for (let index = second.index; index < mentions.length && (index === second.index || repeats.has(index)); index++) mentions[index].role = 'was';
}

// ---------------------------------------------------------------------------------------------
// Choosing the selling price

/** Stand-ins when no plain price is written, best first. */
const WEAK_ROLES: PriceRole[] = ['regular', 'excl-tax', 'unit', 'period'];

const ROLE_NAMES: Record<PriceRole, string> = {
  price: 'price',
  regular: 'regular price',
  'excl-tax': 'price before tax',
  unit: 'per-unit price',
  period: 'per-period price',
  'range-end': 'upper end of a price range',
  was: 'was/RRP price',
  saving: 'saving amount',
  instalment: 'instalment amount',
  shipping: 'delivery charge',
  threshold: 'minimum order amount',
  multibuy: 'multi-buy price',
};

function quote(text: string): string {
  const clean = normalizePriceText(text);
  return `“${clean.length > 80 ? `${clean.slice(0, 79)}…` : clean}”`;
}

/** The selling price in `text`, or why there is none. */
export function readPrice(text: string, opts?: PriceTextOptions): PriceReading {
  const mentions = findPriceMentions(text, opts);
  const hint = normalizeHint(opts?.currencyHint);
  const positive = mentions.filter((mention) => mention.amount > 0);
  let pool = positive.filter((mention) => mention.role === 'price');
  if (pool.length === 0) {
    // Zero or "Free" is the price only when nothing positive is ("-£0.00" is not).
    pool = mentions.filter((mention) => Object.is(mention.amount, 0) && mention.role === 'price');
    if (pool.some((mention) => mention.currency)) pool = pool.filter((mention) => mention.currency);
  }
  for (const role of WEAK_ROLES) if (pool.length === 0) pool = positive.filter((mention) => mention.role === role);

  if (pool.length === 0) {
    const distractor = mentions.find((mention) => mention.amount >= 0 && mention.role !== 'range-end' && mention.role !== 'price');
    const reason = distractor
      ? `${quote(text)} holds only a ${ROLE_NAMES[distractor.role]} (${distractor.text}), no selling price.`
      : `${quote(text)} holds no price.`;
    return { ok: false, code: 'no-price', reason, mentions };
  }
  if (hint && pool.some((mention) => mention.currency === hint)) pool = pool.filter((mention) => mention.currency === hint);
  const distinct = new Map(pool.map((mention) => [`${mention.amount} ${mention.currency}`, mention]));
  if (distinct.size > 1) {
    const listed = [...distinct.values()].slice(0, 5).map((mention) => mention.text);
    return { ok: false, code: 'ambiguous', reason: `${quote(text)} holds several different prices: ${listed.join(', ')}.`, mentions };
  }
  const [mention] = pool;
  return { ok: true, amount: mention.amount, currency: mention.currency, mention };
}
