import { describe, expect, test } from 'bun:test';
import { backoffFactor, checkIntervalMinutes, isDue, nextCheckAt, type ProductSchedule } from './schedule.ts';

const rules = { demoCheckMinutes: 3 };
const T = new Date('2025-03-01T12:00:00Z');
const minutes = (n: number) => new Date(T.getTime() + n * 60_000);

const product = (over: Partial<ProductSchedule> = {}): ProductSchedule => ({
  plan: 'free', checkFrequency: null, demoShop: false, lastCheckAt: T, consecutiveFailures: 0, editedAt: null, ...over,
});

describe('check interval', () => {
  test('by plan: free and starter daily, growth hourly, pro every 15 minutes', () => {
    expect(checkIntervalMinutes(product({ plan: 'free' }), rules)).toBe(1440);
    expect(checkIntervalMinutes(product({ plan: 'starter' }), rules)).toBe(1440);
    expect(checkIntervalMinutes(product({ plan: 'growth' }), rules)).toBe(60);
    expect(checkIntervalMinutes(product({ plan: 'pro' }), rules)).toBe(15);
  });

  test('an unknown or missing plan is the free plan', () => {
    expect(checkIntervalMinutes(product({ plan: null }), rules)).toBe(1440);
    expect(checkIntervalMinutes(product({ plan: 'platinum' }), rules)).toBe(1440);
  });

  test('the saved frequency only ever makes checks slower', () => {
    expect(checkIntervalMinutes(product({ plan: 'pro', checkFrequency: 'hourly' }), rules)).toBe(60);
    expect(checkIntervalMinutes(product({ plan: 'pro', checkFrequency: 'weekly' }), rules)).toBe(10_080);
    expect(checkIntervalMinutes(product({ plan: 'growth', checkFrequency: 'daily' }), rules)).toBe(1440);
    // Faster than the plan allows: the plan wins.
    expect(checkIntervalMinutes(product({ plan: 'free', checkFrequency: 'hourly' }), rules)).toBe(1440);
    expect(checkIntervalMinutes(product({ plan: 'starter', checkFrequency: 'weekly' }), rules)).toBe(10_080);
  });

  test('demo shop products are checked every few minutes whatever the plan', () => {
    expect(checkIntervalMinutes(product({ plan: 'free', checkFrequency: 'weekly', demoShop: true }), rules)).toBe(3);
  });
});

describe('next check', () => {
  test('never checked: due at once', () => {
    expect(isDue(product({ lastCheckAt: null }), T, rules)).toBe(true);
  });

  test('due one interval after the last check', () => {
    const p = product({ plan: 'pro' });
    expect(nextCheckAt(p, rules)).toEqual(minutes(15));
    expect(isDue(p, minutes(14), rules)).toBe(false);
    expect(isDue(p, minutes(15), rules)).toBe(true);
  });

  test('edited since the last check: due at once', () => {
    expect(isDue(product({ editedAt: minutes(1) }), minutes(2), rules)).toBe(true);
    expect(isDue(product({ editedAt: minutes(-1) }), minutes(2), rules)).toBe(false);
  });

  test('backoff doubles from the second failure in a row, capped at 16x', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 20].map(backoffFactor)).toEqual([1, 1, 2, 4, 8, 16, 16, 16]);
    expect(nextCheckAt(product({ plan: 'pro', consecutiveFailures: 1 }), rules)).toEqual(minutes(15));
    expect(nextCheckAt(product({ plan: 'pro', consecutiveFailures: 3 }), rules)).toEqual(minutes(60));
    expect(nextCheckAt(product({ plan: 'pro', consecutiveFailures: 9 }), rules)).toEqual(minutes(240));
  });

  test('a failing product waits at most a week, and never less than its interval', () => {
    expect(nextCheckAt(product({ plan: 'free', consecutiveFailures: 8 }), rules)).toEqual(minutes(7 * 1440));
    expect(nextCheckAt(product({ checkFrequency: 'weekly', consecutiveFailures: 8 }), rules)).toEqual(minutes(7 * 1440));
  });

  test('a success resets the backoff', () => {
    expect(nextCheckAt(product({ plan: 'growth', consecutiveFailures: 0 }), rules)).toEqual(minutes(60));
  });
});
