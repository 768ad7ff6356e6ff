/**
 * Pricing rules: what an own product's price should be, given the competitors linked to it, and
 * why (docs/pricing.md, docs/decisions/0014-pricing-rules.md). Pure: the same function answers
 * today's recommendation and every day of a backtest.
 *
 * Money is worked in the currency's minor units (integers), so rounding, the floor, the ceiling
 * and the step compare exactly. The order is: the strategy's target, rounded in the strategy's
 * direction, then kept within the floor, the ceiling and the step. The floor always wins over
 * rounding (a rounded price is never below it); when the floor or ceiling lies more than a step
 * away from the current price, no price keeps every promise, so the rule holds and says why.
 */
import { judgeOffers, type CompetitorOffer } from './position.ts';
import { currencyDecimals, formatMoney } from './money.ts';

export const STRATEGIES = ['match-cheapest', 'beat-cheapest', 'second-cheapest', 'average', 'stay-cheapest-by'] as const;
export type Strategy = (typeof STRATEGIES)[number];
export const ROUNDINGS = ['.99', '.95', '.00', 'none'] as const;
export type Rounding = (typeof ROUNDINGS)[number];

export type PricingRule = {
  strategy: Strategy;
  /** beat-cheapest and stay-cheapest-by: how far under the cheapest; average: above (+) or below (−) it. */
  offsetPercent: number | null;
  /** beat-cheapest: by an amount instead of a percent. */
  offsetAmount: number | null;
  /** The lowest price allowed: cost plus a margin, an amount, or the higher of both. */
  floor: { costMarginPercent: number | null; amount: number | null };
  /** The highest: an amount, the regular (compare-at) price, or the lower of both. */
  ceiling: { amount: number | null; regular: boolean };
  rounding: Rounding;
  /** The largest change from the current price, in percent. */
  maxStepPercent: number;
  /** Hold with fewer counted competitors than this. */
  minCompetitors: number;
  /** Hold when a counted competitor moved more than this far from its 30-day median within a day. */
  spikePercent: number;
  /** The competitors that count (tracked product ids); null for every linked one. */
  competitors: string[] | null;
};

export const RULE_DEFAULTS = { rounding: 'none', maxStepPercent: 10, minCompetitors: 2, spikePercent: 40 } as const;

/** A linked competitor as the rule sees it: its offer now, where in the log it was read, and its recent history. */
export type PricedOffer = CompetitorOffer & {
  /** The log position of the observation its price comes from. */
  eventPosition: number | null;
  /** The median of its daily closing prices over the 30 days before today; null without history, or when its price did not move within a day (only a spike needs it). */
  median30: number | null;
  /** When its price last changed (ISO); null when it never has. */
  changedAt: string | null;
};

export type OwnSide = { price: number; currency: string; cost: number | null; regularPrice: number | null };

export type Evidence = { productId: string; name: string; price: number; currency: string; observedAt: string; eventPosition: number | null };
export type Constraint = 'target' | 'rounding' | 'floor' | 'ceiling' | 'step';
export type RecommendationStatus = 'change' | 'keep' | 'hold';

export type Recommendation = {
  status: RecommendationStatus;
  /** The recommended price; null when held back. */
  price: number | null;
  currentPrice: number;
  currency: string;
  /** Sentences for the owner: what was counted, the arithmetic, the bounds; or why it holds. */
  explanation: string[];
  /** Every counted competitor observation the recommendation used. */
  evidence: Evidence[];
  bounds: { floor: number | null; ceiling: number | null; decidedBy: Constraint | null };
  /** The strategy's target before rounding and bounds; null when it could not be computed. */
  target: number | null;
  /** The counted competitors' cheapest and average price; null with none counted. */
  cheapest: number | null;
  average: number | null;
};

const DAY_MS = 86_400_000;

// ---------------------------------------------------------------------------------------------
// Minor units

const scaleOf = (currency: string) => 10 ** currencyDecimals(currency);
/** An amount in minor units, snapped to the nearest unit first so 0.1 + 0.2 does not land below 30. */
const exact = (amount: number, scale: number) => Math.round(amount * scale * 1e6) / 1e6;
const down = (amount: number, scale: number) => Math.floor(exact(amount, scale));
const up = (amount: number, scale: number) => Math.ceil(exact(amount, scale));

