import { nanoquery, type CommonSettings, type FetcherStore } from '@nanostores/query';
import { computed, type ReadableAtom } from 'nanostores';
import { api } from '../lib/api';
import { withRetries } from '../lib/billing';

/**
 * The API reads that screens keep in fetcher stores, by name (the store's cache key). Each goes
 * through the API client, which turns an answer into data or an Error and ends the session on a
 * 401 with its own toast and redirect.
 */
const READS = {
  'dashboard/stats': () => api.dashboard.stats(),
  products: () => api.products.list(),
  channels: () => api.channels.list(),
  settings: () => api.settings.get(),
  'settings/api-key': () => api.apiKey.get(),
  'check-health': () => api.checkHealth.get(),
  catalogue: () => api.catalogue.list(),
  'catalogue/sources': () => api.catalogue.sources(),
  'catalogue/matches': () => api.catalogue.matches(),
  'catalogue/settings': () => api.catalogue.settings(),
  position: () => api.catalogue.position(),
  /** The recommendations waiting (the dashboard's count), and every product with a rule (the Recommendations view). */
  'catalogue/recommendations': () => api.catalogue.recommendations(),
  'catalogue/recommendations/all': () => api.catalogue.recommendations(true),
  /** With up to 3 retries (docs/product.md#how-the-site-talks-to-the-api). */
  'billing/subscription': () => withRetries(api.billing.subscription),
} satisfies Record<string, () => Promise<unknown>>;

export type ReadName = keyof typeof READS;
export type ReadData<N extends ReadName> = Awaited<ReturnType<(typeof READS)[N]>>;

/**
 * The shared fetcher context. The screens' own rules, kept from when each loaded by hand: a failed
 * read stays failed until the screen reads again (no automatic retries), and neither refocusing
 * the window nor reconnecting reads again. Reads within 4 s of the last (the library's dedupeTime)
 * answer from the cache; `revalidate()` and `invalidate()` always read again.
 */
export const [createFetcherStore, createMutatorStore, { invalidateKeys, revalidateKeys, mutateCache }] = nanoquery({
  fetcher: (name) => READS[name as ReadName](),
  onErrorRetry: false,
  revalidateOnFocus: false,
  revalidateOnReconnect: false,
});

/** A fetcher store for one of the reads above; settings add a polling interval (`revalidateInterval`) or an `onError`. */
export function readStore<N extends ReadName>(name: N, settings: CommonSettings<ReadData<N>> = {}): FetcherStore<ReadData<N>, Error> {
  return createFetcherStore<ReadData<N>, Error>(name, settings);
}

/** What a screen shows of a fetcher store. */
export type Loadable<T> = {
  /** The last data read (or set with `mutate`), kept while the store reads again and when that read fails. */
  data: T | undefined;
  /** The last answer's error: cleared while a read runs, or kept then with `keepError`. */
  error: Error | undefined;
  /** Whether a read is running. */
  loading: boolean;
};

/**
 * The store as the screens drew their hand-rolled loading states: the data on screen stays until
 * new data replaces it (the library drops it while re-reading after a failure), and with
 * `keepError` a failure stays on screen until the next answer rather than until the next read.
 * A screen that comes and goes within a page reads afresh each time it comes back when its store
 * keeps nothing (`dedupeTime: 0, cacheLifetime: 0`).
 */
export function loadable<T>($store: FetcherStore<T, Error>, { keepError = false } = {}): ReadableAtom<Loadable<T>> {
  let data: T | undefined;
  let error: Error | undefined;
  return computed($store, (value) => {
    // Neither reading nor answered: the store is new, or was left by its last screen and reset.
    if (!value.loading && value.data === undefined && value.error === undefined) data = undefined;
    if (value.data !== undefined) data = value.data;
    if (!value.loading) error = value.error;
    else if (!keepError) error = undefined;
    return { data, error, loading: value.loading };
  });
}
