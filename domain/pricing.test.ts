import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { currencyDecimals } from './money.ts';
import type { Availability } from './position.ts';
import {
  ago,
  boundsOf,
  isSpike,
  type OwnSide,
  type PricedOffer,
  type PricingRule,
  ROUNDINGS,
  type Recommendation,
  type Rounding,
  recommend,
  roundToEnding,
  STRATEGIES,
  type Strategy,
} from './pricing.ts';

const NOW = new Date('2025-03-10T12:00:00Z');
const minutesAgo = (m: number) => new Date(NOW.getTime() - m * 60_000).toISOString();
const hoursAgo = (h: number) => minutesAgo(h * 60);
// Minor units as the module works them: an amount snapped to a millionth of a unit, then rounded.
const scaleOf = (currency: string) => 10 ** currencyDecimals(currency);
const snap = (amount: number, scale: number) => Math.round(amount * scale * 1e6) / 1e6;
const minorOf = (amount: number, scale: number) => Math.round(snap(amount, scale));
const upMinor = (amount: number, scale: number) => Math.ceil(snap(amount, scale));
const downMinor = (amount: number, scale: number) => Math.floor(snap(amount, scale));
/** The ending a rounding asks for in minor units, and the unit it repeats every; null when any price will do. */
const endingOf = (rounding: Rounding, scale: number) =>
  rounding === 'none' || scale < 100 ? null : { ending: Math.round(Number(rounding) * scale), unit: scale };
const hasEnding = (m: number, rounding: Rounding, scale: number) => {
  const e = endingOf(rounding, scale);
  return e === null || (((m - e.ending) % e.unit) + e.unit) % e.unit === 0;
};

let next = 0;
/** A rule that matches the cheapest of two, floored at cost + 10%, with the defaults otherwise. */
const rule = (over: Partial<PricingRule> = {}): PricingRule => ({
  strategy: 'match-cheapest',
  offsetPercent: null,
  offsetAmount: null,
  floor: { costMarginPercent: 10, amount: null },
  ceiling: { amount: null, regular: false },
  rounding: 'none',
  maxStepPercent: 10,
  minCompetitors: 2,
  spikePercent: 40,
  competitors: null,
  ...over,
});
const own = (price: number, over: Partial<OwnSide> = {}): OwnSide => ({ price, currency: 'GBP', cost: 80, regularPrice: null, ...over });
/** A fresh, in-stock competitor in pounds, checked every 3 h and read 2 h ago. */
const offer = (price: number | null, over: Partial<PricedOffer> = {}): PricedOffer => ({
  ...{ productId: `c${++next}`, name: `Kettle ${next}`, host: `shop${next}.example`, price, currency: 'GBP', availability: 'InStock' },
  ...{ lastPriceAt: hoursAgo(2), checkIntervalMinutes: 180, eventPosition: next * 10, median30: null, changedAt: null },
  ...over,
});

// ---------------------------------------------------------------------------------------------
// Generated scenarios

type Scenario = { rule: PricingRule; own: OwnSide; offers: PricedOffer[]; now: Date };

const offerArb = fc.record({
  factor: fc.option(fc.oneof(fc.constant(1000), fc.integer({ min: 300, max: 2000 })), { nil: null, freq: 10 }),
  currency: fc.oneof({ arbitrary: fc.constant('own' as const), weight: 12 }, fc.constantFrom('lower' as const, 'other' as const, 'none' as const)),
  availability: fc.constantFrom<Availability | null>('InStock', 'InStock', 'InStock', 'InStock', 'OutOfStock', 'PreOrder', 'BackOrder', null),
  interval: fc.constantFrom(60, 180, 360, 1440),
  /** Age in percent of the check interval: fresh up to 200. */
  age: fc.option(fc.oneof(fc.constant(200), fc.integer({ min: -10, max: 250 })), { nil: null, freq: 20 }),
  medianFactor: fc.option(fc.integer({ min: 400, max: 1600 }), { nil: null, freq: 2 }),
  changedHours: fc.option(fc.integer({ min: 0, max: 72 }), { nil: null, freq: 2 }),
  eventPosition: fc.option(fc.nat({ max: 1_000_000 }), { nil: null, freq: 10 }),
  hostless: fc.boolean(),
});