/**
 * The price ending in minor units (`.99` is 99 of 100), or null when the currency has fewer than
 * two decimals: a yen price has no pence to end in, so it is rounded to whole units.
 */
function endingOf(rounding: Rounding, scale: number): number | null {
  if (rounding === 'none') return null;
  if (scale < 100) return 0;
  return Math.round(Number(rounding) * scale);
}

/** The price with the rule's ending nearest `minor` in `direction`. */
export function roundToEnding(minor: number, rounding: Rounding, scale: number, direction: 'down' | 'up' | 'nearest'): number {
  const ending = endingOf(rounding, scale);
  const unit = scale < 100 ? 1 : scale;
  if (ending === null) return minor;
  const below = Math.floor((minor - ending) / unit) * unit + ending;
  const above = below === minor ? minor : below + unit;
  if (direction === 'down') return below;
  if (direction === 'up') return above;
  return minor - below <= above - minor ? below : above;
}

// ---------------------------------------------------------------------------------------------
// Words

const money = (minorOrAmount: number, currency: string, isMinor = true) => formatMoney(isMinor ? minorOrAmount / scaleOf(currency) : minorOrAmount, currency);

/** "5 min ago", "2 h ago", "3 days ago". */
export function ago(at: string, now: Date): string {
  const minutes = Math.max(0, Math.round((now.getTime() - Date.parse(at)) / 60_000));
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  const hours = Math.round(minutes / 60);
  if (hours < 48) return `${hours} h ago`;
  return `${Math.round(hours / 24)} days ago`;
}

const percentText = (p: number) => `${Number(p.toFixed(2))}%`;
const shopOf = (offer: CompetitorOffer) => offer.host || offer.name;

// ---------------------------------------------------------------------------------------------
// The rule

/** The spike hold: a counted competitor whose price changed within a day and now lies far from its 30-day median. */
export function isSpike(offer: PricedOffer, spikePercent: number, now: Date): boolean {
  if (offer.price === null || offer.median30 === null || offer.median30 <= 0 || offer.changedAt === null) return false;
  if (now.getTime() - Date.parse(offer.changedAt) > DAY_MS) return false;
  return (Math.abs(offer.price - offer.median30) / offer.median30) * 100 > spikePercent;
}

/** The floor and ceiling in force, in major units; `floorProblem` when the rule's floor cannot be computed. */
export function boundsOf(rule: PricingRule, own: OwnSide): { floor: number | null; ceiling: number | null; floorText: string; floorProblem: string | null } {
  const parts: { value: number; text: string }[] = [];
  if (rule.floor.costMarginPercent !== null && own.cost !== null) {
    const value = own.cost * (1 + rule.floor.costMarginPercent / 100);
    parts.push({ value, text: `cost ${money(own.cost, own.currency, false)} + ${percentText(rule.floor.costMarginPercent)}` });
  }
  if (rule.floor.amount !== null) parts.push({ value: rule.floor.amount, text: 'the amount you set' });
  const highest = parts.reduce<(typeof parts)[number] | null>((best, p) => (best === null || p.value > best.value ? p : best), null);
  const ceilings = [rule.ceiling.amount, rule.ceiling.regular ? own.regularPrice : null].filter((c): c is number => c !== null);
  return {
    floor: highest?.value ?? null,
    ceiling: ceilings.length ? Math.min(...ceilings) : null,
    floorText: highest?.text ?? '',
    floorProblem: highest ? null : 'The rule sets its floor from the cost, and this product has no cost: add the cost or a floor amount.',
  };
}

type Target = { value: number; direction: 'down' | 'nearest'; sentence: string } | { keep: true; sentence: string } | { hold: string };

