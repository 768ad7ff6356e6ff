/**
 * Pricing suggestions from a competitor's real price history. Pure: points in, figures and
 * suggestions out.
 *
 * The figures (current price against the range's median, lowest and highest; trend; how often
 * and by how much the price moves; time since the last change; promotions that were reversed;
 * the weekday changes cluster on) are computed once, written out as a figure sheet, and every
 * suggestion quotes only numbers from that sheet, so a language model that rewrites them can be
 * held to the same numbers.
 *
 * When the competitor is linked to the owner's own products, the owner's side (their price,
 * their position among the linked competitors and what their pricing rule recommends, all
 * computed elsewhere and passed in as data) joins the sheet and gets a suggestion of its own.
 */
import type { TimeFilter } from '../history/series.ts';
import { formatMoney } from '../../domain/money.ts';
import type { Band, ExclusionReason } from '../../domain/position.ts';
import type { RecommendationStatus } from '../../domain/pricing.ts';

export type PricingSuggestion = { title: string; description: string; confidence: number; recommendedAction: string };

export type HistoryPoint = { price: number; at: Date };

export type PriceFigures = {
  currency: string;
  range: TimeFilter;
  /** "last 30 days", "all time". */
  rangeLabel: string;
  points: number;
  /** Days between the first and the last point. */
  spanDays: number;
  first: number;
  current: number;
  min: number;
  max: number;
  median: number;
  /** Current against the median, lowest and highest, in percent (positive: above). */
  vsMedianPercent: number;
  /** First to current, in percent. */
  rangeChangePercent: number;
  /** Standard deviation over mean, in percent. */
  volatilityPercent: number;
  changes: number;
  rises: number;
  drops: number;
  /** Mean size of a change, in percent, whichever way. */
  averageChangePercent: number;
  largestDropPercent: number;
  largestRisePercent: number;
  /** Whole days since the price last changed; null without a change. */
  daysSinceLastChange: number | null;
  /** The last change in percent (negative: a cut); null without a change. */
  lastChangePercent: number | null;
  /** Cuts that were undone within a week, and their mean depth in percent. */
  promotions: number;
  promotionDepthPercent: number;
  /** The weekday most changes happen on, when the history is long enough to tell. */
  weekday: { name: string; changes: number } | null;
};

/**
 * One of the owner's own products this competitor is linked to, as the catalogue's position and
 * the product's pricing rule see it now: computed by the read models and passed in, never
 * worked out here.
 */
export type OwnerSide = {
  /** The own product's title, with its variant: "Kettle", "Kettle (Steel)". */
  name: string;
  price: number;
  currency: string;
  /** This competitor as that own product's position judged it; `cheapest`: it is the cheapest counted. */
  competitor: { price: number | null; currency: string | null; counted: boolean; reason: ExclusionReason | null; cheapest: boolean };
  /** The owner's position among the counted competitors; null when none counts. */
  position: { rank: number; of: number; band: Band; cheapest: number; gap: number; gapPercent: number | null } | null;
  /** What the own product's pricing rule says now; null without a rule. */
  rule: { status: RecommendationStatus; price: number | null; currentPrice: number; explanation: string[] } | null;
};

/** At most this many own products speak in one answer (a competitor is rarely linked to more). */
export const MAX_OWNER_SIDES = 3;

/** Below this much history a trend is noise: fewer points, or a shorter span. */
export const MIN_POINTS = 3;
export const MIN_SPAN_HOURS = 24;

const DAY = 86_400_000;
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** The median's period as an adjective: "30-day median". Its numbers are on the figure sheet's range line. */
const RANGE_MEDIANS: Record<TimeFilter, string> = {
  week: '7-day',
  month: '30-day',
  quarter: '3-month',
  year: "year's",
  all: 'all-time',
};

export const RANGE_LABELS: Record<TimeFilter, string> = {
  week: 'last 7 days',
  month: 'last 30 days',
  quarter: 'last 3 months',
  year: 'last year',
  all: 'tracked history',
};

