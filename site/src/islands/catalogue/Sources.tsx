import { useEffect, useRef, useState } from 'react';
import { FileSpreadsheet, KeyRound, RefreshCw, Store, Trash2, TriangleAlert } from 'lucide-react';
import { api, isUnauthorizedError, type CatalogueSource } from '../../lib/api';
import { errorMessage } from '../../lib/billing';
import { formatDateTime, hostWithoutWww, relativeTime } from '../../lib/format';
import { serverError } from '../../lib/products';
import { toast } from '../../stores/toast';
import { Button } from '../ui/Button';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { useOpenDialog } from '../ui/Dialog';
import { Skeleton } from '../ui/Skeleton';
import { Spinner } from '../ui/Spinner';
import { plural, sourceKindLabel } from './model';
import { refreshCatalogue } from './store';
import { WriteAccessDialog, type WriteAccessState } from './WriteAccessDialog';

/**
 * The connected stores, each with when it was read, Sync now, and why it fails while it does; a
 * Shopify or WooCommerce store also with whether applied prices are written to it (write access).
 */
export function Sources({ sources }: { sources: readonly CatalogueSource[] }) {
  if (!sources.length) return null;
  return (
    <section aria-label="Connected stores">
      <ul className="grid gap-2">
        {sources.map((source) => (
          <SourceRow key={source.id} source={source} />
        ))}
      </ul>
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
    <li className="rounded-lg border bg-card p-3 text-sm shadow-sm">
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
      {source.kind !== 'merchant-feed' && <WriteAccess source={{ id: source.id, kind: source.kind, host }} />}
    </li>
  );
}

type WriteAccessDialogOpen = 'change' | 'remove';

/**
 * Whether applied prices are written to the store, with the masked description of the access,
 * and the buttons that give, change and remove it. A Merchant feed has nothing to write to.
 */
function WriteAccess({ source }: { source: { id: string; kind: 'shopify' | 'woocommerce'; host: string } }) {
  /** null while it is read. */
  const [access, setAccess] = useState<WriteAccessState | null>(null);
  const [failed, setFailed] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const primary = useRef<HTMLButtonElement>(null);
  const { dialog, open, close, dialogProps } = useOpenDialog<WriteAccessDialogOpen>(primary);

  useEffect(() => {
    let live = true;
    setFailed(false);
    api.catalogue.writeAccess.get(source.id).then(
      (state) => live && setAccess(state),
      (error) => live && !isUnauthorizedError(error) && setFailed(true),
    );
    return () => {
      live = false;
    };
  }, [source.id, attempt]);

  function saved(state: WriteAccessState) {
    setAccess(state);
    close();
    refreshCatalogue();
  }

  async function remove() {
    try {
      saved(await api.catalogue.writeAccess.remove(source.id));
      toast({ title: 'Write access removed', description: `Applied prices for ${source.host} are exported as CSV.` });
    } catch (error) {
      if (!isUnauthorizedError(error)) toast({ title: 'Write access not removed', description: errorMessage(error), variant: 'destructive' });
    }
  }

  if (failed && !access)
    return (
      <div className="mt-2 flex flex-wrap items-center gap-x-3 gap-y-2 border-t pt-2 text-xs">
        <p className="min-w-0 flex-1 text-muted-foreground">Whether prices are written to this store could not be read.</p>
        <Button variant="outline" size="sm" onClick={() => setAttempt((n) => n + 1)} aria-label={`Try again: write access to ${source.host}`}>
          Try again
        </Button>
      </div>
    );
  if (!access)
    return (
      <div className="mt-2 flex items-center gap-3 border-t pt-2" aria-hidden="true">
        <Skeleton className="h-4 w-56 max-w-full" />
      </div>
    );

  const platform = sourceKindLabel(source.kind);
  return (
    <div className="mt-2 flex flex-wrap items-center gap-x-3 gap-y-2 border-t pt-2">
      <p className="flex min-w-0 flex-1 basis-56 items-start gap-2 text-xs">
        {access.connected ? (
          <>
            <KeyRound aria-hidden="true" className="mt-px size-3.5 shrink-0 text-success" />
            <span>
              Prices are written to this store
              {access.description && (
                <span className="text-muted-foreground">
                  {' '}
                  · <span className="whitespace-nowrap">{access.description}</span>
                </span>
              )}
            </span>
          </>
        ) : (
          <>
            <FileSpreadsheet aria-hidden="true" className="mt-px size-3.5 shrink-0 text-muted-foreground" />
            <span className="text-muted-foreground">Read only: applied prices are exported as CSV</span>
          </>
        )}
      </p>
      <div className="flex flex-wrap gap-2">
        <Button
          ref={primary}
          variant="outline"
          size="sm"
          onClick={() => open('change')}
          aria-label={`${access.connected ? 'Change' : 'Give'} write access: ${source.host}`}
        >
          <KeyRound aria-hidden="true" />
          {access.connected ? 'Change write access' : 'Give write access'}
        </Button>
        {access.connected && (
          <Button
            variant="outline"
            size="sm"
            className="text-destructive hover:text-destructive"
            onClick={() => open('remove')}
            aria-label={`Remove write access: ${source.host}`}
          >
            <Trash2 aria-hidden="true" />
            Remove write access
          </Button>
        )}
      </div>

      {dialog === 'change' && <WriteAccessDialog {...dialogProps} source={source} current={access} onSaved={saved} />}
      {dialog === 'remove' && (
        <ConfirmDialog
          {...dialogProps}
          title={`Remove write access to ${source.host}?`}
          description={`Applied prices are no longer written to this store: they are exported as CSV for you to import. Pricewatch deletes the ${
            source.kind === 'shopify' ? 'token' : 'key and secret'
          } at once; revoke ${source.kind === 'shopify' ? 'it' : 'them'} in your ${platform} admin too.`}
          cancelLabel="Cancel"
          confirmLabel="Remove write access"
          pendingLabel="Removing…"
          onConfirm={remove}
        />
      )}
    </div>
  );
}
