import type { AppContext } from '../context.ts';
import { handleCommand } from '../../events/decider.ts';
import { productStream } from '../../events/product.ts';
import { userDecider, userStream } from '../../events/user.ts';
import { DEFAULT_SETTINGS } from '../../events/settings.ts';
import { PLANS } from '../billing/plans.ts';
import type { NewEvent } from '../../events/store.ts';

/** Streams appended per statement while seeding: big enough to be quick, small enough for PGlite. */
const SEED_BATCH = 50;
const DAY_MS = 86_400_000;

/** The name of the `n`th seeded product (from 0): "Catalogue product 0042". */
export const catalogueProductName = (n: number) => `Catalogue product ${String(n).padStart(4, '0')}`;

/**
 * A big catalogue for benchmarks and screen tests, appended straight to the log as checks would
 * have written it: `products` products on 50 shops, each checked once a day for `days` days up
 * to now, with a price that moves every week (a drop alert every nine weeks or so). Catches up
 * the read models and the reactors, so the year's alerts are raised; the user's e-mail
 * notifications are turned off first, or the product would mail a year of alerts when it starts.
 */
export async function seedCatalogue(
  ctx: Pick<AppContext, 'store' | 'projections' | 'reactors' | 'sql'>,
  userId: string,
  opts: { products: number; days: number },
): Promise<string[]> {
  await handleCommand(ctx.store, userStream(userId), userDecider, {
    type: 'ChangeSettings',
    userId,
    settings: { ...DEFAULT_SETTINGS, emailNotifications: false },
    plan: PLANS.free,
  });
  const ids: string[] = [];
  const start = Date.now() - opts.days * DAY_MS;
  for (let first = 0; first < opts.products; first += SEED_BATCH) {
    const batch = [];
    for (let p = first; p < Math.min(first + SEED_BATCH, opts.products); p++) {
      const productId = crypto.randomUUID();
      ids.push(productId);
      const url = `https://shop${p % 50}.example/products/${p}`;
      const events: NewEvent[] = [
        {
          type: 'ProductAdded',
          data: { productId, userId, name: catalogueProductName(p), url, selector: '.price', alertRule: { kind: 'drop', percent: 10 }, imageUrl: null },
        },
      ];
      for (let d = 0; d < opts.days; d++) {
        const price = 20 + ((p + Math.floor(d / 7)) % 9) + 0.99;
        const observedAt = new Date(start + (d + 1) * DAY_MS).toISOString();
        events.push({
          type: 'PriceObserved',
          data: {
            productId,
            userId,
            price,
            currency: 'GBP',
            source: 'selector',
            selector: '.price',
            matchedText: `£${price.toFixed(2)}`,
            url,
            httpStatus: 200,
            pageHash: `page-${p}-${price}`,
            observedAt,
          },
        });
      }
      batch.push({ streamId: productStream(productId), expected: 'no_stream' as const, events });
    }
    await ctx.store.appendToStreams(batch, ctx.sql);
  }
  await ctx.projections.catchUp();
  await ctx.reactors.catchUp();
  await ctx.projections.catchUp();
  return ids;
}
