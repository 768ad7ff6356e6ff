import { describe, expect, test } from 'bun:test';
import type { PricingRule, RecommendationEntry } from './api';
import { backtestSummary, canUndo, entryState, fieldOf, formFromRule, offsetKind, parseNumber, refusalText, ruleBodyOf, shortReason } from './pricing';

const saved: PricingRule = {
  strategy: 'beat-cheapest',
  offsetPercent: null,
  offsetAmount: 2,
  floor: { costMarginPercent: 10, amount: null },
  ceiling: { amount: 150, regular: true },
  rounding: '.99',
  maxStepPercent: 10,
  minCompetitors: 2,
  spikePercent: 40,
  competitors: ['p1'],
};

describe('pricing rule form', () => {
  test('a first rule beats the cheapest by 1%, over cost when there is one', () => {
    expect(formFromRule(null, { hasCost: true })).toMatchObject({ strategy: 'beat-cheapest', beatBy: 'percent', offsetPercent: '1', floorMargin: '10' });
    expect(formFromRule(null, { hasCost: false }).floorMargin).toBe('');
  });

  test('a saved rule fills the form and is sent back as it was', () => {
    const form = formFromRule(saved, { hasCost: true });
    expect(form).toMatchObject({ beatBy: 'amount', offsetAmount: '2', offsetPercent: '', ceilingAmount: '150', ceilingRegular: true, competitors: ['p1'] });
    expect(ruleBodyOf(form)).toEqual({
      body: {
        strategy: 'beat-cheapest',
        offsetPercent: null,
        offsetAmount: 2,
        floor: { costMarginPercent: 10, amount: null },
        ceiling: { amount: 150, regular: true },
        rounding: '.99',
        maxStepPercent: 10,
        minCompetitors: 2,
        spikePercent: 40,
        competitors: ['p1'],
      },
    });
  });

  test('only the offset the strategy takes is sent; numbers take a comma; text that is not a number is refused at its field', () => {
    expect(offsetKind({ strategy: 'match-cheapest', beatBy: 'percent' })).toBeNull();
    expect(offsetKind({ strategy: 'average', beatBy: 'amount' })).toBe('percent');
    const form = { ...formFromRule(null, { hasCost: true }), strategy: 'average' as const, offsetPercent: '-2,5', offsetAmount: '3' };
    expect(ruleBodyOf(form)).toMatchObject({ body: { offsetPercent: -2.5, offsetAmount: null } });
    expect(ruleBodyOf({ ...form, floorAmount: 'ten', minCompetitors: '1.5' })).toEqual({
      errors: { 'floor.amount': 'Enter a number', minCompetitors: 'Enter a whole number' },
    });
    expect(parseNumber('  ')).toBeUndefined();
    expect(ruleBodyOf({ ...form, maxStepPercent: '' })).toMatchObject({ body: { maxStepPercent: undefined } });
  });

  test("a refusal's field and words as the form shows them", () => {
    expect(fieldOf('floor.amount')).toBe('floor.amount');
    expect(fieldOf('rule.offsetAmount')).toBe('offset');
    expect(fieldOf('competitors.0')).toBe('competitors');
    expect(fieldOf('timeFilter')).toBe('form');
    expect(fieldOf(null)).toBe('form');
    expect(refusalText('floor: this product has no cost, so the floor needs an amount (or set the cost first)')).toBe(
      'This product has no cost, so the floor needs an amount (or set the cost first)',
    );
    expect(refusalText('maxStepPercent: maxStepPercent must be from 0.1 to 100')).toBe('The largest step must be from 0.1 to 100');
  });
});

describe('pricing sentences', () => {
  const days = (n: number) => Array.from({ length: n }, () => ({}) as never);
  test('the backtest in one sentence', () => {
    expect(
      backtestSummary({
        days: days(90),
        changes: 12,
        daysBy: { cheapest: 40, competitive: 30, above: 20 },
        actualDaysBy: { cheapest: 10, competitive: 40, above: 40 },
        lowestMarginPercent: 18,
        floorHits: 3,
        stepHits: 5,
      }),
    ).toBe(
      'Would have changed the price 12 times; cheapest on 40 of 90 days (you were on 10); lowest margin 18%; held by the floor on 3 days, by the step on 5.',
    );
    expect(
      backtestSummary({
        days: days(31),
        changes: 1,
        daysBy: { cheapest: 1, competitive: 0, above: 0 },
        actualDaysBy: { cheapest: 0, competitive: 0, above: 1 },
        lowestMarginPercent: null,
        floorHits: 0,
        stepHits: 1,
      }),
    ).toBe('Would have changed the price once; cheapest on 1 of 31 days (you were on 0); held by the step on 1 day.');
    expect(
      backtestSummary({
        days: days(1),
        changes: 0,
        daysBy: { cheapest: 0, competitive: 0, above: 0 },
        actualDaysBy: { cheapest: 0, competitive: 0, above: 0 },
        lowestMarginPercent: 28.6667,
        floorHits: 0,
        stepHits: 0,
      }),
    ).toBe('Would not have changed the price; cheapest on 0 of 1 day (you were on 0); lowest margin 28.7%; never held by the floor or the step.');
  });

  test('the reason a list shows: after the first sentence, shortened', () => {
    expect(shortReason(['Cheapest: acme at £105.', 'Beat by 1% → £103.95.'])).toEqual({ text: 'Beat by 1% → £103.95.', more: true });
    expect(shortReason(['Only 1 of 1 counted.'])).toEqual({ text: 'Only 1 of 1 counted.', more: false });
    const long = shortReason(['Lead.', 'word '.repeat(60)], 40);
    expect(long.more).toBe(true);
    expect(long.text.length).toBeLessThanOrEqual(41);
    expect(long.text.endsWith('word…')).toBe(true);
  });

  test('where a product with a rule stands', () => {
    const rec = (status: 'change' | 'keep' | 'hold', price: number | null) => ({ status, price }) as never;
    const applied = (price: number, via: 'hand' | 'undo' = 'hand'): RecommendationEntry['decision'] => ({
      kind: 'applied',
      price,
      previousPrice: 110,
      via,
      at: '',
      evidence: [],
    });
    expect(entryState({ waiting: true, decision: null, recommendation: rec('change', 100) })).toBe('waiting');
    expect(entryState({ waiting: false, decision: applied(100), recommendation: rec('change', 100) })).toBe('applied');
    expect(entryState({ waiting: false, decision: applied(100), recommendation: rec('keep', 100) })).toBe('applied');
    expect(entryState({ waiting: false, decision: applied(110, 'undo'), recommendation: rec('keep', 110) })).toBe('undone');
    expect(entryState({ waiting: false, decision: { ...applied(100)!, kind: 'dismissed' }, recommendation: rec('change', 100) })).toBe('dismissed');
    expect(entryState({ waiting: false, decision: applied(100), recommendation: rec('hold', null) })).toBe('hold');
    expect(entryState({ waiting: false, decision: null, recommendation: rec('keep', 100) })).toBe('keep');
    expect(canUndo({ decision: applied(100) })).toBe(true);
    expect(canUndo({ decision: applied(110, 'undo') })).toBe(false);
    expect(canUndo({ decision: null })).toBe(false);
  });
});
