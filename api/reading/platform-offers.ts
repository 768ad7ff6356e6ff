/**
 * The shop platforms whose own data names a page's variants, in the order they are tried: a page is
 * one platform's, and the first whose data is there reads it.
 */
import { bigCommerceOffers } from './platform-offers-bigcommerce.ts';
import { magentoOffers } from './platform-offers-magento.ts';
import { prestaShop16Offers, prestaShop17Offers } from './platform-offers-prestashop.ts';
import { sfccOffers } from './platform-offers-sfcc.ts';
import { shopifyOffers } from './platform-offers-shopify.ts';
import { shopwareOffers } from './platform-offers-shopware.ts';
import { wooCommerceOffers } from './platform-offers-woocommerce.ts';
import type { Platform, PlatformOffers } from './offers-model.ts';

export const PLATFORM_READERS: readonly PlatformOffers[] = [
  shopifyOffers,
  wooCommerceOffers,
  magentoOffers,
  prestaShop16Offers,
  prestaShop17Offers,
  sfccOffers,
  bigCommerceOffers,
  shopwareOffers,
];

/** How a platform selects its variants by address (PrestaShop's two readers share theirs). */
export const platformReader = (platform: Platform): PlatformOffers => PLATFORM_READERS.find((reader) => reader.platform === platform)!;
