import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { type BacktestCompetitor, backtest } from './backtest.ts';
import type { PricingRule } from './pricing.ts';

const DAY_MS = 86_400_000;
const NOW = new Date('2025-03-20T12:00:00Z');
const FROM = '2025-03-01';
const midnight = (day: string) => Date.parse(`${day}T00:00:00Z`);
const addDays = (day: string, n: number) => new Date(midnight(day) + n * DAY_MS).toISOString().slice(0, 10);
/** Inclusive UTC days from `from` to `now`'s day. */
const daysFrom = (from: string, now: Date) => Math.floor((now.getTime() - midnight(from)) / DAY_MS) + 1;
const sum = (byBand: Record<string, number>) => Object.values(byBand).reduce((a, b) => a + b, 0);

/** Match the cheapest of at least one, floored at cost + 10%, 10% a step. */
const rule = (over: Partial<PricingRule> = {}): PricingRule => ({
  strategy: 'match-cheapest',
  offsetPercent: null,
  offsetAmount: null,
  floor: { costMarginPercent: 10, amount: null },
  ceiling: { amount: null, regular: false },
  rounding: 'none',
  maxStepPercent: 10,
  minCompetitors: 1,
  spikePercent: 40,
  competitors: null,
  ...over,
});
const own = { currency: 'GBP', cost: 80, regularPrice: null };

/** A competitor checked daily, with one close a day at 10:00 from `from` on. */
const competitor = (id: string, prices: readonly number[], from = FROM): BacktestCompetitor => ({
  productId: id,
  name: `Kettle at ${id}`,
  host: `${id}.example`,
  checkIntervalMinutes: 1440,
  closes: prices.map((price, i) => ({
    day: addDays(from, i),
    price,
    currency: 'GBP',
    availability: 'InStock',
    lastAt: `${addDays(from, i)}T10:00:00.000Z`,
    eventPosition: 1000 * i + id.length,
  })),
});
const flat = (price: number, days = daysFrom(FROM, NOW)) => Array.from({ length: days }, () => price);
const since = (from: string, price: number) => [{ at: midnight(from) + 9 * 3_600_000, price }];

const run = (over: Partial<Parameters<typeof backtest>[0]> = {}) =>
  backtest({ rule: rule(), own, ownPoints: since(FROM, 105), competitors: [], from: FROM, now: NOW, competitivePercent: 5, ...over });

