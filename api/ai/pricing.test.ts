import { describe, expect, test } from 'bun:test';
import {
  allowedNumbers,
  figureSheet,
  notEnoughHistory,
  numbersIn,
  priceFigures,
  statesOnlyFigures,
  suggestPricing,
  type HistoryPoint,
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
