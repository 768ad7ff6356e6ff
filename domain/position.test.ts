import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import {
  type CompetitorOffer,
  DEFAULT_COMPETITIVE_PERCENT,
  type ExclusionReason,
  exclusionSummary,
  judgeOffers,
  type Position,
  positionOf,
  summarisePositions,
} from './position.ts';

const NOW = new Date('2025-03-10T12:00:00Z');
const minutesAgo = (m: number) => new Date(NOW.getTime() - m * 60_000).toISOString();

let next = 0;
/** A fresh, in-stock offer in pounds checked hourly, unless told otherwise. */
const offer = (price: number | null, over: Partial<CompetitorOffer> = {}): CompetitorOffer => ({
  productId: `p${++next}`,
  name: 'Kettle',
  host: 'shop.example',
  price,
  currency: 'GBP',
  availability: 'InStock',
  lastPriceAt: minutesAgo(30),
  checkIntervalMinutes: 60,
  ...over,
});
const GBP = { currency: 'GBP' };
const at = (price: number, offers: CompetitorOffer[], competitivePercent = DEFAULT_COMPETITIVE_PERCENT) =>
  positionOf({ price, currency: 'GBP' }, offers, { now: NOW, competitivePercent }).position;

describe('judgeOffers', () => {
  test.each<[string, Partial<CompetitorOffer> & { price?: number | null }, ExclusionReason | null]>([
    ['fresh, in stock, same currency', {}, null],
    ['no price', { price: null }, 'no price'],
    ['a price that is not a number', { price: Number.NaN }, 'no price'],
    ['a negative price', { price: -1 }, 'no price'],
    ['a zero price counts', { price: 0 }, null],
    ['another currency', { currency: 'EUR' }, 'other currency'],
    ['the same currency in lower case', { currency: 'gbp' }, null],
    ['no currency', { currency: null }, 'other currency'],
    ['out of stock', { availability: 'OutOfStock' }, 'out of stock'],
    ['availability unknown counts', { availability: null }, null],
    ['pre-order counts', { availability: 'PreOrder' }, null],
    ['back-order counts', { availability: 'BackOrder' }, null],
    ['never read', { lastPriceAt: null }, 'stale'],
    ['an unreadable time', { lastPriceAt: 'yesterday' }, 'stale'],
    ['read exactly two intervals ago', { lastPriceAt: minutesAgo(120) }, null],
    ['read just over two intervals ago', { lastPriceAt: minutesAgo(121) }, 'stale'],
    ['a daily check read yesterday', { lastPriceAt: minutesAgo(1_440), checkIntervalMinutes: 1_440 }, null],
    ['read in the future', { lastPriceAt: minutesAgo(-30) }, null],
    ['no price beats every other reason', { price: null, currency: 'EUR', availability: 'OutOfStock', lastPriceAt: null }, 'no price'],
    ['other currency beats out of stock and stale', { currency: 'USD', availability: 'OutOfStock', lastPriceAt: null }, 'other currency'],
    ['out of stock beats stale', { availability: 'OutOfStock', lastPriceAt: null }, 'out of stock'],
  ])('%s', (_case, over, reason) => {
    const [judged] = judgeOffers(GBP, [offer('price' in over ? over.price! : 10, over)], NOW);
    expect(judged!.reason).toBe(reason);
    expect(judged!.counted).toBe(reason === null);
  });

  test('keeps every offer, in input order, with its fields', () => {
    const offers = [offer(10), offer(null), offer(12, { currency: 'EUR' })];
    const judged = judgeOffers(GBP, offers, NOW);
    expect(judged.map((o) => o.productId)).toEqual(offers.map((o) => o.productId));
    expect(judged[2]).toMatchObject({ price: 12, currency: 'EUR', counted: false, reason: 'other currency' });
  });
});

