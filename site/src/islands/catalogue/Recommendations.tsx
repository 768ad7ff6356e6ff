import { useId, useMemo, useState, type ReactNode } from 'react';
import { useStore } from '@nanostores/react';
import { ArrowRight, Check, Download, SlidersHorizontal, Undo2, X } from 'lucide-react';
import { api, isUnauthorizedError, RECOMMENDATIONS_CSV, type RecommendationEntry } from '../../lib/api';
import { formatPrice, relativeTime } from '../../lib/format';
import { serverError } from '../../lib/products';
import { canUndo, ENTRY_STATES, entryState, shortReason } from '../../lib/pricing';
import { cn } from '../../lib/utils';
import { mutateCache } from '../../stores/query';
import { toast } from '../../stores/toast';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Skeleton } from '../ui/Skeleton';
import { Spinner } from '../ui/Spinner';
import { LoadFailed, Loading, StateMessage } from '../ui/StateMessage';
import { plural } from './model';
import { $recommendationList, $recommendations, refreshRecommendations } from './store';

type Props = {
  /** Opens the product's dialog, where its rule is set. */
  onOpen: (ownProductId: string) => void;
  onShowProducts: () => void;
};

/**
 * Your Catalogue > Recommendations: the new prices the rules recommend, to apply or dismiss one by
 * one or all at once, the export of the applied prices, and every other product with a rule (held
 * and why, kept, applied and whether the store shows it, with Undo).
 */
