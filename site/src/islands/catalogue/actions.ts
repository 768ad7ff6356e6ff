import { useState } from 'react';
import { api, isUnauthorizedError, type CatalogueEntry, type MatchSuggestion } from '../../lib/api';
import { serverError } from '../../lib/products';
import { mutateCache } from '../../stores/query';
import { toast } from '../../stores/toast';
import { $matchList, entryChanged } from './store';

/**
 * Runs one change to an entry at a time per key (a competitor's id), showing the server's answer
 * at once; a refusal is a toast, as the server words it.
 */
export function useEntryActions() {
  const [busy, setBusy] = useState<Set<string>>(new Set());

  async function run(key: string, failTitle: string, action: () => Promise<CatalogueEntry>): Promise<boolean> {
    setBusy((b) => new Set(b).add(key));
    try {
      entryChanged(await action());
      return true;
    } catch (error) {
      if (!isUnauthorizedError(error)) toast({ title: failTitle, description: serverError(error).message ?? 'Please try again.', variant: 'destructive' });
      return false;
    } finally {
      setBusy((b) => {
        const next = new Set(b);
        next.delete(key);
        return next;
      });
    }
  }

  /** Accepts or turns down a suggestion; it leaves the list at once either way. */
  async function decide(match: MatchSuggestion, decision: 'accept' | 'reject') {
    const done = await run(match.productId + match.ownProductId, decision === 'accept' ? 'Could not link' : 'Could not reject', () =>
      api.catalogue.decide(match.ownProductId, match.productId, decision),
    );
    const list = $matchList.get().data;
    if (done && list)
      mutateCache(
        'catalogue/matches',
        list.filter((m) => !(m.ownProductId === match.ownProductId && m.productId === match.productId)),
      );
    return done;
  }

  return {
    busy: (key: string) => busy.has(key),
    link: (entryId: string, productId: string) => run(productId, 'Could not link', () => api.catalogue.link(entryId, productId)),
    unlink: (entryId: string, productId: string) => run(productId, 'Could not unlink', () => api.catalogue.unlink(entryId, productId)),
    decide,
  };
}