describe('backtest, by example', () => {
  test('a constant market: one change to the target, then the rule keeps it', () => {
    const result = run({ competitors: [competitor('acme', flat(100)), competitor('other', flat(110))] });
    expect(result.days).toHaveLength(20);
    expect(result.changes).toBe(1);
    expect(result.days.map((d) => d.status)).toEqual(['change', ...Array(19).fill('keep')]);
    expect(result.days.every((d) => d.recommended === 100 && d.actual === 105 && d.cheapest === 100 && d.average === 105)).toBe(true);
    expect(result.daysBy).toEqual({ cheapest: 20, competitive: 0, above: 0 });
    expect(result.actualDaysBy).toEqual({ cheapest: 0, competitive: 20, above: 0 });
    expect(sum(result.daysBy)).toBe(result.days.filter((d) => d.band !== null).length);
    expect(result).toMatchObject({ floorHits: 0, stepHits: 0, lowestMarginPercent: 25 });
  });

  test('a constant market the owner already matches: no change at all', () => {
    const result = run({ ownPoints: since(FROM, 100), competitors: [competitor('acme', flat(100)), competitor('other', flat(110))] });
    expect(result.changes).toBe(0);
    expect(new Set(result.days.map((d) => d.status))).toEqual(new Set(['keep']));
  });

  test('a falling competitor: the rule follows down by at most the step a day and stops at the floor', () => {
    const from = addDays(NOW.toISOString().slice(0, 10), -29);
    const falling = Array.from({ length: 30 }, (_, i) => Math.round(100 * 0.97 ** i * 100) / 100);
    const result = backtest({
      rule: rule({ maxStepPercent: 2, floor: { costMarginPercent: 20, amount: null }, spikePercent: 90 }),
      own: { currency: 'GBP', cost: 60, regularPrice: null },
      ownPoints: since(from, 100),
      competitors: [competitor('falling', falling, from), competitor('steady', flat(150, 30), from)],
      from,
      now: NOW,
      competitivePercent: 5,
    });
    const prices = result.days.map((d) => d.recommended!);
    expect(prices).toHaveLength(30);
    expect(prices[0]).toBe(100);
    for (let i = 1; i < prices.length; i++) {
      expect(prices[i]!).toBeLessThanOrEqual(prices[i - 1]!);
      expect(prices[i - 1]! - prices[i]!).toBeLessThanOrEqual(prices[i - 1]! * 0.02 + 1e-9);
      expect(prices[i]!).toBeGreaterThanOrEqual(72);
    }
    expect(prices.at(-1)).toBe(72);
    expect(prices.filter((p) => p === 72).length).toBeGreaterThan(1);
    expect(result.floorHits).toBeGreaterThan(0);
    expect(result.stepHits).toBeGreaterThan(0);
    expect(result.floorHits + result.stepHits).toBe(29);
    expect(result.lowestMarginPercent).toBe(20);
    expect(result.changes).toBe(result.days.filter((d) => d.status === 'change').length);
    expect(result.days.at(-1)!.cheapest).toBe(falling.at(-1)!);
  });

  test('days before the owner had a price have no actual or recommended price', () => {
    const start = addDays(FROM, 3);
    const result = run({ ownPoints: since(start, 105), competitors: [competitor('acme', flat(100))] });
    expect(result.days.slice(0, 3)).toEqual(
      [0, 1, 2].map((i) => ({ date: addDays(FROM, i), actual: null, recommended: null, status: null, cheapest: null, average: null, band: null })),
    );
    expect(result.days[3]).toMatchObject({ date: start, actual: 105, recommended: 100, status: 'change' });
    expect(sum(result.daysBy)).toBe(17);
    expect(sum(result.actualDaysBy)).toBe(17);
  });

  test("the owner's days are counted from their actual prices, which the rule's price does not follow", () => {
    const ownPoints = [
      { at: midnight(FROM) + 3_600_000, price: 200 },
      { at: midnight(addDays(FROM, 10)) + 3_600_000, price: 100 },
    ];
    const result = run({ rule: rule({ maxStepPercent: 100 }), ownPoints, competitors: [competitor('acme', flat(100)), competitor('other', flat(120))] });
    expect(result.days.map((d) => d.actual)).toEqual([...Array(10).fill(200), ...Array(10).fill(100)]);
    expect(result.days.every((d) => d.recommended === 100)).toBe(true);
    expect(result.changes).toBe(1);
    expect(result.actualDaysBy).toEqual({ cheapest: 10, competitive: 0, above: 10 });
    expect(result.daysBy).toEqual({ cheapest: 20, competitive: 0, above: 0 });
  });

  test('the day count is the inclusive number of UTC days from `from` to now', () => {
    expect(run().days).toHaveLength(20);
    expect(run({ from: '2025-03-20' }).days.map((d) => d.date)).toEqual(['2025-03-20']);
    expect(run({ from: '2025-03-21' }).days).toEqual([]);
    expect(run({ from: '2025-02-20', now: new Date('2025-03-01T00:00:00Z') }).days.map((d) => d.date)).toEqual([
      '2025-02-20',
      '2025-02-21',
      '2025-02-22',
      '2025-02-23',
      '2025-02-24',
      '2025-02-25',
      '2025-02-26',
      '2025-02-27',
      '2025-02-28',
      '2025-03-01',
    ]);
  });

  test('a one-day drop far from the 30-day median holds that day only', () => {
    const prices = flat(100).map((p, i) => (i >= 10 ? 50 : p));
    const result = run({ ownPoints: since(FROM, 100), rule: rule({ maxStepPercent: 60 }), competitors: [competitor('flash', prices)] });
    expect(result.days[10]).toMatchObject({ status: 'hold', recommended: 100 });
    expect(result.days[11]).toMatchObject({ status: 'change', recommended: 88 });
    expect(result.days.slice(0, 10).every((d) => d.status === 'keep')).toBe(true);
  });

  test("a competitor subset: only the chosen ones decide the rule's price and band", () => {
    const result = run({ rule: rule({ competitors: ['acme'] }), competitors: [competitor('acme', flat(100)), competitor('cheap', flat(90))] });
    expect(result.days.every((d) => d.recommended === 100 && d.cheapest === 100 && d.band === 'cheapest')).toBe(true);
  });

  test('a competitor whose closes stop goes stale after two check intervals, and the rule holds', () => {
    const result = run({ ownPoints: since(FROM, 100), competitors: [competitor('acme', flat(100, 5))] });
    expect(result.days.map((d) => d.status).slice(0, 8)).toEqual(['keep', 'keep', 'keep', 'keep', 'keep', 'keep', 'hold', 'hold']);
    expect(result.days[6]).toMatchObject({ band: null, cheapest: null });
    expect(sum(result.daysBy)).toBe(6);
  });
});

