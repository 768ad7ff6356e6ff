import { useDeferredValue, useEffect, useMemo, useRef, useState } from 'react';
import { useStore } from '@nanostores/react';
import type { CatalogueEntry } from '../../lib/api';
import { isUnauthorizedError } from '../../lib/api';
import { cn } from '../../lib/utils';
import { AppShell } from '../shell/AppShell';
import { Button } from '../ui/Button';
import { SearchInput } from '../ui/Input';
import { useOpenDialog } from '../ui/Dialog';
import { ShowMore, usePaged } from '../ui/ShowMore';
import { CatalogueTable } from './CatalogueTable';
import { ConnectStoreDialog } from './ConnectStoreDialog';
import { EntryDialog } from './EntryDialog';
import { ImportCatalogueDialog } from './ImportCatalogueDialog';
import { RecommendationsView } from './Recommendations';
import { CatalogueSkeleton, LoadFailed, NoCatalogue, NoMatch, SourceActions } from './States';
import { Sources } from './Sources';
import { SuggestionsPanel } from './Suggestions';
import { BAND_FILTERS, bandCounts, bandFromSearch, filterEntries, type BandFilter } from './model';
import { $catalogue, $catalogueList, $matches, $sources, $tracked, refreshCatalogue } from './store';

export default function CatalogueScreen() {
  return (
    <AppShell title="Your Catalogue" subtitle="Your products and where you stand">
      <Catalogue />
    </AppShell>
  );
}

/** Rows rendered at first and per "Show more", as on Products. */
const ROWS_PER_PAGE = 48;

type OpenDialog = { kind: 'connect' | 'import' } | { kind: 'entry'; id: string };

type View = 'products' | 'recommendations';
const VIEWS: readonly { value: View; label: string }[] = [
  { value: 'products', label: 'Products' },
  { value: 'recommendations', label: 'Recommendations' },
];
/** The view a link asked for (`/catalogue?view=recommendations`); anything else shows the products. */
const viewFromSearch = (search: string): View => (new URLSearchParams(search).get('view') === 'recommendations' ? 'recommendations' : 'products');

