import { Elysia } from 'elysia';
import type { AppContext } from '../context.ts';
import { authentication } from '../auth/plugin.ts';
import { DomainError } from '../../events/decider.ts';
import { idOf } from '../http/ids.ts';
import { answerWithin, perUserLimit, type TimeoutAnswer } from '../http/long-work.ts';
import { PRODUCT_NOT_FOUND } from '../../events/product.ts';
import { sharedFetcher, type Fetcher } from '../fetching/fetcher.ts';
import { checkPage, recordOutcomes } from './check.ts';
import { hostOf } from '../../domain/shops.ts';
import { restLeft, restOf, watchingBlocks } from '../fetching/host-backoff.ts';
import { priceSourceOf, selectorMissNote, type PriceSource } from '../reading/price-source.ts';
import { formatMoney } from '../../domain/money.ts';
import { readProduct } from '../products/read-model.ts';
import type { Availability } from '../../events/catalogue.ts';
import { effectivePlan } from '../products/limit.ts';
import { pausedReason } from '../products/beyond-plan.ts';

/**
 * `source`: where the price came from; `selectorMatched`: whether the product's selector gave it,
 * and when not, `sourceNote` says so in a sentence (also at the end of `message`), so the screen
 * can offer to fix the selector. `currency`: the page's, else the product's (see the list item).
 * `retryAt`: when the shop's host rests after turning checks away, when the next try is due.
 */
export type CheckNowAnswer =
  | { success: true; price: number; currency: string; message: string; source: PriceSource; selectorMatched: boolean; sourceNote: string | null }
  | { success: false; message: string; error: string; retryAt?: string };

/** Check Nows one user may have running at once: more would only queue behind each other for the browser. */
export const CHECK_NOWS_PER_USER = 3;
const checkNowLimit = perUserLimit(CHECK_NOWS_PER_USER, (limit) => `You have ${limit} checks running already. Wait for one of them to finish, then try again.`);

/** A check still running when the answer is due: it goes on, and the card shows its result. */
export const checkStillRunning = (ms: number): TimeoutAnswer => ({
  success: false,
  error: 'timeout',
  message: `The check is taking longer than ${Math.round(ms / 1000)} seconds. It goes on in the background, and the product shows its result when it is done.`,
});

/**
 * "Check Now": checks one product of the user right away, through the same code as the queue's
 * workers. A failed check is still a successful call (200): the screen shows 'Price check failed'
 * with the reason.
 */
export async function checkProductNow(ctx: AppContext, userId: string, productId: string, fetcher?: Fetcher): Promise<CheckNowAnswer> {
  const product = await readProduct(ctx.sql, userId, productId);
  if (!product) throw new DomainError(PRODUCT_NOT_FOUND, 404);
  // Beyond the plan's limit: checking it by hand would be the check the plan does not include.
  if (product.checksPaused)
    return { success: false, error: 'paused', message: `Checks of this product are paused. ${pausedReason(await effectivePlan(ctx.sql, userId))}` };
  // The shop turned checks away: knocking again by hand would only prolong the block.
  const host = hostOf(product.url);
  const rest = await restOf(ctx.sql, host);
  if (rest) {
    return {
      success: false,
      error: 'blocked',
      retryAt: rest.until.toISOString(),
      message: `${rest.reason} Checks of ${host} are paused for ${restLeft(rest.until)}.`,
    };
  }
  const target = { productId: product.id, userId, url: product.url, selector: product.selector, lease: null };
  const watched = watchingBlocks(ctx.sql, fetcher ?? sharedFetcher);
  const [outcome] = await checkPage(ctx.config, product.url, [target], watched, { sql: ctx.sql });
  const { recorded, checkpoint } = await recordOutcomes(ctx, [outcome!]);
  if (!recorded.length) throw new DomainError(PRODUCT_NOT_FOUND, 404); // removed while it was being checked
  // The list and the dashboard are read right after this answer: let them see the result.
  if (checkpoint) await ctx.projections.waitFor(checkpoint);
  const event = outcome!.event;
  const stock = stockNews(product.availability, event.data.availability);
  if (event.type === 'PriceCheckFailed') {
    const paused = event.data.code === 'blocked' ? await restOf(ctx.sql, host) : null;
    const message = stock ? `${stock}. ${event.data.reason}` : event.data.reason;
    return paused
      ? { success: false, message, error: event.data.code, retryAt: paused.until.toISOString() }
      : { success: false, message, error: event.data.code };
  }
  const { price } = event.data;
  const currency = event.data.currency ?? product.currency;
  const source = priceSourceOf(event.data.source)!;
  const sourceNote = selectorMissNote(source, outcome!.selectorFailure);
  const change = describeChange(product.currentPrice, price, currency, stock);
  return {
    success: true,
    price,
    currency,
    source,
    selectorMatched: source === 'selector',
    sourceNote,
    message: sourceNote ? `${change}. ${sourceNote}` : change,
  };
}

/** A change of stock the check saw, said before the price: it is the news when the price held. */
function stockNews(was: Availability | null, now: Availability | null): string | null {
  if (now === 'OutOfStock' && was !== 'OutOfStock') return 'Now out of stock';
  if (was === 'OutOfStock' && now !== null && now !== 'OutOfStock') return 'Back in stock';
  return null;
}

function describeChange(previous: number | null, price: number, currency: string, stock: string | null): string {
  const now = formatMoney(price, currency);
  if (previous === null) return `Price found: ${now}`;
  if (previous === price) return stock ? `${stock}: ${now}` : `Price unchanged: ${now}`;
  const change = `Price ${price < previous ? 'dropped' : 'rose'} from ${formatMoney(previous, currency)} to ${now}`;
  return stock ? `${stock}. ${change}` : change;
}

export function checkRoutes(ctx: AppContext, opts: { fetcher?: Fetcher } = {}) {
  const { answerWithinMs } = ctx.config;
  return new Elysia({ prefix: '/api/products' }).use(authentication(ctx)).post(
    '/:id/check-price',
    ({ userId, params }) => {
      const productId = idOf(params.id, PRODUCT_NOT_FOUND);
      const check = checkNowLimit(userId, () => checkProductNow(ctx, userId, productId, opts.fetcher));
      return answerWithin(answerWithinMs, check, () => checkStillRunning(answerWithinMs));
    },
    {
      signedIn: true,
    },
  );
}