describe('positionOf', () => {
  test('ranks the owner among counted competitors, with the gap to the cheapest', () => {
    const a = offer(20);
    const b = offer(18);
    const c = offer(25);
    expect(at(19, [a, b, c])).toEqual({
      rank: 2,
      of: 4,
      cheapest: { productId: b.productId, price: 18 },
      average: 21,
      highest: 25,
      gap: 1,
      gapPercent: 5.56,
      band: 'above',
    });
  });

  test.each<[string, number, number[], Pick<Position, 'rank' | 'of' | 'gap' | 'gapPercent' | 'band'>]>([
    ['cheaper than everyone', 9, [10, 12], { rank: 1, of: 3, gap: -1, gapPercent: -10, band: 'cheapest' }],
    ['tied with the cheapest', 10, [10, 12], { rank: 1, of: 3, gap: 0, gapPercent: 0, band: 'cheapest' }],
    ['tied with all', 10, [10, 10, 10], { rank: 1, of: 4, gap: 0, gapPercent: 0, band: 'cheapest' }],
    ['a single competitor, dearer', 12, [10], { rank: 2, of: 2, gap: 2, gapPercent: 20, band: 'above' }],
    ['a single competitor, cheaper', 8, [10], { rank: 1, of: 2, gap: -2, gapPercent: -20, band: 'cheapest' }],
    ['within 5% of the cheapest', 10.5, [10, 11], { rank: 2, of: 3, gap: 0.5, gapPercent: 5, band: 'competitive' }],
    ['just over 5%', 10.51, [10, 11], { rank: 2, of: 3, gap: 0.51, gapPercent: 5.1, band: 'above' }],
    ['dearest of all', 30, [10, 20, 29.99], { rank: 4, of: 4, gap: 20, gapPercent: 200, band: 'above' }],
    ['tied with a dearer one is not pushed down by it', 20, [10, 20], { rank: 2, of: 3, gap: 10, gapPercent: 100, band: 'above' }],
    ['float noise: 10.1 against 10', 10.1, [10], { rank: 2, of: 2, gap: 0.1, gapPercent: 1, band: 'competitive' }],
    ['float noise: 0.3 against 0.1 + 0.2', 0.3, [0.1 + 0.2], { rank: 1, of: 2, gap: 0, gapPercent: 0, band: 'cheapest' }],
    ['competitors free, owner too', 0, [0, 5], { rank: 1, of: 3, gap: 0, gapPercent: null, band: 'cheapest' }],
    ['competitor free, owner not', 1, [0], { rank: 2, of: 2, gap: 1, gapPercent: null, band: 'above' }],
    ['owner free', 0, [4], { rank: 1, of: 2, gap: -4, gapPercent: -100, band: 'cheapest' }],
  ])('%s', (_case, own, prices, expected) => {
    expect(
      at(
        own,
        prices.map((p) => offer(p)),
      ),
    ).toMatchObject(expected);
  });

  test('the first of equally cheapest competitors in input order is the cheapest', () => {
    const first = offer(10);
    const second = offer(10);
    expect(at(12, [offer(11), first, second])!.cheapest.productId).toBe(first.productId);
    expect(at(12, [second, first])!.cheapest.productId).toBe(second.productId);
  });

  test('the average and highest keep full precision', () => {
    const position = at(10, [offer(10), offer(10), offer(10.01)])!;
    expect(position.average).toBeCloseTo(30.01 / 3, 12);
    expect(position.highest).toBe(10.01);
  });

  test.each([
    [0, 10.01, 'above'],
    [0, 10, 'cheapest'],
    [20, 12, 'competitive'],
    [20, 12.01, 'above'],
    [50, 14, 'above'],
    [-5, 10.01, 'above'],
  ] as const)('with %p%% competitive, %p against 10 is %p', (percent, own, band) => {
    expect(at(own, [offer(10)], percent)!.band).toBe(band);
  });

  test.each<[string, CompetitorOffer[]]>([
    ['no competitors', []],
    ['all stale', [offer(10, { lastPriceAt: minutesAgo(500) }), offer(11, { lastPriceAt: null })]],
    ['all out of stock', [offer(10, { availability: 'OutOfStock' })]],
    ['all in other currencies', [offer(10, { currency: 'EUR' }), offer(11, { currency: 'USD' })]],
    ['none priced', [offer(null), offer(null)]],
  ])('no position with %s', (_case, offers) => {
    const result = positionOf({ price: 10, currency: 'GBP' }, offers, { now: NOW, competitivePercent: 5 });
    expect(result.position).toBeNull();
    expect(result.offers).toHaveLength(offers.length);
  });

  test('mixed currencies: only the owner’s currency is compared', () => {
    const euro = offer(1, { currency: 'EUR' });
    const pound = offer(12);
    const result = positionOf({ price: 10, currency: 'GBP' }, [euro, pound], { now: NOW, competitivePercent: 5 });
    expect(result.position).toMatchObject({ rank: 1, of: 2, cheapest: { productId: pound.productId, price: 12 } });
    expect(result.offers.map((o) => o.reason)).toEqual(['other currency', null]);
  });
});

