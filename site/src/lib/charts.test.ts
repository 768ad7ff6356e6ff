import { describe, expect, test } from 'bun:test';
import {
  hasTrendData,
  percentRange,
  priceChartData,
  priceRange,
  priceTick,
  tickIndexes,
  timeAxisLabel,
  timeAxisLabels,
  timeRange,
  trendChartData,
  trendDayLabel,
  trendDays,
  trendDayTitle,
  type DayOfChanges,
} from './charts';
import { setDisplayTimeZone } from './format';

process.env.TZ = 'Europe/London';

/** 90 days ending 2026-03-08 (a Sunday), changes on a few of them. */
function ninetyDays(): DayOfChanges[] {
  const end = Date.UTC(2026, 2, 8);
  return Array.from({ length: 90 }, (_, i) => {
    const date = new Date(end - (89 - i) * 86_400_000).toISOString().slice(0, 10);
    const changed = i === 0 || i === 60 || i >= 87;
    return { date, averageChangePercent: changed ? i / 10 - 5 : null, changes: changed ? 2 : 0 };
  });
}

describe('trend ranges', () => {
  test('7D, 30D and 90D take the last days, oldest first, ending today', () => {
    const days = ninetyDays();
    expect(trendDays(days, '7D').map((d) => d.date)).toEqual([
      '2026-03-02',
      '2026-03-03',
      '2026-03-04',
      '2026-03-05',
      '2026-03-06',
      '2026-03-07',
      '2026-03-08',
    ]);
    expect(trendDays(days, '30D')).toHaveLength(30);
    expect(trendDays(days, '30D')[0]!.date).toBe('2026-02-07');
    expect(trendDays(days, '90D')).toHaveLength(90);
  });
  test('a shorter answer is taken whole', () => {
    expect(trendDays(ninetyDays().slice(-3), '7D')).toHaveLength(3);
  });
  test('data means at least one day with an average', () => {
    const days = ninetyDays();
    expect(hasTrendData(trendDays(days, '7D'))).toBe(true);
    expect(hasTrendData(days.slice(1, 60))).toBe(false);
    expect(hasTrendData([])).toBe(false);
  });
});

describe('trend labels', () => {
  test('short weekday on 7D, day and month on longer ranges', () => {
    expect(trendDayLabel('2026-03-08', '7D')).toBe('Sun');
    expect(trendDayLabel('2026-03-02', '7D')).toBe('Mon');
    expect(trendDayLabel('2026-03-08', '30D')).toBe('8 Mar');
    expect(trendDayLabel('2025-12-25', '90D')).toBe('25 Dec');
  });
  test('dates are calendar days, not moved by the browser time zone', () => {
    const before = process.env.TZ;
    process.env.TZ = 'America/Los_Angeles';
    try {
      expect(trendDayLabel('2026-03-08', '7D')).toBe('Sun');
      expect(trendDayTitle('2026-03-08')).toBe('Sun 8 Mar');
    } finally {
      process.env.TZ = before;
    }
  });
});

describe('trendChartData', () => {
  test('x is the day index, y the average or null for a day without changes', () => {
    const days = ninetyDays().slice(-5);
    const [x, y] = trendChartData(days);
    expect(x).toEqual([0, 1, 2, 3, 4]);
    expect(y).toEqual([null, null, 3.7, 3.8, 3.9].map((v) => (v === null ? null : expect.closeTo(v, 6))) as never);
  });
});

