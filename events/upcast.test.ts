import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { z } from 'zod';
import { testDatabase, SETUP_TIMEOUT } from '../db/testing.ts';
import { createEventStore, EVENT_STORE_DDL } from './store.ts';
import { createProjectionRunner } from '../projections/runner.ts';
import type { Projection } from '../projections/projection.ts';
import { events, upcastAndValidate, type EventDefinition, type EventType } from './catalogue.ts';

/**
 * The schema upgrade path, on an event type that exists for this test only: version 1 had a
 * flat `price` and `currency`; version 2 nests them as `amount`. Rows written as version 1 stay
 * as they are in the log and are read as version 2 through the upcaster.
 */
const TYPE = 'ExamplePriceNoted';
const v2 = z.object({
  productId: z.string(),
  userId: z.string(),
  amount: z.object({ value: z.number().positive(), currency: z.string().regex(/^[A-Z]{3}$/) }),
});
const definition: EventDefinition = {
  type: TYPE,
  version: 2,
  schema: v2,
  upcasters: {
    1: (d: { productId: string; userId: string; price: number; currency: string | null }) => ({
      productId: d.productId,
      userId: d.userId,
      amount: { value: d.price, currency: d.currency ?? 'GBP' },
    }),
  },
};
const catalogue = events as unknown as Record<string, EventDefinition>;

/** A read model written after the upgrade: it only knows version 2. */
const notedPrices: Projection = {
  name: 'noted-prices',
  tables: ['noted_prices'],
  ddl: 'CREATE TABLE IF NOT EXISTS noted_prices (position bigint PRIMARY KEY, product_id text NOT NULL, value double precision NOT NULL, currency text NOT NULL)',
  handles: [TYPE as EventType],
  async apply(tx, batch) {
    for (const e of batch) {
      const d = v2.parse(e.data);
      await tx`INSERT INTO noted_prices VALUES (${e.position}, ${d.productId}, ${d.amount.value}, ${d.amount.currency})`;
    }
  },
};

let db: Awaited<ReturnType<typeof testDatabase>>;
let ctx: { sql: typeof db.sql; store: ReturnType<typeof createEventStore>; close(): Promise<void> };
beforeAll(async () => {
  catalogue[TYPE] = definition;
  db = await testDatabase();
  await db.sql.unsafe(EVENT_STORE_DDL);
  ctx = { sql: db.sql, store: createEventStore(db.sql), close: () => db.close() };
}, SETUP_TIMEOUT);
afterAll(async () => {
  delete catalogue[TYPE];
  await ctx.close();
});

describe('schema upgrades', () => {
  test('a version-1 event is read as version 2 through the upcaster', () => {
    expect(upcastAndValidate(TYPE, 1, { productId: 'p1', userId: 'u1', price: 9.99, currency: null })).toEqual({
      productId: 'p1',
      userId: 'u1',
      amount: { value: 9.99, currency: 'GBP' },
    });
    expect(upcastAndValidate(TYPE, 2, { productId: 'p1', userId: 'u1', amount: { value: 5, currency: 'EUR' } })).toEqual({
      productId: 'p1',
      userId: 'u1',
      amount: { value: 5, currency: 'EUR' },
    });
  });

  test('a version without an upcaster, or old data the upcaster cannot make valid, is refused clearly', () => {
    expect(() => upcastAndValidate(TYPE, 0, {})).toThrow('no upcaster from schema version 0');
    expect(() => upcastAndValidate(TYPE, 1, { productId: 'p1', userId: 'u1', price: -1, currency: 'GBP' })).toThrow(
      /Invalid ExamplePriceNoted event: amount\.value/,
    );
  });

  test('a version-1 event in the log replays into a projection written for version 2', async () => {
    // Recorded before the upgrade: version 1 data, as it stays in the log.
    await ctx.sql`INSERT INTO streams (stream_id, version) VALUES ('product-p1', 1)`;
    await ctx.sql`
      INSERT INTO events (stream_id, stream_version, type, schema_version, data)
      VALUES ('product-p1', 1, ${TYPE}, 1, ${ctx.sql.json({ productId: 'p1', userId: 'u1', price: 12.5, currency: 'EUR' })})`;
    // Recorded after it: appends validate against, and store, version 2.
    await ctx.store.append('product-p1', 1, [{ type: TYPE, data: { productId: 'p1', userId: 'u1', amount: { value: 11, currency: 'EUR' } } } as never]);
    const [stored] = await ctx.sql`SELECT schema_version FROM events WHERE stream_id = 'product-p1' AND stream_version = 2`;
    expect(stored!.schema_version).toBe(2);

    const runner = createProjectionRunner(ctx.store, [notedPrices], { checkpoints: 'upcast_test_checkpoints' });
    await runner.setup();
    await runner.catchUp();
    const rows = await ctx.sql`SELECT product_id, value, currency FROM noted_prices ORDER BY position`;
    expect(rows.map((r) => [r.product_id, r.value, r.currency])).toEqual([
      ['p1', 12.5, 'EUR'],
      ['p1', 11, 'EUR'],
    ]);

    // And again from zero: a rebuild reads the old event the same way.
    await runner.rebuild();
    expect((await ctx.sql`SELECT value FROM noted_prices ORDER BY position`).map((r) => r.value)).toEqual([12.5, 11]);
  });
});

