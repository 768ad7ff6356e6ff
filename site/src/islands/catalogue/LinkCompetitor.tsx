import { useId, useMemo, useRef, useState } from 'react';
import { Link2, Plus, Search } from 'lucide-react';
import type { CatalogueEntry, Product } from '../../lib/api';
import { formatPrice, hostWithoutWww } from '../../lib/format';
import { filterProducts } from '../../lib/products';
import { refreshProducts } from '../../stores/products';
import { Button } from '../ui/Button';
import { Input } from '../ui/Input';
import { Label } from '../ui/Label';
import { AddProductDialog } from '../products/AddProductDialog';
import type { useEntryActions } from './actions';

/** Matches listed at once: a short list to pick from; the search narrows the rest. */
const LISTED = 4;

type Props = {
  entry: CatalogueEntry;
  tracked: readonly Product[] | null;
  actions: ReturnType<typeof useEntryActions>;
};

/**
 * Link a tracked product (a search over the competitor products not linked yet, each with Link),
 * or add a new competitor page with the usual add dialog and link it once it is added.
 */
export function LinkCompetitor({ entry, tracked, actions }: Props) {
  const [query, setQuery] = useState('');
  const [adding, setAdding] = useState(false);
  const addButton = useRef<HTMLButtonElement>(null);
  const searchId = useId();
  const linked = useMemo(() => new Set(entry.competitors.map((c) => c.productId)), [entry.competitors]);
  const candidates = useMemo(() => (tracked ?? []).filter((p) => !linked.has(p.id)), [tracked, linked]);
  const matching = useMemo(() => filterProducts(candidates, query), [candidates, query]);
  const listed = matching.slice(0, LISTED);

  return (
    <section aria-labelledby={`${searchId}-title`} className="grid grid-cols-1 gap-3">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 id={`${searchId}-title`} className="text-sm font-semibold">
          Link a tracked product
        </h3>
        <Button ref={addButton} variant="outline" size="sm" onClick={() => setAdding(true)}>
          <Plus aria-hidden="true" />
          Add competitor page
        </Button>
      </div>
      {tracked === null ? (
        <p className="text-sm text-muted-foreground">Loading your tracked products…</p>
      ) : candidates.length === 0 ? (
        <p className="text-sm text-muted-foreground">
          {tracked.length ? 'Every product you track is linked here already.' : 'You track no competitor products yet: add a competitor page.'}
        </p>
      ) : (
        <>
          <div className="relative">
            <Label htmlFor={searchId} className="sr-only">
              Search your tracked products
            </Label>
            <Search aria-hidden="true" className="pointer-events-none absolute left-3 top-1/2 size-4 -translate-y-1/2 text-muted-foreground" />
            <Input
              id={searchId}
              type="search"
              placeholder="Search your tracked products..."
              value={query}
              onChange={(e) => setQuery(e.target.value)}
              className="pl-9"
            />
          </div>
          {listed.length === 0 ? (
            <p className="text-sm text-muted-foreground">No tracked product matches “{query.trim()}”.</p>
          ) : (
            <ul className="grid grid-cols-1 gap-1.5" aria-label="Tracked products to link">
              {listed.map((product) => (
                <li key={product.id} className="flex items-center gap-3 rounded-md border px-3 py-2 text-sm">
                  <div className="min-w-0 flex-1">
                    <p className="truncate font-medium">{product.name}</p>
                    <p className="truncate text-xs text-muted-foreground">
                      {hostWithoutWww(product.url)}
                      {product.currentPrice !== null && ` · ${formatPrice(product.currentPrice, product.currency)}`}
                    </p>
                  </div>
                  <Button
                    size="sm"
                    variant="secondary"
                    disabled={actions.busy(product.id)}
                    onClick={() => actions.link(entry.id, product.id)}
                    aria-label={`Link ${product.name}`}
                  >
                    <Link2 aria-hidden="true" />
                    Link
                  </Button>
                </li>
              ))}
            </ul>
          )}
          {matching.length > listed.length && (
            <p className="text-xs text-muted-foreground">{matching.length - listed.length} more: search to narrow the list.</p>
          )}
        </>
      )}

      {adding && (
        <AddProductDialog
          onClose={() => setAdding(false)}
          onCloseAutoFocus={(event) => {
            event.preventDefault();
            addButton.current?.focus();
          }}
          onAdded={() => setAdding(false)}
          onCreated={(id) => {
            setAdding(false);
            // The new product joins the tracked list, and this product's competitors once linked.
            refreshProducts();
            void actions.link(entry.id, id);
          }}
        />
      )}
    </section>
  );
}
