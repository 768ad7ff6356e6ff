import { useEffect, useId, useMemo, useState } from 'react';
import { ExternalLink, Unlink } from 'lucide-react';
import {
  api,
  isUnauthorizedError,
  type CatalogueCompetitor,
  type CatalogueEntry,
  type DetailRange,
  type MatchSuggestion,
  type PositionPoint,
  type Product,
} from '../../lib/api';
import { formatPrice, hostWithoutWww } from '../../lib/format';
import { DETAIL_RANGES } from '../../lib/history';
import { cn } from '../../lib/utils';
import { Badge } from '../ui/Badge';
import { Button, focusRing } from '../ui/Button';
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from '../ui/Dialog';
import { Label } from '../ui/Label';
import { OptionSelect } from '../ui/Select';
import { Skeleton } from '../ui/Skeleton';
import { useEntryActions } from './actions';
import { BandBadge } from './CatalogueTable';
import { LinkCompetitor } from './LinkCompetitor';
import { PositionChart } from './PositionChart';
import { PricingRuleSection } from './PricingRule';
import { SuggestionList } from './Suggestions';
import { checkedText, GAP_WORDS, gapText, rankText, REASON_TEXT, stockText } from './model';

type EntryDialogProps = {
  entry: CatalogueEntry;
  matches: readonly MatchSuggestion[];
  tracked: readonly Product[] | null;
  onClose: () => void;
  onCloseAutoFocus: (event: Event) => void;
};

/** One of your products: where it stands, against whom, what is suggested, and how it moved. */
export function EntryDialog({ entry, matches, tracked, onClose, onCloseAutoFocus }: EntryDialogProps) {
  const actions = useEntryActions();
  const trackedById = useMemo(() => new Map((tracked ?? []).map((p) => [p.id, p])), [tracked]);
  const mine = useMemo(() => matches.filter((m) => m.ownProductId === entry.id).sort((a, b) => b.confidence - a.confidence), [matches, entry.id]);
  const { position, currency } = entry;
  const gap = position && gapText(position.gap, position.gapPercent, currency);
  const details = [entry.variant, entry.sku && `SKU ${entry.sku}`, entry.brand].filter(Boolean).join(' · ');

  return (
    <Dialog open onOpenChange={(open) => !open && onClose()}>
      <DialogContent className="max-w-4xl grid-cols-1 gap-5 p-4 sm:p-6" onCloseAutoFocus={onCloseAutoFocus}>
        <DialogHeader className="pr-8 text-left">
          <DialogTitle className="text-xl leading-tight">{entry.title}</DialogTitle>
          <DialogDescription>{details || 'Where this product stands against the competitors linked to it.'}</DialogDescription>
        </DialogHeader>

        <div className="flex flex-wrap items-center gap-2 text-sm">
          <BandBadge entry={entry} />
          {entry.basis && <span className="text-muted-foreground">Position {entry.basis}</span>}
        </div>

        <dl className="grid grid-cols-2 gap-2 sm:grid-cols-5">
          <Figure term="Your price" value={formatPrice(entry.price, currency)} />
          <Figure term="Cheapest" value={position ? formatPrice(position.cheapest.price, currency) : '—'} />
          <Figure term="Average" value={position ? formatPrice(position.average, currency) : '—'} />
          <Figure term="Rank" value={position ? rankText(position) : '—'} />
          <Figure
            term="Gap"
            value={gap ? gap.text : '—'}
            extra={gap ? GAP_WORDS[gap.direction] : undefined}
            className={cn('col-span-2 sm:col-span-1', gap?.direction === 'above' && 'text-destructive', gap?.direction === 'below' && 'text-success')}
          />
        </dl>

        <section aria-labelledby="competitors-title" className="grid grid-cols-1 gap-3">
          <h3 id="competitors-title" className="text-sm font-semibold">
            Competitors
          </h3>
          {entry.competitors.length === 0 ? (
            <p className="rounded-lg border border-dashed p-4 text-sm text-muted-foreground">
              No competitor is linked yet. Accept a suggestion or link a product you track to see where you stand.
            </p>
          ) : (
            <ul className="grid grid-cols-1 gap-2" aria-label="Linked competitors">
              {entry.competitors.map((c) => (
                <CompetitorRow
                  key={c.productId}
                  competitor={c}
                  currency={currency}
                  cheapest={position?.cheapest.productId === c.productId}
                  busy={actions.busy(c.productId)}
                  onUnlink={() => actions.unlink(entry.id, c.productId)}
                />
              ))}
            </ul>
          )}
        </section>

        {mine.length > 0 && (
          <section aria-labelledby="suggested-title" className="grid grid-cols-1 gap-3">
            <h3 id="suggested-title" className="text-sm font-semibold">
              Suggested matches
            </h3>
            <SuggestionList matches={mine} tracked={trackedById} actions={actions} />
          </section>
        )}

        <PricingRuleSection entry={entry} />

        <PositionHistory entry={entry} />

        <LinkCompetitor entry={entry} tracked={tracked} actions={actions} />
      </DialogContent>
    </Dialog>
  );
}