const scenarioArb: fc.Arbitrary<Scenario> = fc
  .record({
    currency: fc.constantFrom('GBP', 'GBP', 'GBP', 'EUR', 'JPY', 'KWD'),
    ownMinor: fc.oneof(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 300, max: 300_000 })),
    costFactor: fc.option(fc.integer({ min: 0, max: 1100 }), { nil: null, freq: 5 }),
    regularFactor: fc.option(fc.integer({ min: 800, max: 2000 }), { nil: null, freq: 2 }),
    strategy: fc.constantFrom(...STRATEGIES),
    offsetTenths: fc.integer({ min: 0, max: 300 }),
    below: fc.boolean(),
    offsetAmountFactor: fc.option(fc.integer({ min: 0, max: 200 }), { nil: null, freq: 2 }),
    marginPercent: fc.option(fc.integer({ min: 0, max: 100 }), { nil: null, freq: 3 }),
    floorFactor: fc.option(fc.integer({ min: 0, max: 1200 }), { nil: null, freq: 2 }),
    ceilingFactor: fc.option(fc.integer({ min: 500, max: 2500 }), { nil: null, freq: 2 }),
    regular: fc.boolean(),
    rounding: fc.constantFrom(...ROUNDINGS),
    stepTenths: fc.integer({ min: 1, max: 1000 }),
    minCompetitors: fc.oneof({ arbitrary: fc.integer({ min: 1, max: 2 }), weight: 3 }, { arbitrary: fc.integer({ min: 1, max: 5 }), weight: 1 }),
    spikePercent: fc.integer({ min: 10, max: 100 }),
    subset: fc.oneof({ arbitrary: fc.constant(null), weight: 3 }, fc.uniqueArray(fc.integer({ min: 0, max: 9 }), { maxLength: 6 })),
    offers: fc.oneof(fc.array(offerArb, { maxLength: 8 }), fc.array(offerArb, { minLength: 2, maxLength: 8 })),
  })
  .map((r): Scenario => {
    const scale = scaleOf(r.currency);
    /** A fraction of the own price: on minor units, or anywhere (floors and ceilings need not be). */
    const onMinor = (perMille: number) => Math.round((r.ownMinor * perMille) / 1000) / scale;
    const anywhere = (perMille: number) => (r.ownMinor * perMille) / 1000 / scale;
    const marginPercent = r.marginPercent === null && r.floorFactor === null ? 10 : r.marginPercent;
    const offsetPercent = r.offsetTenths === 0 ? null : ((r.strategy === 'average' && r.below ? -1 : 1) * r.offsetTenths) / 10;
    const byAmount = r.strategy === 'beat-cheapest' && r.offsetAmountFactor !== null;
    const offers = r.offers.map(
      (o, i): PricedOffer => ({
        productId: `c${i}`,
        name: `Competitor ${i}`,
        host: o.hostless ? '' : `shop${i}.example`,
        price: o.factor === null ? null : onMinor(o.factor),
        currency: { own: r.currency, lower: r.currency.toLowerCase(), other: 'CHF', none: null }[o.currency],
        availability: o.availability,
        lastPriceAt: o.age === null ? null : minutesAgo((o.interval * o.age) / 100),
        checkIntervalMinutes: o.interval,
        eventPosition: o.eventPosition,
        median30: o.medianFactor === null || o.factor === null ? null : onMinor((o.factor * o.medianFactor) / 1000),
        changedAt: o.changedHours === null ? null : hoursAgo(o.changedHours),
      }),
    );
    return {
      now: NOW,
      offers,
      own: {
        price: r.ownMinor / scale,
        currency: r.currency,
        cost: r.costFactor === null ? null : onMinor(r.costFactor),
        regularPrice: r.regularFactor === null ? null : onMinor(r.regularFactor),
      },
      rule: {
        strategy: r.strategy,
        offsetPercent: byAmount ? null : offsetPercent,
        offsetAmount: byAmount ? onMinor(r.offsetAmountFactor!) : null,
        floor: { costMarginPercent: marginPercent, amount: r.floorFactor === null ? null : anywhere(r.floorFactor) },
        ceiling: { amount: r.ceilingFactor === null ? null : anywhere(r.ceilingFactor), regular: r.regular },
        rounding: r.rounding,
        maxStepPercent: r.stepTenths / 10,
        minCompetitors: r.minCompetitors,
        spikePercent: r.spikePercent,
        competitors: r.subset === null ? null : r.subset.map((n) => `c${n}`),
      },
    };
  });

const run = (s: Scenario) => recommend(s.rule, s.own, s.offers, s.now);