// ---------------------------------------------------------------------------------------------
// Generated markets

const marketArb = fc
  .record({
    days: fc.integer({ min: 1, max: 45 }),
    nowMinutes: fc.integer({ min: 0, max: 1439 }),
    strategy: fc.constantFrom('match-cheapest', 'beat-cheapest', 'second-cheapest', 'average', 'stay-cheapest-by' as const),
    offset: fc.integer({ min: -10, max: 20 }),
    rounding: fc.constantFrom('.99', '.95', '.00', 'none' as const),
    step: fc.integer({ min: 1, max: 500 }),
    floorAmount: fc.integer({ min: 0, max: 9_000 }),
    ceilingAmount: fc.option(fc.integer({ min: 10_000, max: 30_000 }), { nil: null }),
    cost: fc.option(fc.integer({ min: 1, max: 8_000 }), { nil: null, freq: 4 }),
    minCompetitors: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 3 })),
    spikePercent: fc.integer({ min: 10, max: 100 }),
    constant: fc.boolean(),
    competitors: fc.array(
      fc.record({
        start: fc.integer({ min: 5_000, max: 20_000 }),
        moves: fc.array(fc.integer({ min: -600, max: 600 }), { minLength: 45, maxLength: 45 }),
        gaps: fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 45, maxLength: 45 }),
        firstDay: fc.integer({ min: 0, max: 10 }),
        interval: fc.constantFrom(720, 1440, 2880),
      }),
      { minLength: 1, maxLength: 4 },
    ),
    firstOwn: fc.option(fc.record({ minute: fc.integer({ min: 0, max: 5 * 1440 }), price: fc.integer({ min: 5_000, max: 25_000 }) }), { nil: null, freq: 8 }),
    ownPoints: fc.array(fc.record({ minute: fc.integer({ min: 0, max: 46 * 1440 }), price: fc.integer({ min: 5_000, max: 25_000 }) }), { maxLength: 5 }),
  })
  .map((m) => {
    const now = new Date(midnight('2025-03-20') + m.nowMinutes * 60_000);
    const from = addDays('2025-03-20', 1 - m.days);
    const competitors = m.competitors.map((c, k): BacktestCompetitor => {
      const closes: BacktestCompetitor['closes'][number][] = [];
      let pence = c.start;
      for (let i = m.constant ? 0 : c.firstDay; i < m.days; i++) {
        if (!m.constant) pence = Math.max(100, pence + c.moves[i]!);
        if (!m.constant && c.gaps[i] === 0) continue;
        const day = addDays(from, i);
        const lastAt = new Date(Math.min(midnight(day) + 36_000_000, now.getTime())).toISOString();
        closes.push({ day, price: pence / 100, currency: 'GBP', availability: 'InStock', lastAt, eventPosition: i * 10 + k });
      }
      return { productId: `c${k}`, name: `Competitor ${k}`, host: `c${k}.example`, checkIntervalMinutes: c.interval, closes };
    });
    const points = [...(m.firstOwn ? [m.firstOwn] : []), ...m.ownPoints].sort((a, b) => a.minute - b.minute);
    return {
      rule: rule({
        strategy: m.strategy,
        offsetPercent: m.offset,
        rounding: m.rounding,
        maxStepPercent: m.step / 10,
        floor: { costMarginPercent: m.cost === null ? null : 10, amount: m.floorAmount / 100 },
        ceiling: { amount: m.ceilingAmount === null ? null : m.ceilingAmount / 100, regular: false },
        minCompetitors: m.minCompetitors,
        spikePercent: m.spikePercent,
      }),
      own: { currency: 'GBP', cost: m.cost === null ? null : m.cost / 100, regularPrice: null },
      ownPoints: (m.constant ? points.slice(0, 1) : points).map((p) => ({ at: midnight(from) + p.minute * 60_000, price: p.price / 100 })),
      competitors,
      from,
      now,
      competitivePercent: 5,
      constant: m.constant,
    };
  });

