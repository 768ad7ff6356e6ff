import { createHash } from 'node:crypto';
import type { AppContext } from '../context.ts';
import type { AlertRule } from '../../events/catalogue.ts';
import { checkpointOf, type NewEvent } from '../../events/store.ts';
import { productDecider, productStream, type ProductCommand, type ProductState } from '../../events/product.ts';
import { extractPrice } from '../reading/extract.ts';
import { DEMO_PRICE_SELECTOR, DEMO_PRODUCTS } from './shop.ts';
import { imagePath, productPage, productPath } from './pages.ts';

/** The account the demo sign-in uses when no e-mail is given. */
export const DEMO_EMAIL = 'demo@pricewatch.local';

const SEEDED: readonly { slug: string; alertRule: AlertRule }[] = [
  { slug: 'aurora-anc-headphones', alertRule: { kind: 'drop', percent: 5 } },
  { slug: 'precision-burr-grinder', alertRule: { kind: 'any' } },
  { slug: 'stride-trail-shoes', alertRule: { kind: 'drop', percent: 10 } },
];

const HISTORY_DAYS = 7;
const HISTORY_STEP_HOURS = 2;

/**
 * Gives the demo account a few products on the built-in demo shop with a week of history, so a
 * new visitor sees prices, changes and charts at once. The history is what the demo shop's pages
 * showed at those moments, read by the real extractor, with the same evidence a live check keeps.
 * The last point is one and a half demo intervals old, so the first live check comes with the next
 * cron tick (a product is due one interval after the slot nearest its last check: see schedule.ts).
 */
export async function seedDemoAccount(ctx: AppContext, userId: string, email: string): Promise<void> {
  if (!ctx.config.demo || email !== DEMO_EMAIL) return;
  const origin = ctx.config.publicUrl;
  const now = Date.now();
  const moments = [
    ...Array.from({ length: (HISTORY_DAYS * 24) / HISTORY_STEP_HOURS }, (_, i) => now - (HISTORY_DAYS * 24 - i * HISTORY_STEP_HOURS) * 3_600_000),
    now - ctx.config.demoCheckMinutes * 90_000,
  ].map((ms) => new Date(ms));

  let last = null;
  for (const { slug, alertRule } of SEEDED) {
    const product = DEMO_PRODUCTS.find((p) => p.slug === slug)!;
    const productId = crypto.randomUUID();
    const url = `${origin}${productPath(slug)}`;
    const imageUrl = `${origin}${imagePath(slug)}`;
    let state: ProductState = productDecider.initialState();
    const events: NewEvent[] = [];
    const run = (command: ProductCommand) => {
      for (const event of productDecider.decide(command, state)) {
        state = productDecider.evolve(state, event);
        // Backfilled history: what the page showed then. It raises the alerts the product's rule
        // would have raised, so the alerts agree with the drops the dashboard counts; none is e-mailed.
        events.push({ ...event, metadata: { backfill: true } } as NewEvent);
      }
    };
    run({ type: 'Add', productId, userId, details: { name: product.name, url, selector: DEMO_PRICE_SELECTOR, alertRule }, imageUrl });
    for (const at of moments) {
      const html = productPage(origin, product, { at });
      const found = extractPrice(html, { selector: DEMO_PRICE_SELECTOR, url });
      if (!found.ok) throw new Error(`Demo shop page of ${slug} has no readable price: ${found.reason}`);
      run({
        type: 'RecordObservation',
        productId,
        observation: {
          price: found.price,
          currency: found.currency,
          source: found.source,
          selector: found.selector,
          matchedText: found.matchedText,
          url,
          httpStatus: 200,
          identifiers: null,
          imageUrl,
          pageHash: createHash('sha256').update(html).digest('hex'),
          observedAt: at.toISOString(),
          availability: found.availability,
          fetcher: 'static',
        },
      });
    }
    last = await ctx.store.append(productStream(productId), 'no_stream', events);
  }
  if (last) await ctx.projections.waitFor(checkpointOf({ transactionId: last.transactionId, position: last.lastPosition }));
}