// An oracle written from the header and position.ts, independent of the module's code.
const chosenOf = (s: Scenario) => (s.rule.competitors ? s.offers.filter((o) => s.rule.competitors!.includes(o.productId)) : s.offers);
const isCounted = (s: Scenario, o: PricedOffer) =>
  o.price !== null &&
  Number.isFinite(o.price) &&
  o.price >= 0 &&
  o.currency?.trim().toUpperCase() === s.own.currency.toUpperCase() &&
  o.availability !== 'OutOfStock' &&
  o.lastPriceAt !== null &&
  s.now.getTime() - Date.parse(o.lastPriceAt) <= 2 * o.checkIntervalMinutes * 60_000;
const countedOf = (s: Scenario) => chosenOf(s).filter((o) => isCounted(s, o));
function floorOf({ rule: r, own: o }: Scenario): number | null {
  const parts = [r.floor.costMarginPercent !== null && o.cost !== null ? o.cost * (1 + r.floor.costMarginPercent / 100) : null, r.floor.amount];
  const set = parts.filter((p): p is number => p !== null);
  return set.length ? Math.max(...set) : null;
}
function ceilingOf({ rule: r, own: o }: Scenario): number | null {
  const set = [r.ceiling.amount, r.ceiling.regular ? o.regularPrice : null].filter((p): p is number => p !== null);
  return set.length ? Math.min(...set) : null;
}
/** Why the rule must hold, first reason first; null when some price keeps every promise. */
function holdReason(s: Scenario): 'floor' | 'count' | 'spike' | 'ceiling' | 'second' | 'step' | null {
  const scale = scaleOf(s.own.currency);
  const counted = countedOf(s);
  const floor = floorOf(s);
  const ceiling = ceilingOf(s);
  if (floor === null) return 'floor';
  if (counted.length < s.rule.minCompetitors) return 'count';
  if (counted.some((o) => isSpike(o, s.rule.spikePercent, s.now))) return 'spike';
  const floorMinor = upMinor(floor, scale);
  const ceilingMinor = ceiling === null ? Number.POSITIVE_INFINITY : downMinor(ceiling, scale);
  if (floorMinor > ceilingMinor) return 'ceiling';
  if (s.rule.strategy === 'second-cheapest' && counted.length < 2) return 'second';
  const step = s.rule.maxStepPercent / 100;
  const low = Math.max(floorMinor, upMinor(s.own.price * (1 - step), scale));
  const high = Math.min(ceilingMinor, downMinor(s.own.price * (1 + step), scale));
  return low > high ? 'step' : null;
}
const cheapestOf = (s: Scenario) => Math.min(...countedOf(s).map((o) => o.price!));
/** stay-cheapest-by with the price already far enough under: the target is the current price, unrounded. */
const alreadyUnder = (s: Scenario) =>
  s.rule.strategy === 'stay-cheapest-by' &&
  minorOf(s.own.price, scaleOf(s.own.currency)) <= downMinor(cheapestOf(s) * (1 - (s.rule.offsetPercent ?? 0) / 100), scaleOf(s.own.currency));
const priceMinor = (rec: Recommendation) => minorOf(rec.price!, scaleOf(rec.currency));
const BEATING: readonly Strategy[] = ['match-cheapest', 'beat-cheapest', 'stay-cheapest-by', 'second-cheapest'];

