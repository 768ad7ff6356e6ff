import { describe, expect, test } from 'bun:test';
import { backoffFactor, checkIntervalMinutes, isDue, nearestSlot, nextCheckAt, slotOffsetMs, type ProductSchedule } from './schedule.ts';

const rules = { demoCheckMinutes: 3 };
const ID = 'b2f7c1de-5a3e-4c1b-9e0f-2d6a8c4b7e11';
const MINUTE = 60_000;
const DAY = 1440 * MINUTE;
/** A moment on the product's slot for the given interval: checks there keep to whole intervals. */
const onSlot = (intervalMinutes: number) => nearestSlot(ID, intervalMinutes * MINUTE, new Date('2025-03-01T12:00:00Z'));

const product = (over: Partial<ProductSchedule> = {}): ProductSchedule => ({
  productId: ID,
  plan: 'free',
  checkFrequency: null,
  demoShop: false,
  lastCheckAt: onSlot(1440),
  consecutiveFailures: 0,
  editedAt: null,
  ...over,
});
const after = (from: Date, minutes: number) => new Date(from.getTime() + minutes * MINUTE);

describe('spread over the interval', () => {
  test("a product's slot is fixed by its id and lies within the interval", () => {
    expect(slotOffsetMs(ID, DAY)).toBe(slotOffsetMs(ID, DAY));
    for (const interval of [3 * MINUTE, 15 * MINUTE, DAY, 7 * DAY]) {
      const offset = slotOffsetMs(ID, interval);
      expect(offset).toBeGreaterThanOrEqual(0);
      expect(offset).toBeLessThan(interval);
    }
  });

  test('the slots of many products cover the interval evenly', () => {
    const hours = new Array(24).fill(0);
    for (let i = 0; i < 24_000; i++) hours[Math.floor(slotOffsetMs(`product-${i}`, DAY) / (60 * MINUTE))]++;
    // 1,000 a hour on average; a hash that bunched them would leave hours far off it.
    expect(Math.min(...hours)).toBeGreaterThan(850);
    expect(Math.max(...hours)).toBeLessThan(1150);
  });

  test('the nearest slot is within half an interval of the moment, on the slot grid', () => {
    const interval = 60 * MINUTE;
    for (const at of ['2025-03-01T00:00:00Z', '2025-03-01T12:34:56.789Z', '2026-11-24T23:59:59.999Z']) {
      const slot = nearestSlot(ID, interval, new Date(at)).getTime();
      expect(Math.abs(slot - Date.parse(at))).toBeLessThanOrEqual(interval / 2);
      expect(((slot % interval) + interval) % interval).toBe(slotOffsetMs(ID, interval));
    }
  });

  test('products checked at the same moment come due spread over the next interval', () => {
    const checkedAt = new Date('2025-03-01T09:00:00Z');
    const due = Array.from(
      { length: 1000 },
      (_, i) => nextCheckAt(product({ productId: `import-${i}`, plan: 'growth', lastCheckAt: checkedAt }), rules).getTime() - checkedAt.getTime(),
    );
    // Between half an interval and one and a half after the check, in every ten minutes of it.
    expect(Math.min(...due)).toBeGreaterThanOrEqual(30 * MINUTE);
    expect(Math.max(...due)).toBeLessThan(90 * MINUTE);
    const tens = new Set(due.map((ms) => Math.floor(ms / (10 * MINUTE))));
    expect(tens.size).toBe(6);
  });

  test('a product keeps its slot: checked a little late, it is due one interval after the slot', () => {
    const slot = onSlot(60);
    const lateCheck = after(slot, 4);
    expect(nextCheckAt(product({ plan: 'growth', lastCheckAt: lateCheck }), rules)).toEqual(after(slot, 60));
    expect(nextCheckAt(product({ plan: 'growth', lastCheckAt: after(slot, -4) }), rules)).toEqual(after(slot, 60));
  });

  test('never checked or edited since: due at once whatever the slot', () => {
    expect(nextCheckAt(product({ lastCheckAt: null }), rules)).toEqual(new Date(0));
    expect(nextCheckAt(product({ editedAt: after(onSlot(1440), 1) }), rules)).toEqual(new Date(0));
  });
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
    expect(isDue(product({ lastCheckAt: null }), onSlot(1440), rules)).toBe(true);
  });

  test('due one interval after the last check (on its slot)', () => {
    const T = onSlot(15);
    const p = product({ plan: 'pro', lastCheckAt: T });
    expect(nextCheckAt(p, rules)).toEqual(after(T, 15));
    expect(isDue(p, after(T, 14), rules)).toBe(false);
    expect(isDue(p, after(T, 15), rules)).toBe(true);
  });

  test('edited since the last check: due at once', () => {
    const T = onSlot(1440);
    expect(isDue(product({ lastCheckAt: T, editedAt: after(T, 1) }), after(T, 2), rules)).toBe(true);
    expect(isDue(product({ lastCheckAt: T, editedAt: after(T, -1) }), after(T, 2), rules)).toBe(false);
  });

  test('backoff doubles from the second failure in a row, capped at 16x', () => {
    const T = onSlot(15);
    expect([0, 1, 2, 3, 4, 5, 6, 20].map(backoffFactor)).toEqual([1, 1, 2, 4, 8, 16, 16, 16]);
    expect(nextCheckAt(product({ plan: 'pro', lastCheckAt: T, consecutiveFailures: 1 }), rules)).toEqual(after(T, 15));
    expect(nextCheckAt(product({ plan: 'pro', lastCheckAt: T, consecutiveFailures: 3 }), rules)).toEqual(after(T, 60));
    expect(nextCheckAt(product({ plan: 'pro', lastCheckAt: T, consecutiveFailures: 9 }), rules)).toEqual(after(T, 240));
  });

  test('a failing product waits at most a week, and never less than its interval', () => {
    const T = onSlot(1440);
    expect(nextCheckAt(product({ plan: 'free', lastCheckAt: T, consecutiveFailures: 8 }), rules)).toEqual(after(T, 7 * 1440));
    const weekly = onSlot(7 * 1440);
    expect(nextCheckAt(product({ checkFrequency: 'weekly', lastCheckAt: weekly, consecutiveFailures: 8 }), rules)).toEqual(after(weekly, 7 * 1440));
  });

  test('a success resets the backoff', () => {
    const T = onSlot(60);
    expect(nextCheckAt(product({ plan: 'growth', lastCheckAt: T, consecutiveFailures: 0 }), rules)).toEqual(after(T, 60));
  });
});
