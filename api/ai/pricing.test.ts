import { describe, expect, test } from 'bun:test';
import {
  allowedNumbers,
  figureSheet,
  keepOwnerSide,
  notEnoughHistory,
  numbersIn,
  ownerSuggestions,
  priceFigures,
  statesOnlyFigures,
  suggestPricing,
  type HistoryPoint,
  type OwnerSide,
  type PricingSuggestion,
} from './pricing.ts';

const START = Date.UTC(2025, 4, 5, 9); // a Monday
const DAY = 86_400_000;

/** One point a day (or every `stepHours`) with the given prices, oldest first. */
function history(prices: number[], stepHours = 24): HistoryPoint[] {
  return prices.map((price, i) => ({ price, at: new Date(START + i * stepHours * 3_600_000) }));
}

function suggest(points: HistoryPoint[], range: 'week' | 'month' | 'quarter' = 'month') {
  const figures = priceFigures(points, { range, currency: 'GBP' })!;
  expect(figures).not.toBeNull();
  const suggestions = suggestPricing(figures);
  // Every number a rule states is on the figure sheet.
  const allowed = allowedNumbers(figureSheet(figures), []);
  for (const s of suggestions) expect({ s, ok: statesOnlyFigures(s, allowed) }).toEqual({ s, ok: true });
  for (const s of suggestions) {
    expect(s.confidence).toBeGreaterThan(0);
    expect(s.confidence).toBeLessThanOrEqual(1);
    expect(s.title && s.description && s.recommendedAction).toBeTruthy();
  }
  return { figures, suggestions, titles: suggestions.map((s) => s.title) };
}

describe('figures', () => {
  test('median, range, changes and time since the last change', () => {
    const f = priceFigures(history([100, 100, 90, 90, 95, 95, 95]), { range: 'week' })!;
    expect(f).toMatchObject({
      points: 7,
      spanDays: 6,
      first: 100,
      current: 95,
      min: 90,
      max: 100,
      median: 95,
      vsMedianPercent: 0,
      rangeChangePercent: -5,
      changes: 2,
      drops: 1,
      rises: 1,
      largestDropPercent: 10,
      largestRisePercent: 5.6,
      daysSinceLastChange: 2,
      lastChangePercent: 5.6,
    });
  });

  test('too little history gives no figures', () => {
    expect(priceFigures([], { range: 'month' })).toBeNull();
    expect(priceFigures(history([10, 11]), { range: 'month' })).toBeNull();
    expect(priceFigures(history([10, 11, 12, 13], 1), { range: 'month' })).toBeNull(); // four checks within 4 hours
  });
});