const round = (n: number, places = 1) => Math.round(n * 10 ** places) / 10 ** places;
const percent = (from: number, to: number) => (from === 0 ? 0 : ((to - from) / from) * 100);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The figures of a history (oldest first), or null when it is too short to say anything. */
/** `timeZone`: the user's, whose weekdays the changes are counted on (UTC when not given). */
export function priceFigures(history: HistoryPoint[], opts: { range: TimeFilter; currency?: string | null; timeZone?: string }): PriceFigures | null {
  const points = [...history].sort((a, b) => a.at.getTime() - b.at.getTime());
  const spanMs = points.length ? points.at(-1)!.at.getTime() - points[0]!.at.getTime() : 0;
  if (points.length < MIN_POINTS || spanMs < MIN_SPAN_HOURS * 3_600_000) return null;

  const prices = points.map((p) => p.price);
  const first = prices[0]!;
  const current = prices.at(-1)!;
  const mid = median(prices);
  const mean = prices.reduce((a, b) => a + b, 0) / prices.length;
  const deviation = Math.sqrt(prices.reduce((a, p) => a + (p - mean) ** 2, 0) / prices.length);

  type Change = { at: Date; from: number; to: number; percent: number };
  const changes: Change[] = [];
  for (let i = 1; i < points.length; i++) {
    const from = points[i - 1]!.price;
    const to = points[i]!.price;
    if (to !== from) changes.push({ at: points[i]!.at, from, to, percent: percent(from, to) });
  }
  const cuts = changes.filter((c) => c.percent < 0);
  const raises = changes.filter((c) => c.percent > 0);
  const last = changes.at(-1) ?? null;

  // A promotion: a cut from the usual price that the next change, within a week, undoes. Only a
  // competitor that has a usual price (held at 40% of checks or more) runs promotions; one that
  // wanders up and down just changes often.
  const counts = new Map<number, number>();
  for (const price of prices) counts.set(price, (counts.get(price) ?? 0) + 1);
  const [usual, held] = [...counts].reduce((a, b) => (b[1] > a[1] ? b : a));
  const depths: number[] = [];
  if (held / prices.length >= 0.4) {
    changes.forEach((cut, i) => {
      const undo = changes[i + 1];
      if (cut.percent < 0 && cut.from === usual && undo && undo.to === usual && undo.at.getTime() - cut.at.getTime() <= 7 * DAY) depths.push(-cut.percent);
    });
  }

  let weekday: PriceFigures['weekday'] = null;
  if (changes.length >= 6 && spanMs >= 21 * DAY) {
    const counts = new Array(7).fill(0) as number[];
    const dayOf = new Intl.DateTimeFormat('en-GB', { weekday: 'long', timeZone: opts.timeZone ?? 'UTC' });
    for (const change of changes) counts[WEEKDAYS.indexOf(dayOf.format(change.at))]!++;
    const top = counts.indexOf(Math.max(...counts));
    if (counts[top]! >= 3 && counts[top]! / changes.length >= 0.4) weekday = { name: WEEKDAYS[top]!, changes: counts[top]! };
  }

  const now = points.at(-1)!.at.getTime();
  return {
    currency: opts.currency ?? 'GBP',
    range: opts.range,
    rangeLabel: RANGE_LABELS[opts.range],
    points: points.length,
    spanDays: Math.max(1, Math.round(spanMs / DAY)),
    first,
    current,
    min: Math.min(...prices),
    max: Math.max(...prices),
    median: round(mid, 2),
    vsMedianPercent: round(percent(mid, current)),
    rangeChangePercent: round(percent(first, current)),
    volatilityPercent: round(mean ? (deviation / mean) * 100 : 0),
    changes: changes.length,
    rises: raises.length,
    drops: cuts.length,
    averageChangePercent: round(changes.length ? changes.reduce((a, c) => a + Math.abs(c.percent), 0) / changes.length : 0),
    largestDropPercent: round(cuts.length ? Math.max(...cuts.map((c) => -c.percent)) : 0),
    largestRisePercent: round(raises.length ? Math.max(...raises.map((c) => c.percent)) : 0),
    daysSinceLastChange: last ? Math.floor((now - last.at.getTime()) / DAY) : null,
    lastChangePercent: last ? round(last.percent) : null,
    promotions: depths.length,
    promotionDepthPercent: round(depths.length ? depths.reduce((a, b) => a + b, 0) / depths.length : 0),
    weekday,
  };
}