describe('backtest, over generated markets', () => {
  test('one day per UTC day to now; no price before the owner had one; counts agree with the days', () => {
    fc.assert(
      fc.property(marketArb, (input) => {
        const result = backtest(input);
        expect(result.days).toHaveLength(daysFrom(input.from, input.now));
        expect(result.days.map((d) => d.date)).toEqual(result.days.map((_, i) => addDays(input.from, i)));
        const positioned = result.days.filter((d) => d.band !== null).length;
        expect(sum(result.daysBy)).toBe(positioned);
        expect(sum(result.actualDaysBy)).toBe(positioned);
        expect(result.changes).toBe(result.days.filter((d) => d.status === 'change').length);
        expect(result.floorHits + result.stepHits).toBeLessThanOrEqual(result.days.filter((d) => d.status !== null).length);
        let previous: number | null = null;
        for (const [i, day] of result.days.entries()) {
          const end = Math.min(midnight(day.date) + DAY_MS - 1, input.now.getTime());
          const actual = input.ownPoints.filter((p) => p.at <= end).at(-1)?.price ?? null;
          expect(day.actual).toBe(actual);
          if (actual === null) {
            expect(day).toEqual({ date: addDays(input.from, i), actual: null, recommended: null, status: null, cheapest: null, average: null, band: null });
            continue;
          }
          const before = previous ?? actual;
          // The rule's price moves only on a change, by at most the step, and never below the floor.
          expect(day.recommended !== before).toBe(day.status === 'change');
          expect(Math.abs(day.recommended! - before)).toBeLessThanOrEqual((before * input.rule.maxStepPercent) / 100 + 1e-6);
          if (day.status === 'change') expect(day.recommended!).toBeGreaterThanOrEqual(input.rule.floor.amount! - 1e-9);
          previous = day.recommended;
        }
        const cost = input.own.cost;
        const margins = result.days.filter((d) => d.recommended !== null).map((d) => Math.round(((d.recommended! - cost!) / cost!) * 10_000) / 100);
        expect(result.lowestMarginPercent).toBe(cost !== null && margins.length ? Math.min(...margins) : null);
      }),
      { numRuns: 300 },
    );
  });

  test('in a constant market, once the rule stops changing it never changes again', () => {
    fc.assert(
      fc.property(
        marketArb.filter((m) => m.constant),
        (input) => {
          const statuses = backtest(input)
            .days.map((d) => d.status)
            .filter((s) => s !== null);
          const settled = statuses.findIndex((s) => s !== 'change');
          if (settled >= 0) expect(new Set(statuses.slice(settled)).size).toBe(1);
        },
      ),
      { numRuns: 300 },
    );
  });
});
