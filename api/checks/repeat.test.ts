import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { testContext, testDatabase, SETUP_TIMEOUT } from '../testing/database.ts';
import { addProduct } from '../testing/prices.ts';
import { createContext } from '../create-context.ts';
import { loadConfig } from '../config.ts';
import { exportEvents, importEvents, eventStats } from '../../events/ndjson.ts';
import { START } from '../../events/store.ts';
import type { EventOf } from '../../events/catalogue.ts';
import { recordOutcomes, type CheckOutcome } from './check.ts';
import { reparsePrices } from './reparse.ts';
import { repeatsObservation } from './repeat.ts';

let ctx: Awaited<ReturnType<typeof testContext>>;
beforeAll(async () => {
  ctx = await testContext();
}, SETUP_TIMEOUT);
afterAll(() => ctx.close());

type Observation = EventOf<'PriceObserved'>['data'];
const base: Omit<Observation, 'productId' | 'userId' | 'observedAt' | 'pageHash'> = {
  price: 149,
  identifiers: null,
  variant: null,
  regularPrice: null,
  currency: 'GBP',
  source: 'selector',
  selector: '.price',
  matchedText: '£149.00',
  url: 'https://shop.example.com/grinder',
  httpStatus: 200,
  availability: 'InStock',
  fetcher: 'static',
};
let minute = 0;
/** A check's outcome as the checker makes it: a new time and page version every time. */
function checked(productId: string, userId: string, changes: Partial<Observation> = {}): CheckOutcome {
  minute++;
  return {
    target: { productId, userId, url: base.url, selector: '.price', lease: null },
    event: {
      type: 'PriceObserved',
      data: {
        ...base,
        productId,
        userId,
        observedAt: new Date(Date.UTC(2026, 10, 1, 0, minute)).toISOString(),
        pageHash: crypto.randomUUID().replaceAll('-', '') + crypto.randomUUID().replaceAll('-', ''),
        ...changes,
      },
    },
  };
}
/** A product in the read models (checks of removed or unknown products are dropped). */
async function tracked(userId: string) {
  const product = await addProduct(ctx, userId);
  await ctx.projections.catchUp();
  return product;
}
const logOf = async (productId: string) =>
  (await ctx.store.readAll(START, 10_000, { streamId: `product-${productId}` })).filter((e) => e.type === 'PriceObserved');
const repeatRows = async () => Number((await ctx.sql<{ n: string }[]>`SELECT count(*) AS n FROM price_checks`)[0]!.n);

describe('repeatsObservation', () => {
  const last = { ...base, productId: 'p', userId: 'u', observedAt: '2026-11-01T00:00:00.000Z', pageHash: 'a' };
  test('only the time and the page version may differ', () => {
    expect(repeatsObservation(last, { ...last, observedAt: '2026-11-01T01:00:00.000Z', pageHash: 'b' })).toBe(true);
  });
  test('identifiers read back from the log with their keys in another order are the same', () => {
    const stated = { ...last, identifiers: { mpn: 'K-17', sku: null, gtin: '05012345678900', brand: 'Acme' } };
    expect(repeatsObservation(stated, { ...last, identifiers: { gtin: '05012345678900', mpn: 'K-17', sku: null, brand: 'Acme' } })).toBe(true);
    expect(repeatsObservation(stated, { ...last, identifiers: { gtin: '05012345678900', mpn: 'K-18', sku: null, brand: 'Acme' } })).toBe(false);
  });
  test('anything the page said differently is news', () => {
    for (const change of [
      { price: 148 },
      { matchedText: '£149' },
      { currency: 'EUR' },
      { availability: 'OutOfStock' },
      { source: 'json-ld' },
      { selector: null },
      { url: 'https://shop.example.com/other' },
      { httpStatus: 203 },
      { fetcher: 'browser' },
      { imageUrl: 'https://shop.example.com/i.png' },
    ]) {
      expect(repeatsObservation(last, { ...last, ...change })).toBe(false);
    }
  });
});

