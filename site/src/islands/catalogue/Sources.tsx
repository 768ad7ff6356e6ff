import { useState } from 'react';
import { RefreshCw, Store, TriangleAlert } from 'lucide-react';
import { api, isUnauthorizedError, type CatalogueSource } from '../../lib/api';
import { formatDateTime, hostWithoutWww, relativeTime } from '../../lib/format';
import { serverError } from '../../lib/products';
import { toast } from '../../stores/toast';
import { Button } from '../ui/Button';
import { Spinner } from '../ui/Spinner';
import { plural, sourceKindLabel } from './model';
import { refreshCatalogue } from './store';

/** The connected stores, each with when it was read, Sync now, and why it fails while it does. */
export function Sources({ sources }: { sources: readonly CatalogueSource[] }) {
  if (!sources.length) return null;
  return (
    <section aria-label="Connected stores" className="grid gap-2">
      {sources.map((source) => (
        <SourceRow key={source.id} source={source} />
      ))}
    </section>
  );
}

function SourceRow({ source }: { source: CatalogueSource }) {
  const [syncing, setSyncing] = useState(false);
  /** A failed Sync now's reason, shown until the list says otherwise. */
  const [failed, setFailed] = useState<{ reason: string; at: string } | null>(null);
  const failure = failed ?? source.failure;
  const host = hostWithoutWww(source.url);

  async function sync() {
    setSyncing(true);
    try {
      const answer = await api.catalogue.sync(source.id);
      // A store that cannot be read is an answer, not a refusal: its reason goes on screen.
      if (!answer.success) {
        setFailed({ reason: answer.message, at: new Date().toISOString() });
        return;
      }
      setFailed(null);
      const changes = [
        answer.imported && `${plural(answer.imported, 'new product')}`,
        answer.changed && `${plural(answer.changed, 'change')}`,
        answer.removed && `${plural(answer.removed, 'product')} removed`,
      ].filter(Boolean);
      toast({ title: 'Store read', description: changes.length ? `${host}: ${changes.join(', ')}.` : `${host}: nothing changed.` });
    } catch (error) {
      if (isUnauthorizedError(error)) return;
      const reason = serverError(error).message ?? 'The store could not be read. Please try again.';
      setFailed({ reason, at: new Date().toISOString() });
    } finally {
      setSyncing(false);
      refreshCatalogue();
    }
  }

  return (
    <div className="rounded-lg border bg-card p-3 text-sm shadow-sm">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-2">
        <Store aria-hidden="true" className="size-4 shrink-0 text-muted-foreground" />
        <div className="min-w-0 flex-1">
          <p className="truncate font-medium">
            {host} <span className="font-normal text-muted-foreground">· {sourceKindLabel(source.kind)}</span>
          </p>
          <p className="text-xs text-muted-foreground">
            {plural(source.products, 'product')}
            {source.syncedAt ? ` · read ${relativeTime(source.syncedAt).replace('Just now', 'just now')}` : ''}
          </p>
        </div>
        <Button variant="outline" size="sm" onClick={sync} disabled={syncing} aria-label={`Sync now: ${host}`}>
          {syncing ? <Spinner className="size-3.5 text-current" label="Reading the store" /> : <RefreshCw aria-hidden="true" />}
          {syncing ? 'Syncing…' : 'Sync now'}
        </Button>
      </div>
      {failure && (
        <p role="status" className="mt-2 flex items-start gap-2 rounded-md bg-warning/10 p-2 text-foreground">
          <TriangleAlert aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-warning" />
          <span>
            Your store could not be read: {failure.reason} <span className="text-muted-foreground">({formatDateTime(failure.at)})</span>
          </span>
        </p>
      )}
    </div>
  );
}
