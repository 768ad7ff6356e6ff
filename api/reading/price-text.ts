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
 * - was, saving, instalment, delivery, minimum-order, multi-buy and auction-estimate amounts are never taken;
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
import { findPriceMentions, normalizeHint, normalizePriceText } from './price-mentions.ts';
import type { PriceMention, PriceRole, PriceTextOptions } from './price-text-types.ts';

export type PriceReading =
  | { ok: true; amount: number; currency: string | null; mention: PriceMention }
  | { ok: false; code: 'no-price' | 'ambiguous'; reason: string; mentions: PriceMention[] };

/** The selling price written in `text`, or null when there is none or several. */
export function parsePriceText(text: string, opts?: PriceTextOptions): { amount: number; currency: string | null } | null {
  const reading = readPrice(text, opts);
  return reading.ok ? { amount: reading.amount, currency: reading.currency } : null;
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
  estimate: 'auction estimate',
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