describe('recommend, over generated competitors and rules', () => {
  test('a price is never below the floor, above the ceiling, or more than a step from the current price', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const rec = run(s);
        if (rec.status === 'hold') return;
        const scale = scaleOf(s.own.currency);
        const price = priceMinor(rec);
        expect(rec.price! * scale).toBeCloseTo(price, 6);
        expect(price).toBeGreaterThanOrEqual(upMinor(floorOf(s)!, scale));
        const ceiling = ceilingOf(s);
        if (ceiling !== null) expect(price).toBeLessThanOrEqual(downMinor(ceiling, scale));
        const current = minorOf(s.own.price, scale);
        expect(Math.abs(price - current)).toBeLessThanOrEqual((current * s.rule.maxStepPercent) / 100 + 1e-6);
      }),
      { numRuns: 1000 },
    );
  });

  test('holds exactly when a reason says so, with no price and a sentence; evidence is every counted chosen competitor', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const rec = run(s);
        const reason = holdReason(s);
        expect(rec.status === 'hold').toBe(reason !== null);
        if (reason !== null) {
          expect(rec.price).toBeNull();
          expect(rec.target).toBeNull();
          expect(rec.explanation.length).toBeGreaterThan(0);
          expect(rec.bounds.decidedBy).toBe(reason === 'step' ? 'step' : null);
        } else {
          expect(rec.explanation[0]).toStartWith('Cheapest counted competitor: ');
        }
        const counted = countedOf(s);
        expect(rec.evidence.map((e) => e.productId)).toEqual(counted.map((o) => o.productId));
        expect(rec.evidence.map((e) => e.eventPosition)).toEqual(counted.map((o) => o.eventPosition));
        for (const e of rec.evidence) {
          const source = chosenOf(s).find((o) => o.productId === e.productId)!;
          expect(isCounted(s, source)).toBe(true);
          expect(e).toEqual({
            productId: source.productId,
            name: source.name,
            price: source.price!,
            currency: source.currency!,
            observedAt: source.lastPriceAt!,
            eventPosition: source.eventPosition,
          });
        }
        expect(rec.cheapest).toBe(counted.length ? cheapestOf(s) : null);
        expect(rec.bounds.floor).toBe(floorOf(s));
        expect(rec.bounds.ceiling).toBe(ceilingOf(s));
        expect(rec.currentPrice).toBe(s.own.price);
      }),
      { numRuns: 1000 },
    );
  });

  test("'keep' is the current price, 'change' another one, and a price is decided by one of the five constraints", () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const rec = run(s);
        if (rec.status === 'hold') return;
        const same = priceMinor(rec) === minorOf(s.own.price, scaleOf(s.own.currency));
        expect(rec.status).toBe(same ? 'keep' : 'change');
        expect(['target', 'rounding', 'floor', 'ceiling', 'step']).toContain(rec.bounds.decidedBy!);
        expect(rec.target).not.toBeNull();
      }),
      { numRuns: 1000 },
    );
  });

  test('a target or rounding decision has the ending; a beating strategy never ends above its target', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const rec = run(s);
        if (rec.status === 'hold' || (rec.bounds.decidedBy !== 'target' && rec.bounds.decidedBy !== 'rounding')) return;
        const scale = scaleOf(s.own.currency);
        const price = priceMinor(rec);
        // The one exception: stay-cheapest-by already far enough under keeps the owner's own price as it is.
        if (!alreadyUnder(s)) {
          expect(hasEnding(price, s.rule.rounding, scale)).toBe(true);
          if (s.rule.rounding === '.99' && scale === 100) expect(Math.round(rec.price! * 100) % 100).toBe(99);
        } else {
          expect(rec.status).toBe('keep');
          expect(rec.bounds.decidedBy).toBe('target');
        }
        if (BEATING.includes(s.rule.strategy)) expect(price).toBeLessThanOrEqual(snap(rec.target!, scale) + 1e-6);
        if (s.rule.strategy !== 'second-cheapest' && s.rule.strategy !== 'average' && !alreadyUnder(s)) {
          expect(rec.target!).toBeLessThanOrEqual(cheapestOf(s));
        }
      }),
      { numRuns: 1000 },
    );
  });

  // A floor or step rounded to the ending never carries the price past where it stands
  // (it once did: £2.73, match £0.82, 9.6% step, '.99' gave £2.99).
  test('a price never moves against the rounded target while it lies within the floor and ceiling', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const rec = run(s);
        const scale = scaleOf(s.own.currency);
        const current = minorOf(s.own.price, scale);
        const ceiling = ceilingOf(s);
        if (rec.status === 'hold' || alreadyUnder(s)) return;
        if (current < upMinor(floorOf(s)!, scale) || (ceiling !== null && current > downMinor(ceiling, scale))) return;
        const direction = s.rule.strategy === 'average' ? 'nearest' : 'down';
        const targetMinor = direction === 'down' ? downMinor(rec.target!, scale) : minorOf(rec.target!, scale);
        const rounded = roundToEnding(targetMinor, s.rule.rounding, scale, direction);
        const price = priceMinor(rec);
        if (rounded < current) expect(price).toBeLessThanOrEqual(current);
        if (rounded > current) expect(price).toBeGreaterThanOrEqual(current);
        if (rounded === current) expect(rec.status).toBe('keep');
      }),
      { numRuns: 1000 },
    );
  });

  test('the same inputs give the same answer, and the order of the competitors does not change the price', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const rec = run(s);
        expect(run(structuredClone(s))).toEqual(rec);
        const reversed = run({ ...s, offers: [...s.offers].reverse() });
        expect(reversed.status).toBe(rec.status);
        expect(reversed.price).toBe(rec.price);
        expect(reversed.evidence).toEqual([...rec.evidence].reverse());
      }),
      { numRuns: 500 },
    );
  });

  test('a change decided by the target or its rounding is kept when the rule runs again from it', () => {
    fc.assert(
      fc.property(scenarioArb, (s) => {
        const rec = run(s);
        if (rec.status !== 'change' || (rec.bounds.decidedBy !== 'target' && rec.bounds.decidedBy !== 'rounding')) return;
        const again = run({ ...s, own: { ...s.own, price: rec.price! } });
        expect(again.status).toBe('keep');
        expect(again.price).toBe(rec.price);
      }),
      { numRuns: 1000 },
    );
  });

  test('the generator reaches every outcome, so the properties above are not vacuous', () => {
    const seen = new Map<string, number>();
    const count = (key: string) => seen.set(key, (seen.get(key) ?? 0) + 1);
    for (const s of fc.sample(scenarioArb, { numRuns: 3000, seed: 14 })) {
      const rec = run(s);
      count(rec.status);
      count(`hold:${holdReason(s)}`);
      if (rec.status !== 'hold') count(`${s.rule.strategy}:${rec.bounds.decidedBy}`);
      if (rec.status !== 'hold') count(`currency:${s.own.currency}`);
    }
    for (const key of ['change', 'keep', 'hold', 'hold:floor', 'hold:count', 'hold:spike', 'hold:ceiling', 'hold:second', 'hold:step']) {
      expect([key, seen.get(key) ?? 0]).not.toEqual([key, 0]);
    }
    for (const strategy of STRATEGIES) expect([strategy, seen.get(`${strategy}:target`) ?? 0]).not.toEqual([strategy, 0]);
    for (const decided of ['rounding', 'floor', 'ceiling', 'step']) {
      expect([decided, STRATEGIES.some((st) => seen.has(`${st}:${decided}`))]).toEqual([decided, true]);
    }
    for (const currency of ['GBP', 'EUR', 'JPY', 'KWD']) expect([currency, seen.has(`currency:${currency}`)]).toEqual([currency, true]);
  });
});

