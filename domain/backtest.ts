/**
 * What a pricing rule would have done: the recorded competitor prices replayed day by day through
 * the same `recommend` as today's recommendation, with the rule's own price carried from one day
 * to the next (it starts at the owner's actual price). Pure.
 *
 * A competitor's day is its last observation of that UTC day (its close). At the end of each day
 * the rule sees every competitor's latest close: one read that day counts as fresh, an older one
 * is judged by its age as today's position does (stale after two check intervals); its 30-day
 * median is over the closes of the 30 days before.
 */
import { positionOf, type Availability, type Band } from './position.ts';
import { recommend, type OwnSide, type PricedOffer, type PricingRule, type RecommendationStatus } from './pricing.ts';

export type DailyClose = {
  /** YYYY-MM-DD (UTC). */
  day: string;
  price: number;
  currency: string | null;
  availability: Availability | null;
  /** When the day's last observation was read (ISO) and its log position. */
  lastAt: string;
  eventPosition: number;
};

export type BacktestCompetitor = { productId: string; name: string; host: string; checkIntervalMinutes: number; closes: readonly DailyClose[] };

export type BacktestDay = {
  date: string;
  /** The owner's price at the end of the day; null before the product had one. */
  actual: number | null;
  /** The price the rule would have had at the end of the day. */
  recommended: number | null;
  status: RecommendationStatus | null;
  cheapest: number | null;
  average: number | null;
  /** The band the rule's price would have held; null with no competitor counted. */
  band: Band | null;
};

export type BandDays = Record<Band, number>;

export type Backtest = {
  days: BacktestDay[];
  changes: number;
  daysBy: BandDays;
  actualDaysBy: BandDays;
  /** (price − cost) ÷ cost at the rule's lowest, in percent; null without a cost. */
  lowestMarginPercent: number | null;
  /** Days the floor decided the price, or kept the rule from reaching its target. */
  floorHits: number;
  stepHits: number;
};

const DAY_MS = 86_400_000;

function median(values: number[]): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The UTC day (YYYY-MM-DD) of a time in milliseconds. */
export const dayOf = (t: number) => new Date(t).toISOString().slice(0, 10);

/** A competitor as the rule saw it at the end of `day`: its latest close, the last change and the prior 30 days' median. */
function offerAt(c: BacktestCompetitor, cursor: { i: number; changedAt: string | null }, day: string, end: Date): PricedOffer {
  while (cursor.i + 1 < c.closes.length && c.closes[cursor.i + 1]!.day <= day) {
    const next = c.closes[cursor.i + 1]!;
    const prev = cursor.i >= 0 ? c.closes[cursor.i]! : null;
    if (prev && prev.price !== next.price) cursor.changedAt = next.lastAt;
    cursor.i++;
  }
  const close = cursor.i >= 0 ? c.closes[cursor.i]! : null;
  const since = dayOf(Date.parse(`${day}T00:00:00Z`) - 30 * DAY_MS);
  const window: number[] = [];
  for (let j = cursor.i; j >= 0; j--) {
    const d = c.closes[j]!.day;
    if (d < since) break;
    if (d < day) window.push(c.closes[j]!.price);
  }
  return {
    productId: c.productId,
    name: c.name,
    host: c.host,
    price: close?.price ?? null,
    currency: close?.currency ?? null,
    availability: close?.availability ?? null,
    // A price read during the day stands for that day; one from an earlier day is judged by its age.
    lastPriceAt: close ? (close.day === day ? end.toISOString() : close.lastAt) : null,
    checkIntervalMinutes: c.checkIntervalMinutes,
    eventPosition: close?.eventPosition ?? null,
    median30: median(window),
    changedAt: cursor.changedAt,
  };
}

/**
 * The rule replayed over the days from `from` (YYYY-MM-DD) to `now`'s day. `ownPoints` are the
 * owner's prices in time order; the owner's cost and regular price are today's.
 */
export function backtest(input: {
  rule: PricingRule;
  own: Omit<OwnSide, 'price'>;
  ownPoints: readonly { at: number; price: number }[];
  competitors: readonly BacktestCompetitor[];
  from: string;
  now: Date;
  competitivePercent: number;
}): Backtest {
  const { rule, own, ownPoints, competitors, now, competitivePercent } = input;
  const cursors = competitors.map(() => ({ i: -1, changedAt: null as string | null }));
  const result: Backtest = {
    days: [],
    changes: 0,
    daysBy: { cheapest: 0, competitive: 0, above: 0 },
    actualDaysBy: { cheapest: 0, competitive: 0, above: 0 },
    lowestMarginPercent: null,
    floorHits: 0,
    stepHits: 0,
  };
  let ownIndex = -1;
  let simulated: number | null = null;
  const today = dayOf(now.getTime());
  for (let t = Date.parse(`${input.from}T00:00:00Z`); dayOf(t) <= today; t += DAY_MS) {
    const date = dayOf(t);
    const end = new Date(Math.min(t + DAY_MS - 1, now.getTime()));
    while (ownIndex + 1 < ownPoints.length && ownPoints[ownIndex + 1]!.at <= end.getTime()) ownIndex++;
    const actual = ownIndex >= 0 ? ownPoints[ownIndex]!.price : null;
    const offers = competitors.map((c, k) => offerAt(c, cursors[k]!, date, end));
    if (actual === null) {
      result.days.push({ date, actual, recommended: null, status: null, cheapest: null, average: null, band: null });
      continue;
    }
    simulated ??= actual;
    const rec = recommend(rule, { ...own, price: simulated }, offers, end);
    if (rec.status === 'change') {
      simulated = rec.price!;
      result.changes++;
    }
    const decided = rec.bounds.decidedBy;
    if (decided === 'floor') result.floorHits++;
    if (decided === 'step') result.stepHits++;
    if (own.cost !== null && own.cost > 0) {
      const margin = Math.round(((simulated - own.cost) / own.cost) * 10_000) / 100;
      result.lowestMarginPercent = result.lowestMarginPercent === null ? margin : Math.min(result.lowestMarginPercent, margin);
    }
    const chosen = rule.competitors ? offers.filter((o) => rule.competitors!.includes(o.productId)) : offers;
    const mine = positionOf({ price: simulated, currency: own.currency }, chosen, { now: end, competitivePercent }).position;
    const theirs = positionOf({ price: actual, currency: own.currency }, chosen, { now: end, competitivePercent }).position;
    if (mine) result.daysBy[mine.band]++;
    if (theirs) result.actualDaysBy[theirs.band]++;
    result.days.push({
      date,
      actual,
      recommended: simulated,
      status: rec.status,
      cheapest: mine?.cheapest.price ?? null,
      average: mine?.average ?? null,
      band: mine?.band ?? null,
    });
  }
  return result;
}