export function RecommendationsView({ onOpen, onShowProducts }: Props) {
  const { data, error } = useStore($recommendations);
  const [busy, setBusy] = useState<Set<string>>(new Set());
  const [applyingAll, setApplyingAll] = useState(false);
  const waiting = useMemo(() => data?.filter((e) => e.waiting) ?? [], [data]);
  const others = useMemo(() => data?.filter((e) => !e.waiting) ?? [], [data]);

  /** Shows one entry as the server answered it, then reads the lists again. */
  function replaced(entry: RecommendationEntry) {
    const list = $recommendationList.get().data;
    if (list)
      mutateCache(
        'catalogue/recommendations/all',
        list.map((e) => (e.ownProductId === entry.ownProductId ? entry : e)),
      );
    refreshRecommendations();
  }

  async function run(entry: RecommendationEntry, kind: 'apply' | 'dismiss' | 'undo') {
    const id = entry.ownProductId;
    setBusy((b) => new Set(b).add(id));
    try {
      const price = entry.recommendation.price ?? undefined;
      const answer =
        kind === 'apply' ? await api.catalogue.apply(id, price) : kind === 'dismiss' ? await api.catalogue.dismiss(id, price) : await api.catalogue.undo(id);
      replaced(answer);
      if (kind === 'apply')
        toast({ title: 'New price applied', description: answer.store?.message ?? `${entry.title}: ${formatPrice(price, entry.recommendation.currency)}.` });
      if (kind === 'undo') toast({ title: 'Price set back', description: answer.store?.message ?? entry.title });
    } catch (caught) {
      if (isUnauthorizedError(caught)) return;
      const title = kind === 'apply' ? 'Could not apply' : kind === 'dismiss' ? 'Could not dismiss' : 'Could not undo';
      toast({ title, description: serverError(caught).message ?? 'Please try again.', variant: 'destructive' });
      refreshRecommendations();
    } finally {
      setBusy((b) => {
        const next = new Set(b);
        next.delete(id);
        return next;
      });
    }
  }

  async function applyAll() {
    setApplyingAll(true);
    try {
      const { applied } = await api.catalogue.applyAll(waiting.map((e) => e.ownProductId));
      refreshRecommendations();
      toast({
        title: applied ? `${plural(applied, 'new price')} applied` : 'Nothing to apply',
        description: applied ? 'Each one can be undone below.' : undefined,
      });
    } catch (caught) {
      if (!isUnauthorizedError(caught))
        toast({ title: 'Could not apply', description: serverError(caught).message ?? 'Please try again.', variant: 'destructive' });
    } finally {
      setApplyingAll(false);
    }
  }

  if (!data) {
    return error && !isUnauthorizedError(error) ? (
      <LoadFailed title="Your recommendations could not be loaded" onRetry={() => $recommendationList.revalidate()} />
    ) : (
      <Loading label="Loading your recommendations" className="grid gap-3">
        {Array.from({ length: 3 }, (_, i) => (
          <Skeleton key={i} className="h-20 w-full rounded-xl" />
        ))}
      </Loading>
    );
  }
  if (data.length === 0) {
    return (
      <StateMessage
        icon={<SlidersHorizontal aria-hidden="true" />}
        title="No recommendations yet"
        actions={
          <Button variant="outline" onClick={onShowProducts}>
            Show your products
          </Button>
        }
      >
        Set a pricing rule on a product to get recommendations: open a product, then Set a pricing rule. Its new prices are listed here, with the reasons.
      </StateMessage>
    );
  }

  return (
    <div className="space-y-6">
      <section aria-labelledby="waiting-title" className="space-y-3">
        <div className="flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
          <div>
            <h2 id="waiting-title" className="text-base font-semibold">
              {waiting.length ? `${plural(waiting.length, 'new price')} waiting` : 'No new prices waiting'}
            </h2>
            <p className="text-sm text-muted-foreground">
              {waiting.length ? 'What your rules recommend now, and why.' : 'Your rules recommend no change right now.'}
            </p>
          </div>
          <div className="flex flex-wrap gap-2">
            <Button asChild variant="outline">
              <a href={RECOMMENDATIONS_CSV} download>
                <Download aria-hidden="true" />
                Export new prices (CSV)
              </a>
            </Button>
            {waiting.length > 0 && (
              <Button onClick={applyAll} disabled={applyingAll}>
                {applyingAll ? <Spinner className="size-4 text-current" label="Applying" /> : <Check aria-hidden="true" />}
                Apply all ({waiting.length.toLocaleString('en-GB')})
              </Button>
            )}
          </div>
        </div>
        {waiting.length > 0 && (
          <WaitingList
            entries={waiting}
            busy={(id) => busy.has(id) || applyingAll}
            onOpen={onOpen}
            onApply={(e) => run(e, 'apply')}
            onDismiss={(e) => run(e, 'dismiss')}
          />
        )}
        <p className="text-xs text-muted-foreground">The export lists the prices you applied that your store does not show yet, to upload to your store.</p>
      </section>

      {others.length > 0 && (
        <section aria-labelledby="others-title" className="space-y-3">
          <h2 id="others-title" className="text-base font-semibold">
            Other products with a rule
          </h2>
          <ul className="grid gap-3" aria-label="Other products with a rule">
            {others.map((entry) => (
              <OtherRow key={entry.ownProductId} entry={entry} busy={busy.has(entry.ownProductId)} onOpen={onOpen} onUndo={() => run(entry, 'undo')} />
            ))}
          </ul>
        </section>
      )}
    </div>
  );
}

function ProductName({ entry, onOpen }: { entry: RecommendationEntry; onOpen: (id: string) => void }) {
  const details = [entry.variant, entry.sku && `SKU ${entry.sku}`].filter(Boolean).join(' · ');
  return (
    <div className="min-w-0">
      <button
        type="button"
        aria-haspopup="dialog"
        onClick={() => onOpen(entry.ownProductId)}
        className="cursor-pointer rounded-sm text-left font-medium outline-none hover:underline hover:underline-offset-4 focus-visible:ring-2 focus-visible:ring-ring"
      >
        {entry.title}
      </button>
      {details && <p className="truncate text-xs text-muted-foreground">{details}</p>}
    </div>
  );
}

