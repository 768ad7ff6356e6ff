// Reads a shop owner's own catalogue from where it lives: a Shopify store, a WooCommerce store or
// a Google Merchant Center feed. Read-only and without credentials: only what each platform
// publishes to every visitor is read.

import type { SourceDeps, SourceRead } from './item.ts';
import { readMerchantFeed } from './merchant-feed.ts';
import { readShopify } from './shopify.ts';
import { readWooCommerce } from './woocommerce.ts';

export type { Availability, CatalogueItem, Skipped, SourceRead } from './item.ts';
export { MAX_SOURCE_ITEMS } from './item.ts';

export type { SourceDeps } from './item.ts';
export type SourceKind = 'shopify' | 'woocommerce' | 'merchant-feed';

export function readSource(kind: SourceKind, url: string, deps: SourceDeps): Promise<SourceRead> {
  switch (kind) {
    case 'shopify':
      return readShopify(url, deps);
    case 'woocommerce':
      return readWooCommerce(url, deps);
    case 'merchant-feed':
      return readMerchantFeed(url, deps);
  }
}