function targetOf(rule: PricingRule, counted: PricedOffer[], own: OwnSide, scale: number): Target {
  const sorted = [...counted].sort((a, b) => a.price! - b.price!);
  const cheapest = sorted[0]!;
  const low = cheapest.price!;
  const c = own.currency;
  const offset = rule.offsetPercent ?? 0;
  switch (rule.strategy) {
    case 'match-cheapest':
      return { value: low, direction: 'down', sentence: `Match the cheapest → ${money(low, c, false)}.` };
    case 'beat-cheapest': {
      const value = rule.offsetAmount !== null ? low - rule.offsetAmount : low * (1 - offset / 100);
      const by = rule.offsetAmount !== null ? money(rule.offsetAmount, c, false) : percentText(offset);
      return { value: Math.max(0, value), direction: 'down', sentence: `Beat by ${by} → ${money(down(Math.max(0, value), scale), c)}.` };
    }
    case 'second-cheapest': {
      const second = sorted[1];
      if (!second) return { hold: 'Second-cheapest needs at least two counted competitors.' };
      return {
        value: second.price!,
        direction: 'down',
        sentence: `Second-cheapest counted competitor: ${shopOf(second)} at ${money(second.price!, c, false)}.`,
      };
    }
    case 'average': {
      const average = sorted.reduce((sum, o) => sum + o.price!, 0) / sorted.length;
      const value = average * (1 + offset / 100);
      const shift = offset === 0 ? '' : ` ${offset > 0 ? '+' : '−'} ${percentText(Math.abs(offset))}`;
      return {
        value,
        direction: 'nearest',
        sentence: `Average of ${sorted.length} counted: ${money(average, c, false)}${shift} → ${money(Math.round(exact(value, scale)), c)}.`,
      };
    }
    case 'stay-cheapest-by': {
      const limit = low * (1 - offset / 100);
      if (up(own.price, scale) <= down(limit, scale)) {
        return {
          keep: true,
          sentence: `Your price is already at least ${percentText(offset)} under the cheapest (at most ${money(down(limit, scale), c)}); moving up is never needed to stay cheapest.`,
        };
      }
      return { value: limit, direction: 'down', sentence: `Stay ${percentText(offset)} under the cheapest → ${money(down(limit, scale), c)}.` };
    }
  }
}

/**
 * The recommendation for one own product under `rule` at `now`. Counted competitors follow the
 * position rules (priced, the owner's currency, in stock, read within two check intervals),
 * narrowed to the rule's chosen competitors.
 */
