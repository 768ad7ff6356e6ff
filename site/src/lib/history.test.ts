import { describe, expect, test } from 'bun:test';
import { changeVariant, DEFAULT_HISTORY_RANGE, DETAIL_RANGES, direction, filterByName, HISTORY_RANGES, rangeChange, sparklinePoints } from './history';

describe('ranges', () => {
  test('the list ranges and their labels, month by default', () => {
    expect(HISTORY_RANGES.map((r) => [r.value, r.label])).toEqual([
      ['week', 'Last 7 days'],
      ['month', 'Last 30 days'],
      ['quarter', 'Last 3 months'],
      ['year', 'Last year'],
    ]);
    expect(DEFAULT_HISTORY_RANGE).toBe('month');
  });
  test('the dialog adds All time', () => {
    expect(DETAIL_RANGES.map((r) => r.value)).toEqual(['week', 'month', 'quarter', 'year', 'all']);
    expect(DETAIL_RANGES.at(-1)!.label).toBe('All time');
  });
});

describe('filterByName', () => {
  const products = [{ name: 'Wireless Headphones' }, { name: 'Espresso Machine' }, { name: 'HEADPHONE stand' }];
  test('case-insensitive, by name, trimmed', () => {
    expect(filterByName(products, '  headphone ').map((p) => p.name)).toEqual(['Wireless Headphones', 'HEADPHONE stand']);
  });
  test('an empty query keeps everything', () => {
    expect(filterByName(products, '')).toHaveLength(3);
  });
  test('no match is an empty list', () => {
    expect(filterByName(products, 'kettle')).toEqual([]);
  });
});

describe('direction and badge', () => {
  test('rise destructive, drop secondary, none outline', () => {
    expect([direction(5.3), changeVariant(5.3)]).toEqual(['rise', 'destructive']);
    expect([direction(-0.2), changeVariant(-0.2)]).toEqual(['drop', 'secondary']);
    expect([direction(0), changeVariant(0)]).toEqual(['none', 'outline']);
  });
  test('a change that rounds to 0.0% is none, as shown', () => {
    expect(direction(0.04)).toBe('none');
    expect(direction(-0.04)).toBe('none');
  });
});

describe('rangeChange', () => {
  const at = (price: number) => ({ price, timestamp: '2026-03-01T00:00:00.000Z' });
  test('first to last point', () => {
    expect(rangeChange([at(100), at(120), at(90)])).toBeCloseTo(-10);
    expect(rangeChange([at(80), at(100)])).toBeCloseTo(25);
  });
  test('0 with fewer than two points', () => {
    expect(rangeChange([])).toBe(0);
    expect(rangeChange([at(10)])).toBe(0);
  });
});

describe('sparklinePoints', () => {
  test('spans the width; the highest price at the top, the lowest at the bottom', () => {
    expect(sparklinePoints([10, 20, 15], 100, 24, 2)).toBe('0,22 50,2 100,12');
  });
  test('a flat history and a single point draw a line through the middle', () => {
    expect(sparklinePoints([5, 5], 100, 24)).toBe('0,12 100,12');
    expect(sparklinePoints([5], 100, 24)).toBe('0,12 100,12');
  });
  test('nothing without points', () => {
    expect(sparklinePoints([], 100, 24)).toBe('');
  });
});
