/**
 * Platform price markup (Shopify, WooCommerce, Magento, BigCommerce, PrestaShop, Amazon-style):
 * the selectors shop platforms put their selling price under, and which of them an element matches.
 */
import { matcher, type Element } from './page.ts';

export type PlatformPattern = { platform: string; selector: string };

const PLATFORM_PATTERNS: PlatformPattern[] = [
  { platform: 'Shopify', selector: '.price__sale .price-item--sale' },
  { platform: 'Shopify', selector: '.price-item--sale' },
  { platform: 'Shopify', selector: '[data-product-price]' },
  { platform: 'Shopify', selector: '.product__price' },
  { platform: 'Shopify', selector: '.product-single__price' },
  { platform: 'WooCommerce', selector: '.summary .price ins .woocommerce-Price-amount' },
  { platform: 'WooCommerce', selector: '.summary .price > .woocommerce-Price-amount' },
  { platform: 'WooCommerce', selector: '.woocommerce-variation-price .woocommerce-Price-amount' },
  // Themes and page builders without .summary: the single product's price is a p.price (lists use span.price).
  { platform: 'WooCommerce', selector: 'p.price ins .woocommerce-Price-amount' },
  { platform: 'WooCommerce', selector: 'p.price > .woocommerce-Price-amount' },
  { platform: 'WooCommerce', selector: '.wp-block-woocommerce-product-price ins .woocommerce-Price-amount' },
  { platform: 'WooCommerce', selector: '.wp-block-woocommerce-product-price .wc-block-components-product-price > .woocommerce-Price-amount' },
  { platform: 'WooCommerce', selector: '.elementor-widget-woocommerce-product-price ins .woocommerce-Price-amount' },
  { platform: 'WooCommerce', selector: '.elementor-widget-woocommerce-product-price .price > .woocommerce-Price-amount' },
  { platform: 'Magento', selector: '.product-info-main [data-price-type="finalPrice"]' },
  { platform: 'Magento', selector: '.product-info-main .special-price .price' },
  { platform: 'BigCommerce', selector: '.productView-price [data-product-price-with-tax]' },
  { platform: 'BigCommerce', selector: '.productView-price [data-product-price-without-tax]' },
  { platform: 'PrestaShop', selector: '.product-prices .current-price [itemprop="price"]' },
  { platform: 'PrestaShop', selector: '.product-prices .current-price-value' },
  { platform: 'Amazon', selector: '.priceToPay .a-offscreen' },
  { platform: 'Amazon', selector: '.apexPriceToPay .a-offscreen' },
  { platform: 'Amazon', selector: '#corePrice_feature_div .a-price .a-offscreen' },
  { platform: 'Amazon', selector: '#priceblock_ourprice' },
  { platform: 'Amazon', selector: '#priceblock_dealprice' },
];

// Compiled once: compiling the selectors for every candidate cost far more than matching them.
const ANY_PLATFORM_PATTERN = matcher(PLATFORM_PATTERNS.map((pattern) => pattern.selector).join(', '));
const PLATFORM_MATCHERS = PLATFORM_PATTERNS.map((pattern) => ({ pattern, matches: matcher(pattern.selector) }));

/** Matching only the elements that read as prices is far cheaper than querying the page for every pattern. */
export function platformPatterns(): (element: Element) => PlatformPattern | null {
  const known = new Map<Element, PlatformPattern | null>();
  return (element) => {
    let pattern = known.get(element);
    if (pattern === undefined) {
      pattern = ANY_PLATFORM_PATTERN(element) ? (PLATFORM_MATCHERS.find((m) => m.matches(element))?.pattern ?? null) : null;
      known.set(element, pattern);
    }
    return pattern;
  };
}
