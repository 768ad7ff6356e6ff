import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createApp } from '../server.ts';
import { SETUP_TIMEOUT, testContext } from '../testing/database.ts';
import { settle } from '../testing/alerts.ts';
import { extractPrice } from '../reading/extract.ts';
import { PLANS } from '../billing/plans.ts';
import { normaliseGtin } from '../../domain/gtin.ts';
import { syncSource, type SourceRow } from '../catalogue/sync.ts';
import type { CatalogueEntry } from '../catalogue/read-model.ts';
import type { RecommendationEntry } from '../pricing/read-model.ts';
import type { SourceListItem } from '../catalogue/sources-list.ts';
import type { MatchSuggestion } from '../../domain/matching.ts';
import type { PositionSummary } from '../../domain/position.ts';
import { DEMO_PRODUCTS, demoPriceAt, demoPriceRange, findDemoProduct } from './shop.ts';
import { productPage } from './pages.ts';
import { MY_STORE_PATH, myStoreItems, myStoreListing, myStoreVariantOf, type MyStoreProduct } from './my-store.ts';

const ORIGIN = 'http://localhost:3000';
const HEADPHONES = 'aurora-anc-headphones';
const GRINDER = 'precision-burr-grinder';
const SHOES = 'stride-trail-shoes';

/** The store's item that is the demo shop's product `slug`. */
function storeItem(slug: string, origin = ORIGIN) {
  const item = myStoreItems(origin).find((i) => i.externalId === myStoreVariantOf(slug));
  if (!item) throw new Error(`The store does not sell ${slug}`);
  return item;
}

describe("the demo owner's store", () => {
  test('demo shop prices never leave their range, and reach it', () => {
    const start = Date.UTC(2025, 0, 1);
    for (const p of DEMO_PRODUCTS) {
      const { low, high } = demoPriceRange(p);
      const prices = Array.from({ length: 60 * 144 }, (_, i) => demoPriceAt(p, new Date(start + i * 600_000)));
      expect(Math.min(...prices)).toBeGreaterThanOrEqual(low);
      expect(Math.max(...prices)).toBeLessThanOrEqual(high);
      expect(prices.some((price) => price === low || price === high)).toBe(true);
    }
  });

  test('priced outside the demo shop range where it must be: always cheapest, always undercut; the third within 5 %', () => {
    expect(storeItem(HEADPHONES).price).toBeLessThan(demoPriceRange(findDemoProduct(HEADPHONES)!).low);
    expect(storeItem(SHOES).price).toBeGreaterThan(demoPriceRange(findDemoProduct(SHOES)!).high);
    const grinder = findDemoProduct(GRINDER)!;
    expect(Math.abs(storeItem(GRINDER).price / grinder.basePrice - 1)).toBeLessThanOrEqual(0.05);
  });

  test("sells the demo shop's products under the GTIN their pages state, and fits the demo account's plan", () => {
    const items = myStoreItems(ORIGIN);
    // Every listed variant becomes an item: nothing the reader would skip.
    expect(items).toHaveLength(myStoreListing(ORIGIN, { limit: '250' }).products.flatMap((p) => p.variants).length);
    expect(items.length).toBeLessThanOrEqual(PLANS.free.maxOwnProducts);
    for (const slug of [HEADPHONES, GRINDER, SHOES]) {
      const found = extractPrice(productPage(ORIGIN, findDemoProduct(slug)!, { at: new Date() }));
      expect(found.ok && found.identifiers?.gtin).toBe(storeItem(slug).gtin!);
    }
    for (const product of myStoreListing(ORIGIN, {}).products) {
      const barcode = product.variants[0]!.barcode;
      expect(barcode).toMatch(/^\d{13}$/);
      expect(normaliseGtin(barcode)).toBe(`0${barcode}`);
    }
    expect(items[0]).toMatchObject({
      currency: 'GBP',
      variant: null,
      availability: 'InStock',
      url: expect.stringContaining(`${ORIGIN}${MY_STORE_PATH}/products/`),
    });
  });
});