describe('recommend, by example', () => {
  test('a step-limited move down never rounds up past the current price', () => {
    const rec = recommend(
      rule({ strategy: 'match-cheapest', rounding: '.99', maxStepPercent: 9.6, floor: { costMarginPercent: null, amount: 0.5 } }),
      own(2.73, { cost: null }),
      [offer(0.82), offer(0.9)],
      NOW,
    );
    expect(rec).toMatchObject({ status: 'change', price: 2.47, bounds: { decidedBy: 'step' } }); // not £2.99
  });

  const acme = () => offer(105, { host: 'acme.example' });

  test('the worked example: beat the cheapest by 1%, round down to .99, within the floor and step', () => {
    const r = rule({ strategy: 'beat-cheapest', offsetPercent: 1, rounding: '.99' });
    const a = acme();
    const b = offer(112);
    const rec = recommend(r, own(110), [a, b], NOW);
    expect(rec).toMatchObject({
      status: 'change',
      price: 102.99,
      currentPrice: 110,
      currency: 'GBP',
      cheapest: 105,
      average: 108.5,
      bounds: { ceiling: null, decidedBy: 'rounding' },
    });
    expect(rec.bounds.floor).toBeCloseTo(88, 9);
    expect(rec.target).toBeCloseTo(103.95, 9);
    expect(rec.explanation).toEqual([
      'Cheapest counted competitor: acme.example at £105.00 (checked 2 h ago).',
      'Beat by 1% → £103.95.',
      'Rounded down .99 → £102.99.',
      'Within your floor of £88.00 (cost £80.00 + 10%) and step limit of 10%.',
    ]);
    expect(rec.evidence).toEqual([
      { productId: a.productId, name: a.name, price: 105, currency: 'GBP', observedAt: a.lastPriceAt!, eventPosition: a.eventPosition },
      { productId: b.productId, name: b.name, price: 112, currency: 'GBP', observedAt: b.lastPriceAt!, eventPosition: b.eventPosition },
    ]);
  });

  test('beat by an amount', () => {
    const rec = recommend(rule({ strategy: 'beat-cheapest', offsetAmount: 2 }), own(110), [acme(), offer(112)], NOW);
    expect(rec).toMatchObject({ status: 'change', price: 103, bounds: { decidedBy: 'target' } });
    expect(rec.explanation[1]).toBe('Beat by £2.00 → £103.00.');
  });

  test('the floor wins over rounding: rounded down below the floor, it rounds up from the floor', () => {
    const rec = recommend(rule({ rounding: '.99' }), own(90), [offer(88.5), offer(95)], NOW);
    expect(rec).toMatchObject({ status: 'change', price: 88.99, bounds: { decidedBy: 'floor' } });
    expect(rec.explanation.slice(1)).toEqual([
      'Match the cheapest → £88.50.',
      'Rounded down .99 → £87.99.',
      'Held up by your floor of £88.00 (cost £80.00 + 10%) → £88.99.',
    ]);
  });

  test('the floor itself when no price with the ending fits between it and the step', () => {
    const r = rule({ rounding: '.99', floor: { costMarginPercent: null, amount: 88.85 }, maxStepPercent: 0.1 });
    const rec = recommend(r, own(88.9), [offer(88), offer(95)], NOW);
    expect(rec).toMatchObject({ status: 'change', price: 88.85, bounds: { decidedBy: 'floor' } });
    expect(rec.explanation.at(-1)).toBe('Held up by your floor of £88.85 (the amount you set) → £88.85.');
  });

  test('a move is limited to the step, down and up', () => {
    const downward = recommend(rule({ floor: { costMarginPercent: 10, amount: null } }), own(110, { cost: 50 }), [offer(90), offer(95)], NOW);
    expect(downward).toMatchObject({ status: 'change', price: 99, target: 90, bounds: { decidedBy: 'step' } });
    expect(downward.explanation.at(-1)).toBe('Held to the step limit of 10% from £110.00 → £99.00.');
    const upward = recommend(rule(), own(80, { cost: 50 }), [offer(100), offer(120)], NOW);
    expect(upward).toMatchObject({ status: 'change', price: 88, bounds: { decidedBy: 'step' } });
    const rounded = recommend(rule({ rounding: '.99' }), own(110, { cost: 50 }), [offer(90), offer(95)], NOW);
    expect(rounded).toMatchObject({ price: 99.99, bounds: { decidedBy: 'step' } });
  });

  test('the regular price is a ceiling, and the lower of it and an amount wins', () => {
    const market = () => [offer(100), offer(120)];
    const r = (ceiling: PricingRule['ceiling']) => rule({ strategy: 'average', offsetPercent: 10, ceiling });
    const regular = recommend(r({ amount: null, regular: true }), own(115, { regularPrice: 118 }), market(), NOW);
    expect(regular).toMatchObject({ status: 'change', price: 118, bounds: { ceiling: 118, decidedBy: 'ceiling' } });
    expect(regular.explanation).toContain('Held down by your ceiling of £118.00 → £118.00.');
    expect(regular.explanation[1]).toBe('Average of 2 counted: £110.00 + 10% → £121.00.');
    expect(recommend(r({ amount: 116.5, regular: true }), own(115, { regularPrice: 118 }), market(), NOW)).toMatchObject({
      price: 116.5,
      bounds: { ceiling: 116.5 },
    });
    expect(recommend(r({ amount: null, regular: true }), own(115, { regularPrice: null }), market(), NOW)).toMatchObject({
      price: 121,
      bounds: { ceiling: null },
    });
    expect(recommend(r({ amount: null, regular: false }), own(115, { regularPrice: 118 }), market(), NOW)).toMatchObject({
      price: 121,
      bounds: { ceiling: null },
    });
  });

  test('stay-cheapest-by keeps a price already far enough under the cheapest, and moves down to it otherwise', () => {
    const r = rule({ strategy: 'stay-cheapest-by', offsetPercent: 5, rounding: '.99' });
    const kept = recommend(r, own(90), [offer(100), offer(110)], NOW);
    expect(kept).toMatchObject({ status: 'keep', price: 90, target: 90, bounds: { decidedBy: 'target' } });
    expect(kept.explanation[1]).toBe('Your price is already at least 5% under the cheapest (at most £95.00); moving up is never needed to stay cheapest.');
    expect(kept.explanation.at(-1)).toBe('Your price of £90.00 already satisfies the rule.');
    expect(recommend(r, own(98), [offer(100), offer(110)], NOW)).toMatchObject({ status: 'change', price: 94.99, bounds: { decidedBy: 'rounding' } });
    expect(recommend({ ...r, rounding: 'none' }, own(98), [offer(100), offer(110)], NOW)).toMatchObject({ status: 'change', price: 95 });
  });

  test('a ceiling below the floor holds', () => {
    const rec = recommend(rule({ ceiling: { amount: 85, regular: false } }), own(90), [offer(100), offer(110)], NOW);
    expect(rec).toMatchObject({ status: 'hold', price: null, bounds: { ceiling: 85, decidedBy: null } });
    expect(rec.bounds.floor).toBeCloseTo(88, 9);
    expect(rec.explanation).toEqual(['Your ceiling of £85.00 is below your floor of £88.00.']);
  });

  test('a current price more than a step below the floor holds, decided by the step', () => {
    const rec = recommend(rule(), own(70), [offer(100), offer(110)], NOW);
    expect(rec).toMatchObject({ status: 'hold', price: null, bounds: { decidedBy: 'step' } });
    expect(rec.explanation[1]).toBe(
      'Your price of £70.00 is more than the step limit of 10% away from your floor of £88.00 (cost £80.00 + 10%): change it by hand, or widen the step.',
    );
    const above = recommend(rule({ ceiling: { amount: 90, regular: false } }), own(110), [offer(100), offer(105)], NOW);
    expect(above).toMatchObject({ status: 'hold', bounds: { decidedBy: 'step' } });
    expect(above.explanation[1]).toContain('away from your ceiling of £90.00');
  });

  test('second-cheapest follows the second price, and holds with one counted competitor', () => {
    const r = rule({ strategy: 'second-cheapest', minCompetitors: 1 });
    expect(recommend(r, own(100), [offer(104), offer(95), offer(98)], NOW)).toMatchObject({ status: 'change', price: 98, target: 98 });
    const rec = recommend(r, own(100), [offer(95), offer(98, { availability: 'OutOfStock' })], NOW);
    expect(rec).toMatchObject({ status: 'hold', price: null, evidence: [{ price: 95 }] });
    expect(rec.explanation).toEqual(['Second-cheapest needs at least two counted competitors.']);
  });

  test('average with a negative offset', () => {
    const rec = recommend(rule({ strategy: 'average', offsetPercent: -10 }), own(100), [offer(100), offer(120)], NOW);
    expect(rec).toMatchObject({ status: 'change', price: 99, average: 110, bounds: { decidedBy: 'target' } });
    expect(rec.explanation[1]).toBe('Average of 2 counted: £110.00 − 10% → £99.00.');
  });

  test('a spike holds and names the shop', () => {
    const spike = offer(50, { host: 'flash.example', median30: 100, changedAt: hoursAgo(3) });
    const rec = recommend(rule(), own(100, { cost: 40 }), [spike, offer(98)], NOW);
    expect(rec).toMatchObject({ status: 'hold', price: null });
    expect(rec.explanation).toEqual(['flash.example moved to £50.00 within a day, 50% from its 30-day median of £100.00: likely a glitch or a flash sale.']);
    // A day later, or within the spike percent, it counts again.
    const settled = recommend(rule(), own(100, { cost: 40 }), [{ ...spike, changedAt: hoursAgo(25) }, offer(98)], NOW);
    expect(settled).toMatchObject({ status: 'change', price: 90 });
    expect(recommend(rule({ spikePercent: 50 }), own(100, { cost: 40 }), [spike, offer(98)], NOW).status).toBe('change');
  });

  test('too few counted competitors hold, naming the left-out ones', () => {
    const rec = recommend(rule(), own(100), [offer(95), offer(90, { currency: 'EUR', host: 'euro.example' })], NOW);
    expect(rec.explanation).toEqual(['Only 1 of 2 chosen competitors counted, and the rule needs 2; left out: euro.example (other currency).']);
    const noCost = recommend(rule(), own(100, { cost: null }), [offer(95), offer(96)], NOW);
    expect(noCost).toMatchObject({ status: 'hold', price: null, bounds: { floor: null } });
    expect(noCost.explanation).toEqual(['The rule sets its floor from the cost, and this product has no cost: add the cost or a floor amount.']);
  });

  test('a competitor subset ignores the others', () => {
    const chosen = offer(99);
    const rec = recommend(rule({ minCompetitors: 1, competitors: [chosen.productId] }), own(100), [offer(90), chosen, offer(80)], NOW);
    expect(rec).toMatchObject({ status: 'change', price: 99, cheapest: 99, average: 99 });
    expect(rec.evidence.map((e) => e.productId)).toEqual([chosen.productId]);
  });

  test('yen have no pence to round to, and dinars have three decimals', () => {
    const yen = (price: number) => offer(price, { currency: 'JPY' });
    expect(recommend(rule({ rounding: '.99' }), own(1100, { currency: 'JPY', cost: 800 }), [yen(1050), yen(1120)], NOW)).toMatchObject({ price: 1050 });
    const dinar = (price: number) => offer(price, { currency: 'KWD' });
    const rec = recommend(rule({ rounding: '.95' }), own(11, { currency: 'KWD', cost: 8 }), [dinar(10.5), dinar(11.2)], NOW);
    expect(rec).toMatchObject({ price: 9.95, bounds: { decidedBy: 'rounding' } });
  });
});

