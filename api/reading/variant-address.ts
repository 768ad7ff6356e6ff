/**
 * The address of one of a page's variants: the page's address changed to select it the way its
 * platform does (Shopify's `?variant=`, WooCommerce's `attribute_*`, Magento's `#<attribute>=<option>`
 * fragment, PrestaShop's `id_product_attribute` or 1.6 fragment, Salesforce's `dwvar_*`), or the
 * variant's own address (Shopware, JSON-LD). Other parameters stay; a selection already there is replaced.
 */
import type { PageOffer } from './offers-model.ts';
import { platformReader } from './platform-offers.ts';

/**
 * Null when the variant has no address: neither its platform's parameters nor an address of its own
 * (a BigCommerce variant the page does not show, an offer JSON-LD states without a url).
 */
export function variantAddress(pageUrl: string, offers: readonly PageOffer[], offer: PageOffer): string | null {
  let page: URL;
  try {
    page = new URL(pageUrl);
  } catch {
    return null;
  }
  const platform = offer.selection?.platform;
  if (platform) return platformReader(platform).address(page, offer, offers)?.href ?? null;
  if (!offer.variant?.url) return null;
  try {
    // A page may write anything there; only a web address is one to check.
    const own = new URL(offer.variant.url, page);
    return own.protocol === 'http:' || own.protocol === 'https:' ? own.href : null;
  } catch {
    return null;
  }
}