const pct = (n: number) => `${round(Math.abs(n)).toFixed(1)}%`;
const days = (n: number) => `${n} day${n === 1 ? '' : 's'}`;

/**
 * The figures as short labelled lines: what a language model may quote, number for number. The
 * owner's side, when the competitor is linked to own products, follows the competitor's figures.
 */
export function figureSheet(f: PriceFigures, owners: readonly OwnerSide[] = []): string[] {
  const money = (n: number) => formatMoney(n, f.currency);
  const lines = [
    `Range: ${f.rangeLabel}, ${f.points} price checks over ${days(f.spanDays)}`,
    `Current price: ${money(f.current)}`,
    `First price in range: ${money(f.first)}`,
    `Median: ${money(f.median)}; lowest: ${money(f.min)}; highest: ${money(f.max)}`,
    `Current vs median: ${pct(f.vsMedianPercent)} ${f.vsMedianPercent < 0 ? 'below' : 'above'}`,
    `Change over the range: ${pct(f.rangeChangePercent)} ${f.rangeChangePercent < 0 ? 'down' : 'up'}`,
    `Volatility (standard deviation over mean): ${pct(f.volatilityPercent)}`,
    `Price changes: ${f.changes} (${f.drops} cuts, ${f.rises} rises), ${pct(f.averageChangePercent)} on average`,
  ];
  if (f.drops) lines.push(`Largest cut: ${pct(f.largestDropPercent)}`);
  if (f.rises) lines.push(`Largest rise: ${pct(f.largestRisePercent)}`);
  if (f.daysSinceLastChange !== null && f.lastChangePercent !== null) {
    lines.push(`Last change: ${f.lastChangePercent < 0 ? 'a cut' : 'a rise'} of ${pct(f.lastChangePercent)}, ${days(f.daysSinceLastChange)} ago`);
  }
  if (f.promotions) lines.push(`Temporary cuts undone within a week: ${f.promotions}, ${pct(f.promotionDepthPercent)} deep on average`);
  if (f.weekday) lines.push(`Most changes happen on a ${f.weekday.name}: ${f.weekday.changes} of ${f.changes}`);
  return [...lines, ...ownerSideSheet(owners)];
}

/**
 * The one honest answer for a history too short to read (`priceFigures` gave none): it says which
 * is missing, prices or the time between them.
 */
export function notEnoughHistory(history: readonly HistoryPoint[], rangeLabel: string): PricingSuggestion {
  const times = history.map((p) => p.at.getTime());
  const count = times.length;
  const shortSpan = count < 2 || Math.max(...times) - Math.min(...times) < MIN_SPAN_HOURS * 3_600_000;
  const prices = `${count} recorded price${count === 1 ? '' : 's'} in the ${rangeLabel}`;
  const need = 'Trends, medians and change patterns need';
  const spread = 'spread over at least a day';
  const description =
    count === 0
      ? `There are no prices for this product in the ${rangeLabel}, so there is nothing to compare yet.`
      : count >= MIN_POINTS
        ? `${prices}, all within a day. ${need} prices ${spread}.`
        : count === 1
          ? `Only ${prices}. ${need} at least ${MIN_POINTS} prices ${spread}.`
          : shortSpan
            ? `Only ${prices}, all within a day. ${need} at least ${MIN_POINTS} prices ${spread}.`
            : `Only ${prices}. ${need} at least ${MIN_POINTS}.`;
  return {
    title: 'Not enough price history yet',
    description,
    confidence: 0.95,
    recommendedAction: 'Keep this product monitored and ask again in a few days, or choose a longer time range.',
  };
}

