/** A figure against its baseline, or null when there is no baseline to compare with. */
export type Trend = { current: number; previous: number; changePercent: number } | null;

/** How a figure moved since the previous period; null when the previous period had none (no baseline). */
export function trend(current: number, previous: number): Trend {
  if (!previous) return null;
  return { current, previous, changePercent: ((current - previous) / previous) * 100 };
}

export type DayOfChanges = { date: string; averageChangePercent: number | null; changes: number };

/** How many days of price trends the dashboard gets; the screen's 7D/30D/90D take the tail. */
export const TREND_DAYS = 90;

/** The ISO date `days` after (or before, when negative) an ISO date. */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/**
 * One entry per calendar day, oldest first and ending today, from the days that had changes:
 * a day without changes has `changes: 0` and `averageChangePercent: null` (nothing to average),
 * so a chart shows a gap rather than an invented value.
 */
export function dailySeries(days: readonly { date: string; changes: number; sumChangePercent: number }[], today: string, count = TREND_DAYS): DayOfChanges[] {
  const byDate = new Map(days.map((d) => [d.date, d]));
  return Array.from({ length: count }, (_, i) => {
    const date = addDays(today, i - count + 1);
    const day = byDate.get(date);
    return day && day.changes > 0
      ? { date, averageChangePercent: day.sumChangePercent / day.changes, changes: day.changes }
      : { date, averageChangePercent: null, changes: 0 };
  });
}