describe('roundToEnding', () => {
  test('examples', () => {
    expect(roundToEnding(10395, '.99', 100, 'down')).toBe(10299);
    expect(roundToEnding(10395, '.99', 100, 'up')).toBe(10399);
    expect(roundToEnding(10340, '.95', 100, 'nearest')).toBe(10295);
    expect(roundToEnding(10350, '.00', 100, 'nearest')).toBe(10300);
    expect(roundToEnding(1234, '.99', 1, 'down')).toBe(1234);
    expect(roundToEnding(12345, '.99', 1000, 'down')).toBe(11990);
  });

  test('down ≤ x ≤ up, both have the ending and lie within a unit, and nearest is the closer of them', () => {
    fc.assert(
      fc.property(fc.integer({ min: -1_000_000, max: 100_000_000 }), fc.constantFrom(...ROUNDINGS), fc.constantFrom(1, 100, 1000), (x, rounding, scale) => {
        const lower = roundToEnding(x, rounding, scale, 'down');
        const upper = roundToEnding(x, rounding, scale, 'up');
        const nearest = roundToEnding(x, rounding, scale, 'nearest');
        expect(lower).toBeLessThanOrEqual(x);
        expect(upper).toBeGreaterThanOrEqual(x);
        expect(hasEnding(lower, rounding, scale) && hasEnding(upper, rounding, scale)).toBe(true);
        const unit = endingOf(rounding, scale)?.unit ?? 1;
        expect(upper - lower).toBeLessThanOrEqual(unit);
        if (hasEnding(x, rounding, scale)) expect([lower, upper]).toEqual([x, x]);
        expect([lower, upper]).toContain(nearest);
        expect(Math.abs(nearest - x)).toBe(Math.min(x - lower, upper - x));
      }),
    );
  });
});

