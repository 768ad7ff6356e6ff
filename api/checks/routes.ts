import { Elysia } from 'elysia';
import type { AppContext } from '../context.ts';
import { authentication } from '../auth/plugin.ts';
import { HttpError } from '../http/errors.ts';
import { idOf } from '../http/ids.ts';
import { PRODUCT_NOT_FOUND } from '../../events/product.ts';
import { sharedFetcher, type Fetcher } from './fetcher.ts';
import { checkPage, recordOutcomes } from './check.ts';
import { hostOf, restLeft, restOf, watchingBlocks } from './host-backoff.ts';
import { priceSourceOf, selectorMissNote, type PriceSource } from './price-source.ts';
import { readProduct } from '../products/read-model.ts';

/**
 * `source`: where the price came from; `selectorMatched`: whether the product's selector gave it,
 * and when not, `sourceNote` says so in a sentence (also at the end of `message`), so the screen
 * can offer to fix the selector. `currency`: the page's, else the product's (see the list item).
 * `retryAt`: when the shop's host rests after turning checks away, when the next try is due.
 */
export type CheckNowAnswer =
  | { success: true; price: number; currency: string; message: string; source: PriceSource; selectorMatched: boolean; sourceNote: string | null }
  | { success: false; message: string; error: string; retryAt?: string };

/**
 * "Check Now": checks one product of the user right away, through the same code as the queue's
 * workers. A failed check is still a successful call (200): the screen shows 'Price check failed'
 * with the reason.
 */
export async function checkProductNow(ctx: AppContext, userId: string, productId: string, fetcher?: Fetcher): Promise<CheckNowAnswer> {
  const product = await readProduct(ctx.sql, userId, productId);
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
  const { price } = event.data;
  const currency = event.data.currency ?? product.currency;
  const source = priceSourceOf(event.data.source)!;
  const sourceNote = selectorMissNote(source, outcome!.selectorFailure);
  const change = describeChange(product.currentPrice, price, currency);
  return {
    success: true, price, currency, source, selectorMatched: source === 'selector', sourceNote,
    message: sourceNote ? `${change}. ${sourceNote}` : change,
  };
}

function describeChange(previous: number | null, price: number, currency: string): string {
  const now = formatPrice(price, currency);
  if (previous === null) return `Price found: ${now}`;
  if (previous === price) return `Price unchanged: ${now}`;
  return `Price ${price < previous ? 'dropped' : 'rose'} from ${formatPrice(previous, currency)} to ${now}`;
}

function formatPrice(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat('en-GB', { style: 'currency', currency }).format(amount);
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