function PriceMove({ from, to, currency }: { from: number; to: number | null; currency: string }) {
  return (
    <span className="inline-flex shrink-0 items-center gap-1.5 whitespace-nowrap tabular-nums">
      <span className="text-muted-foreground">
        <span className="sr-only">from </span>
        {formatPrice(from, currency)}
      </span>
      <ArrowRight aria-hidden="true" className="size-3.5 text-muted-foreground" />
      <span className="font-semibold">
        <span className="sr-only">to </span>
        {formatPrice(to, currency)}
      </span>
    </span>
  );
}

/** The reason in short, and every sentence of the explanation on request. */
function Reasons({ explanation, label }: { explanation: readonly string[]; label: string }) {
  const [open, setOpen] = useState(false);
  const id = useId();
  const short = shortReason(explanation);
  return (
    <div className="min-w-0 text-sm">
      {open ? (
        <ul id={id} className="grid list-disc gap-1 pl-5" aria-label={`Why: ${label}`}>
          {explanation.map((sentence, i) => (
            <li key={i}>{sentence}</li>
          ))}
        </ul>
      ) : (
        <p>{short.text}</p>
      )}
      {short.more && (
        <Button
          variant="link"
          size="sm"
          className="h-auto px-0 py-0.5 text-xs"
          aria-expanded={open}
          aria-controls={open ? id : undefined}
          onClick={() => setOpen(!open)}
        >
          {open ? 'Show less' : 'Show all reasons'}
          <span className="sr-only"> for {label}</span>
        </Button>
      )}
    </div>
  );
}

type WaitingProps = {
  entries: readonly RecommendationEntry[];
  busy: (id: string) => boolean;
  onOpen: (id: string) => void;
  onApply: (entry: RecommendationEntry) => void;
  onDismiss: (entry: RecommendationEntry) => void;
};

function Actions({ entry, busy, onApply, onDismiss }: { entry: RecommendationEntry; busy: boolean; onApply: () => void; onDismiss: () => void }) {
  const price = formatPrice(entry.recommendation.price, entry.recommendation.currency);
  return (
    <div className="flex flex-wrap gap-2 lg:flex-nowrap lg:justify-end">
      <Button size="sm" onClick={onApply} disabled={busy} aria-label={`Apply ${price} to ${entry.title}`}>
        <Check aria-hidden="true" />
        Apply
      </Button>
      <Button size="sm" variant="outline" onClick={onDismiss} disabled={busy} aria-label={`Dismiss ${price} for ${entry.title}`}>
        <X aria-hidden="true" />
        Dismiss
      </Button>
    </div>
  );
}

/** Wide screens: a table of the waiting new prices; phones: a card each with the same. */
function WaitingList({ entries, busy, onOpen, onApply, onDismiss }: WaitingProps) {
  return (
    <>
      <div className="hidden overflow-hidden rounded-xl border bg-card shadow-sm lg:block">
        <table className="w-full table-fixed text-sm" aria-label="New prices waiting">
          <thead className="border-b bg-muted/50 text-left text-xs text-muted-foreground">
            <tr>
              <th scope="col" className="w-[26%] px-4 py-2.5 font-medium">
                Product
              </th>
              <th scope="col" className="w-[20%] px-3 py-2.5 font-medium">
                Current → recommended
              </th>
              <th scope="col" className="px-3 py-2.5 font-medium">
                Reason
              </th>
              <th scope="col" className="w-[14.5rem] px-4 py-2.5 text-right font-medium">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.ownProductId} data-recommendation={entry.ownProductId} className="border-b align-top last:border-0">
                <td className="px-4 py-3">
                  <ProductName entry={entry} onOpen={onOpen} />
                </td>
                <td className="px-3 py-3">
                  <PriceMove from={entry.recommendation.currentPrice} to={entry.recommendation.price} currency={entry.recommendation.currency} />
                </td>
                <td className="px-3 py-3">
                  <Reasons explanation={entry.recommendation.explanation} label={entry.title} />
                </td>
                <td className="px-4 py-3">
                  <Actions entry={entry} busy={busy(entry.ownProductId)} onApply={() => onApply(entry)} onDismiss={() => onDismiss(entry)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ul className="grid gap-3 lg:hidden" aria-label="New prices waiting">
        {entries.map((entry) => (
          <li key={entry.ownProductId} data-recommendation={entry.ownProductId} className="grid gap-3 rounded-xl border bg-card p-4 shadow-sm">
            <div className="flex items-start justify-between gap-3">
              <ProductName entry={entry} onOpen={onOpen} />
              <PriceMove from={entry.recommendation.currentPrice} to={entry.recommendation.price} currency={entry.recommendation.currency} />
            </div>
            <Reasons explanation={entry.recommendation.explanation} label={entry.title} />
            <Actions entry={entry} busy={busy(entry.ownProductId)} onApply={() => onApply(entry)} onDismiss={() => onDismiss(entry)} />
          </li>
        ))}
      </ul>
    </>
  );
}

