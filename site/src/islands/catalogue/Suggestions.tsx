import { useMemo, useState } from 'react';
import { Check, Sparkles, X } from 'lucide-react';
import type { CatalogueEntry, MatchSuggestion, Product } from '../../lib/api';
import { formatPrice, hostWithoutWww } from '../../lib/format';
import { Badge } from '../ui/Badge';
import { Button } from '../ui/Button';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../ui/Card';
import { useEntryActions } from './actions';
import { confidenceText, MATCH_REASONS, plural, suggestionsByProduct } from './model';

type SuggestionListProps = {
  matches: readonly MatchSuggestion[];
  tracked: ReadonlyMap<string, Product>;
  actions: ReturnType<typeof useEntryActions>;
  /** Names the own product on each line (the panel across products). */
  ownTitle?: (ownProductId: string) => string | null;
};

/** Suggested competitors, each with why it was suggested, how sure, and Accept / Reject. */
export function SuggestionList({ matches, tracked, actions, ownTitle }: SuggestionListProps) {
  return (
    <ul className="grid grid-cols-1 gap-2" aria-label="Suggested matches">
      {matches.map((match) => {
        const product = tracked.get(match.productId);
        const name = product?.name ?? 'A tracked product';
        const key = match.productId + match.ownProductId;
        const busy = actions.busy(key);
        const own = ownTitle?.(match.ownProductId);
        return (
          <li key={key} className="flex flex-col gap-2 rounded-lg border p-3 text-sm sm:flex-row sm:items-center">
            <div className="min-w-0 flex-1">
              {own && (
                <p className="truncate text-xs text-muted-foreground">
                  For <span className="font-medium text-foreground">{own}</span>
                </p>
              )}
              <p className="break-words font-medium">{name}</p>
              <p className="mt-1 flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-muted-foreground">
                {product && <span>{hostWithoutWww(product.url)}</span>}
                {product?.currentPrice != null && <span className="tabular-nums">{formatPrice(product.currentPrice, product.currency)}</span>}
                <Badge variant="secondary">{MATCH_REASONS[match.reason]}</Badge>
                <span>{confidenceText(match.confidence)}</span>
              </p>
            </div>
            <div className="flex shrink-0 gap-2">
              <Button size="sm" onClick={() => actions.decide(match, 'accept')} disabled={busy} aria-label={`Accept ${name}${own ? ` for ${own}` : ''}`}>
                <Check aria-hidden="true" />
                Accept
              </Button>
              <Button
                size="sm"
                variant="outline"
                onClick={() => actions.decide(match, 'reject')}
                disabled={busy}
                aria-label={`Reject ${name}${own ? ` for ${own}` : ''}`}
              >
                <X aria-hidden="true" />
                Reject
              </Button>
            </div>
          </li>
        );
      })}
    </ul>
  );
}

/** Shown per page of this many suggestions, so a large catalogue's first read lists quickly. */
const SHOWN = 5;

type PanelProps = {
  matches: readonly MatchSuggestion[];
  entries: readonly CatalogueEntry[];
  tracked: ReadonlyMap<string, Product>;
  /** Open at first: with nothing linked yet, the suggestions are the way in. */
  defaultOpen?: boolean;
};

/** "N suggested matches are waiting": every suggestion across the catalogue, to review in one place. */
export function SuggestionsPanel({ matches, entries, tracked, defaultOpen = false }: PanelProps) {
  const actions = useEntryActions();
  const [open, setOpen] = useState(defaultOpen);
  const [shown, setShown] = useState(SHOWN);
  const titles = useMemo(() => new Map(entries.map((e) => [e.id, e.variant ? `${e.title} (${e.variant})` : e.title])), [entries]);
  // Strongest first within each product, products in the catalogue's order.
  const ordered = useMemo(() => {
    const grouped = suggestionsByProduct(matches);
    return entries.flatMap((e) => grouped.get(e.id) ?? []);
  }, [matches, entries]);
  if (!ordered.length) return null;

  return (
    <Card>
      <CardHeader className="flex-row flex-wrap items-center justify-between gap-3 space-y-0">
        <div className="flex items-start gap-3">
          <span className="flex size-9 shrink-0 items-center justify-center rounded-lg bg-brand/10 text-brand">
            <Sparkles aria-hidden="true" className="size-4" />
          </span>
          <div className="space-y-1">
            <CardTitle className="text-base">{`${plural(ordered.length, 'suggested match', 'suggested matches')} ${ordered.length === 1 ? 'is' : 'are'} waiting`}</CardTitle>
            <CardDescription>Competitor products you track that look like yours. Accept one to compare prices.</CardDescription>
          </div>
        </div>
        <Button variant="outline" size="sm" aria-expanded={open} aria-controls="waiting-suggestions" onClick={() => setOpen((o) => !o)}>
          {open ? 'Hide suggestions' : 'Review suggestions'}
        </Button>
      </CardHeader>
      {open && (
        <CardContent id="waiting-suggestions" className="grid grid-cols-1 gap-3">
          <SuggestionList matches={ordered.slice(0, shown)} tracked={tracked} actions={actions} ownTitle={(id) => titles.get(id) ?? null} />
          {ordered.length > shown && (
            <Button variant="ghost" size="sm" className="justify-self-center" onClick={() => setShown((n) => n + SHOWN)}>
              Show more suggestions ({(ordered.length - shown).toLocaleString('en-GB')} left)
            </Button>
          )}
        </CardContent>
      )}
    </Card>
  );
}
