import { createHash } from 'node:crypto';
import type { AppContext } from '../context.ts';
import type { AlertRule } from '../../events/catalogue.ts';
import { handleCommand, handleCommandsOnStreams } from '../../events/decider.ts';
import type { NewEvent } from '../../events/store.ts';
import { productDecider, productStream, type ProductCommand, type ProductState } from '../../events/product.ts';
import { ownProductDecider, ownProductIdFor, ownProductStream, type OwnProductCommand } from '../../events/own-product.ts';
import { sourceDecider, sourceStream } from '../../events/catalogue-source.ts';
import { extractPrice } from '../reading/extract.ts';
import { withUserProducts } from '../products/limit.ts';
import { applyRead, PROJECTION_WAIT_MS, scheduleNextSync } from '../catalogue/sync.ts';
import { linkGtinMatches } from '../catalogue/matches.ts';
import { DEMO_PRICE_SELECTOR, DEMO_PRODUCTS, demoPriceRange } from './shop.ts';
import { imagePath, productPage, productPath } from './pages.ts';
import { MY_STORE_PATH, myStoreItems, myStoreVariantOf } from './my-store.ts';

/** The account the demo sign-in uses when no e-mail is given. */
export const DEMO_EMAIL = 'demo@pricewatch.local';

/**
 * The competitor products the demo account tracks; `linked` ones are linked to the own product
 * the demo owner's store sells them as (my-store.ts): the headphones, where the owner is always
 * cheapest, and the shoes, where the owner is always undercut. The grinder is left for the owner
 * to link: its store product states the same GTIN, so the catalogue suggests the match.
 */
const SEEDED: readonly { slug: string; alertRule: AlertRule; linked: boolean }[] = [
  { slug: 'aurora-anc-headphones', alertRule: { kind: 'drop', percent: 5 }, linked: true },
  { slug: 'precision-burr-grinder', alertRule: { kind: 'any' }, linked: false },
  { slug: 'stride-trail-shoes', alertRule: { kind: 'drop', percent: 10 }, linked: true },
];

const HISTORY_DAYS = 7;
const HISTORY_STEP_HOURS = 2;

/**
 * Gives the demo account a few products on the built-in demo shop with a week of history, so a
 * new visitor sees prices, changes and charts at once. The history is what the demo shop's pages
 * showed at those moments, read by the real extractor, with the same evidence a live check keeps.
 * The last point is one and a half demo intervals old, so the first live check comes with the next
 * cron tick (a product is due one interval after the slot nearest its last check: see schedule.ts).
 *
 * It also connects the demo owner's own store and imports its catalogue as connecting a store
 * does, as it was priced a week ago, and links two of the tracked products to the owner's, so
 * positions, a suggested match and an undercut alert are there without typing anything. One
 * transaction, in this order: the tracked products, the store, the links, the week of prices
 * (news to the alert rules), then the store's last read a minute ago, where the owner's shoes went
 * up above the competitor: news to the undercut alerts, raised then (a link to a product that
 * already has a price is judged silently, so the alert needs a change after the links).
 */
