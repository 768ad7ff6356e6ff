/**
 * Data shaping for the dashboard's Price Trends chart and the price history charts: pure
 * functions from API answers to the column arrays uPlot draws, plus their axis labels.
 */
import type { DashboardStats, PricePoint } from './api';
import { formatInZone, formatPrice } from './format';

export type DayOfChanges = DashboardStats['priceTrends'][number];

export const TREND_RANGES = [
  { id: '7D', days: 7 },
  { id: '30D', days: 30 },
  { id: '90D', days: 90 },
] as const;
export type TrendRange = (typeof TREND_RANGES)[number]['id'];
export const DEFAULT_TREND_RANGE: TrendRange = '7D';

/** The range's last days (the server sends 90, oldest first, ending today). */
export function trendDays(days: readonly DayOfChanges[], range: TrendRange): DayOfChanges[] {
  const count = TREND_RANGES.find((r) => r.id === range)!.days;
  return days.slice(-count);
}

/** True when at least one day of the range had a change to average. */
export function hasTrendData(days: readonly DayOfChanges[]): boolean {
  return days.some((d) => d.averageChangePercent !== null);
}

// Calendar dates from the server are the user's days: read and print them in UTC so the
// browser's own time zone cannot move them to a neighbouring day.
const utcDate = (date: string) => new Date(`${date}T00:00:00Z`);
const weekday = new Intl.DateTimeFormat('en-GB', { weekday: 'short', timeZone: 'UTC' });
const dayMonth = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });

/** 'Mon' on the 7-day chart; '5 Mar' on the longer ones. */
export function trendDayLabel(date: string, range: TrendRange): string {
  return (range === '7D' ? weekday : dayMonth).format(utcDate(date));
}

/** 'Mon 5 Mar' for the chart's hover readout. */
export function trendDayTitle(date: string): string {
  return `${weekday.format(utcDate(date))} ${dayMonth.format(utcDate(date))}`;
}

/**
 * uPlot columns for the trend chart: x is the day's index, y its average change percent or
 * null (a gap: a day without changes has nothing to average).
 */
export function trendChartData(days: readonly DayOfChanges[]): [number[], (number | null)[]] {
  return [days.map((_, i) => i), days.map((d) => d.averageChangePercent)];
}

/** Which day indexes get an axis label: at most `max`, evenly spaced, always including today (the last). */
export function tickIndexes(count: number, max: number): number[] {
  if (count <= 0) return [];
  const step = Math.max(1, Math.ceil((count - 1) / Math.max(1, max - 1)));
  const ticks: number[] = [];
  for (let i = count - 1; i >= 0; i -= step) ticks.unshift(i);
  return ticks;
}

/** uPlot columns for a price chart: x in Unix seconds, y the price. Points come oldest first. */
export function priceChartData(points: readonly PricePoint[]): [number[], number[]] {
  return [points.map((p) => Date.parse(p.timestamp) / 1000), points.map((p) => p.price)];
}

const DAY_SECONDS = 86_400;
const HOUR_SECONDS = 3600;
/** The shortest time a price chart's axis spans: checks seconds apart still get ticks whole seconds apart. */
const MIN_SPAN_SECONDS = 120;

/**
 * The x range of a price chart (Unix seconds): the history's own, a single point with an hour
 * either side, and a history shorter than two minutes centred in two minutes.
 */
export function timeRange(min: number, max: number): [number, number] {
  if (min === max) return [min - HOUR_SECONDS, max + HOUR_SECONDS];
  const missing = MIN_SPAN_SECONDS - (max - min);
  return missing > 0 ? [min - missing / 2, max + missing / 2] : [min, max];
}

const HOURS: Intl.DateTimeFormatOptions = { hour: '2-digit', minute: '2-digit' };
const SECONDS: Intl.DateTimeFormatOptions = { ...HOURS, second: '2-digit' };
const DAYS: Intl.DateTimeFormatOptions = { day: 'numeric', month: 'short' };
const MONTHS: Intl.DateTimeFormatOptions = { month: 'short', year: 'numeric' };

/** The formats a time axis may use, the one that fits the span first, finer ones after it. */
function axisFormats(spanSeconds: number): Intl.DateTimeFormatOptions[] {
  if (spanSeconds <= 2 * DAY_SECONDS) return [HOURS, SECONDS, { ...DAYS, ...HOURS }, { ...DAYS, ...SECONDS }];
  if (spanSeconds <= 400 * DAY_SECONDS) return [DAYS, { ...DAYS, ...HOURS }, { ...DAYS, year: 'numeric' }];
  return [MONTHS, { ...DAYS, year: 'numeric' }];
}

/**
 * A time axis label (the user's time zone) fitted to how much time the axis spans: hours within
 * two days, '5 Mar' within a year, 'Mar 2026' beyond.
 */
export function timeAxisLabel(seconds: number, spanSeconds: number): string {
  return formatInZone(seconds * 1000, axisFormats(spanSeconds)[0]!);
}

/**
 * The labels of a time axis's ticks, none twice: the span's format, or the first finer one that
 * tells every tick apart ('11:15:20' for checks seconds apart, '5 Mar, 12:00' for ticks a day
 * apart). Ticks closer than any format can tell apart are labelled once, at the first of them.
 */
export function timeAxisLabels(splits: readonly number[], spanSeconds: number): string[] {
  let labels: string[] = [];
  for (const format of axisFormats(spanSeconds)) {
    labels = splits.map((s) => formatInZone(s * 1000, format));
    if (new Set(labels).size === labels.length) return labels;
  }
  return labels.map((label, i) => (labels.indexOf(label) === i ? label : ''));
}

/** A price axis tick in the product's currency: '£130' when whole, '€12.50' otherwise (the readout always has cents). */
export function priceTick(value: number, currency: string): string {
  const text = formatPrice(value, currency);
  return Number.isInteger(value) ? text.replace(/[.,]00(?=\D*$)/, '') : text;
}

/** The y range of the trend chart: always includes 0 so rises and falls read against it, with some headroom. */
export function percentRange(min: number | null, max: number | null): [number, number] {
  const lo = Math.min(0, min ?? 0);
  const hi = Math.max(0, max ?? 0);
  const pad = Math.max((hi - lo) * 0.15, 0.5);
  return [lo - pad, hi + pad];
}

/** The y range of a price chart: a little room above and below; a flat history gets ±5%. */
export function priceRange(min: number | null, max: number | null): [number, number] {
  if (min === null || max === null) return [0, 1];
  const pad = max > min ? (max - min) * 0.1 : Math.max(max * 0.05, 0.5);
  return [Math.max(0, min - pad), max + pad];
}
