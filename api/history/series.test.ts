import { describe, expect, test } from 'bun:test';
import { changePercent, DetailTimeFilter, downsample, ListTimeFilter, rangeStart, type TimedPrice } from './series.ts';

describe('rangeStart', () => {
  const now = new Date('2026-05-31T12:00:00Z');
  test('each range as the screen labels it', () => {
    expect(rangeStart('week', now)?.toISOString()).toBe('2026-05-24T12:00:00.000Z');
    expect(rangeStart('month', now)?.toISOString()).toBe('2026-05-01T12:00:00.000Z');
    expect(rangeStart('quarter', now)?.toISOString()).toBe('2026-03-03T12:00:00.000Z'); // Feb 31 rolls over
    expect(rangeStart('year', now)?.toISOString()).toBe('2025-05-31T12:00:00.000Z');
    expect(rangeStart('all', now)).toBeNull();
  });
  test('the list has no all-time range; the detail has', () => {
    expect(ListTimeFilter.safeParse('all').success).toBe(false);
    expect(DetailTimeFilter.safeParse('all').success).toBe(true);
    expect(DetailTimeFilter.safeParse('decade').success).toBe(false);
  });
});

describe('changePercent', () => {
  test('rise positive, drop negative', () => {
    expect(changePercent(100, 110)).toBeCloseTo(10);
    expect(changePercent(80, 60)).toBeCloseTo(-25);
  });
  test('0 when there is nothing to compare', () => {
    expect(changePercent(null, 10)).toBe(0);
    expect(changePercent(10, undefined)).toBe(0);
    expect(changePercent(0, 10)).toBe(0);
  });
});

describe('downsample', () => {
  const series = (n: number, price: (i: number) => number, step = 60_000): TimedPrice[] =>
    Array.from({ length: n }, (_, i) => ({ at: 1_700_000_000_000 + i * step, price: price(i) }));

  test('short histories come back unchanged', () => {
    const points = series(1000, (i) => i);
    expect(downsample(points)).toEqual(points);
    expect(downsample([])).toEqual([]);
  });

  test('12,000 points: at most 1,000, in time order, ends, lowest and highest kept', () => {
    const points = series(12_000, (i) => 100 + 10 * Math.sin(i / 50) + (i % 997 === 0 ? 25 : 0));
    points[7_777] = { ...points[7_777]!, price: 3.5 }; // a one-off dip
    const out = downsample(points);
    expect(out.length).toBeLessThanOrEqual(1000);
    expect(out.length).toBeGreaterThan(500);
    for (let i = 1; i < out.length; i++) expect(out[i]!.at).toBeGreaterThan(out[i - 1]!.at);
    expect(out[0]).toEqual(points[0]!);
    expect(out.at(-1)).toEqual(points.at(-1)!);
    const prices = (p: TimedPrice[]) => p.map((x) => x.price);
    expect(Math.min(...prices(out))).toBe(3.5);
    expect(Math.max(...prices(out))).toBe(Math.max(...prices(points)));
    // Every local peak of the spikes survives, not just the global extremes.
    const spikes = points.filter((p) => p.price > 120);
    for (const s of spikes) expect(out).toContainEqual(s);
  });

  test('gaps in time stay gaps: no points invented, buckets without data add nothing', () => {
    const early = series(6000, () => 10);
    const late = series(6000, () => 20).map((p) => ({ ...p, at: p.at + 365 * 86_400_000 }));
    const out = downsample([...early, ...late]);
    expect(out.length).toBeLessThanOrEqual(1000);
    expect(out.every((p) => p.price === 10 || p.price === 20)).toBe(true);
    expect(out.filter((p) => p.price === 10).length).toBeGreaterThan(0);
  });

  test('a flat history stays within the limit', () => {
    const out = downsample(series(50_000, () => 42));
    expect(out.length).toBeLessThanOrEqual(1000);
    expect(new Set(out.map((p) => p.price))).toEqual(new Set([42]));
  });
});