export async function seedDemoAccount(ctx: AppContext, userId: string, email: string): Promise<void> {
  if (!ctx.config.demo || email !== DEMO_EMAIL) return;
  const origin = ctx.config.publicUrl;
  const now = Date.now();
  const moments = [
    ...Array.from({ length: (HISTORY_DAYS * 24) / HISTORY_STEP_HOURS }, (_, i) => now - (HISTORY_DAYS * 24 - i * HISTORY_STEP_HOURS) * 3_600_000),
    now - ctx.config.demoCheckMinutes * 90_000,
  ].map((ms) => new Date(ms));
  const tracked = SEEDED.map((seeded) => {
    const productId = crypto.randomUUID();
    return { ...seeded, productId, events: trackedProductEvents(origin, userId, productId, seeded, moments) };
  });

  const sourceId = crypto.randomUUID();
  const storeUrl = `${origin}${MY_STORE_PATH}`;
  const checkpoint = await withUserProducts(ctx.sql, userId, async (tx) => {
    for (const p of tracked) await ctx.store.append(productStream(p.productId), 'no_stream', p.events.slice(0, 1), tx);

    // As POST /api/catalogue/sources connects a store, without its plan check: the seed is not the
    // user's doing, and the store has no more products than the plan has room for.
    await handleCommand(ctx.store, sourceStream(sourceId), sourceDecider, { type: 'Connect', sourceId, userId, kind: 'shopify', url: storeUrl }, { tx });
    const items = myStoreItems(origin);
    const read = async (at: string, weekAgo: boolean) => {
      // Seeded history, like the week of prices: its alerts show in the app, none is e-mailed.
      const metadata = { backfill: true };
      return applyRead(ctx, tx, { userId, sourceId, items: weekAgo ? pricedAWeekAgo(items) : items, removeMissing: false, at, metadata });
    };
    const applied = await read(moments[0]!.toISOString(), true);

    // Linked by hand, as the owner would; only products the plan let in can be linked.
    const imported = (externalId: string | null): externalId is string => externalId !== null && !applied.skipped.some((s) => s.id === externalId);
    const links: OwnProductCommand[] = tracked.flatMap((p) => {
      const externalId = p.linked ? myStoreVariantOf(p.slug) : null;
      return imported(externalId)
        ? [{ type: 'Link', ownProductId: ownProductIdFor(userId, sourceId, externalId), userId, productId: p.productId, via: 'hand' }]
        : [];
    });
    await handleCommandsOnStreams(
      ctx.store,
      ownProductDecider,
      (c) => ownProductStream(c.ownProductId),
      [...links, ...pricingRule(userId, sourceId, items, imported)],
      tx,
    );

    for (const p of tracked) await ctx.store.append(productStream(p.productId), 1, p.events.slice(1), tx);
    // The store's last read, a minute ago: the owner's shoes went up and are undercut since.
    const last = await read(new Date(now - 60_000).toISOString(), false);
    return last.checkpoint;
  });
  if (checkpoint) await ctx.projections.waitFor(checkpoint, PROJECTION_WAIT_MS);
  await scheduleNextSync(ctx, { id: sourceId, user_id: userId });
  await linkGtinMatches(ctx, userId);
}

/**
 * A pricing rule on the shoes, with their cost: beat the cheapest competitor by 1%, never below
 * cost + 20%. The owner is undercut since the last read, so the rule recommends a change, with
 * its reasons, and its backtest replays the week of competitor prices (docs/pricing.md).
 */
function pricingRule(userId: string, sourceId: string, items: ReturnType<typeof myStoreItems>, imported: (id: string | null) => boolean): OwnProductCommand[] {
  const externalId = myStoreVariantOf('stride-trail-shoes');
  const item = items.find((i) => i.externalId === externalId);
  if (!externalId || !item || !imported(externalId)) return [];
  const ownProductId = ownProductIdFor(userId, sourceId, externalId);
  const at = new Date().toISOString();
  return [
    { type: 'SetCost', ownProductId, userId, cost: Math.round(item.price * 55) / 100, at },
    {
      type: 'SetRule',
      ownProductId,
      userId,
      at,
      rule: {
        ...{ strategy: 'beat-cheapest', offsetPercent: 1, offsetAmount: null, rounding: '.99', maxStepPercent: 10, spikePercent: 40 },
        ...{ floor: { costMarginPercent: 20, amount: null }, ceiling: { amount: null, regular: false }, minCompetitors: 1, competitors: null },
      },
    },
  ];
}

/**
 * The store as it was a week ago: the shoes were priced below anything the demo shop asks, so the
 * owner was the cheapest all week until the rise the last read finds.
 */
function pricedAWeekAgo(items: ReturnType<typeof myStoreItems>) {
  const shoes = DEMO_PRODUCTS.find((p) => p.slug === 'stride-trail-shoes')!;
  const below = Math.floor(demoPriceRange(shoes).low) - 0.01;
  return items.map((item) => (item.externalId === myStoreVariantOf(shoes.slug) ? { ...item, price: below } : item));
}

/** A tracked product's events: added, then what its page showed at each moment. */
function trackedProductEvents(
  origin: string,
  userId: string,
  productId: string,
  { slug, alertRule }: (typeof SEEDED)[number],
  moments: readonly Date[],
): NewEvent[] {
  const product = DEMO_PRODUCTS.find((p) => p.slug === slug)!;
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
        // The GTIN the page states is what lets the catalogue suggest the match with the owner's product.
        identifiers: found.identifiers,
        regularPrice: found.regularPrice ?? null,
        imageUrl,
        pageHash: createHash('sha256').update(html).digest('hex'),
        observedAt: at.toISOString(),
        availability: found.availability,
        fetcher: 'static',
      },
    });
  }
  return events;
}
