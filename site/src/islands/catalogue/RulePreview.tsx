import { useEffect, useId, useRef, useState } from 'react';
import { ArrowRight } from 'lucide-react';
import { api, isUnauthorizedError, type PriceEvidence, type Recommendation, type RuleBacktest, type RuleBody } from '../../lib/api';
import { formatPrice } from '../../lib/format';
import { serverError } from '../../lib/products';
import {
  BACKTEST_RANGES,
  backtestSummary,
  DECIDED_BY,
  fieldOf,
  refusalText,
  STATUS_LABELS,
  STATUS_TONES,
  type BacktestRange,
  type RuleErrors,
} from '../../lib/pricing';
import { Badge } from '../ui/Badge';
import { Label } from '../ui/Label';
import { OptionSelect } from '../ui/Select';
import { Skeleton } from '../ui/Skeleton';
import { BacktestChart } from './BacktestChart';
import { checkedText } from './model';

/** How long the form rests before the preview asks again. */
const PREVIEW_DELAY_MS = 400;

type PreviewState = { result: RuleBacktest | null; pending: boolean; problem: string | null };

/**
 * The backtest and today's recommendation of the rule as typed (unsaved), asked for once typing
 * rests, the latest answer winning. A refusal naming a field goes to `onRefusal` to stand at it;
 * every answer that is not one clears them.
 */