function Figure({ term, value, extra, className }: { term: string; value: string; extra?: string; className?: string }) {
  return (
    <div className={cn('min-w-0 rounded-lg border p-3', className)}>
      <dt className="text-xs text-muted-foreground">{term}</dt>
      <dd className="mt-1 truncate font-semibold tabular-nums">
        {value}
        {extra && <span className="block truncate text-xs font-normal text-muted-foreground">{extra}</span>}
      </dd>
    </div>
  );
}

type CompetitorRowProps = { competitor: CatalogueCompetitor; currency: string; cheapest: boolean; busy: boolean; onUnlink: () => void };

function CompetitorRow({ competitor: c, currency, cheapest, busy, onUnlink }: CompetitorRowProps) {
  const checked = checkedText(c.lastPriceAt);
  return (
    <li className="flex flex-col gap-2 rounded-lg border p-3 text-sm sm:flex-row sm:items-center">
      <div className="min-w-0 flex-1">
        <p className="flex min-w-0 items-center gap-1.5">
          <span className="truncate font-medium">{c.name}</span>
          <a
            href={c.url}
            target="_blank"
            rel="noopener noreferrer"
            aria-label={`Open ${c.name} page in a new tab`}
            className={cn('shrink-0 rounded-sm text-muted-foreground hover:text-foreground', focusRing)}
          >
            <ExternalLink aria-hidden="true" className="size-3.5" />
          </a>
        </p>
        <p className="mt-0.5 flex flex-wrap gap-x-2 text-xs text-muted-foreground">
          <span>{c.host || hostWithoutWww(c.url)}</span>
          <span>{stockText(c.availability)}</span>
          <span>{checked ?? 'not checked yet'}</span>
        </p>
        {!c.counted && c.reason && (
          <p className="mt-1 text-xs text-foreground">
            <span className="font-medium">Not counted:</span> {REASON_TEXT[c.reason]}
          </p>
        )}
      </div>
      <div className="flex shrink-0 items-center gap-2">
        {cheapest && <Badge variant="success">Cheapest</Badge>}
        <span className={cn('font-semibold tabular-nums', !c.counted && 'text-muted-foreground line-through decoration-1')}>
          {c.price === null ? '—' : formatPrice(c.price, c.currency ?? currency)}
        </span>
        <Button variant="ghost" size="sm" onClick={onUnlink} disabled={busy} aria-label={`Unlink ${c.name}`}>
          <Unlink aria-hidden="true" />
          Unlink
        </Button>
      </div>
    </li>
  );
}

/** The position chart with its own time range; read again when the competitors change. */
function PositionHistory({ entry }: { entry: CatalogueEntry }) {
  const [range, setRange] = useState<DetailRange>('month');
  const [points, setPoints] = useState<PositionPoint[] | null>(null);
  const [failed, setFailed] = useState(false);
  const rangeId = useId();
  const links = entry.competitors.map((c) => c.productId).join(' ');

  // Read again when the links or the owner's price change: both move the history.
  useEffect(() => {
    let live = true;
    setFailed(false);
    api.catalogue.history(entry.id, range).then(
      (list) => live && setPoints(list),
      (error) => {
        if (!live) return;
        setPoints(null);
        if (!isUnauthorizedError(error)) setFailed(true);
      },
    );
    return () => {
      live = false;
    };
  }, [entry.id, range, links, entry.price]);

  return (
    <section aria-labelledby={`${rangeId}-title`} className="grid grid-cols-1 gap-3 rounded-lg border p-3 sm:p-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 id={`${rangeId}-title`} className="text-sm font-semibold">
          Position over time
        </h3>
        <div className="flex items-center gap-2">
          <Label htmlFor={rangeId} className="text-sm text-muted-foreground">
            Time range
          </Label>
          <div className="w-40">
            <OptionSelect id={rangeId} value={range} options={DETAIL_RANGES} onChange={setRange} />
          </div>
        </div>
      </div>
      {failed ? (
        <p className="flex h-40 items-center justify-center text-sm text-muted-foreground">The position history could not be loaded.</p>
      ) : !points ? (
        <Skeleton className="h-72 w-full" />
      ) : points.length === 0 ? (
        <p className="flex h-40 items-center justify-center text-center text-sm text-muted-foreground">No prices in this range yet.</p>
      ) : (
        <PositionChart points={points} currency={entry.currency} />
      )}
    </section>
  );
}
