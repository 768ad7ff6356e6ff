import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { testContext, SETUP_TIMEOUT } from '../testing/database.ts';
import { addProduct } from '../testing/prices.ts';
import { readModelSnapshot } from '../testing/read-models.ts';
import { REPARSE_REASON, reparsePrices, rereadPrice } from './reparse.ts';

let ctx: Awaited<ReturnType<typeof testContext>>;
beforeAll(async () => {
  ctx = await testContext();
}, SETUP_TIMEOUT);
afterAll(() => ctx.close());

const t0 = Date.parse('2025-03-01T00:00:00Z');

/** An observation as an older parser recorded it: the text it read, and the price it made of it. */
async function observed(productId: string, userId: string, hour: number, price: number, matchedText: string, currency: string | null = 'GBP') {
  const { lastPosition } = await ctx.store.append(`product-${productId}`, 'any', [
    {
      type: 'PriceObserved',
      data: {
        productId,
        userId,
        price,
        currency,
        source: 'selector',
        selector: '.price',
        matchedText,
        url: 'https://shop.example.com/p',
        httpStatus: 200,
        pageHash: 'h',
        observedAt: new Date(t0 + hour * 3_600_000).toISOString(),
      },
    },
  ]);
  return lastPosition;
}

const points = (productId: string) =>
  ctx.sql<{ price: number }[]>`
  SELECT price FROM price_points WHERE product_id = ${productId} ORDER BY event_position`.then((rows) => rows.map((r) => r.price));
const changes = (productId: string) =>
  ctx.sql<{ previous_price: number; current_price: number }[]>`
  SELECT previous_price, current_price FROM price_changes WHERE product_id = ${productId} ORDER BY event_position`.then((rows) =>
    rows.map((r) => [r.previous_price, r.current_price]),
  );
const currentPrice = async (productId: string) => (await ctx.sql`SELECT current_price FROM products WHERE id = ${productId}`)[0]!.current_price;
const corrections = (productId: string) => ctx.store.readStream(`product-${productId}`).then(({ events }) => events.filter((e) => e.type === 'PriceCorrected'));

describe('rereadPrice', () => {
  test("reads the evidence with today's parser and the recorded currency as the hint", () => {
    expect(rereadPrice({ matchedText: '1.299,00 €', currency: 'EUR' })).toBe(1299);
    expect(rereadPrice({ matchedText: 'Was £30.00 Now £24.99', currency: 'GBP' })).toBe(24.99);
    expect(rereadPrice({ matchedText: '$1,299.00', currency: 'CAD' })).toBe(1299);
    expect(rereadPrice({ matchedText: '24.99', currency: 'GBP' })).toBe(24.99);
    expect(rereadPrice({ matchedText: 'Sold out', currency: 'GBP' })).toBeNull();
  });
});

describe('prices reparse', () => {
  test('appends PriceCorrected only where the price differs; the history shows the corrected prices', async () => {
    const userId = 'reparse-user';
    const product = await addProduct(ctx, userId);
    await observed(product, userId, 0, 20, '£20.00');
    const misread = await observed(product, userId, 1, 1.299, '1.299,00 €', 'EUR');
    await observed(product, userId, 2, 1200, '1.200,00 €', 'EUR');
    await observed(product, userId, 3, 25, 'Sold out'); // unreadable today: left as it was
    const wasPrice = await observed(product, userId, 4, 30, 'Was £30.00 Now £24.99');
    await ctx.projections.catchUp();
    expect(await points(product)).toEqual([20, 1.299, 1200, 25, 30]);
    expect(await changes(product)).toEqual([
      [20, 1.299],
      [1.299, 1200],
      [1200, 25],
      [25, 30],
    ]);
    expect(await currentPrice(product)).toBe(30);

    const report = await reparsePrices(ctx.store, { productId: product });
    expect(report).toEqual({ examined: 5, corrected: 2, unreadable: 1, skipped: 0 });
    expect((await corrections(product)).map((e) => e.data)).toEqual([
      { productId: product, userId, correctsPosition: misread, price: 1299, previousPrice: 1.299, reason: REPARSE_REASON },
      { productId: product, userId, correctsPosition: wasPrice, price: 24.99, previousPrice: 30, reason: REPARSE_REASON },
    ]);
    await ctx.projections.catchUp();
    expect(await points(product)).toEqual([20, 1299, 1200, 25, 24.99]);
    expect(await changes(product)).toEqual([
      [20, 1299],
      [1299, 1200],
      [1200, 25],
      [25, 24.99],
    ]);
    expect(await currentPrice(product)).toBe(24.99);

    // The log is never edited, and a second run finds nothing left to correct.
    const observedPrices = (await ctx.store.readStream(`product-${product}`)).events.flatMap((e) => (e.type === 'PriceObserved' ? [e.data.price] : []));
    expect(observedPrices).toEqual([20, 1.299, 1200, 25, 30]);
    expect(await reparsePrices(ctx.store, { productId: product })).toEqual({ examined: 5, corrected: 0, unreadable: 1, skipped: 0 });
    expect(await corrections(product)).toHaveLength(2);

    // A rebuild from the log gives the same read models as applying the corrections as they came.
    const live = await readModelSnapshot(ctx.sql, ctx.projections.projections);
    await ctx.projections.rebuild();
    expect(await readModelSnapshot(ctx.sql, ctx.projections.projections)).toEqual(live);
  });

  test('a correction that makes a price equal to its neighbours removes those changes', async () => {
    const userId = 'reparse-user-2';
    const product = await addProduct(ctx, userId);
    await observed(product, userId, 0, 10, '£10.00');
    await observed(product, userId, 1, 1, '£10.00'); // misread as 1
    await observed(product, userId, 2, 10, '£10.00');
    await ctx.projections.catchUp();
    expect(await changes(product)).toEqual([
      [10, 1],
      [1, 10],
    ]);
    await reparsePrices(ctx.store, { productId: product });
    await ctx.projections.catchUp();
    expect(await points(product)).toEqual([10, 10, 10]);
    expect(await changes(product)).toEqual([]);
    expect(await currentPrice(product)).toBe(10);
  });

  test('--since leaves older observations alone; a dry run appends nothing; removed products are skipped', async () => {
    const userId = 'reparse-user-3';
    const product = await addProduct(ctx, userId);
    await observed(product, userId, 0, 1.5, '£15.00');
    await Bun.sleep(20);
    const since = new Date();
    await Bun.sleep(20);
    await observed(product, userId, 1, 1.6, '£16.00');
    expect(await reparsePrices(ctx.store, { productId: product, since, dryRun: true })).toEqual({ examined: 1, corrected: 1, unreadable: 0, skipped: 0 });
    expect(await corrections(product)).toHaveLength(0);
    await reparsePrices(ctx.store, { productId: product, since });
    expect((await corrections(product)).map((e) => e.data.price)).toEqual([16]);

    const removed = await addProduct(ctx, userId);
    await observed(removed, userId, 0, 1.7, '£17.00');
    await ctx.store.append(`product-${removed}`, 'any', [{ type: 'ProductRemoved', data: { productId: removed, userId } }]);
    expect(await reparsePrices(ctx.store, { productId: removed })).toEqual({ examined: 1, corrected: 0, unreadable: 0, skipped: 1 });
  });
});
