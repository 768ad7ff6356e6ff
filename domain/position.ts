/**
 * Where the owner's price stands among the competitor products linked to one of their own
 * products. Only offers a shopper could act on now are compared: priced, in the owner's
 * currency, orderable and read recently. The others are kept, each with the one reason it was
 * left out, so the screen can say what the position rests on.
 */

export type Availability = 'InStock' | 'OutOfStock' | 'PreOrder' | 'BackOrder';

/** A linked competitor as the read models know it. */
export type CompetitorOffer = {
  productId: string;
  name: string;
  host: string;
  price: number | null;
  currency: string | null;
  availability: Availability | null;
  /** When its price was last read by a successful check (ISO string), null if never. */
  lastPriceAt: string | null;
  /** Minutes between that product's scheduled checks. */
  checkIntervalMinutes: number;
};

export type ExclusionReason = 'no price' | 'stale' | 'out of stock' | 'other currency';

export type JudgedOffer = CompetitorOffer & { counted: boolean; reason: ExclusionReason | null };

export type Band = 'cheapest' | 'competitive' | 'above';

export type Position = {
  /** 1 when nobody counted is cheaper than the owner; ties do not push the owner down. */
  rank: number;
  /** Counted competitors plus the owner. */
  of: number;
  cheapest: { productId: string; price: number };
  average: number;
  highest: number;
  /** Own price minus the cheapest: negative when the owner is cheaper. */
  gap: number;
  /** The gap as a percentage of the cheapest price, null when that price is 0. */
  gapPercent: number | null;
  band: Band;
};

/** How far above the cheapest (in percent, 0..20) a price still reads as competitive. */
export const DEFAULT_COMPETITIVE_PERCENT = 5;
const MAX_COMPETITIVE_PERCENT = 20;

/** A price read more than this many check intervals ago is stale: at least one check since has failed. */
const FRESH_INTERVALS = 2;

/** The order summaries list reasons in. */
const REASONS: readonly ExclusionReason[] = ['no price', 'stale', 'out of stock', 'other currency'];

/**
 * Money differences to a millionth: prices are decimals held as floats, and 10.1 - 10 must not
 * read as more than 0.1. The rounded difference decides ties, rank and band alike, so they agree.
 */
const round6 = (x: number) => {
  const r = Math.round(x * 1e6) / 1e6;
  return r === 0 ? 0 : r;
};
const round2 = (x: number) => {
  const r = Math.round(x * 100) / 100;
  return r === 0 ? 0 : r;
};

function isFresh(lastPriceAt: string | null, intervalMinutes: number, now: Date): boolean {
  if (!lastPriceAt) return false;
  const at = Date.parse(lastPriceAt);
  if (Number.isNaN(at)) return false;
  // A reading stamped ahead of `now` (clock skew between workers) is as fresh as it gets.
  return now.getTime() - at <= FRESH_INTERVALS * Math.max(0, intervalMinutes) * 60_000;
}

/**
 * The single reason an offer is left out, checked in this order: no price, other currency, out
 * of stock, stale. An offer with no currency is left out as 'other currency': without one the
 * amount cannot be compared, and guessing the owner's currency could rank them against a
 * price in yen.
 */
function reasonFor(own: { currency: string }, offer: CompetitorOffer, now: Date): ExclusionReason | null {
  if (offer.price === null || !Number.isFinite(offer.price) || offer.price < 0) return 'no price';
  if (offer.currency === null || offer.currency.trim().toUpperCase() !== own.currency.trim().toUpperCase()) return 'other currency';
  if (offer.availability === 'OutOfStock') return 'out of stock';
  if (!isFresh(offer.lastPriceAt, offer.checkIntervalMinutes, now)) return 'stale';
  return null;
}

/** Every offer, in input order, marked counted or left out with its reason. */
export function judgeOffers(own: { currency: string }, offers: readonly CompetitorOffer[], now: Date): JudgedOffer[] {
  return offers.map((offer) => {
    const reason = reasonFor(own, offer, now);
    return { ...offer, counted: reason === null, reason };
  });
}

function clampPercent(percent: number): number {
  if (!Number.isFinite(percent)) return DEFAULT_COMPETITIVE_PERCENT;
  return Math.min(MAX_COMPETITIVE_PERCENT, Math.max(0, percent));
}

/** The owner's position among the counted offers; null when none counts. */
export function positionOf(
  own: { price: number; currency: string },
  offers: readonly CompetitorOffer[],
  opts: { now: Date; competitivePercent: number },
): { offers: JudgedOffer[]; position: Position | null } {
  const judged = judgeOffers(own, offers, opts.now);
  const counted = judged.filter((offer) => offer.counted);
  if (counted.length === 0) return { offers: judged, position: null };

  let cheapest = counted[0]!;
  let highest = cheapest.price!;
  let sum = 0;
  let cheaper = 0;
  for (const offer of counted) {
    const price = offer.price!;
    // Strictly lower only, so the first of equal prices in input order stays the cheapest.
    if (price < cheapest.price!) cheapest = offer;
    if (price > highest) highest = price;
    sum += price;
    if (round6(own.price - price) > 0) cheaper++;
  }
  const low = cheapest.price!;
  const gap = round6(own.price - low);
  const percent = clampPercent(opts.competitivePercent);
  const band: Band = gap <= 0 ? 'cheapest' : round6(own.price - low * (1 + percent / 100)) <= 0 ? 'competitive' : 'above';
  return {
    offers: judged,
    position: {
      rank: 1 + cheaper,
      of: counted.length + 1,
      cheapest: { productId: cheapest.productId, price: low },
      average: sum / counted.length,
      highest,
      gap,
      gapPercent: low === 0 ? null : round2(((own.price - low) / low) * 100),
      band,
    },
  };
}

/** "based on 3 of 5: 1 stale, 1 out of stock"; "based on 2 of 2" when nothing was left out. */
export function exclusionSummary(offers: readonly JudgedOffer[]): string {
  const counted = offers.filter((offer) => offer.counted).length;
  const base = `based on ${counted} of ${offers.length}`;
  const parts = REASONS.map((reason) => {
    const n = offers.filter((offer) => !offer.counted && offer.reason === reason).length;
    return n > 0 ? `${n} ${reason}` : null;
  }).filter((part): part is string => part !== null);
  return parts.length > 0 ? `${base}: ${parts.join(', ')}` : base;
}

export type PositionSummary = { index: number | null; cheapest: number; competitive: number; above: number; unpositioned: number };

/**
 * Across a catalogue: how many products sit in each band, and the price index, the mean of
 * own price ÷ competitors' average × 100 (100 = priced like the market, 95 = 5% below it).
 * Products whose competitors average 0 have no meaningful ratio and stay out of the index.
 */
export function summarisePositions(items: readonly { ownPrice: number; position: Position | null }[]): PositionSummary {
  const summary: PositionSummary = { index: null, cheapest: 0, competitive: 0, above: 0, unpositioned: 0 };
  let ratios = 0;
  let indexed = 0;
  for (const { ownPrice, position } of items) {
    if (!position) {
      summary.unpositioned++;
      continue;
    }
    summary[position.band]++;
    if (position.average > 0) {
      ratios += (ownPrice / position.average) * 100;
      indexed++;
    }
  }
  if (indexed > 0) summary.index = Math.round((ratios / indexed) * 10) / 10;
  return summary;
}
