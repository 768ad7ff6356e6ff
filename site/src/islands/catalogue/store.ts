import { onMount } from 'nanostores';
import type { CatalogueEntry } from '../../lib/api';
import { $productsVersion } from '../../stores/products';
import { loadable, mutateCache, readStore, revalidateKeys } from '../../stores/query';

/**
 * The catalogue's reads, shared by its screen and dialogs. A change of competitor products (a new
 * one added from the dialog, a price checked) moves positions and suggestions, so they follow
 * the products' version too.
 */
export const $catalogueList = readStore('catalogue');
export const $catalogue = loadable($catalogueList, { keepError: true });
export const $sourceList = readStore('catalogue/sources');
export const $sources = loadable($sourceList);
export const $matchList = readStore('catalogue/matches');
export const $matches = loadable($matchList);
/** The competitor products the owner tracks, to link by hand and to name suggestions. */
export const $trackedList = readStore('products');
export const $tracked = loadable($trackedList);

onMount($catalogueList, () =>
  $productsVersion.listen(() => {
    $catalogueList.revalidate();
    $matchList.revalidate();
  }),
);

onMount($trackedList, () => $productsVersion.listen(() => $trackedList.revalidate()));

/** The recommendations: every product with a rule (the Recommendations view), and the waiting ones (the dashboard's count). */
export const $recommendationList = readStore('catalogue/recommendations/all');
export const $recommendations = loadable($recommendationList, { keepError: true });
const RECOMMENDATION_KEYS = ['catalogue/recommendations', 'catalogue/recommendations/all'];
// A competitor's new price moves what the rules recommend.
onMount($recommendationList, () => $productsVersion.listen(() => $recommendationList.revalidate()));

/** After a recommendation is applied, dismissed or undone: the lists that show it, and the prices it moved. */
export function refreshRecommendations(): void {
  revalidateKeys(['catalogue', 'position', ...RECOMMENDATION_KEYS]);
}

/** After anything that changes the catalogue: every read that shows it, the dashboard's card included. */
export function refreshCatalogue(): void {
  revalidateKeys(['catalogue', 'catalogue/matches', 'catalogue/sources', 'position', ...RECOMMENDATION_KEYS]);
}

/** Shows an entry as the server answered it at once, then reads everything it may have moved. */
export function entryChanged(entry: CatalogueEntry): void {
  const list = $catalogueList.get().data;
  if (list)
    mutateCache(
      'catalogue',
      list.map((e) => (e.id === entry.id ? entry : e)),
    );
  refreshCatalogue();
}