describe('boundsOf, isSpike and ago', () => {
  test('the floor is the higher of cost + margin and the amount; the ceiling the lower of the amount and the regular price', () => {
    const r = (floor: PricingRule['floor'], ceiling: PricingRule['ceiling']) => rule({ floor, ceiling });
    expect(boundsOf(r({ costMarginPercent: 10, amount: 90 }, { amount: 150, regular: true }), own(100, { regularPrice: 140 }))).toMatchObject({
      floor: 90,
      ceiling: 140,
      floorText: 'the amount you set',
      floorProblem: null,
    });
    expect(boundsOf(r({ costMarginPercent: 25, amount: 90 }, { amount: 130, regular: true }), own(100, { regularPrice: 140 }))).toMatchObject({
      floor: 100,
      ceiling: 130,
      floorText: 'cost £80.00 + 25%',
    });
    expect(boundsOf(r({ costMarginPercent: 25, amount: null }, { amount: null, regular: false }), own(100, { cost: null }))).toMatchObject({
      floor: null,
      ceiling: null,
    });
    expect(boundsOf(r({ costMarginPercent: 25, amount: null }, { amount: null, regular: false }), own(100, { cost: null })).floorProblem).toContain('no cost');
  });

  test('a spike is a change within a day to more than the percent from the 30-day median', () => {
    const o = (over: Partial<PricedOffer>) => offer(60, { median30: 100, changedAt: hoursAgo(23), ...over });
    expect(isSpike(o({}), 39, NOW)).toBe(true);
    expect(isSpike(o({}), 40, NOW)).toBe(false);
    expect(isSpike(o({ price: 150 }), 40, NOW)).toBe(true);
    expect(isSpike(o({ changedAt: hoursAgo(24) }), 10, NOW)).toBe(true);
    expect(isSpike(o({ changedAt: minutesAgo(24 * 60 + 1) }), 10, NOW)).toBe(false);
    expect(isSpike(o({ changedAt: null }), 10, NOW)).toBe(false);
    expect(isSpike(o({ median30: null }), 10, NOW)).toBe(false);
    expect(isSpike(o({ median30: 0 }), 10, NOW)).toBe(false);
    expect(isSpike(o({ price: null }), 10, NOW)).toBe(false);
  });

  test('ago', () => {
    const said = [0, 0.4, 5, 59, 60, 89, 90, 47 * 60, 48 * 60, 72 * 60, -30].map((m) => ago(minutesAgo(m), NOW));
    expect(said.join(', ')).toBe('just now, just now, 5 min ago, 59 min ago, 1 h ago, 1 h ago, 2 h ago, 47 h ago, 2 days ago, 3 days ago, just now');
  });
});
