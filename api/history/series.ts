import { z } from 'zod';

/** Price-history ranges as the screen names them; 'all' only in the detail dialog. */
export const ListTimeFilter = z.enum(['week', 'month', 'quarter', 'year']);
export const DetailTimeFilter = z.enum(['week', 'month', 'quarter', 'year', 'all']);
export type TimeFilter = z.infer<typeof DetailTimeFilter>;

/**
 * Where a range starts: week = last 7 days, month = last 30 days, quarter = last 3 months,
 * year = last year (docs/product.md#price-history); null for all time.
 */
export function rangeStart(filter: TimeFilter, now: Date): Date | null {
  const start = new Date(now);
  switch (filter) {
    case 'week':
      start.setUTCDate(start.getUTCDate() - 7);
      return start;
    case 'month':
      start.setUTCDate(start.getUTCDate() - 30);
      return start;
    case 'quarter':
      start.setUTCMonth(start.getUTCMonth() - 3);
      return start;
    case 'year':
      start.setUTCFullYear(start.getUTCFullYear() - 1);
      return start;
    case 'all':
      return null;
  }
}

/** Percent change from one price to another (positive is a rise); 0 when there is nothing to compare. */
export function changePercent(from: number | null | undefined, to: number | null | undefined): number {
  if (from == null || to == null || from === 0) return 0;
  return ((to - from) / from) * 100;
}

export type TimedPrice = { at: number; price: number };

/** How many points a detailed history returns at most: enough for a chart as wide as a screen. */
export const MAX_CHART_POINTS = 1000;

/**
 * Thins a time-ordered history to at most `max` points while keeping its shape: the time span
 * is cut into max/4 equal buckets and each keeps its first, lowest, highest and last point, so
 * every peak and dip survives (a plain every-nth sample would drop them) and gaps stay gaps.
 */
export function downsample<T extends TimedPrice>(points: readonly T[], max = MAX_CHART_POINTS): T[] {
  if (points.length <= max) return [...points];
  const buckets = Math.max(1, Math.floor(max / 4));
  const first = points[0]!.at;
  const span = points[points.length - 1]!.at - first + 1;
  const kept: T[] = [];
  let start = 0;
  while (start < points.length) {
    const bucket = Math.floor(((points[start]!.at - first) / span) * buckets);
    let end = start,
      lo = start,
      hi = start;
    while (end + 1 < points.length && Math.floor(((points[end + 1]!.at - first) / span) * buckets) === bucket) {
      end++;
      if (points[end]!.price < points[lo]!.price) lo = end;
      if (points[end]!.price > points[hi]!.price) hi = end;
    }
    // The four picks in time order, each once.
    for (const i of [...new Set([start, lo, hi, end])].sort((a, b) => a - b)) kept.push(points[i]!);
    start = end + 1;
  }
  return kept;
}