function Catalogue() {
  const { data, error } = useStore($catalogue);
  const sources = useStore($sources).data ?? [];
  const matches = useStore($matches).data ?? [];
  const tracked = useStore($tracked).data ?? null;
  const entries = data ?? null;
  const [band, setBand] = useState<BandFilter>(() => bandFromSearch(window.location.search));
  const [view, setView] = useState<View>(() => viewFromSearch(window.location.search));
  const [query, setQuery] = useState('');
  const searchRef = useRef<HTMLInputElement>(null);
  const { dialog, open: show, close, dialogProps } = useOpenDialog<OpenDialog>(searchRef);
  // Typing stays quick with a thousand products: the list follows a keystroke behind when it must.
  const search = useDeferredValue(query);

  // The view and the filter live in the address too, so a link (the dashboard's) or a reload shows the same list.
  useEffect(() => {
    const url = new URL(window.location.href);
    if (band === 'all') url.searchParams.delete('band');
    else url.searchParams.set('band', band);
    if (view === 'products') url.searchParams.delete('view');
    else url.searchParams.set('view', view);
    window.history.replaceState(window.history.state, '', url);
  }, [band, view]);

  const counts = useMemo(() => (entries ? bandCounts(entries) : null), [entries]);
  const visible = useMemo(() => (entries ? filterEntries(entries, band, search) : []), [entries, band, search]);
  const paged = usePaged(visible, ROWS_PER_PAGE, `${band} ${search}`);
  // Freshness is told against one clock per list, not one per row.
  const now = useMemo(() => Date.now(), [entries]);
  const trackedById = useMemo(() => new Map((tracked ?? []).map((p) => [p.id, p])), [tracked]);
  const linkedAny = useMemo(() => entries?.some((e) => e.competitors.length > 0) ?? false, [entries]);
  const open = dialog?.kind === 'entry' ? (entries?.find((e) => e.id === dialog.id) ?? null) : null;

  const connect = () => show({ kind: 'connect' });
  const importCsv = () => show({ kind: 'import' });
  function changed() {
    close();
    refreshCatalogue();
  }

  const failed = !!error && !isUnauthorizedError(error);
  const empty = entries !== null && entries.length === 0;
  const recommendations = view === 'recommendations' && entries !== null && !empty;

  return (
    <div className="space-y-5">
      {entries && !empty && (
        <div role="group" aria-label="Catalogue view" className="flex w-fit gap-1 rounded-lg bg-muted p-1">
          {VIEWS.map((v) => (
            <Button key={v.value} size="sm" variant={view === v.value ? 'default' : 'ghost'} aria-pressed={view === v.value} onClick={() => setView(v.value)}>
              {v.label}
            </Button>
          ))}
        </div>
      )}

      {recommendations ? (
        <RecommendationsView onOpen={(id) => show({ kind: 'entry', id })} onShowProducts={() => setView('products')} />
      ) : (
        <>
          <div className="flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
            <SearchInput
              ref={searchRef}
              aria-label="Search your products by title or SKU"
              placeholder="Search by title or SKU..."
              value={query}
              onChange={(e) => setQuery(e.target.value)}
              disabled={empty}
              className="w-full sm:max-w-sm"
            />
            <div className="flex flex-wrap gap-2">
              <SourceActions onConnect={connect} onImport={importCsv} />
            </div>
          </div>

          <Sources sources={sources} />

          {counts && !empty && (
            <div role="group" aria-label="Filter by position" className="flex flex-wrap gap-1.5">
              {BAND_FILTERS.map((f) => (
                <Button
                  key={f.value}
                  size="sm"
                  variant={band === f.value ? 'default' : 'outline'}
                  aria-pressed={band === f.value}
                  onClick={() => setBand(f.value)}
                  className="h-8"
                >
                  {f.label}
                  <span className={cn('tabular-nums', band === f.value ? 'opacity-80' : 'text-muted-foreground')}>
                    {counts[f.value].toLocaleString('en-GB')}
                  </span>
                </Button>
              ))}
            </div>
          )}

          {entries && !empty && !linkedAny && matches.length === 0 && (
            <p className="rounded-lg border bg-muted/50 p-3 text-sm">
              None of your products is linked to a competitor yet. Open a product to link one you track, or add a competitor page.
            </p>
          )}
          {entries && !empty && <SuggestionsPanel matches={matches} entries={entries} tracked={trackedById} defaultOpen={!linkedAny} />}

          <p className="sr-only" role="status">
            {entries && (band !== 'all' || search.trim()) ? `${visible.length} of ${entries.length} products shown` : ''}
          </p>

          {entries === null ? (
            failed ? (
              <LoadFailed onRetry={() => $catalogueList.revalidate()} />
            ) : (
              <CatalogueSkeleton />
            )
          ) : empty ? (
            <NoCatalogue onConnect={connect} onImport={importCsv} />
          ) : visible.length === 0 ? (
            <NoMatch
              query={search}
              band={BAND_FILTERS.find((f) => f.value === band)!.label}
              onClear={() => {
                setQuery('');
                setBand('all');
                searchRef.current?.focus();
              }}
            />
          ) : (
            <CatalogueTable entries={paged.shown} onOpen={(e: CatalogueEntry) => show({ kind: 'entry', id: e.id })} now={now} />
          )}
          <ShowMore remaining={paged.remaining} onMore={paged.more} noun="products" />
        </>
      )}

      {dialog?.kind === 'connect' && <ConnectStoreDialog {...dialogProps} onConnected={changed} />}
      {dialog?.kind === 'import' && (
        <ImportCatalogueDialog
          {...dialogProps}
          onImported={() => {
            setQuery('');
            changed();
          }}
        />
      )}
      {open && <EntryDialog {...dialogProps} entry={open} matches={matches} tracked={tracked} />}
    </div>
  );
}