type OtherProps = { entry: RecommendationEntry; busy: boolean; onOpen: (id: string) => void; onUndo: () => void };

/** A product with a rule and nothing waiting: held and why, kept, dismissed, or applied and what the store shows. */
function OtherRow({ entry, busy, onOpen, onUndo }: OtherProps) {
  const state = entryState(entry);
  if (state === 'waiting') return null;
  const { label, tone } = ENTRY_STATES[state];
  const r = entry.recommendation;
  const d = entry.decision;
  let detail: ReactNode;
  if ((state === 'applied' || state === 'undone') && d) {
    detail = (
      <>
        <p className="flex flex-wrap items-center gap-x-2">
          <PriceMove from={d.previousPrice ?? r.currentPrice} to={d.price} currency={r.currency} />
          <span className="text-xs text-muted-foreground">
            {d.via === 'automatic' ? 'automatically ' : ''}
            {relativeTime(d.at).replace(/^Just now$/, 'just now')}
          </span>
        </p>
        {entry.store && (
          <p className={cn('text-sm', entry.store.state === 'failed' || entry.store.state === 'differs' ? 'text-destructive' : 'text-muted-foreground')}>
            {entry.store.message}
          </p>
        )}
      </>
    );
  } else if (state === 'dismissed' && d) {
    detail = (
      <p className="text-sm text-muted-foreground">You dismissed {formatPrice(d.price, r.currency)}; a different recommendation will wait here again.</p>
    );
  } else if (state === 'hold') {
    // Held: every reason counts, so all of them show.
    detail = (
      <ul className="grid list-disc gap-1 pl-5 text-sm" aria-label={`Why ${entry.title} is on hold`}>
        {r.explanation.map((sentence, i) => (
          <li key={i}>{sentence}</li>
        ))}
      </ul>
    );
  } else {
    detail = <Reasons explanation={r.explanation} label={entry.title} />;
  }
  return (
    <li data-recommendation={entry.ownProductId} className="flex flex-col gap-3 rounded-xl border bg-card p-4 shadow-sm sm:flex-row sm:items-start">
      <div className="grid min-w-0 flex-1 gap-1.5">
        <div className="flex flex-wrap items-start justify-between gap-2">
          <ProductName entry={entry} onOpen={onOpen} />
          <Badge variant={tone}>{label}</Badge>
        </div>
        {state === 'hold' || state === 'keep' ? (
          <p className="text-sm tabular-nums">
            <span className="text-muted-foreground">Your price </span>
            {formatPrice(r.currentPrice, r.currency)}
          </p>
        ) : null}
        {detail}
      </div>
      {state === 'applied' && canUndo(entry) && (
        <Button size="sm" variant="outline" onClick={onUndo} disabled={busy} aria-label={`Undo the new price of ${entry.title}`} className="self-start">
          <Undo2 aria-hidden="true" />
          Undo
        </Button>
      )}
    </li>
  );
}
