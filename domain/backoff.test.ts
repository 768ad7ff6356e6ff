import { expect, test } from 'bun:test';
import fc from 'fast-check';
import { backoff as waitAfter } from './backoff.ts';

const backoff = (attempt: number, baseMs: number, maxMs: number, random: () => number) => waitAfter(attempt, { baseMs, maxMs, jitter: 0.2 }, random);

test('backoff doubles from the base up to the cap, with jitter of 20% either way', () => {
  const exact = (attempt: number) => backoff(attempt, 5_000, 300_000, () => 0.5);
  expect([1, 2, 3, 4, 7, 8, 20].map(exact)).toEqual([5_000, 10_000, 20_000, 40_000, 300_000, 300_000, 300_000]);
  expect(backoff(1, 5_000, 300_000, () => 0)).toBe(4_000);
  expect(backoff(1, 5_000, 300_000, () => 1)).toBe(6_000);
});

test('every wait is within its jitter of the doubled base, never past the cap, and never shorter after more failures', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 60 }),
      fc.integer({ min: 1, max: 1e6 }),
      fc.integer({ min: 1, max: 1e9 }),
      fc.double({ min: 0, max: 0.5, noNaN: true }),
      fc.double({ min: 0, max: 1, noNaN: true }),
      (failures, baseMs, maxMs, jitter, r) => {
        const exact = waitAfter(failures, { baseMs, maxMs });
        expect(exact).toBeLessThanOrEqual(Math.max(maxMs, 0));
        expect(exact).toBeGreaterThanOrEqual(Math.min(baseMs, maxMs));
        expect(waitAfter(failures + 1, { baseMs, maxMs })).toBeGreaterThanOrEqual(exact);
        const spread = waitAfter(failures, { baseMs, maxMs, jitter }, () => r);
        expect(spread).toBeGreaterThanOrEqual(Math.floor(exact * (1 - jitter)));
        expect(spread).toBeLessThanOrEqual(Math.ceil(exact * (1 + jitter)));
      },
    ),
  );
});
