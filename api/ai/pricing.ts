/**
 * Pricing suggestions from a competitor's real price history. Pure: points in, figures and
 * suggestions out.
 *
 * The figures (current price against the range's median, lowest and highest; trend; how often
 * and by how much the price moves; time since the last change; promotions that were reversed;
 * the weekday changes cluster on) are computed once, written out as a figure sheet, and every
 * suggestion quotes only numbers from that sheet, so a language model that rewrites them can be
 * held to the same numbers.
 */
import type { TimeFilter } from '../history/series.ts';
import { formatMoney } from '../../domain/money.ts';

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

/** The figures as short labelled lines: what a language model may quote, number for number. */
export function figureSheet(f: PriceFigures): string[] {
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
  return lines;
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

/** Grounded suggestions from the figures, most confident first (at most five). */
export function suggestPricing(f: PriceFigures): PricingSuggestion[] {
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
  return out.sort((a, b) => b.confidence - a.confidence).slice(0, 5);
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
