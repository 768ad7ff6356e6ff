import { atom } from 'nanostores';

/**
 * Bumped after every successful product change (add, edit, delete, price update, check), so the
 * product list and the dashboard stats that subscribe to it fetch again (docs/product.md#how-the-site-talks-to-the-api).
 */
export const $productsVersion = atom(0);

export function refreshProducts(): void {
  $productsVersion.set($productsVersion.get() + 1);
}
