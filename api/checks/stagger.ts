import { hostOf } from '../../domain/shops.ts';

/** The gap between two queued checks of one shop: what a large import or a bulk "Check now" waits per page. */
export const HOST_CHECK_SPACING_MS = 1_000;

export type StaggeredCheck = { productId: string; url: string; host: string | null; runAt: Date };

/**
 * When each product's check may start: a host's products one `spacingMs` apart, in the order
 * given, after the checks that host already has waiting (`queuedUntil`: the last one's time).
 * Different hosts start together. So importing 1,000 pages of one shop asks it for one page a
 * second instead of 1,000 at once, while 1,000 shops are all checked at once. Pure.
 */
export function staggerByHost(
  products: readonly { productId: string; url: string }[],
  now: Date,
  queuedUntil: ReadonlyMap<string, Date> = new Map(),
  spacingMs = HOST_CHECK_SPACING_MS,
): StaggeredCheck[] {
  const next = new Map<string, number>();
  return products.map(({ productId, url }) => {
    const host = hostOf(url);
    const key = host ?? url;
    const queued = queuedUntil.get(key);
    const at = next.get(key) ?? Math.max(now.getTime(), queued ? queued.getTime() + spacingMs : 0);
    next.set(key, at + spacingMs);
    return { productId, url, host, runAt: new Date(at) };
  });
}