describe('upgrades of the catalogue', () => {
  const observedV1 = {
    productId: 'p1',
    userId: 'u1',
    price: 24.99,
    currency: 'GBP',
    source: 'selector',
    selector: '.price',
    matchedText: '£24.99',
    url: 'https://shop.example/k',
    httpStatus: 200,
    pageHash: 'h',
    observedAt: '2026-01-02T10:00:00.000Z',
  };
  const failedV1 = {
    productId: 'p1',
    userId: 'u1',
    code: 'timeout',
    reason: 'Too slow.',
    httpStatus: null,
    url: 'https://shop.example/k',
    attemptedAt: '2026-01-02T10:00:00.000Z',
  };
  const detailsV1 = { productId: 'p1', userId: 'u1', name: 'Kettle', url: 'https://shop.example/k', selector: '.price', alertRule: { kind: 'any' } };

  test('checks recorded before availability was read say nothing about stock', () => {
    expect(upcastAndValidate('PriceObserved', 1, observedV1)).toEqual({
      ...observedV1,
      availability: null,
      fetcher: 'static',
      identifiers: null,
      variant: null,
      regularPrice: null,
    });
    expect(upcastAndValidate('PriceCheckFailed', 1, failedV1)).toEqual({ ...failedV1, availability: null });
    expect(upcastAndValidate('PriceObserved', 2, { ...observedV1, availability: 'OutOfStock' })).toMatchObject({ availability: 'OutOfStock' });
    expect(() => upcastAndValidate('PriceObserved', 2, { ...observedV1, availability: 'SoldOut' })).toThrow(/availability/);
  });

  test('observations recorded before pages were rendered were read as served', () => {
    expect(upcastAndValidate('PriceObserved', 2, { ...observedV1, availability: 'InStock' })).toEqual({
      ...observedV1,
      availability: 'InStock',
      fetcher: 'static',
      identifiers: null,
      variant: null,
      regularPrice: null,
    });
    expect(upcastAndValidate('PriceObserved', 3, { ...observedV1, availability: null, fetcher: 'browser' })).toMatchObject({ fetcher: 'browser' });
    expect(() => upcastAndValidate('PriceObserved', 3, { ...observedV1, availability: null, fetcher: 'curl' })).toThrow(/fetcher/);
  });

  test('observations recorded before identifiers were read state none; alerts before positions have no standing', () => {
    const v3 = { ...observedV1, availability: null, fetcher: 'static' };
    expect(upcastAndValidate('PriceObserved', 3, v3)).toEqual({ ...v3, identifiers: null, variant: null, regularPrice: null });
    const identifiers = { gtin: '05012345678900', mpn: null, sku: 'K-1', brand: 'Acme' };
    expect(upcastAndValidate('PriceObserved', 4, { ...v3, identifiers })).toMatchObject({ identifiers });
    expect(() => upcastAndValidate('PriceObserved', 4, { ...v3, identifiers: { ...identifiers, gtin: '5012345678900' } })).toThrow(/gtin/);
  });

  test('observations recorded before offers were read name no variant and no regular price', () => {
    const v4 = { ...observedV1, availability: null, fetcher: 'static', identifiers: null };
    expect(upcastAndValidate('PriceObserved', 4, v4)).toEqual({ ...v4, variant: null, regularPrice: null });
    const variant = { id: '40123456789', sku: 'TJ-XL-RED', gtin: null, options: { size: 'XL', colour: 'Red' } };
    expect(upcastAndValidate('PriceObserved', 5, { ...v4, variant, regularPrice: 120 })).toMatchObject({ variant, regularPrice: 120 });
    expect(() => upcastAndValidate('PriceObserved', 5, { ...v4, variant: { ...variant, options: { size: 4 } } })).toThrow(/options/);
    expect(() => upcastAndValidate('PriceObserved', 5, { ...v4, regularPrice: -1 })).toThrow(/regularPrice/);
  });

  test('products added or edited before stock alerts existed have them on', () => {
    expect(upcastAndValidate('ProductAdded', 1, { ...detailsV1, imageUrl: null })).toEqual({ ...detailsV1, imageUrl: null, stockAlerts: true });
    expect(upcastAndValidate('ProductEdited', 1, detailsV1)).toEqual({ ...detailsV1, stockAlerts: true });
    expect(upcastAndValidate('ProductEdited', 2, { ...detailsV1, stockAlerts: false })).toEqual({ ...detailsV1, stockAlerts: false });
  });

  test('a price of 0 is a real observation', () => {
    expect(upcastAndValidate('PriceObserved', 2, { ...observedV1, price: 0, availability: null })).toMatchObject({ price: 0 });
    expect(() => upcastAndValidate('PriceObserved', 2, { ...observedV1, price: -1, availability: null })).toThrow(/price/);
  });

  test("prices typed in before they took the user's currency were in pounds", () => {
    const manual = { productId: 'p1', userId: 'u1', price: 12.5, currency: 'GBP' };
    expect(upcastAndValidate('PriceManuallySet', 1, manual)).toEqual(manual);
    expect(upcastAndValidate('PriceManuallySet', 2, { ...manual, currency: 'EUR' })).toEqual({ ...manual, currency: 'EUR' });
    expect(() => upcastAndValidate('PriceManuallySet', 2, { ...manual, currency: null })).toThrow(/currency/);
  });

  test('appends are stored as the current versions', () => {
    expect(events.PriceManuallySet.version).toBe(2);
    expect(events.PriceObserved.version).toBe(5);
    expect(events.AlertRaised.version).toBe(2);
    expect(events.PriceCheckFailed.version).toBe(2);
    expect(events.ProductAdded.version).toBe(2);
    expect(events.ProductEdited.version).toBe(2);
  });
});