describe('suggestion rules', () => {
  test('flat: stable, with the price and how long it held', () => {
    const { titles, suggestions } = suggest(history(Array(20).fill(49.99)));
    expect(titles).toEqual(['Stable at £49.99']);
    expect(suggestions[0]!.description).toBe('No price change in 19 days (20 checks).');
    expect(suggestions[0]!.confidence).toBeGreaterThan(0.8);
  });

  test('falling: below the median, falling, with the latest cut', () => {
    const prices = [120, 120, 120, 115, 115, 115, 110, 110, 105, 105, 100, 100, 96, 96, 96];
    const { titles, suggestions, figures } = suggest(history(prices));
    expect(figures.vsMedianPercent).toBe(-12.7);
    expect(titles).toContain('Competitor is 12.7% below its 30-day median');
    expect(titles).toContain('Prices are falling: down 20.0%');
    expect(titles).toContain('Changes price often');
    const belowMedian = suggestions.find((s) => s.title.startsWith('Competitor'))!;
    expect(belowMedian.description).toBe(
      'They now charge £96.00 against a median of £110.00 over the last 30 days (15 checks, £96.00 to £120.00). This is their lowest price in the range.',
    );
    expect(belowMedian.recommendedAction).toStartWith('Hold your price unless you sell the identical item');
  });

  test('volatile: frequent changes and short promotions that are undone', () => {
    const prices = [50, 40, 50, 50, 42, 50, 50, 45, 50, 50, 38, 50, 50, 50, 50, 50];
    const { titles, figures } = suggest(history(prices));
    expect(figures.promotions).toBe(4);
    expect(figures.changes).toBe(8);
    expect(titles).toContain('Runs short promotions');
    expect(titles).toContain('Changes price often');
    expect(titles.length).toBeLessThanOrEqual(5);
  });

  test('a weekday pattern needs enough changes over three weeks', () => {
    // A cut every Tuesday and a return every Wednesday for five weeks.
    const points: HistoryPoint[] = [];
    for (let day = 0; day < 35; day++) points.push({ price: day % 7 === 1 ? 80 : 100, at: new Date(START + day * DAY) });
    const { figures } = suggest(points, 'quarter');
    expect(figures.weekday).toEqual({ name: 'Tuesday', changes: 5 });
    const short = priceFigures(points.slice(0, 14), { range: 'month' })!;
    expect(short.weekday).toBeNull();
  });

  test("weekdays are the user's: a change late on Tuesday in London is Wednesday morning in Tokyo", () => {
    const points: HistoryPoint[] = [];
    for (let day = 0; day < 35; day++) points.push({ price: day % 7 === 1 ? 80 : 100, at: new Date(START + day * DAY + 12 * 3_600_000) });
    expect(priceFigures(points, { range: 'quarter', timeZone: 'Europe/London' })!.weekday).toEqual({ name: 'Tuesday', changes: 5 });
    expect(priceFigures(points, { range: 'quarter', timeZone: 'Asia/Tokyo' })!.weekday).toEqual({ name: 'Wednesday', changes: 5 });
  });

  test('rising, and a fresh rise from a competitor that rarely changes', () => {
    const { titles } = suggest(history([20, 20, 20, 20, 20, 20, 21, 21, 21, 21, 21, 21, 21, 23]));
    expect(titles).toContain('Prices are rising: up 15.0%');
    expect(titles).toContain('Fresh price rise of 9.5%');
    // From one that changes all the time, a fresh change is not news.
    expect(suggest(history([20, 21, 20, 22, 21, 23, 22, 24, 23, 26])).titles.some((t) => t.startsWith('Fresh'))).toBe(false);
  });

  test('a competitor that wanders up and down runs no promotions', () => {
    const { figures } = suggest(history([50, 47, 49, 46, 48, 45, 47, 44, 46, 43, 45, 42, 44]));
    expect(figures.promotions).toBe(0);
  });

  test('sparse history: one honest suggestion', () => {
    const honest = notEnoughHistory(history([20, 21], 48), 'last 30 days');
    expect(honest.title).toBe('Not enough price history yet');
    expect(honest.description).toBe('Only 2 recorded prices in the last 30 days. Trends, medians and change patterns need at least 3.');
    expect(notEnoughHistory([], 'last 7 days').description).toContain('no prices');
  });

  test('sparse history: the sentence says what is missing, never that 3 are fewer than 3', () => {
    // Enough prices, all within hours: the span is what is missing.
    const sameDay = notEnoughHistory(history([20, 21, 22], 1), 'last 30 days');
    expect(sameDay.description).toBe(
      '3 recorded prices in the last 30 days, all within a day. Trends, medians and change patterns need prices spread over at least a day.',
    );
    expect(priceFigures(history([20, 21, 22], 1), { range: 'month' })).toBeNull();
    expect(notEnoughHistory(history([20, 21], 1), 'last 7 days').description).toBe(
      'Only 2 recorded prices in the last 7 days, all within a day. Trends, medians and change patterns need at least 3 prices spread over at least a day.',
    );
    expect(notEnoughHistory(history([20]), 'last 7 days').description).toBe(
      'Only 1 recorded price in the last 7 days. Trends, medians and change patterns need at least 3 prices spread over at least a day.',
    );
  });

  test('most confident first', () => {
    const { suggestions } = suggest(history([120, 120, 120, 115, 115, 115, 110, 110, 105, 105, 100, 100, 96, 96, 96]));
    const confidences = suggestions.map((s) => s.confidence);
    expect(confidences).toEqual([...confidences].sort((a, b) => b - a));
  });
});