function usePreview(entryId: string, body: RuleBody | null, range: BacktestRange, refresh: unknown, onRefusal: (errors: RuleErrors) => void): PreviewState {
  const [state, setState] = useState<PreviewState>({ result: null, pending: true, problem: null });
  const latest = useRef(onRefusal);
  latest.current = onRefusal;
  const key = body ? JSON.stringify(body) : null;

  useEffect(() => {
    if (key === null) return;
    let live = true;
    setState((s) => ({ ...s, pending: true }));
    const timer = setTimeout(() => {
      api.catalogue.backtest(entryId, range, JSON.parse(key) as RuleBody).then(
        (result) => {
          if (!live) return;
          latest.current({});
          setState({ result, pending: false, problem: null });
        },
        (error) => {
          if (!live || isUnauthorizedError(error)) return;
          const refused = serverError(error);
          if (refused.status === 400) {
            const field = fieldOf(refused.field);
            latest.current({ [field]: refusalText(refused.message ?? 'This value cannot be used.') });
            setState({ result: null, pending: false, problem: 'The preview waits for a rule it can use: see the marked field.' });
          } else {
            setState({ result: null, pending: false, problem: 'The preview could not be loaded. Change the rule or try again later.' });
          }
        },
      );
    }, PREVIEW_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [entryId, key, range, refresh]);

  return key === null ? { result: null, pending: false, problem: 'The preview waits for a rule it can use: see the marked field.' } : state;
}

type RulePreviewProps = {
  entryId: string;
  body: RuleBody | null;
  currency: string;
  /** Anything else the answer depends on (the cost): a change asks again. */
  refresh: unknown;
  onRefusal: (errors: RuleErrors) => void;
};

/** What the rule as typed says now, and what it would have done over the last 30, 90 or 365 days. */
export function RulePreview({ entryId, body, currency, refresh, onRefusal }: RulePreviewProps) {
  const [range, setRange] = useState<BacktestRange>('month');
  const { result, pending, problem } = usePreview(entryId, body, range, refresh, onRefusal);
  const id = useId();

  return (
    <section aria-labelledby={`${id}-title`} aria-busy={pending} className="grid min-w-0 grid-cols-1 gap-4 rounded-lg border bg-muted/30 p-3 sm:p-4">
      <h4 id={`${id}-title`} className="text-sm font-semibold">
        Preview
      </h4>
      {problem ? (
        <p className="text-sm text-muted-foreground">{problem}</p>
      ) : !result ? (
        <Skeleton className="h-24 w-full" />
      ) : (
        <RecommendationView recommendation={result.recommendation} />
      )}

      <div className="grid min-w-0 grid-cols-1 gap-3 border-t pt-4">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h4 id={`${id}-backtest`} className="text-sm font-semibold">
            Backtest
          </h4>
          <div className="flex items-center gap-2">
            <Label htmlFor={`${id}-range`} className="text-sm font-normal text-muted-foreground">
              Time range
            </Label>
            <div className="w-40">
              <OptionSelect id={`${id}-range`} value={range} options={BACKTEST_RANGES} onChange={setRange} />
            </div>
          </div>
        </div>
        {problem ? null : !result ? (
          <Skeleton className="h-60 w-full" />
        ) : (
          <>
            <p className="text-sm" data-testid="backtest-summary">
              {backtestSummary(result)}
            </p>
            {result.days.length === 0 ? (
              <p className="flex h-32 items-center justify-center text-center text-sm text-muted-foreground">No competitor prices in this range yet.</p>
            ) : (
              <BacktestChart days={result.days} currency={currency} />
            )}
          </>
        )}
      </div>
      <p className="sr-only" role="status">
        {pending ? '' : result ? `Preview: ${STATUS_LABELS[result.recommendation.status]}` : ''}
      </p>
    </section>
  );
}

/** A recommendation: its status, the current and recommended price, why, its bounds, and the observations it used. */
export function RecommendationView({ recommendation: r }: { recommendation: Recommendation }) {
  const { floor, ceiling, decidedBy } = r.bounds;
  return (
    <div className="grid min-w-0 grid-cols-1 gap-3" data-testid="recommendation">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
        <Badge variant={STATUS_TONES[r.status]}>{STATUS_LABELS[r.status]}</Badge>
        <p className="flex flex-wrap items-center gap-2 text-lg font-semibold tabular-nums">
          <span className="sr-only">Current price </span>
          <span className={r.status === 'change' ? 'text-muted-foreground line-through decoration-1' : undefined}>
            {formatPrice(r.currentPrice, r.currency)}
          </span>
          {r.price !== null && r.status === 'change' && (
            <>
              <ArrowRight aria-hidden="true" className="size-4 text-muted-foreground" />
              <span className="sr-only">recommended price </span>
              <span>{formatPrice(r.price, r.currency)}</span>
            </>
          )}
        </p>
      </div>
      <ul className="grid list-disc gap-1 pl-5 text-sm" aria-label="Why">
        {r.explanation.map((sentence, i) => (
          <li key={i}>{sentence}</li>
        ))}
      </ul>
      <dl className="flex flex-wrap gap-x-5 gap-y-1 text-sm">
        <div className="flex gap-1.5">
          <dt className="text-muted-foreground">Floor</dt>
          <dd className="font-medium tabular-nums">{floor === null ? 'none' : formatPrice(floor, r.currency)}</dd>
        </div>
        <div className="flex gap-1.5">
          <dt className="text-muted-foreground">Ceiling</dt>
          <dd className="font-medium tabular-nums">{ceiling === null ? 'none' : formatPrice(ceiling, r.currency)}</dd>
        </div>
        {decidedBy && (
          <div className="flex gap-1.5">
            <dt className="text-muted-foreground">Decided by</dt>
            <dd className="font-medium">{DECIDED_BY[decidedBy]}</dd>
          </div>
        )}
      </dl>
      {r.evidence.length > 0 && <Evidence evidence={r.evidence} currency={r.currency} />}
    </div>
  );
}

function Evidence({ evidence, currency }: { evidence: readonly PriceEvidence[]; currency: string }) {
  const now = Date.now();
  return (
    <div className="grid gap-1.5">
      <p className="text-xs font-medium text-muted-foreground">Competitor prices used</p>
      <ul className="grid gap-1" aria-label="Competitor prices used">
        {evidence.map((e) => (
          <li key={`${e.productId}-${e.eventPosition}`} className="flex min-w-0 flex-wrap items-baseline gap-x-2 text-sm">
            <span className="min-w-0 truncate">{e.name}</span>
            <span className="font-medium tabular-nums">{formatPrice(e.price, e.currency ?? currency)}</span>
            <span className="text-xs text-muted-foreground">{checkedText(e.observedAt, now)}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
