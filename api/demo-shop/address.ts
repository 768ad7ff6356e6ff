import type { Config } from '../config.ts';

/** Where the built-in demo shop is served, on the server's own origin. */
export const DEMO_SHOP_PATH = '/demo-shop';

/** The address prefix of demo shop pages, or null outside demo mode. */
export function demoShopPrefix(config: Pick<Config, 'demo' | 'publicUrl'>): string | null {
  return config.demo ? `${config.publicUrl}${DEMO_SHOP_PATH}/` : null;
}

/**
 * True for a page of the built-in demo shop in demo mode: the only private address a check may
 * visit without CHECK_ALLOW_PRIVATE (the server's own origin, under the shop's path).
 */
export function isDemoShopUrl(config: Pick<Config, 'demo' | 'publicUrl'>, url: string): boolean {
  if (!config.demo) return false;
  try {
    const target = new URL(url);
    return target.origin === new URL(config.publicUrl).origin && target.pathname.startsWith(`${DEMO_SHOP_PATH}/`);
  } catch {
    return false;
  }
}