describe('exclusionSummary', () => {
  const judge = (offers: CompetitorOffer[]) => judgeOffers(GBP, offers, NOW);
  test.each<[string, CompetitorOffer[], string]>([
    ['none left out', [offer(10), offer(11)], 'based on 2 of 2'],
    ['none at all', [], 'based on 0 of 0'],
    [
      'one stale, one out of stock',
      [offer(10), offer(11, { availability: 'OutOfStock' }), offer(12), offer(13, { lastPriceAt: null }), offer(9)],
      'based on 3 of 5: 1 stale, 1 out of stock',
    ],
    [
      'every reason, in a fixed order',
      [
        offer(10, { currency: 'EUR' }),
        offer(10, { availability: 'OutOfStock' }),
        offer(null),
        offer(10, { lastPriceAt: null }),
        offer(10, { currency: 'USD' }),
      ],
      'based on 0 of 5: 1 no price, 1 stale, 1 out of stock, 2 other currency',
    ],
    ['all stale', [offer(1, { lastPriceAt: null }), offer(2, { lastPriceAt: null })], 'based on 0 of 2: 2 stale'],
  ])('%s', (_case, offers, summary) => {
    expect(exclusionSummary(judge(offers))).toBe(summary);
  });
});

describe('summarisePositions', () => {
  const position = (band: Position['band'], average: number): Position => ({
    rank: 1,
    of: 2,
    cheapest: { productId: 'p', price: average },
    average,
    highest: average,
    gap: 0,
    gapPercent: 0,
    band,
  });

  test('counts bands and averages own ÷ market average × 100', () => {
    expect(
      summarisePositions([
        { ownPrice: 9, position: position('cheapest', 10) },
        { ownPrice: 21, position: position('competitive', 20) },
        { ownPrice: 33, position: position('above', 30) },
        { ownPrice: 5, position: null },
      ]),
    ).toEqual({ index: 101.7, cheapest: 1, competitive: 1, above: 1, unpositioned: 1 });
  });

  test.each([
    ['nothing', [], { index: null, cheapest: 0, competitive: 0, above: 0, unpositioned: 0 }],
    ['nothing positioned', [{ ownPrice: 5, position: null }], { index: null, cheapest: 0, competitive: 0, above: 0, unpositioned: 1 }],
    [
      'a market average of 0 stays out of the index',
      [{ ownPrice: 0, position: position('cheapest', 0) }],
      { index: null, cheapest: 1, competitive: 0, above: 0, unpositioned: 0 },
    ],
    [
      'rounded to one decimal',
      [
        { ownPrice: 1, position: position('cheapest', 3) },
        { ownPrice: 0, position: position('cheapest', 0) },
      ],
      { index: 33.3, cheapest: 2, competitive: 0, above: 0, unpositioned: 0 },
    ],
  ] as const)('%s', (_case, items, summary) => {
    expect(summarisePositions(items)).toEqual(summary);
  });
});

describe('properties', () => {
  const price = fc.oneof(
    fc.constant(0),
    fc.integer({ min: 0, max: 100_000 }).map((cents) => cents / 100),
  );
  const counted = fc.array(
    price.map((p) => offer(p)),
    { minLength: 1, maxLength: 8 },
  );
  const excluded = fc.oneof(
    price.map((p) => offer(p, { lastPriceAt: minutesAgo(10_000) })),
    price.map((p) => offer(p, { availability: 'OutOfStock' })),
    price.map((p) => offer(p, { currency: 'EUR' })),
    price.map((p) => offer(p, { currency: null })),
    fc.constant(null).map(() => offer(null)),
  );
  const percent = fc.integer({ min: 0, max: 20 });

  test('the rank is between 1 and the number compared, and the band is cheapest exactly when the gap is not positive', () => {
    fc.assert(
      fc.property(price, counted, percent, (own, offers, competitivePercent) => {
        const position = at(own, offers, competitivePercent)!;
        expect(position.rank).toBeGreaterThanOrEqual(1);
        expect(position.rank).toBeLessThanOrEqual(position.of);
        expect(position.of).toBe(offers.length + 1);
        expect(position.band === 'cheapest').toBe(position.gap <= 0);
        expect(position.rank === 1).toBe(position.gap <= 0);
        expect(position.cheapest.price).toBeLessThanOrEqual(position.average + 1e-9);
        expect(position.average).toBeLessThanOrEqual(position.highest + 1e-9);
      }),
    );
  });

  test('a counted offer never has a reason, and a left-out one always has', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            counted.map((o) => o[0]!),
            excluded,
          ),
        ),
        (offers) => {
          for (const judged of judgeOffers(GBP, offers, NOW)) expect(judged.counted).toBe(judged.reason === null);
        },
      ),
    );
  });

  test('offers left out never change the position, wherever they sit', () => {
    fc.assert(
      fc.property(price, counted, fc.array(fc.tuple(excluded, fc.nat())), percent, (own, offers, extras, competitivePercent) => {
        const mixed = [...offers];
        for (const [extra, where] of extras) mixed.splice(where % (mixed.length + 1), 0, extra);
        expect(at(own, mixed, competitivePercent)).toEqual(at(own, offers, competitivePercent));
      }),
    );
  });
});
