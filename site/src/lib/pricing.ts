/**
 * Pure rules of the pricing screens (docs/pricing.md): a rule's form and the body it sends, the
 * server's refusals placed at their fields, and the sentences the preview, the backtest and the
 * Recommendations view show.
 */
import type { HistoryRange, PricingRule, RecommendationEntry, RuleBacktest, RuleBody, Rounding, Strategy } from './api';

export const STRATEGY_OPTIONS: readonly { value: Strategy; label: string; hint: string }[] = [
  { value: 'match-cheapest', label: 'Match the cheapest competitor', hint: 'Your price follows the cheapest counted competitor, up or down.' },
  { value: 'beat-cheapest', label: 'Beat the cheapest competitor', hint: 'A little under the cheapest counted competitor, by a percent or an amount.' },
  {
    value: 'second-cheapest',
    label: 'Match the second-cheapest',
    hint: 'The price of the second-cheapest counted competitor: cheap, without a race to the bottom.',
  },
  { value: 'average', label: 'Follow the market average', hint: 'The average of the counted competitors, optionally a percent above or below it.' },
  {
    value: 'stay-cheapest-by',
    label: 'Stay cheapest by a margin',
    hint: 'At least a percent under the cheapest; your price only moves when a competitor comes closer.',
  },
];

export const ROUNDING_OPTIONS: readonly { value: Rounding; label: string }[] = [
  { value: 'none', label: 'No rounding' },
  { value: '.99', label: 'End in .99' },
  { value: '.95', label: 'End in .95' },
  { value: '.00', label: 'Whole amounts (.00)' },
];

/** The backtest's ranges: 30, 90 and 365 days. */
export const BACKTEST_RANGES: readonly { value: Extract<HistoryRange, 'month' | 'quarter' | 'year'>; label: string }[] = [
  { value: 'month', label: 'Last 30 days' },
  { value: 'quarter', label: 'Last 90 days' },
  { value: 'year', label: 'Last 365 days' },
];
export type BacktestRange = (typeof BACKTEST_RANGES)[number]['value'];

export const RULE_DEFAULTS = { maxStepPercent: 10, minCompetitors: 2, spikePercent: 40 } as const;

/** The form as typed: numbers stay text until sent, so a half-typed "1." is not lost. */
export type RuleForm = {
  strategy: Strategy;
  /** beat-cheapest: by a percent or by an amount. */
  beatBy: 'percent' | 'amount';
  offsetPercent: string;
  offsetAmount: string;
  floorMargin: string;
  floorAmount: string;
  ceilingAmount: string;
  ceilingRegular: boolean;
  rounding: Rounding;
  maxStepPercent: string;
  minCompetitors: string;
  spikePercent: string;
  /** The linked competitors that count; null for all of them. */
  competitors: string[] | null;
};

/** The places in the form a message can stand at. */
export type RuleField =
  | 'strategy'
  | 'offset'
  | 'floor'
  | 'floor.costMarginPercent'
  | 'floor.amount'
  | 'ceiling.amount'
  | 'ceiling.regular'
  | 'rounding'
  | 'maxStepPercent'
  | 'minCompetitors'
  | 'spikePercent'
  | 'competitors'
  | 'form';
export type RuleErrors = Partial<Record<RuleField, string>>;

const text = (n: number | null | undefined) => (n === null || n === undefined ? '' : String(n));

/** The form for a saved rule, or a first rule to start from: beat the cheapest by 1%, 10% over cost when there is one. */
export function formFromRule(rule: PricingRule | null, opts: { hasCost: boolean }): RuleForm {
  if (!rule) {
    return {
      strategy: 'beat-cheapest',
      beatBy: 'percent',
      offsetPercent: '1',
      offsetAmount: '',
      floorMargin: opts.hasCost ? '10' : '',
      floorAmount: '',
      ceilingAmount: '',
      ceilingRegular: false,
      rounding: 'none',
      maxStepPercent: String(RULE_DEFAULTS.maxStepPercent),
      minCompetitors: String(RULE_DEFAULTS.minCompetitors),
      spikePercent: String(RULE_DEFAULTS.spikePercent),
      competitors: null,
    };
  }
  return {
    strategy: rule.strategy,
    beatBy: rule.offsetAmount !== null ? 'amount' : 'percent',
    offsetPercent: text(rule.offsetPercent),
    offsetAmount: text(rule.offsetAmount),
    floorMargin: text(rule.floor.costMarginPercent),
    floorAmount: text(rule.floor.amount),
    ceilingAmount: text(rule.ceiling.amount),
    ceilingRegular: rule.ceiling.regular,
    rounding: rule.rounding,
    maxStepPercent: String(rule.maxStepPercent),
    minCompetitors: String(rule.minCompetitors),
    spikePercent: String(rule.spikePercent),
    competitors: rule.competitors ? [...rule.competitors] : null,
  };
}