describe("the demo owner's store inside the server", () => {
  let ctx: Awaited<ReturnType<typeof testContext>>;
  let server: ReturnType<typeof Bun.serve>;
  let origin: string;
  let app: ReturnType<typeof createApp>;

  beforeAll(async () => {
    // Listening where PUBLIC_URL says, as the app does: checks and store reads fetch the demo shop over HTTP.
    let handle: (req: Request) => Response | Promise<Response> = () => new Response('starting', { status: 503 });
    server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req) => handle(req) });
    origin = `http://127.0.0.1:${server.port}`;
    ctx = await testContext({ PUBLIC_URL: origin, PORT: String(server.port) });
    app = createApp(ctx);
    handle = (req) => app.handle(req);
  }, SETUP_TIMEOUT);
  afterAll(async () => {
    server.stop(true);
    await ctx.close();
  }, SETUP_TIMEOUT);

  const listing = async (query: string) => {
    const res = await fetch(`${origin}${MY_STORE_PATH}/products.json${query}`);
    expect(res.headers.get('content-type')).toStartWith('application/json');
    return ((await res.json()) as { products: MyStoreProduct[] }).products;
  };

  test("serves the listing paged as Shopify's public /products.json, and the currency in /meta.json", async () => {
    const all = await listing('');
    expect(all.length).toBeGreaterThanOrEqual(2);
    expect(await listing('?limit=250&page=1')).toEqual(all);
    expect(await listing('?limit=250&page=2')).toEqual([]);
    expect((await listing('?limit=1&page=2')).map((p) => p.id)).toEqual([all[1]!.id]);
    expect((await listing('?limit=1')).map((p) => p.id)).toEqual([all[0]!.id]);
    expect(await listing('?limit=nope&page=nope')).toEqual(all);
    for (const product of all) {
      const page = await fetch(`${origin}${MY_STORE_PATH}/products/${product.handle}`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain(`£${product.variants[0]!.price}`);
      // A copy: bun's toMatchObject writes its matchers into the object it is given.
      expect(structuredClone(product)).toMatchObject({
        id: expect.any(Number),
        handle: expect.any(String),
        title: expect.any(String),
        vendor: expect.any(String),
      });
      expect(product.images[0]!.src).toStartWith(`${origin}/demo-shop/images/`);
      expect(structuredClone(product.variants[0])).toMatchObject({
        id: expect.any(Number),
        title: 'Default Title',
        sku: expect.any(String),
        barcode: expect.stringMatching(/^\d{13}$/),
        price: expect.stringMatching(/^\d+\.\d{2}$/),
        available: true,
        featured_image: { src: product.images[0]!.src },
      });
    }
    expect(await (await fetch(`${origin}${MY_STORE_PATH}/meta.json`)).json()).toMatchObject({ currency: 'GBP', name: expect.any(String) });
    expect((await fetch(`${origin}${MY_STORE_PATH}`)).status).toBe(200);
    expect((await fetch(`${origin}${MY_STORE_PATH}/products/nope`)).status).toBe(404);
  });

  test('the demo account starts with its own store: positions, a suggested match, an undercut alert and a pricing rule', async () => {
    const res = await app.handle(new Request(`${origin}/api/auth/demo`));
    const cookie = `pw_session=${res.headers.get('set-cookie')!.match(/pw_session=([^;]*)/)![1]}`;
    const get = async <T>(path: string): Promise<T> => {
      const answer = await app.handle(new Request(`${origin}${path}`, { headers: { cookie } }));
      expect(answer.status).toBe(200);
      return (await answer.json()) as T;
    };
    const { id: userId } = await get<{ id: string }>('/api/auth/user');
    const tracked = await ctx.sql<{ id: string; url: string }[]>`SELECT id, url FROM products WHERE user_id = ${userId}`;
    const trackedId = (slug: string) => tracked.find((p) => p.url.endsWith(`/products/${slug}`))!.id;

    const catalogue = await get<CatalogueEntry[]>('/api/catalogue');
    const own = (slug: string) => catalogue.find((e) => e.gtin === storeItem(slug, origin).gtin)!;
    expect(catalogue).toHaveLength(myStoreItems(origin).length);
    expect(own(HEADPHONES).position).toMatchObject({ band: 'cheapest', rank: 1 });
    expect(own(SHOES).position).toMatchObject({ band: 'above', rank: 2 });
    expect(own(GRINDER).position).toBeNull();
    expect(own(SHOES).competitors.map((c) => c.productId)).toEqual([trackedId(SHOES)]);
    expect(catalogue.filter((e) => e.position?.band === 'cheapest').length).toBeGreaterThanOrEqual(1);
    expect(catalogue.filter((e) => e.position?.band === 'above' || e.position?.band === 'competitive').length).toBeGreaterThanOrEqual(1);

    const matches = await get<MatchSuggestion[]>('/api/catalogue/matches');
    expect(matches).toContainEqual({ ownProductId: own(GRINDER).id, productId: trackedId(GRINDER), reason: 'gtin', confidence: 1 });

    const position = await get<PositionSummary>('/api/position');
    expect(position).toMatchObject({ cheapest: 1, above: 1, unpositioned: 1, index: expect.any(Number) });

    const [source] = await get<SourceListItem[]>('/api/catalogue/sources');
    expect(source).toMatchObject({ kind: 'shopify', url: `${origin}${MY_STORE_PATH}`, products: catalogue.length, failure: null });
    // The last read found the owner's shoes priced up.
    expect(source!.lastSync).toEqual({ imported: 0, changed: 1, removed: 0, skipped: 0 });
    expect(source!.nextSyncAt).not.toBeNull();

    // The owner's price rise at the last read put the shoes above the competitor: undercut, a minute ago.
    await settle(ctx);
    const alerts = await get<{ type: string; productId: string; standing: { ownProductId: string } | null }[]>('/api/alerts');
    const standing = alerts.filter((a) => a.type === 'undercut' || a.type === 'cheapest');
    expect(standing).toEqual([
      expect.objectContaining({ type: 'undercut', productId: trackedId(SHOES), standing: expect.objectContaining({ ownProductId: own(SHOES).id }) }),
    ]);
    expect((await ctx.sql`SELECT 1 FROM email_outbox WHERE user_id = ${userId}`).length).toBe(0);
    expect(await get<PositionSummary>('/api/position')).toMatchObject({ undercutLast24h: 1 });

    // A pricing rule on the shoes: a recommendation with its reasons, and a backtest of the week.
    const [waiting, ...others] = await get<RecommendationEntry[]>('/api/catalogue/recommendations');
    expect(others).toEqual([]);
    expect(waiting).toMatchObject({ ownProductId: own(SHOES).id, cost: expect.any(Number), recommendation: { status: 'change', currency: 'GBP' } });
    expect(waiting!.recommendation.price!).toBeLessThan(own(SHOES).price);
    expect(waiting!.recommendation.explanation[0]).toMatch(/^Cheapest counted competitor: .* at £[\d,.]+ \(checked .* ago\)\.$/);
    expect(waiting!.recommendation.evidence.map((e) => e.productId)).toEqual([trackedId(SHOES)]);
    const backtest = await app.handle(
      new Request(`${origin}/api/catalogue/${own(SHOES).id}/rule/backtest`, {
        method: 'POST',
        headers: { cookie, origin, 'content-type': 'application/json' },
        body: JSON.stringify({ timeFilter: 'week' }),
      }),
    );
    const week = (await backtest.json()) as { days: { actual: number | null; recommended: number | null; cheapest: number | null }[] };
    expect(week.days.length).toBe(8);
    expect(week.days.filter((d) => d.actual !== null && d.cheapest !== null).length).toBeGreaterThanOrEqual(7);

    // Signing in again adds nothing.
    await app.handle(new Request(`${origin}/api/auth/demo`));
    expect(await get<CatalogueEntry[]>('/api/catalogue')).toHaveLength(catalogue.length);
    expect(await get<SourceListItem[]>('/api/catalogue/sources')).toHaveLength(1);
  });

  // The Shopify reader reads a store at the root of its address only; this store lives under a path.
  test('reading the store again, as its schedule does, finds nothing changed', async () => {
    const [row] = await ctx.sql<SourceRow[]>`SELECT id, user_id, kind, url FROM catalogue_sources WHERE url = ${`${origin}${MY_STORE_PATH}`}`;
    const { read, outcome } = await syncSource(ctx, row!);
    expect(read.ok).toBe(true);
    expect(outcome).toMatchObject({ imported: 0, changed: 0, removed: 0, skipped: [] });
  });
});
