/**
 * Mentions in price text: the text normalised, every amount in it found with its currency sign,
 * and each given its role from the words around it and the amounts beside it.
 */
import type { PriceMention, PriceRole, PriceTextOptions } from './price-text-types.ts';
import { CURRENCY_CODES, LETTER, signAfter, signBefore, type Context, type CurrencySign, type PlacedSign } from './currency-signs.ts';
import { localeFacts } from './locale-formats.ts';
import { NUMBER, readNumberIn, SPACED_DECIMALS } from './written-numbers.ts';
import { FREE_CJK, FREE_SHIPPING_AFTER, FREE_WORD, labelAfter, labelBefore, NOT_MONEY_AFTER, RANGE_JOINER, type Label } from './price-labels.ts';

/** Decimal digits of every script but 0-9 (Arabic-Indic, Devanagari, Thai, Myanmar, full-width...), and ٫ ٬ ， ．. */
const OTHER_DIGITS = /[^\P{Nd}0-9]|[\u066b\u066c\uff0c\uff0e]/gu;
const ND = /\p{Nd}/u;
const digitValues = new Map<string, string>();

/** A digit of any script as 0-9: Unicode keeps each script's digits in runs of ten from zero. */
function westernDigit(character: string): string {
  if (character === '\u066b' || character === '\uff0e') return '.';
  if (character === '\u066c' || character === '\uff0c') return ',';
  let value = digitValues.get(character);
  if (value === undefined) {
    const code = character.codePointAt(0)!;
    let zero = code;
    while (zero > 0 && ND.test(String.fromCodePoint(zero - 1))) zero--;
    digitValues.set(character, (value = String((code - zero) % 10)));
  }
  return value;
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

export function normalizeHint(hint: string | null | undefined): string | null {
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
  labels.forEach((_label, index) => {
    if (repeats.has(index)) labels[index] = labels[index - 1];
  });
  mentions.forEach((mention, index) => {
    mention.role = labels[index] === 'incl-tax' ? 'price' : (labels[index] as PriceRole);
  });
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
  if (
    first.mention.currency !== second.mention.currency ||
    /[\p{L}\p{M}\d]/u.test(between) ||
    mentions.slice(first.index + 1, second.index).some((_m, i) => !repeats.has(first.index + 1 + i))
  )
    return;
  if (first.mention.amount <= 0 || second.mention.amount <= first.mention.amount) return;
  for (let index = second.index; index < mentions.length && (index === second.index || repeats.has(index)); index++) mentions[index].role = 'was';
}
