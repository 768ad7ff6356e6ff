/** Price History screen: ranges, search and the shapes its rows draw (docs/product.md#price-history). */
import type { DetailRange, HistoryRange, PricePoint } from './api';

export const HISTORY_RANGES: readonly { value: HistoryRange; label: string }[] = [
  { value: 'week', label: 'Last 7 days' },
  { value: 'month', label: 'Last 30 days' },
  { value: 'quarter', label: 'Last 3 months' },
  { value: 'year', label: 'Last year' },
];
export const DEFAULT_HISTORY_RANGE: HistoryRange = 'month';

/** The detail dialog also offers all time. */
export const DETAIL_RANGES: readonly { value: DetailRange; label: string }[] = [...HISTORY_RANGES, { value: 'all', label: 'All time' }];

/** Case-insensitive match on the product name. */
export function filterByName<T extends { name: string }>(products: readonly T[], query: string): T[] {
  const q = query.trim().toLowerCase();
  return q ? products.filter((p) => p.name.toLowerCase().includes(q)) : [...products];
}

export type Direction = 'rise' | 'drop' | 'none';

/** Above 0 a rise, below 0 a drop, judged on the figure as shown (one decimal; docs/product.md#figures-currencies-and-times). */
export function direction(changePercent: number): Direction {
  const shown = Number(changePercent.toFixed(1));
  return shown > 0 ? 'rise' : shown < 0 ? 'drop' : 'none';
}

const VARIANTS = { rise: 'destructive', drop: 'secondary', none: 'outline' } as const;

/** Badge variant for a change: rise destructive, drop secondary, none outline. */
export function changeVariant(changePercent: number) {
  return VARIANTS[direction(changePercent)];
}

/** Percent change from the first to the last point; 0 with fewer than two points. */
export function rangeChange(points: readonly PricePoint[]): number {
  const first = points[0]?.price;
  const last = points.at(-1)?.price;
  if (points.length < 2 || !first || last === undefined) return 0;
  return ((last - first) / first) * 100;
}

/**
 * The sparkline as SVG polyline points in a width x height box: time runs evenly left to right
 * (the points are the last checks, not a calendar), prices fill the height with `pad` kept free.
 * One point draws a flat line; none draws nothing.
 */
export function sparklinePoints(prices: readonly number[], width: number, height: number, pad = 2): string {
  if (prices.length === 0) return '';
  const values = prices.length === 1 ? [prices[0]!, prices[0]!] : prices;
  const min = Math.min(...values);
  const max = Math.max(...values);
  const round = (n: number) => Math.round(n * 100) / 100;
  return values
    .map((price, i) => {
      const x = (i / (values.length - 1)) * width;
      const y = max === min ? height / 2 : pad + (1 - (price - min) / (max - min)) * (height - 2 * pad);
      return `${round(x)},${round(y)}`;
    })
    .join(' ');
}