describe('tickIndexes', () => {
  test('every day when they fit', () => {
    expect(tickIndexes(7, 7)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });
  test('at most max labels, always ending today', () => {
    const ticks = tickIndexes(30, 7);
    expect(ticks.length).toBeLessThanOrEqual(7);
    expect(ticks.at(-1)).toBe(29);
    expect(tickIndexes(90, 7).at(-1)).toBe(89);
    expect(tickIndexes(90, 7).length).toBeLessThanOrEqual(7);
  });
  test('nothing for no days, one label for one day', () => {
    expect(tickIndexes(0, 7)).toEqual([]);
    expect(tickIndexes(1, 7)).toEqual([0]);
  });
});

describe('priceChartData', () => {
  test('Unix seconds and prices, in the order given', () => {
    expect(
      priceChartData([
        { timestamp: '2026-03-01T00:00:00.000Z', price: 10 },
        { timestamp: '2026-03-02T12:00:00.000Z', price: 9.5 },
      ]),
    ).toEqual([
      [1772323200, 1772452800],
      [10, 9.5],
    ]);
    expect(priceChartData([])).toEqual([[], []]);
  });
});

describe('timeAxisLabel', () => {
  const t = Date.UTC(2026, 2, 5, 14, 30) / 1000;
  test('hours for a short span, day and month within a year, month and year beyond', () => {
    expect(timeAxisLabel(t, 86_400)).toBe('14:30');
    expect(timeAxisLabel(t, 30 * 86_400)).toBe('5 Mar');
    expect(timeAxisLabel(t, 800 * 86_400)).toBe('Mar 2026');
  });
  test("in the user's time zone", () => {
    setDisplayTimeZone('Asia/Tokyo');
    try {
      expect(timeAxisLabel(t, 86_400)).toBe('23:30');
    } finally {
      setDisplayTimeZone(null);
    }
  });
});

describe('timeAxisLabels', () => {
  const at = (iso: string) => Date.parse(iso) / 1000;
  const distinct = (labels: string[]) => labels.filter(Boolean).length === new Set(labels.filter(Boolean)).size;

  test('hours and minutes when they tell the ticks apart', () => {
    const splits = ['10:00', '10:30', '11:00'].map((t) => at(`2026-03-05T${t}:00Z`));
    expect(timeAxisLabels(splits, 3 * 3600)).toEqual(['10:00', '10:30', '11:00']);
  });

  test('checks seconds apart: seconds, never the same minute three times', () => {
    const splits = [0, 20, 40].map((s) => at('2026-03-05T11:15:00Z') + s);
    expect(timeAxisLabels(splits, 60)).toEqual(['11:15:00', '11:15:20', '11:15:40']);
  });

  test('ticks a day apart on a short axis: the day as well', () => {
    const splits = [at('2026-03-05T12:00:00Z'), at('2026-03-06T00:00:00Z'), at('2026-03-06T12:00:00Z')];
    const labels = timeAxisLabels(splits, 36 * 3600);
    expect(distinct(labels)).toBe(true);
    expect(labels[0]).toBe('5 Mar, 12:00');
  });

  test('days within a year, months beyond; the hour when a day has several ticks', () => {
    expect(timeAxisLabels([at('2026-03-05T00:00:00Z'), at('2026-03-12T00:00:00Z')], 30 * 86_400)).toEqual(['5 Mar', '12 Mar']);
    expect(timeAxisLabels([at('2026-03-01T00:00:00Z'), at('2026-04-01T00:00:00Z')], 800 * 86_400)).toEqual(['Mar 2026', 'Apr 2026']);
    expect(distinct(timeAxisLabels([at('2026-03-05T00:00:00Z'), at('2026-03-05T12:00:00Z'), at('2026-03-06T00:00:00Z')], 5 * 86_400))).toBe(true);
  });

  test('never a label twice, whatever ticks the chart picks', () => {
    const start = at('2026-03-05T11:15:00Z');
    for (const [step, span] of [
      [0.25, 2],
      [1, 10],
      [10, 90],
      [60, 600],
      [3600, 86_400],
      [43_200, 3 * 86_400],
      [86_400, 40 * 86_400],
      [7 * 86_400, 500 * 86_400],
    ]) {
      const splits = Array.from({ length: 8 }, (_, i) => start + i * step!);
      expect(distinct(timeAxisLabels(splits, span!))).toBe(true);
    }
  });
});

describe('timeRange', () => {
  const t = Date.UTC(2026, 2, 5, 11, 15) / 1000;
  test('a single point gets an hour either side', () => {
    expect(timeRange(t, t)).toEqual([t - 3600, t + 3600]);
  });
  test('points seconds apart get two minutes around them, so ticks are whole seconds apart', () => {
    expect(timeRange(t, t + 2)).toEqual([t - 59, t + 61]);
  });
  test('a longer history is drawn as it is', () => {
    expect(timeRange(t, t + 600)).toEqual([t, t + 600]);
  });
});

describe('chart ranges', () => {
  test('the percent range always holds zero', () => {
    const [lo, hi] = percentRange(1, 4);
    expect(lo).toBeLessThan(0);
    expect(hi).toBeGreaterThan(4);
    const [lo2, hi2] = percentRange(-3, -1);
    expect(lo2).toBeLessThan(-3);
    expect(hi2).toBeGreaterThan(0);
    expect(percentRange(null, null)).toEqual([-0.5, 0.5]);
  });
  test('the price range pads around the prices and never goes below zero', () => {
    expect(priceRange(90, 110)).toEqual([88, 112]);
    expect(priceRange(100, 100)).toEqual([95, 105]);
    expect(priceRange(0.2, 0.2)[0]).toBe(0);
    expect(priceRange(null, null)).toEqual([0, 1]);
  });
});

describe('priceTick', () => {
  test("whole amounts without pence, otherwise two decimals, in the product's currency", () => {
    expect(priceTick(130, 'GBP')).toBe('£130');
    expect(priceTick(1250, 'GBP')).toBe('£1,250');
    expect(priceTick(12.5, 'GBP')).toBe('£12.50');
    expect(priceTick(0.25, 'GBP')).toBe('£0.25');
    expect(priceTick(130, 'EUR')).toBe('€130');
    expect(priceTick(12.5, 'USD')).toBe('US$12.50');
    expect(priceTick(12800, 'JPY')).toBe('JP¥12,800');
  });
});