describe('holding text to the figures', () => {
  test('numbers are read as written', () => {
    expect(numbersIn('£1,299.00 is 8.2% below 30-day median; 3,5 €')).toEqual([1299, 8.2, 30, 3.5]);
  });

  test('a text with a number that is not a figure is refused', () => {
    const figures = priceFigures(history([100, 100, 90, 90, 95, 95, 95]), { range: 'week' })!;
    const allowed = allowedNumbers(figureSheet(figures), suggestPricing(figures));
    const ok: PricingSuggestion = { title: 'Back up 5.6%', description: 'Now £95.00 after a low of £90.00.', confidence: 0.7, recommendedAction: 'Hold.' };
    expect(statesOnlyFigures(ok, allowed)).toBe(true);
    expect(statesOnlyFigures({ ...ok, recommendedAction: 'Cut your price to £89.99.' }, allowed)).toBe(false);
    expect(statesOnlyFigures({ ...ok, title: 'Down 12% this month' }, allowed)).toBe(false);
  });
});

describe("the owner's side", () => {
  // A competitor that came down from £120 to £105 over two weeks.
  const figures = priceFigures(history([120, 120, 118, 118, 115, 115, 112, 112, 110, 110, 108, 108, 105, 105, 105]), { range: 'month', currency: 'GBP' })!;
  const beat = {
    status: 'change' as const,
    price: 102.99,
    currentPrice: 110,
    explanation: [
      'Cheapest counted competitor: acme.example at £105.00 (checked 1 h ago).',
      'Beat by 1% → £103.95.',
      'Rounded down .99 → £102.99.',
      'Within your floor of £88.00 (cost £80.00 + 10%) and step limit of 10%.',
    ],
  };
  /** The owner's Kettle at £110, undercut by this competitor at £105, the cheapest of two counted. */
  const undercut: OwnerSide = {
    name: 'Kettle',
    price: 110,
    currency: 'GBP',
    competitor: { price: 105, currency: 'GBP', counted: true, reason: null, cheapest: true },
    position: { rank: 3, of: 3, band: 'above', cheapest: 105, gap: 5, gapPercent: 4.76 },
    rule: beat,
  };
  /** The owner's Kettle at £99, under this competitor's £105 and another's £102. */
  const cheapest: OwnerSide = {
    name: 'Kettle',
    price: 99,
    currency: 'GBP',
    competitor: { price: 105, currency: 'GBP', counted: true, reason: null, cheapest: false },
    position: { rank: 1, of: 3, band: 'cheapest', cheapest: 102, gap: -3, gapPercent: -2.94 },
    rule: null,
  };

  /** Suggestions with the owner's side, every number of each on the figure sheet. */
  function withOwners(owners: OwnerSide[]) {
    const sheet = figureSheet(figures, owners);
    const suggestions = suggestPricing(figures, owners);
    const allowed = allowedNumbers(sheet, []);
    for (const s of suggestions) expect({ s, ok: statesOnlyFigures(s, allowed) }).toEqual({ s, ok: true });
    expect(suggestions.length).toBeLessThanOrEqual(5);
    const confidences = suggestions.map((s) => s.confidence);
    expect(confidences).toEqual([...confidences].sort((a, b) => b - a));
    return { sheet, suggestions, ours: suggestions.filter((s) => s.title.startsWith('Your ')) };
  }

  test('without a link nothing changes', () => {
    expect(figureSheet(figures, [])).toEqual(figureSheet(figures));
    expect(suggestPricing(figures, [])).toEqual(suggestPricing(figures));
    expect(suggestPricing(figures).some((s) => s.title.startsWith('Your '))).toBe(false);
  });

  test('undercut, with a rule: the gap to this competitor, the rank and the rule’s recommendation, first', () => {
    const { sheet, suggestions, ours } = withOwners([undercut]);
    expect(sheet.slice(figureSheet(figures).length)).toEqual([
      'Your "Kettle": your price £110.00',
      'Your "Kettle" against this competitor\'s £105.00: £5.00 (4.8%) above',
      'Your "Kettle" position: rank 3 of 3, above the competitive band; cheapest counted competitor: £105.00 (this one); you are £5.00 (4.8%) above it',
      'Your "Kettle" pricing rule: recommends £102.99',
      'Your "Kettle" pricing rule says: Beat by 1% → £103.95.',
      'Your "Kettle" pricing rule says: Rounded down .99 → £102.99.',
      'Your "Kettle" pricing rule says: Within your floor of £88.00 (cost £80.00 + 10%) and step limit of 10%.',
    ]);
    expect(suggestions[0]).toEqual({
      title: 'Your price against this competitor',
      description:
        "Your Kettle is £110.00, £5.00 (4.8%) above this competitor's £105.00; you rank 3 of 3 (above the competitive band). " +
        'Your pricing rule recommends £102.99: Beat by 1% → £103.95. Rounded down .99 → £102.99. Within your floor of £88.00 (cost £80.00 + 10%) and step limit of 10%.',
      confidence: 0.9,
      recommendedAction: 'Review it in Your Catalogue → Recommendations, where you can apply or dismiss it.',
    });
    expect(ours).toHaveLength(1);
    // The competitor's own readings still fill the rest.
    expect(suggestions.map((s) => s.title)).toContain('Prices are falling: down 12.5%');
  });

  test('undercut, without a rule: what the position suggests', () => {
    const { ours, sheet } = withOwners([{ ...undercut, rule: null }]);
    expect(sheet.some((line) => line.includes('pricing rule'))).toBe(false);
    expect(ours).toEqual([
      {
        title: 'Your price against this competitor',
        description: "Your Kettle is £110.00, £5.00 (4.8%) above this competitor's £105.00; you rank 3 of 3 (above the competitive band).",
        confidence: 0.9,
        recommendedAction:
          'You are above the competitive band: move towards £105.00 if you compete on price, or make the case for your price (delivery, service, bundles). A pricing rule in Your Catalogue can bring you back into the band.',
      },
    ]);
  });

  test('the owner cheapest, without a rule: the gap to the cheapest competitor and room to rise', () => {
    const { ours, sheet } = withOwners([cheapest]);
    expect(sheet).toContain('Your "Kettle" position: rank 1 of 3, the cheapest; cheapest counted competitor: £102.00; you are £3.00 (2.9%) below it');
    expect(ours).toEqual([
      {
        title: 'Your price against this competitor',
        description:
          "Your Kettle is £99.00, £6.00 (5.7%) below this competitor's £105.00; you rank 1 of 3 (the cheapest), £3.00 (2.9%) below the cheapest counted competitor at £102.00.",
        confidence: 0.9,
        recommendedAction:
          'You undercut every counted competitor: there is room to raise your price towards £102.00 and still be the cheapest. A pricing rule in Your Catalogue can keep you there as competitors move.',
      },
    ]);
  });

  test('the owner cheapest, with a rule that keeps the price or holds it', () => {
    const keep = {
      status: 'keep' as const,
      price: 99,
      currentPrice: 99,
      explanation: [
        'Cheapest counted competitor: bravo.example at £102.00 (checked 2 h ago).',
        'Stay 2% under the cheapest → £99.96.',
        'Rounded down .00 → £99.00.',
        'Within your floor of £70.00 (the amount you set) and step limit of 10%.',
        'Your price of £99.00 already satisfies the rule.',
      ],
    };
    const [kept] = withOwners([{ ...cheapest, rule: keep }]).ours;
    expect(kept!.description).toEndWith(
      'Your pricing rule keeps your price of £99.00: Stay 2% under the cheapest → £99.96. Rounded down .00 → £99.00. Within your floor of £70.00 (the amount you set) and step limit of 10%.',
    );
    expect(kept!.recommendedAction).toBe(
      'Nothing to apply: your price already satisfies your rule. Your Catalogue → Recommendations shows its full reasoning.',
    );

    const hold = {
      status: 'hold' as const,
      price: null,
      currentPrice: 99,
      explanation: ['Only 1 of 2 chosen competitors counted, and the rule needs 2; left out: acme.example (stale).'],
    };
    const [held] = withOwners([{ ...cheapest, rule: hold }]).ours;
    expect(held!.description).toEndWith(
      'Your pricing rule holds your price for now: Only 1 of 2 chosen competitors counted, and the rule needs 2; left out: acme.example (stale).',
    );
    expect(held!.recommendedAction).toStartWith('Your rule will not move your price until this is resolved');
  });

  test('level with this competitor, left out of the position, or in another currency: said, never compared', () => {
    const level = withOwners([{ ...undercut, price: 105, position: { ...undercut.position!, rank: 1, band: 'cheapest', gap: 0, gapPercent: 0 }, rule: null }])
      .ours[0]!;
    expect(level.description).toBe("Your Kettle is £105.00, the same as this competitor's price; you rank 1 of 3 (the cheapest).");
    expect(level.recommendedAction).toStartWith('You are level with the cheapest');

    const stale = withOwners([{ ...cheapest, competitor: { ...cheapest.competitor, counted: false, reason: 'stale' } }]).ours[0]!;
    expect(stale.description).toEndWith('This competitor is not counted in your position (stale).');

    const euros = withOwners([
      { ...undercut, competitor: { price: 119, currency: 'EUR', counted: false, reason: 'other currency', cheapest: false }, position: null, rule: null },
    ]);
    expect(euros.ours[0]).toEqual({
      title: 'Your price against this competitor',
      description:
        'Your Kettle is £110.00; this competitor prices in EUR, so the two are not compared; no linked competitor has a recent, in-stock price in GBP yet, so your price has no position. This competitor is not counted in your position (other currency).',
      confidence: 0.7,
      recommendedAction: 'Link more competitors to this product in Your Catalogue, or wait for their next checks, so your price has a position to judge.',
    });
  });

  test('several own products: one suggestion each, titled apart, within five', () => {
    const owners = [undercut, { ...cheapest, name: 'Kettle (Steel)' }, { ...cheapest, name: 'Kettle (Red)' }, { ...cheapest, name: 'Kettle (Blue)' }];
    const { suggestions, ours } = withOwners(owners);
    expect(ours.map((s) => s.title)).toEqual([
      'Your Kettle against this competitor',
      'Your Kettle (Steel) against this competitor',
      'Your Kettle (Red) against this competitor',
    ]);
    expect(suggestions).toHaveLength(5);
  });

  test("a model's figure for the owner's side is held to the sheet", () => {
    const allowed = allowedNumbers(figureSheet(figures, [undercut]), suggestPricing(figures, [undercut]));
    const ok: PricingSuggestion = {
      title: 'You are £5.00 above them',
      description: 'Your £110.00 ranks 3 of 3; your rule says £102.99.',
      confidence: 0.9,
      recommendedAction: 'Apply £102.99.',
    };
    expect(statesOnlyFigures(ok, allowed)).toBe(true);
    expect(statesOnlyFigures({ ...ok, recommendedAction: 'Apply £101.99.' }, allowed)).toBe(false);
    expect(statesOnlyFigures({ ...ok, description: 'Your £110.00 ranks 2 of 4.' }, allowed)).toBe(false);
    // Without the link, the owner's figures are not on the sheet.
    expect(statesOnlyFigures(ok, allowedNumbers(figureSheet(figures), suggestPricing(figures)))).toBe(false);
  });

  test("a rewrite that drops the owner's side gets the rules' suggestion back", () => {
    const theirs: PricingSuggestion = { title: 'Falling', description: 'Down 12.5%.', confidence: 0.8, recommendedAction: 'Hold.' };
    expect(keepOwnerSide([theirs], [])).toEqual([theirs]);
    expect(keepOwnerSide([theirs], [undercut])).toEqual([theirs, ...ownerSuggestions([undercut])]);
    const mine = { ...theirs, description: 'You charge £110.00.' };
    expect(keepOwnerSide([mine], [undercut])).toEqual([mine]);
    expect(keepOwnerSide(Array(5).fill(theirs), [undercut])).toHaveLength(5);
  });
});