/**
 * Grounded suggestions from the figures, most confident first (at most five). With the owner's
 * side, each linked own product (up to three) gets its suggestion first and the competitor's
 * readings fill the rest.
 */
export function suggestPricing(f: PriceFigures, owners: readonly OwnerSide[] = []): PricingSuggestion[] {
  const money = (n: number) => formatMoney(n, f.currency);
  // More checks over more days make every reading surer.
  const evidence = Math.min(1, f.points / 20) * Math.min(1, f.spanDays / 14);
  const sure = (base: number) => round(Math.min(0.95, base * (0.6 + 0.4 * evidence)), 2);
  const out: PricingSuggestion[] = [];
  const range = `${f.points} checks, ${money(f.min)} to ${money(f.max)}`;

  if (f.vsMedianPercent <= -3) {
    out.push({
      title: `Competitor is ${pct(f.vsMedianPercent)} below its ${RANGE_MEDIANS[f.range]} median`,
      description: `They now charge ${money(f.current)} against a median of ${money(f.median)} over the ${f.rangeLabel} (${range}).${f.current === f.min ? ' This is their lowest price in the range.' : ''}`,
      confidence: sure(0.85),
      recommendedAction:
        f.current === f.min
          ? 'Hold your price unless you sell the identical item: a price at the bottom of their range rarely lasts. If you must respond, match for a short, dated promotion rather than a permanent cut.'
          : 'Hold your price unless you sell the identical item; if you do, match only once the lower price has held for a week.',
    });
  } else if (f.vsMedianPercent >= 3) {
    out.push({
      title: `Competitor is ${pct(f.vsMedianPercent)} above its ${RANGE_MEDIANS[f.range]} median`,
      description: `They now charge ${money(f.current)} against a median of ${money(f.median)} over the ${f.rangeLabel} (${range}).${f.current === f.max ? ' This is their highest price in the range.' : ''}`,
      confidence: sure(0.85),
      recommendedAction: `You have room: staying below ${money(f.current)} keeps you cheaper, so consider raising your price towards it if you already win on price, or promote the gap if you do not.`,
    });
  }

  if (f.rangeChangePercent <= -5 && f.drops > f.rises) {
    out.push({
      title: `Prices are falling: down ${pct(f.rangeChangePercent)}`,
      description: `From ${money(f.first)} to ${money(f.current)} over the ${f.rangeLabel}, with ${f.drops} cuts and ${f.rises} rises.`,
      confidence: sure(0.8),
      recommendedAction: 'Do not follow every cut into a price war: compete on delivery, bundles or service, and revisit your price if the fall continues.',
    });
  } else if (f.rangeChangePercent >= 5 && f.rises > f.drops) {
    out.push({
      title: `Prices are rising: up ${pct(f.rangeChangePercent)}`,
      description: `From ${money(f.first)} to ${money(f.current)} over the ${f.rangeLabel}, with ${f.rises} rises and ${f.drops} cuts.`,
      confidence: sure(0.8),
      recommendedAction: 'The market is moving up: you can raise your price gradually and still stay competitive.',
    });
  }

  if (f.promotions >= 2) {
    out.push({
      title: 'Runs short promotions',
      description: `${f.promotions} cuts of ${pct(f.promotionDepthPercent)} on average were undone within a week.`,
      confidence: sure(0.75),
      recommendedAction: 'Do not match their temporary cuts; plan your own promotions at times when they are at full price.',
    });
  }

  if (f.changes >= 4) {
    out.push({
      title: 'Changes price often',
      description: `${f.changes} changes in the ${f.rangeLabel}, ${pct(f.averageChangePercent)} on average (${[
        f.drops ? `largest cut ${pct(f.largestDropPercent)}` : '',
        f.rises ? `largest rise ${pct(f.largestRisePercent)}` : '',
      ]
        .filter(Boolean)
        .join(', ')}); volatility ${pct(f.volatilityPercent)}.`,
      confidence: sure(0.7),
      recommendedAction: `Check this competitor at least daily and react only to moves larger than their usual ${pct(f.averageChangePercent)}; a drop alert at that size filters out the noise.`,
    });
  } else if (f.changes === 0 && f.spanDays >= 7) {
    out.push({
      title: `Stable at ${money(f.current)}`,
      description: `No price change in ${days(f.spanDays)} (${f.points} checks).`,
      confidence: sure(0.85),
      recommendedAction: 'A steady competitor: set your price on your own value and costs, and let alerts tell you when they move.',
    });
  }

  // A fresh change is news only from a competitor that rarely changes.
  const rarely = f.changes * 2 <= f.spanDays;
  if (rarely && f.daysSinceLastChange !== null && f.lastChangePercent !== null && f.daysSinceLastChange <= 2 && Math.abs(f.lastChangePercent) >= 3) {
    const cut = f.lastChangePercent < 0;
    out.push({
      title: cut ? `Fresh price cut of ${pct(f.lastChangePercent)}` : `Fresh price rise of ${pct(f.lastChangePercent)}`,
      description: `Their price changed ${f.daysSinceLastChange === 0 ? 'today' : days(f.daysSinceLastChange) + ' ago'} and is now ${money(f.current)}.`,
      confidence: sure(0.7),
      recommendedAction: cut
        ? 'It may be a short promotion: wait a few days before matching it.'
        : 'Watch whether it holds; if it does, there is room to raise your own price.',
    });
  } else if (f.daysSinceLastChange !== null && f.daysSinceLastChange >= 14) {
    out.push({
      title: `Unchanged for ${days(f.daysSinceLastChange)}`,
      description: `Their last change was ${f.lastChangePercent! < 0 ? 'a cut' : 'a rise'} of ${pct(f.lastChangePercent!)}; ${money(f.current)} has held since.`,
      confidence: sure(0.7),
      recommendedAction: 'Their price has settled: a good time to set yours deliberately against it.',
    });
  }

  if (f.weekday) {
    out.push({
      title: `Changes prices mostly on ${f.weekday.name}s`,
      description: `${f.weekday.changes} of their ${f.changes} changes in the ${f.rangeLabel} happened on a ${f.weekday.name}.`,
      confidence: sure(0.65),
      recommendedAction: `Review your own prices after their ${f.weekday.name} update, so you react to their new price rather than the old one.`,
    });
  }

  if (out.length === 0) {
    out.push({
      title: `Steady around ${money(f.median)}`,
      description: `Over the ${f.rangeLabel} their price stayed close to its median of ${money(f.median)} (${range}), with ${f.changes} change${f.changes === 1 ? '' : 's'}.`,
      confidence: sure(0.6),
      recommendedAction: 'No clear signal to act on: keep your price where your margins want it and let alerts flag a real move.',
    });
  }
  const mine = ownerSuggestions(owners);
  const theirs = out.sort((a, b) => b.confidence - a.confidence).slice(0, 5 - mine.length);
  return [...mine, ...theirs].sort((a, b) => b.confidence - a.confidence);
}

