/**
 * Reads prices out of text as people write them: "£1,299.99", "1.299,00 €", "1 299,00 zł",
 * "CHF 1'299.–", "₹1,29,999", "¥12,800", "99p".
 *
 * The text is cut into mentions (an amount with its currency), each mention gets a role from
 * the words around it ("was", "save", "/kg", "or 4 payments of", "delivery"...), and the
 * selling price is chosen from the roles:
 * - a mention without a distracting label is the price;
 * - otherwise a weak one stands in: regular/list price, ex-tax price, per-unit or per-month
 *   price (a loose-goods or subscription page shows nothing else);
 * - was, saving, instalment, delivery, minimum-order and multi-buy amounts are never taken;
 * - a range ("£10 - £20", "$10 to $20") gives its first, lowest price, like "From £10";
 * - zero, negative and "Free" are not prices.
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
  /** Negative when written with a minus sign ("-£5.00"); such amounts are never a price. */
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

export interface PriceTextOptions {
  /** ISO 4217 code to use when the text has no currency or an ambiguous sign such as "$". */
  currencyHint?: string | null;
}

/** The selling price written in `text`, or null when there is none or several. */
export function parsePriceText(text: string, opts?: PriceTextOptions): { amount: number; currency: string | null } | null {
  const reading = readPrice(text, opts);
  return reading.ok ? { amount: reading.amount, currency: reading.currency } : null;
}

// ---------------------------------------------------------------------------------------------
// Currencies

/** Signs whose currency is certain. */
const CURRENCY_SIGNS: Record<string, string> = {
  '£': 'GBP', '€': 'EUR', 'US$': 'USD', 'A$': 'AUD', 'AU$': 'AUD', 'C$': 'CAD', 'CA$': 'CAD',
  'NZ$': 'NZD', 'HK$': 'HKD', 'S$': 'SGD', 'SG$': 'SGD', 'R$': 'BRL', 'MX$': 'MXN', 'NT$': 'TWD',
  'JP¥': 'JPY', '円': 'JPY', 'CN¥': 'CNY', '元': 'CNY', 'RMB': 'CNY', '₹': 'INR', '₩': 'KRW',
  '₽': 'RUB', 'руб': 'RUB', 'руб.': 'RUB', '₺': 'TRY', 'TL': 'TRY', '₪': 'ILS', '฿': 'THB',
  '₫': 'VND', '₱': 'PHP', '₴': 'UAH', 'грн': 'UAH', 'zł': 'PLN', 'Kč': 'CZK', 'Ft': 'HUF',
  'lei': 'RON', 'Fr.': 'CHF', 'RM': 'MYR', 'Rp': 'IDR', 'R': 'ZAR', '₦': 'NGN', '₵': 'GHS',
  '₸': 'KZT', 'лв': 'BGN', 'лв.': 'BGN', '₡': 'CRC', 'E£': 'EGP', 'S/': 'PEN',
};

/** Signs shared by several currencies: the hint picks one, else the first (or none). */
const AMBIGUOUS_SIGNS: Record<string, { fallback: string | null; currencies: string[] }> = {
  '$': { fallback: 'USD', currencies: ['USD', 'CAD', 'AUD', 'NZD', 'SGD', 'HKD', 'MXN', 'TWD', 'ARS', 'CLP', 'COP'] },
  '¥': { fallback: 'JPY', currencies: ['JPY', 'CNY'] },
  '￥': { fallback: 'JPY', currencies: ['JPY', 'CNY'] },
  'Rs': { fallback: 'INR', currencies: ['INR', 'PKR', 'LKR', 'NPR'] },
  'Rs.': { fallback: 'INR', currencies: ['INR', 'PKR', 'LKR', 'NPR'] },
  '₨': { fallback: 'INR', currencies: ['INR', 'PKR', 'LKR', 'NPR'] },
  'kr': { fallback: null, currencies: ['SEK', 'NOK', 'DKK', 'ISK'] },
  'kr.': { fallback: null, currencies: ['SEK', 'NOK', 'DKK', 'ISK'] },
};