/** A number typed with a point or a comma; undefined when empty, NaN when not a number. */
export function parseNumber(value: string): number | undefined {
  const trimmed = value.trim().replace(',', '.');
  if (!trimmed) return undefined;
  const n = Number(trimmed);
  return Number.isFinite(n) ? n : Number.NaN;
}

/** Which offset the strategy takes: beat-cheapest a percent or an amount, average and stay-cheapest-by a percent, the others none. */
export function offsetKind(form: Pick<RuleForm, 'strategy' | 'beatBy'>): 'percent' | 'amount' | null {
  if (form.strategy === 'beat-cheapest') return form.beatBy;
  return form.strategy === 'average' || form.strategy === 'stay-cheapest-by' ? 'percent' : null;
}

/**
 * The body the form sends, or the fields that are not numbers. Everything else (ranges, a floor
 * without cost, the ceiling under the floor) is the server's to say, so preview and save agree.
 */
export function ruleBodyOf(form: RuleForm): { body: RuleBody } | { errors: RuleErrors } {
  const errors: RuleErrors = {};
  const number = (value: string, field: RuleField, whole = false) => {
    const n = parseNumber(value);
    if (n !== undefined && (Number.isNaN(n) || (whole && !Number.isInteger(n)))) errors[field] = whole ? 'Enter a whole number' : 'Enter a number';
    return n === undefined || Number.isNaN(n) ? undefined : n;
  };
  const kind = offsetKind(form);
  const offsetPercent = kind === 'percent' ? number(form.offsetPercent, 'offset') : undefined;
  const offsetAmount = kind === 'amount' ? number(form.offsetAmount, 'offset') : undefined;
  const body: RuleBody = {
    strategy: form.strategy,
    offsetPercent: offsetPercent ?? null,
    offsetAmount: offsetAmount ?? null,
    floor: { costMarginPercent: number(form.floorMargin, 'floor.costMarginPercent') ?? null, amount: number(form.floorAmount, 'floor.amount') ?? null },
    ceiling: { amount: number(form.ceilingAmount, 'ceiling.amount') ?? null, regular: form.ceilingRegular },
    rounding: form.rounding,
    maxStepPercent: number(form.maxStepPercent, 'maxStepPercent'),
    minCompetitors: number(form.minCompetitors, 'minCompetitors', true),
    spikePercent: number(form.spikePercent, 'spikePercent'),
    competitors: form.competitors,
  };
  return Object.keys(errors).length ? { errors } : { body };
}

const FIELD_WORDS: Record<string, string> = {
  offsetPercent: 'The percent',
  offsetAmount: 'The amount',
  costMarginPercent: 'The margin',
  'floor amount': 'The lowest price',
  'ceiling amount': 'The highest price',
  maxStepPercent: 'The largest step',
  minCompetitors: 'The minimum',
  spikePercent: 'The spike limit',
  strategy: 'The strategy',
  rounding: 'Rounding',
};

/** Where a refusal's `field` (`floor.amount`, `rule.offsetPercent`, `competitors.0`) stands in the form. */
export function fieldOf(field: string | null): RuleField {
  const f = (field ?? '').replace(/^rule\./, '').replace(/\.\d+$/, '');
  if (f === 'offsetPercent' || f === 'offsetAmount') return 'offset';
  if (f === 'ceiling') return 'ceiling.amount';
  const known: RuleField[] = [
    'strategy',
    'floor',
    'floor.costMarginPercent',
    'floor.amount',
    'ceiling.amount',
    'ceiling.regular',
    'rounding',
    'maxStepPercent',
    'minCompetitors',
    'spikePercent',
    'competitors',
  ];
  return known.includes(f as RuleField) ? (f as RuleField) : 'form';
}

/**
 * A refusal as a sentence at its field: "floor: this product has no cost…" → "This product has no
 * cost…"; "maxStepPercent must be from 0.1 to 100" → "The largest step must be from 0.1 to 100".
 */