// ---------------------------------------------------------------------------------------------
// The owner's side

const BANDS: Record<Band, string> = { cheapest: 'the cheapest', competitive: 'within the competitive band', above: 'above the competitive band' };

/** Equal to a millionth, as positions compare prices. */
const same = (a: number, b: number) => Math.round((a - b) * 1e6) === 0;

/** "£5.00 (4.8%) above", "£3.00 (2.9%) below", "level with": `price` against `other`. */
function against(price: number, other: number, currency: string, gapPercent: number | null = other === 0 ? null : percent(other, price)): string {
  if (same(price, other)) return 'level with';
  return `${formatMoney(Math.abs(price - other), currency)}${gapPercent === null ? '' : ` (${pct(gapPercent)})`} ${price < other ? 'below' : 'above'}`;
}

/** This competitor's price can be set against the owner's: it has one, in the owner's currency. */
const comparable = (o: OwnerSide) => o.competitor.price !== null && o.competitor.currency?.trim().toUpperCase() === o.currency.trim().toUpperCase();

/** "recommends £102.99", "keeps your price of £110.00", "holds your price for now". */
function ruleVerdict(rule: NonNullable<OwnerSide['rule']>, currency: string): string {
  if (rule.status === 'change' && rule.price !== null) return `recommends ${formatMoney(rule.price, currency)}`;
  if (rule.status === 'keep') return `keeps your price of ${formatMoney(rule.currentPrice, currency)}`;
  return 'holds your price for now';
}