export function recommend(rule: PricingRule, own: OwnSide, offers: readonly PricedOffer[], now: Date): Recommendation {
  const currency = own.currency;
  const scale = scaleOf(currency);
  const chosen = rule.competitors ? offers.filter((o) => rule.competitors!.includes(o.productId)) : [...offers];
  const judged = judgeOffers(own, chosen, now);
  const counted = chosen.filter((_, i) => judged[i]!.counted);
  const evidence: Evidence[] = counted.map((o) => ({
    productId: o.productId,
    name: o.name,
    price: o.price!,
    currency: o.currency!,
    observedAt: o.lastPriceAt!,
    eventPosition: o.eventPosition,
  }));
  const { floor, ceiling, floorText, floorProblem } = boundsOf(rule, own);
  const cheapestOffer = counted.reduce<PricedOffer | null>((best, o) => (best === null || o.price! < best.price! ? o : best), null);
  const base = {
    currentPrice: own.price,
    currency,
    evidence,
    cheapest: cheapestOffer?.price ?? null,
    average: counted.length ? counted.reduce((s, o) => s + o.price!, 0) / counted.length : null,
  };
  const hold = (reasons: string[], decidedBy: Constraint | null = null): Recommendation => ({
    ...base,
    status: 'hold',
    price: null,
    explanation: reasons,
    bounds: { floor, ceiling, decidedBy },
    target: null,
  });

  const reasons: string[] = [];
  if (floorProblem) reasons.push(floorProblem);
  if (counted.length < Math.max(1, rule.minCompetitors)) {
    const left = judged.filter((o) => !o.counted);
    const why = left.length ? `; left out: ${left.map((o) => `${shopOf(o)} (${o.reason})`).join(', ')}` : '';
    reasons.push(`Only ${counted.length} of ${chosen.length} chosen competitors counted, and the rule needs ${rule.minCompetitors}${why}.`);
  }
  for (const o of counted) {
    if (isSpike(o, rule.spikePercent, now)) {
      reasons.push(
        `${shopOf(o)} moved to ${money(o.price!, currency, false)} within a day, ${percentText(Math.round((Math.abs(o.price! - o.median30!) / o.median30!) * 100))} from its 30-day median of ${money(o.median30!, currency, false)}: likely a glitch or a flash sale.`,
      );
    }
  }
  if (floor !== null && ceiling !== null && up(floor, scale) > down(ceiling, scale)) {
    reasons.push(`Your ceiling of ${money(ceiling, currency, false)} is below your floor of ${money(floor, currency, false)}.`);
  }
  if (reasons.length) return hold(reasons);

  const lead = `Cheapest counted competitor: ${shopOf(cheapestOffer!)} at ${money(cheapestOffer!.price!, currency, false)} (checked ${ago(cheapestOffer!.lastPriceAt!, now)}).`;
  const target = targetOf(rule, counted, own, scale);
  if ('hold' in target) return hold([target.hold]);

  const current = Math.round(exact(own.price, scale));
  const floorMinor = up(floor!, scale);
  const ceilingMinor = ceiling === null ? Number.POSITIVE_INFINITY : down(ceiling, scale);
  const step = Math.max(0, rule.maxStepPercent) / 100;
  const stepLow = up(own.price * (1 - step), scale);
  const stepHigh = down(own.price * (1 + step), scale);
  const low = Math.max(floorMinor, stepLow);
  const high = Math.min(ceilingMinor, stepHigh);
  const floorSentence = `floor of ${money(floorMinor, currency)} (${floorText})`;
  const stepSentence = `step limit of ${percentText(rule.maxStepPercent)}`;
  if (low > high) {
    const which = floorMinor > stepHigh ? `your ${floorSentence}` : `your ceiling of ${money(ceilingMinor, currency)}`;
    // The step kept it from a price within the bounds.
    return hold(
      [lead, `Your price of ${money(current, currency)} is more than the ${stepSentence} away from ${which}: change it by hand, or widen the step.`],
      'step',
    );
  }

  let result: number;
  let decidedBy: Constraint;
  const explanation = [lead, target.sentence];
  if ('keep' in target) {
    result = current;
    decidedBy = 'target';
  } else {
    const targetMinor = target.direction === 'down' ? down(target.value, scale) : Math.round(exact(target.value, scale));
    result = roundToEnding(targetMinor, rule.rounding, scale, target.direction);
    decidedBy = result === targetMinor ? 'target' : 'rounding';
    if (decidedBy === 'rounding')
      explanation.push(`Rounded ${target.direction === 'down' ? 'down' : 'to the nearest'} ${rule.rounding} → ${money(result, currency)}.`);
  }
  // A rounded bound must not carry the price past where it stands: rounding up from a floor or
  // step below the current price would move it up while the target says down (and vice versa).
  if (result < low) {
    const rounded = roundToEnding(low, rule.rounding, scale, 'up');
    result = rounded <= (current >= low ? Math.min(high, current) : high) ? rounded : low;
    decidedBy = low === floorMinor ? 'floor' : 'step';
    explanation.push(
      decidedBy === 'floor'
        ? `Held up by your ${floorSentence} → ${money(result, currency)}.`
        : `Held to the ${stepSentence} from ${money(current, currency)} → ${money(result, currency)}.`,
    );
  } else if (result > high) {
    const rounded = roundToEnding(high, rule.rounding, scale, 'down');
    result = rounded >= (current <= high ? Math.max(low, current) : low) ? rounded : high;
    decidedBy = high === ceilingMinor ? 'ceiling' : 'step';
    explanation.push(
      decidedBy === 'ceiling'
        ? `Held down by your ceiling of ${money(ceilingMinor, currency)} → ${money(result, currency)}.`
        : `Held to the ${stepSentence} from ${money(current, currency)} → ${money(result, currency)}.`,
    );
  } else {
    const ceilingText = ceiling === null ? '' : `, ceiling of ${money(ceilingMinor, currency)}`;
    explanation.push(`Within your ${floorSentence}${ceilingText} and ${stepSentence}.`);
  }
  const status: RecommendationStatus = result === current ? 'keep' : 'change';
  if (status === 'keep') explanation.push(`Your price of ${money(current, currency)} already satisfies the rule.`);
  return {
    ...base,
    status,
    price: result / scale,
    explanation,
    bounds: { floor, ceiling, decidedBy },
    target: 'keep' in target ? own.price : target.value,
  };
}