describe('unchanged checks in the log', () => {
  test('an unchanged check is kept as a repeat and reads back as the observation at its own time and page version', async () => {
    const userId = 'repeat-user';
    const product = await tracked(userId);
    const first = checked(product, userId);
    await recordOutcomes(ctx, [first]);
    const before = await repeatRows();
    const again = checked(product, userId);
    const { checkpoint } = await recordOutcomes(ctx, [again]);
    expect(await repeatRows()).toBe(before + 1);

    const [original, repeat] = await logOf(product);
    const data = again.event.data as Observation;
    expect(repeat!.repeats).toBe(original!.position);
    expect(repeat!.position).toBe(checkpoint!.position);
    expect(repeat!.data).toEqual({ ...original!.data, observedAt: data.observedAt, pageHash: data.pageHash.slice(0, 32) } as never);
    expect(await ctx.store.head()).toEqual(checkpoint!);

    // The read models take it as any check: a price point, and the time of the last check.
    await ctx.projections.catchUp();
    const points = await ctx.sql`SELECT event_position FROM price_points WHERE product_id = ${product} ORDER BY event_position`;
    expect(points.map((p) => Number(p.event_position))).toEqual([original!.position, repeat!.position]);
    const [row] = await ctx.sql`SELECT last_check_at FROM products WHERE id = ${product}`;
    expect(new Date(row!.last_check_at).toISOString()).toBe(data.observedAt);
  });

  test('a new price, availability or text, and the first success after a failure, are whole events', async () => {
    const userId = 'repeat-user';
    const product = await tracked(userId);
    await recordOutcomes(ctx, [checked(product, userId)]);
    await recordOutcomes(ctx, [checked(product, userId, { price: 139, matchedText: '£139.00' })]);
    await recordOutcomes(ctx, [checked(product, userId, { price: 139, matchedText: '£139.00', availability: 'OutOfStock' })]);
    await recordOutcomes(ctx, [
      {
        target: { productId: product, userId, url: base.url, selector: '.price', lease: null },
        event: {
          type: 'PriceCheckFailed',
          data: {
            productId: product,
            userId,
            code: 'timeout',
            reason: 'Too slow.',
            httpStatus: null,
            url: base.url,
            attemptedAt: new Date().toISOString(),
            availability: null,
          },
        },
      },
    ]);
    await recordOutcomes(ctx, [checked(product, userId, { price: 139, matchedText: '£139.00', availability: 'OutOfStock' })]);
    expect((await logOf(product)).map((e) => e.repeats ?? null)).toEqual([null, null, null, null]);
  });

  test('a batch of checks of many products keeps each product apart', async () => {
    const userId = 'repeat-batch';
    const products = [await tracked(userId), await tracked(userId)];
    await recordOutcomes(
      ctx,
      products.map((p) => checked(p, userId)),
    );
    await recordOutcomes(ctx, [checked(products[0]!, userId), checked(products[1]!, userId, { price: 150, matchedText: '£150.00' })]);
    expect((await logOf(products[0]!)).map((e) => e.repeats !== undefined)).toEqual([false, true]);
    expect((await logOf(products[1]!)).map((e) => e.repeats !== undefined)).toEqual([false, false]);
    // Filters reach repeats through their observation; other types leave them out.
    expect(await ctx.store.readAll(START, 10_000, { userId: 'nobody' })).toEqual([]);
    expect((await ctx.store.readAll(START, 10_000, { types: ['ProductAdded'] })).every((e) => e.type === 'ProductAdded')).toBe(true);
  });

  test('prices reparse re-reads repeats from the evidence they share, and corrects each', async () => {
    const userId = 'repeat-reparse';
    const product = await tracked(userId);
    // An older parser read "1.299,00 €" as 1.299; the repeats inherit the same evidence.
    const misread = { price: 1.299, currency: 'EUR', matchedText: '1.299,00 €' };
    for (let i = 0; i < 3; i++) await recordOutcomes(ctx, [checked(product, userId, misread)]);
    expect((await logOf(product)).map((e) => e.repeats !== undefined)).toEqual([false, true, true]);

    const report = await reparsePrices(ctx.store, { productId: product });
    expect(report).toEqual({ examined: 3, corrected: 3, unreadable: 0, skipped: 0 });
    await ctx.projections.catchUp();
    const points = await ctx.sql<{ price: number }[]>`SELECT price FROM price_points WHERE product_id = ${product} ORDER BY event_position`;
    expect(points.map((p) => p.price)).toEqual([1299, 1299, 1299]);
    expect(await reparsePrices(ctx.store, { productId: product })).toEqual({ examined: 3, corrected: 0, unreadable: 0, skipped: 0 });
  });

  test('export writes repeats whole, with the observation they repeat; import gives back the same log', async () => {
    let ndjson = '';
    const exported = await exportEvents(ctx.sql, (chunk) => {
      ndjson += chunk;
    });
    const lines = ndjson
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.length).toBe(exported);
    const repeat = lines.find((l) => l.repeats !== undefined);
    expect(repeat.type).toBe('PriceObserved');
    expect(repeat.data.matchedText).toBeDefined();

    const database = await testDatabase();
    const copy = await createContext(loadConfig({ NODE_ENV: 'test', PORT: '3000', DATA_DIR: '/tmp/pricewatch-test' }), { database });
    try {
      async function* each() {
        yield* ndjson.trim().split('\n');
      }
      expect(await importEvents(copy.sql, each())).toBe(exported);
      const original = await ctx.store.readAll(START, 100_000);
      const imported = await copy.store.readAll(START, 100_000);
      const shape = (events: typeof original) => events.map(({ transactionId: _, recordedAt, ...e }) => ({ ...e, recordedAt: recordedAt.getTime() }));
      expect(shape(imported)).toEqual(shape(original));
      const stats = await eventStats(copy.sql);
      expect(stats.byType.find((t) => t.type === 'PriceObserved (repeat)')?.events).toBe(await repeatRows());
      // New appends continue after the highest position of either table.
      const next = await copy.store.append('product-after-import', 'no_stream', [{ type: 'ProductRemoved', data: { productId: 'after-import', userId: 'u' } }]);
      expect(next.lastPosition).toBeGreaterThan(Math.max(...original.map((e) => e.position)));
    } finally {
      await copy.close();
    }
  });
});