/**
 * The rule's own sentences, quoted as written: after what was counted (the position already says
 * which competitor is cheapest), its target, rounding and bounds; or the first reasons it holds.
 */
const ruleSentences = (rule: NonNullable<OwnerSide['rule']>) => (rule.status === 'hold' ? rule.explanation.slice(0, 2) : rule.explanation.slice(1, 4));

/** The owner's side as figure sheet lines: the price, against this competitor, the position and the rule. */
export function ownerSideSheet(owners: readonly OwnerSide[]): string[] {
  return owners.slice(0, MAX_OWNER_SIDES).flatMap((o) => {
    const money = (n: number) => formatMoney(n, o.currency);
    const you = `Your "${o.name}"`;
    const { competitor: c, position: p } = o;
    const lines = [`${you}: your price ${money(o.price)}`];
    lines.push(
      comparable(o)
        ? `${you} against this competitor's ${money(c.price!)}: ${against(o.price, c.price!, o.currency)}`
        : `${you} against this competitor: not compared (${c.price === null ? 'it has no current price' : `it prices in ${c.currency ?? 'an unknown currency'}`})`,
    );
    lines.push(
      p
        ? `${you} position: rank ${p.rank} of ${p.of}, ${BANDS[p.band]}; cheapest counted competitor: ${money(p.cheapest)}${c.cheapest ? ' (this one)' : ''}; you are ${against(o.price, p.cheapest, o.currency, p.gapPercent)} it`
        : `${you} position: none yet (no linked competitor has a recent, in-stock price in ${o.currency})`,
    );
    if (!c.counted && c.reason) lines.push(`This competitor is left out of that position: ${c.reason}`);
    if (o.rule) {
      lines.push(`${you} pricing rule: ${ruleVerdict(o.rule, o.currency)}`);
      for (const sentence of ruleSentences(o.rule)) lines.push(`${you} pricing rule says: ${sentence}`);
    }
    return lines;
  });
}

/** What the owner does next about one own product: their rule's recommendation, or what the position suggests. */
function ownerAction(o: OwnerSide): string {
  const money = (n: number) => formatMoney(n, o.currency);
  const p = o.position;
  if (o.rule?.status === 'change' && o.rule.price !== null) return 'Review it in Your Catalogue → Recommendations, where you can apply or dismiss it.';
  if (o.rule?.status === 'keep') return 'Nothing to apply: your price already satisfies your rule. Your Catalogue → Recommendations shows its full reasoning.';
  if (o.rule) return 'Your rule will not move your price until this is resolved; Your Catalogue → Recommendations shows its full reasoning.';
  if (!p) return 'Link more competitors to this product in Your Catalogue, or wait for their next checks, so your price has a position to judge.';
  const rule = 'A pricing rule in Your Catalogue can keep you there as competitors move.';
  if (p.band === 'cheapest' && p.gap < 0)
    return `You undercut every counted competitor: there is room to raise your price towards ${money(p.cheapest)} and still be the cheapest. ${rule}`;
  if (p.band === 'cheapest') return `You are level with the cheapest: hold your price unless you want to lead on price. ${rule}`;
  if (p.band === 'competitive') return `You are within the competitive band: hold your price. ${rule}`;
  return `You are above the competitive band: move towards ${money(p.cheapest)} if you compete on price, or make the case for your price (delivery, service, bundles). A pricing rule in Your Catalogue can bring you back into the band.`;
}