/** ISO 4217 codes recognised in text (upper case only, so words like "all" never match). */
export const CURRENCY_CODES = new Set(
  ('AED ARS AUD BGN BHD BRL CAD CHF CLP CNY COP CRC CZK DKK EGP EUR GBP GHS HKD HUF IDR ILS INR ' +
    'IQD ISK JOD JPY KES KRW KWD KZT LKR LYD MAD MXN MYR NGN NOK NPR NZD OMR PEN PHP PKR PLN QAR ' +
    'RON RSD RUB SAR SEK SGD THB TND TRY TWD UAH USD UYU VND ZAR').split(' '),
);

/** Currencies with three decimals, where "12.500" is twelve and a half. */
const THREE_DECIMAL_CURRENCIES = new Set(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND']);

const LONGEST_SIGN = 4;
const LETTER = /\p{L}/u;

interface CurrencySign {
  sign: string;
  currency: string | null;
  certain: boolean;
}

function currencyOfSign(sign: string, hint: string | null): CurrencySign | null {
  if (CURRENCY_CODES.has(sign) || CURRENCY_SIGNS[sign]) {
    return { sign, currency: CURRENCY_CODES.has(sign) ? sign : CURRENCY_SIGNS[sign], certain: true };
  }
  const shared = AMBIGUOUS_SIGNS[sign] ?? AMBIGUOUS_SIGNS[sign.toLowerCase()];
  if (!shared) return null;
  if (hint && shared.currencies.includes(hint)) return { sign, currency: hint, certain: true };
  return { sign, currency: shared.fallback, certain: false };
}

/** A currency sign ending right before `end` (spaces allowed between). */
function signBefore(text: string, end: number, hint: string | null): (CurrencySign & { start: number; end: number }) | null {
  let at = end;
  while (at > 0 && text[at - 1] === ' ' && end - at < 2) at--;
  for (let length = Math.min(LONGEST_SIGN, at); length >= 1; length--) {
    const sign = text.slice(at - length, at);
    const found = currencyOfSign(sign, hint);
    if (!found) continue;
    if (LETTER.test(sign[0]) && LETTER.test(text[at - length - 1] ?? '')) continue; // inside a word
    return { ...found, start: at - length, end: at };
  }
  return null;
}

/** A currency sign starting right after `start` (spaces allowed between). */
function signAfter(text: string, start: number, hint: string | null): (CurrencySign & { start: number; end: number }) | null {
  let at = start;
  while (text[at] === ' ' && at - start < 2) at++;
  for (let length = Math.min(LONGEST_SIGN, text.length - at); length >= 1; length--) {
    const sign = text.slice(at, at + length);
    const found = currencyOfSign(sign, hint);
    if (!found) continue;
    if (LETTER.test(sign[sign.length - 1]) && LETTER.test(text[at + length] ?? '')) continue;
    return { ...found, start: at, end: at + length };
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Numbers

/**
 * A written number: digits with group separators (, . ' ’ and spaces before three digits),
 * a decimal part, or ".–" / ",-" for "no cents".
 */
const NUMBER = /\d+(?:[.,'’]\d+| \d{3}(?!\d))*(?:[.,](?:--?|–|—))?/g;

/** The value of a written number, or null when its separators make no sense. */
export function readNumber(written: string, currency: string | null = null): number | null {
  let digits = written.replace(/’/g, "'");
  const noCents = /[.,](?:--?|–|—)$/.test(digits);
  if (noCents) digits = digits.replace(/[.,](?:--?|–|—)$/, '');

  const groups = digits.split(/[.,' ]/);
  const separators = digits.match(/[.,' ]/g) ?? [];
  if (groups[0].length > 1 && groups[0].startsWith('0')) return null; // "0800 123 456"
  if (separators.length === 0) return Number(digits);

  const last = separators[separators.length - 1];
  const lastGroup = groups[groups.length - 1];
  let decimalSeparator: string | null;
  if (noCents || last === ' ' || last === "'") decimalSeparator = null;
  else if (separators.some((separator) => separator !== last)) decimalSeparator = last;
  else if (separators.length > 1) decimalSeparator = null;
  else {
    // One "," or ".": three digits after it group thousands ("1,299", "12.800"),
    // except after a zero or in a three-decimal currency ("0.750", "KWD 12.500").
    const groupsThousands =
      lastGroup.length === 3 && groups[0] !== '0' && !(last === '.' && currency && THREE_DECIMAL_CURRENCIES.has(currency));
    decimalSeparator = groupsThousands ? null : last;
  }

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

// ---------------------------------------------------------------------------------------------
// Words around an amount

function words(alternatives: string[]): string {
  return alternatives.map((word) => word.replace(/[.+]/g, (c) => `\\${c}`).replace(/ /g, '\\s*')).join('|');
}

/** A label before an amount: the last label with no digit between it and the amount. */
const PREFIX_LABELS: [PriceRole, RegExp][] = (
  [
    ['price', words(['now', 'sale', 'sale price', 'our price', 'price', 'your price', 'special price', 'offer price', 'current price', 'deal price', 'from', 'only', 'just', 'today', 'inc vat', 'incl. vat', 'including vat', 'inkl. mwst.', 'jetzt', 'nur', 'ab', 'maintenant', 'prix', 'ahora', 'precio', 'adesso', 'prezzo', 'cena', 'pris'])],
    ['regular', words(['regular price', 'regular', 'reg.', 'reg', 'list price', 'list', 'normal price', 'normalpreis', 'standard price'])],
    ['was', words(['was', 'were', 'previously', 'prev.', 'before', 'old price', 'original price', 'originally', 'rrp', 'srp', 'msrp', 'uvp', 'compare at', 'compare-at', 'compared at', 'compare', 'instead of', 'statt', 'anstatt', 'vorher', 'bisher', 'ehemals', 'avant', 'au lieu de', 'ancien prix', 'prix barré', 'antes', 'prima', 'era', 'retail price', 'retail', 'typical price', 'usual price', 'normally', 'value', 'worth', 'high street price'])],
    ['saving', words(['save', 'you save', 'saving', 'savings', 'discount', 'reduced by', 'sparen', 'sie sparen', 'ersparnis', 'économisez', 'economisez', 'ahorra', 'ahorras', 'ahorro', 'risparmi', 'risparmia', 'bespaar'])],
    ['instalment', `${words(['payments of', 'payment of', 'instalments of', 'installments of', 'instalments', 'installments', 'interest-free', 'interest free', 'monthly payments', 'klarna', 'afterpay', 'clearpay', 'affirm', 'laybuy', 'sezzle', 'paypal', 'ratenzahlung', 'raten', 'rate da', 'cuotas de', 'mensualités de'])}|pay\\s*in\\s*\\d+|en\\s*\\d+\\s*fois|\\d+\\s*x(?:\\s*de)?`],
    ['shipping', words(['shipping', 'delivery', 'postage', 'p&p', 'p+p', 'freight', 'carriage', 'versand', 'versandkosten', 'livraison', 'frais de port', 'envío', 'envio', 'spedizione', 'porto'])],
    ['threshold', words(['over', 'above', 'orders over', 'orders of', 'spend', 'when you spend', 'minimum', 'minimum order', 'min.'])],
    ['multibuy', `\\d+\\s*(?:for|für|pour)|any\\s*\\d+\\s*for|buy\\s*\\d+`],
    ['unit', `${words(['unit price', 'price per', 'per', 'grundpreis', 'prix au kilo', 'prix au kg', 'prix au litre', 'prix unitaire', 'precio por', 'precio unitario', 'prezzo al kg', 'prezzo unitario', 'jämförpris', 'kilopris', 'literpris'])}|per\\s*\\d+\\s*\\p{L}+`],
    ['excl-tax', `(?:ex|exc|excl|excluding|exclusive of|zzgl|plus|hors|sans|sin|before)\\.?\\s*(?:vat|tax|taxes|gst|mwst|ust|btw|tva|iva|moms)|${words(['net', 'netto', 'net price'])}`],
  ] as [PriceRole, string][]
).map(([role, alternatives]) => [role, new RegExp(`(?<![\\p{L}\\d])(?:${alternatives})(?!\\p{L})(?=\\D*$)`, 'giu')]);

const UNITS =
  'kg|kilo|kilogram|g|gr|gram|grams|mg|lb|lbs|oz|fl\\.?\\s?oz|l|ltr|litre|liter|litres|liters|ml|cl|dl|m|cm|mm|m2|m²|m3|m³|' +
  'sq\\.?\\s?ft|ft|yd|unit|units|item|items|piece|pieces|pc|pcs|stk|stück|st|count|ct|sheet|sheets|wash|washes|dose|doses|' +
  'tablet|tablets|capsule|capsules|serving|servings|kilo';
const PERIODS = 'month|months|mo|mth|mnth|week|wk|year|yr|annum|day|monat|mois|mes|mese';
const TAXES = 'vat|tax|taxes|gst|mwst|ust|btw|tva|iva|moms';

/** Words right after an amount that belong to it. `null` role: belongs to it, changes nothing. */
const SUFFIXES: [PriceRole | null, RegExp][] = (
  [
    ['unit', `(?:/|per\\b|pro\\b|par\\b|le\\b|la\\b|au\\b)\\s*(?:\\d+(?:[.,]\\d+)?\\s*)?(?:${UNITS})\\.?(?!\\p{L})|(?:each|ea|apiece)\\b`],
    ['period', `(?:/|per\\s|a\\s|an\\s|every\\s)\\s*(?:${PERIODS})\\.?(?!\\p{L})|(?:monthly|p/m|pcm|pm)(?!\\p{L})`],
    ['excl-tax', `(?:ex|exc|excl|excluding|zzgl|plus|\\+|hors|sans|before)\\.?\\s*(?:${TAXES})\\.?(?!\\p{L})|(?:HT|net|netto)(?!\\p{L})`],
    [null, `(?:inc|incl|including|inkl|inklusive|incl|incluido|iva incluido)\\.?\\s*(?:${TAXES})\\.?(?!\\p{L})|TTC(?!\\p{L})`],
    ['saving', `off(?!\\p{L})`],
  ] as [PriceRole | null, string][]
).map(([role, pattern]) => [role, new RegExp(`^[\\s(*]*(?:${pattern})\\)?`, 'iu')]);

/** Labels that follow an amount only at the end of the text ("£30 RRP", "+ £3.99 delivery"). */
const TAIL_SUFFIXES: [PriceRole, RegExp][] = (
  [
    ['was', 'rrp|uvp|msrp|srp|was|list'],
    ['shipping', 'shipping|delivery|postage|p&p|versand|livraison'],
  ] as [PriceRole, string][]
).map(([role, pattern]) => [role, new RegExp(`^[\\s(*]*(?:${pattern})(?!\\p{L})`, 'iu')]);

/** What follows a bare number that counts things rather than money. */
const NOT_MONEY_AFTER = new RegExp(`^(?:\\p{L}| ?%| ?(?:${UNITS}|x|left|in stock|reviews?|ratings?|stars?|out of)(?!\\p{L}))`, 'iu');

const RANGE_JOINER = /^\s*(?:-|–|—|to|bis|à|a|til|till)\s*$/i;

function labelBefore(text: string): PriceRole | null {
  const window = text.slice(-60);
  let best: { role: PriceRole; end: number; length: number } | null = null;
  for (const [role, pattern] of PREFIX_LABELS) {
    for (const match of window.matchAll(pattern)) {
      const end = match.index + match[0].length;
      if (!best || end > best.end || (end === best.end && match[0].length > best.length)) {
        best = { role, end, length: match[0].length };
      }
    }
  }
  return best?.role ?? null;
}

function labelAfter(text: string, atEnd: boolean): { role: PriceRole | null; length: number } | null {
  for (const [role, pattern] of atEnd ? [...SUFFIXES, ...TAIL_SUFFIXES] : SUFFIXES) {
    const match = pattern.exec(text);
    if (match) return { role, length: match[0].length };
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// Mentions

/** Collapses every kind of space (NBSP, thin, narrow) and drops invisible characters. */
export function normalizePriceText(text: string): string {
  return text
    .replace(/[\u200b-\u200f\u2060\ufeff]/g, '')
    .replace(/\u2212/g, '-')
    .replace(/\s+/g, ' ')
    .trim();
}

function normalizeHint(hint: string | null | undefined): string | null {
  const code = hint?.trim().toUpperCase();
  return code && /^[A-Z]{3}$/.test(code) ? code : null;
}

type PlacedSign = CurrencySign & { start: number; end: number };

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
}

/** Every well-formed number with the currency signs next to it. */
function writtenNumbers(text: string, hint: string | null): WrittenNumber[] {
  const numbers: WrittenNumber[] = [];
  NUMBER.lastIndex = 0;
  for (let match = NUMBER.exec(text); match; match = NUMBER.exec(text)) {
    const start = match.index;
    // Try the longest reading first, then cut at spaces: "£1.50 100g" is £1.50 then 100g.
    for (let written = match[0]; written; written = written.includes(' ') ? written.slice(0, written.lastIndexOf(' ')) : '') {
      if (readNumber(written) === null) continue;
      const end = start + written.length;
      NUMBER.lastIndex = end;
      numbers.push({ start, end, written, before: signBefore(text, start, hint), after: signAfter(text, end, hint) });
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
  return numbers;
}

/** Every amount in the text, without roles. */
function numberTokens(text: string, hint: string | null): NumberToken[] {
  const tokens: NumberToken[] = [];
  for (const { start, end, written, before, after } of writtenNumbers(text, hint)) {
    const sign = before ?? after;
    const amount = readNumber(written, sign?.currency ?? hint)!;
    const pence = !sign && /^\d{1,2}$/.test(written) && /^[p¢](?!\p{L})/u.test(text.slice(end));
    if (pence) {
      const currency = text[end] === 'p' ? 'GBP' : 'USD';
      tokens.push({ start, end: end + 1, amount: amount / 100, sign: { sign: text[end], currency, certain: true } });
    } else if (sign) {
      tokens.push({ start: before?.start ?? start, end: before ? end : after!.end, amount, sign });
    } else if (!LETTER.test(text[start - 1] ?? '') && !NOT_MONEY_AFTER.test(text.slice(end, end + 20))) {
      tokens.push({ start, end, amount, sign: null }); // a bare number, not "SKU123", "500 ml" or "20%"
    }
  }
  return tokens;
}

/** Every amount in the text with its currency and role, in reading order. */
export function findPriceMentions(text: string, opts?: PriceTextOptions): PriceMention[] {
  const clean = normalizePriceText(text);
  const hint = normalizeHint(opts?.currencyHint);
  const tokens = numberTokens(clean, hint);
  // Bare numbers count only when no amount in the text carries a currency.
  const withCurrency = tokens.filter((token) => token.sign);
  const chosen = withCurrency.length > 0 ? withCurrency : tokens;

  const mentions: PriceMention[] = [];
  const prefixRoles: (PriceRole | null)[] = [];
  const suffixRoles: (PriceRole | null)[] = [];
  const repeats = new Set<number>();
  const roleOf = (index: number) => suffixRoles[index] ?? prefixRoles[index] ?? 'price';

  chosen.forEach((token, index) => {
    const mention: PriceMention = {
      amount: token.amount,
      currency: token.sign ? token.sign.currency : hint,
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
        suffixRoles[index - 1] = suffix.role;
        prefix = gap.slice(suffix.length);
      }
    }
    if (prefix.endsWith('-')) mention.amount = -mention.amount; // "-£5.00", not "Add to basket - £5.00"
    const label = labelBefore(prefix);
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
    if (tail) suffixRoles[chosen.length - 1] = tail.role;
  }
  mentions.forEach((mention, index) => (mention.role = repeats.has(index) ? mentions[index - 1].role : roleOf(index)));
  return mentions;
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
  for (const role of WEAK_ROLES) if (pool.length === 0) pool = positive.filter((mention) => mention.role === role);

  if (pool.length === 0) {
    const distractor = positive.find((mention) => mention.role !== 'range-end');
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