export function refusalText(message: string): string {
  let sentence = message.replace(/^[\w.]+: /, '');
  for (const [word, words] of Object.entries(FIELD_WORDS)) {
    if (sentence.startsWith(`${word} `)) {
      sentence = words + sentence.slice(word.length);
      break;
    }
  }
  return sentence.charAt(0).toUpperCase() + sentence.slice(1);
}

export const STATUS_LABELS = { change: 'New price', keep: 'Keep price', hold: 'On hold' } as const;
export const STATUS_TONES = { change: 'warning', keep: 'success', hold: 'outline' } as const;

export const DECIDED_BY: Record<NonNullable<RuleBacktest['recommendation']['bounds']['decidedBy']>, string> = {
  target: 'the strategy',
  rounding: 'rounding',
  floor: 'your floor',
  ceiling: 'your ceiling',
  step: 'the step limit',
};

const plural = (n: number, word: string, many = `${word}s`) => `${n.toLocaleString('en-GB')} ${n === 1 ? word : many}`;
const percent = (n: number) => `${Number(n.toFixed(1))}%`;

/**
 * What the rule would have done, in a sentence: "Would have changed the price 12 times; cheapest
 * on 40 of 90 days (you were on 10); lowest margin 18%; held by the floor on 3 days, by the step on 5."
 */
export function backtestSummary(
  b: Pick<RuleBacktest, 'days' | 'changes' | 'daysBy' | 'actualDaysBy' | 'lowestMarginPercent' | 'floorHits' | 'stepHits'>,
): string {
  const changed =
    b.changes === 0
      ? 'Would not have changed the price'
      : `Would have changed the price ${b.changes === 1 ? 'once' : `${b.changes.toLocaleString('en-GB')} times`}`;
  const parts = [changed, `cheapest on ${b.daysBy.cheapest} of ${plural(b.days.length, 'day')} (you were on ${b.actualDaysBy.cheapest})`];
  if (b.lowestMarginPercent !== null) parts.push(`lowest margin ${percent(b.lowestMarginPercent)}`);
  const held = [
    b.floorHits ? `by the floor on ${plural(b.floorHits, 'day')}` : '',
    b.stepHits ? `by the step on ${b.floorHits ? b.stepHits : plural(b.stepHits, 'day')}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  parts.push(held ? `held ${held}` : 'never held by the floor or the step');
  return `${parts.join('; ')}.`;
}

/** The reason a list shows: the sentences after the first (which names the cheapest), cut to about `max` characters. */
export function shortReason(explanation: readonly string[], max = 140): { text: string; more: boolean } {
  const rest = explanation.length > 1 ? explanation.slice(1) : explanation;
  const full = rest.join(' ');
  if (full.length <= max) return { text: full, more: explanation.length > 1 };
  const cut = full.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return { text: `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.]+$/, '')}…`, more: true };
}

/** Where a product with a rule stands in the Recommendations view. */
export type EntryState = 'waiting' | 'applied' | 'undone' | 'dismissed' | 'hold' | 'keep' | 'change';

export function entryState(entry: Pick<RecommendationEntry, 'waiting' | 'decision' | 'recommendation'>): EntryState {
  if (entry.waiting) return 'waiting';
  const d = entry.decision;
  const status = entry.recommendation.status;
  if (d?.kind === 'applied' && (status === 'change' || status === 'keep')) {
    const same = entry.recommendation.price !== null && Math.abs(d.price - entry.recommendation.price) < 1e-9;
    if (same || status === 'keep') return d.via === 'undo' ? 'undone' : 'applied';
  }
  if (d?.kind === 'dismissed' && status === 'change') return 'dismissed';
  return status;
}

/** Undo sets back the price an applied recommendation replaced; an undo is not undone. */
export const canUndo = (entry: Pick<RecommendationEntry, 'decision'>) =>
  entry.decision?.kind === 'applied' && entry.decision.via !== 'undo' && entry.decision.previousPrice !== null;

export const ENTRY_STATES: Record<Exclude<EntryState, 'waiting'>, { label: string; tone: 'success' | 'warning' | 'outline' | 'secondary' }> = {
  applied: { label: 'Applied', tone: 'success' },
  undone: { label: 'Undone', tone: 'secondary' },
  dismissed: { label: 'Dismissed', tone: 'secondary' },
  hold: { label: 'On hold', tone: 'outline' },
  keep: { label: 'Keep price', tone: 'success' },
  change: { label: 'New price', tone: 'warning' },
};