/** One suggestion for one own product: the owner's price against this competitor, the position, and the rule's recommendation. */
export function ownerSuggestion(o: OwnerSide, title = 'Your price against this competitor'): PricingSuggestion {
  const money = (n: number) => formatMoney(n, o.currency);
  const { competitor: c, position: p } = o;
  let sentence = `Your ${o.name} is ${money(o.price)}`;
  if (!comparable(o)) {
    sentence +=
      c.price === null
        ? '; this competitor has no current price to compare'
        : `; this competitor prices in ${c.currency ?? 'another currency'}, so the two are not compared`;
  } else if (same(o.price, c.price!)) {
    sentence += `, the same as this competitor's price`;
  } else {
    sentence += `, ${against(o.price, c.price!, o.currency)} this competitor's ${money(c.price!)}`;
  }
  if (p) {
    sentence += `; you rank ${p.rank} of ${p.of} (${BANDS[p.band]})`;
    // Against this competitor already said how far from the cheapest the owner is.
    if (!(c.cheapest && comparable(o)))
      sentence += `, ${against(o.price, p.cheapest, o.currency, p.gapPercent)} the cheapest counted competitor at ${money(p.cheapest)}`;
    sentence += '.';
  } else {
    sentence += `; no linked competitor has a recent, in-stock price in ${o.currency} yet, so your price has no position.`;
  }
  const parts = [sentence];
  if (!c.counted && c.reason) parts.push(`This competitor is not counted in your position (${c.reason}).`);
  if (o.rule) {
    const quoted = ruleSentences(o.rule);
    parts.push(`Your pricing rule ${ruleVerdict(o.rule, o.currency)}${quoted.length ? `: ${quoted.join(' ')}` : '.'}`);
  }
  return { title, description: parts.join(' '), confidence: p ? 0.9 : 0.7, recommendedAction: ownerAction(o) };
}

/** A suggestion per linked own product (up to three), each titled apart when there are several. */
export function ownerSuggestions(owners: readonly OwnerSide[]): PricingSuggestion[] {
  const shown = owners.slice(0, MAX_OWNER_SIDES);
  return shown.map((o) => ownerSuggestion(o, shown.length > 1 ? `Your ${o.name} against this competitor` : undefined));
}

/**
 * A language model's rewrite that left an own product out (no suggestion states the owner's
 * price) gets the rules' suggestion for it back, after the model's, within five.
 */
export function keepOwnerSide(rewritten: PricingSuggestion[], owners: readonly OwnerSide[]): PricingSuggestion[] {
  const shown = owners.slice(0, MAX_OWNER_SIDES);
  const mine = ownerSuggestions(shown);
  const missing = mine.filter((_, i) => {
    const price = formatMoney(shown[i]!.price, shown[i]!.currency);
    return !rewritten.some((s) => [s.title, s.description, s.recommendedAction].some((text) => text.includes(price)));
  });
  return missing.length ? [...rewritten.slice(0, 5 - missing.length), ...missing] : rewritten;
}

// ---------------------------------------------------------------------------------------------
// Holding rewritten text to the figures

const WRITTEN_NUMBER = /\d+(?:[.,]\d+)*/g;

/** Every number written in a text, as a value ("£1,299.00" -> 1299, "8.2%" -> 8.2). */
export function numbersIn(text: string): number[] {
  return [...text.matchAll(WRITTEN_NUMBER)].map(([written]) => Number(written.replace(/,(?=\d{3}\b)/g, '').replace(',', '.')));
}

/** The numbers a suggestion may state: those on the figure sheet and in the rule-made suggestions. */
export function allowedNumbers(sheet: string[], suggestions: PricingSuggestion[]): Set<number> {
  const texts = [...sheet, ...suggestions.flatMap((s) => [s.title, s.description, s.recommendedAction])];
  return new Set(texts.flatMap(numbersIn));
}

/** True when every number in the suggestion's texts is one of the computed figures. */
export function statesOnlyFigures(suggestion: PricingSuggestion, allowed: Set<number>): boolean {
  return [suggestion.title, suggestion.description, suggestion.recommendedAction].flatMap(numbersIn).every((n) => allowed.has(n));
}
