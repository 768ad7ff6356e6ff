import { describe, expect, test } from 'bun:test';
import { addDays, dailySeries, trend } from './figures.ts';

describe('trend', () => {
  test('against a baseline', () => {
    expect(trend(12, 10)).toEqual({ current: 12, previous: 10, changePercent: 20 });
    expect(trend(5, 10)).toEqual({ current: 5, previous: 10, changePercent: -50 });
  });
  test('no baseline: null, so the screen hides the badge', () => {
    expect(trend(3, 0)).toBeNull();
    expect(trend(0, 0)).toBeNull();
  });
});

describe('dailySeries', () => {
  test('addDays crosses months, years and leap days', () => {
    expect(addDays('2028-02-28', 1)).toBe('2028-02-29');
    expect(addDays('2027-01-01', -1)).toBe('2026-12-31');
    expect(addDays('2026-03-29', 1)).toBe('2026-03-30'); // a daylight-saving change does not matter to dates
  });

  test('one entry per day, oldest first, ending today; empty days are gaps, not zeros', () => {
    const out = dailySeries(
      [
        { date: '2026-06-10', changes: 2, sumChangePercent: -6 },
        { date: '2026-06-08', changes: 1, sumChangePercent: 4.5 },
        { date: '2026-01-01', changes: 9, sumChangePercent: 9 }, // outside the range
      ],
      '2026-06-10',
      7,
    );
    expect(out).toEqual([
      { date: '2026-06-04', averageChangePercent: null, changes: 0 },
      { date: '2026-06-05', averageChangePercent: null, changes: 0 },
      { date: '2026-06-06', averageChangePercent: null, changes: 0 },
      { date: '2026-06-07', averageChangePercent: null, changes: 0 },
      { date: '2026-06-08', averageChangePercent: 4.5, changes: 1 },
      { date: '2026-06-09', averageChangePercent: null, changes: 0 },
      { date: '2026-06-10', averageChangePercent: -3, changes: 2 },
    ]);
  });

  test('90 days by default', () => {
    const out = dailySeries([], '2026-06-10');
    expect(out).toHaveLength(90);
    expect(out[0]!.date).toBe('2026-03-13');
  });
});
