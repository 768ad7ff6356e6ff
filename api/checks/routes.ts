import { Elysia } from 'elysia';
import type { AppContext } from '../context.ts';
import { authentication } from '../auth/plugin.ts';
import { HttpError } from '../http/errors.ts';
import { idOf } from '../http/ids.ts';
import { PRODUCT_NOT_FOUND } from '../../events/product.ts';
import { sharedFetcher, type Fetcher } from './fetcher.ts';
import { checkPage, recordOutcomes } from './check.ts';
import { hostOf, restLeft, restOf, watchingBlocks } from './host-backoff.ts';

/** `retryAt`: when the shop's host rests after turning checks away, when the next try is due. */
export type CheckNowAnswer =
  | { success: true; price: number; currency: string | null; message: string }
  | { success: false; message: string; error: string; retryAt?: string };

/**
 * "Check Now": checks one product of the user right away, through the same code as the queue's
 * workers. A failed check is still a successful call (200): the screen shows 'Price check failed'
 * with the reason.
 */
export async function checkProductNow(ctx: AppContext, userId: string, productId: string, fetcher?: Fetcher): Promise<CheckNowAnswer> {
  const [product] = await ctx.sql<{ id: string; user_id: string; url: string; selector: string; current_price: number | null }[]>`
    SELECT id, user_id, url, selector, current_price FROM products WHERE id = ${productId} AND user_id = ${userId}`;
  if (!product) throw new HttpError(404, PRODUCT_NOT_FOUND);
  // The shop turned checks away: knocking again by hand would only prolong the block.
  const host = hostOf(product.url);
  const rest = await restOf(ctx.sql, host);
  if (rest) {
    return {
      success: false, error: 'blocked', retryAt: rest.until.toISOString(),
      message: `${rest.reason} Checks of ${host} are paused for ${restLeft(rest.until)}.`,
    };
  }
  const target = { productId: product.id, userId, url: product.url, selector: product.selector, lease: null };
  const watched = watchingBlocks(ctx.sql, fetcher ?? sharedFetcher);
  const [outcome] = await checkPage(ctx.config, product.url, [target], watched, { sql: ctx.sql });
  const { recorded, checkpoint } = await recordOutcomes(ctx, [outcome!]);
  if (!recorded.length) throw new HttpError(404, PRODUCT_NOT_FOUND); // removed while it was being checked
  // The list and the dashboard are read right after this answer: let them see the result.
  if (checkpoint) await ctx.projections.waitFor(checkpoint);
  const event = outcome!.event;
  if (event.type === 'PriceCheckFailed') {
    const paused = event.data.code === 'blocked' ? await restOf(ctx.sql, host) : null;
    return paused
      ? { success: false, message: event.data.reason, error: event.data.code, retryAt: paused.until.toISOString() }
      : { success: false, message: event.data.reason, error: event.data.code };
  }
  const { price, currency } = event.data;
  return { success: true, price, currency, message: describeChange(product.current_price, price, currency) };
}

function describeChange(previous: number | null, price: number, currency: string | null): string {
  const now = formatPrice(price, currency);
  if (previous === null) return `Price found: ${now}`;
  if (previous === price) return `Price unchanged: ${now}`;
  return `Price ${price < previous ? 'dropped' : 'rose'} from ${formatPrice(previous, currency)} to ${now}`;
}

function formatPrice(amount: number, currency: string | null): string {
  try {
    return new Intl.NumberFormat('en-GB', { style: 'currency', currency: currency ?? 'GBP' }).format(amount);
  } catch {
    return amount.toFixed(2);
  }
}

export function checkRoutes(ctx: AppContext, opts: { fetcher?: Fetcher } = {}) {
  return new Elysia({ prefix: '/api/products' })
    .use(authentication(ctx))
    .post('/:id/check-price', ({ userId, params }) => checkProductNow(ctx, userId, idOf(params.id, PRODUCT_NOT_FOUND), opts.fetcher), {
      signedIn: true,
    });
}
