import { describe, expect, test } from 'bun:test';
import { deciderSpec } from './testing.ts';
import { ownProductDecider, ownProductIdFor, type OwnItem, type OwnProductEvent } from './own-product.ts';
import { catalogueSettingsDecider, DEFAULT_CATALOGUE_SETTINGS, sourceDecider, type SourceEvent } from './catalogue-source.ts';

const item: OwnItem = {
  title: 'Kettle 1.7L',
  variant: null,
  sku: 'K-17',
  gtin: '05012345678900',
  mpn: null,
  brand: 'Acme',
  regularPrice: null,
  cost: 20,
  url: 'https://mine.example/kettle',
  imageUrl: null,
  availability: 'InStock',
  price: 34.99,
  currency: 'GBP',
};
const at = '2026-11-20T10:00:00.000Z';
const id = ownProductIdFor('u1', 's1', 'v1');
const imported: OwnProductEvent = { type: 'OwnProductImported', data: { ownProductId: id, userId: 'u1', sourceId: 's1', externalId: 'v1', ...item, at } };
const own = deciderSpec(ownProductDecider);
const importCommand = (over: Partial<OwnItem> = {}) => ({
  type: 'Import' as const,
  ownProductId: id,
  userId: 'u1',
  sourceId: 's1',
  externalId: 'v1',
  item: { ...item, ...over },
  at,
});

describe('own product', () => {
  test('the same item of the same source is the same product; another user or source is another', () => {
    expect(ownProductIdFor('u1', 's1', 'v1')).toBe(id);
    expect(ownProductIdFor('u2', 's1', 'v1')).not.toBe(id);
    expect(ownProductIdFor('u1', null, 'v1')).not.toBe(id);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  });

  test('a first read imports; the same read again changes nothing', () => {
    expect(own.given([]).when(importCommand())).toEqual([imported]);
    expect(own.given([imported]).when(importCommand())).toEqual([]);
  });

  test('a new price is an own price change with the previous one; new details their own event', () => {
    expect(own.given([imported]).when(importCommand({ price: 32.5 }))).toEqual([
      { type: 'OwnPriceChanged', data: { ownProductId: id, userId: 'u1', price: 32.5, previousPrice: 34.99, currency: 'GBP', at } },
    ]);
    const events = own.given([imported]).when(importCommand({ title: 'Kettle 1.7 L', availability: 'OutOfStock' }));
    expect(events.map((e) => e.type)).toEqual(['OwnProductChanged']);
  });

  test('links once, unlinks once, and refuses another user', () => {
    const link = { type: 'Link' as const, ownProductId: id, userId: 'u1', productId: 'p1', via: 'hand' as const };
    const linked = own.given([imported]).when(link);
    expect(linked).toEqual([{ type: 'CompetitorLinked', data: { ownProductId: id, userId: 'u1', productId: 'p1', via: 'hand' } }]);
    expect(own.given([imported, ...linked]).when(link)).toEqual([]);
    expect(own.given([imported, ...linked]).when({ type: 'Unlink', ownProductId: id, userId: 'u1', productId: 'p1' })).toHaveLength(1);
    expect(own.given([imported]).when({ type: 'Unlink', ownProductId: id, userId: 'u1', productId: 'p1' })).toEqual([]);
    expect(own.given([imported]).refuses({ ...link, userId: 'u2' }).status).toBe(404);
    expect(own.given([]).refuses(link).status).toBe(404);
  });

  test('a rejection is remembered, and ends a link it turns down', () => {
    const reject = { type: 'Reject' as const, ownProductId: id, userId: 'u1', productId: 'p1' };
    const rejected = own.given([imported]).when(reject);
    expect(rejected.map((e) => e.type)).toEqual(['MatchRejected']);
    expect(own.given([imported, ...rejected]).when(reject)).toEqual([]);
    const linked: OwnProductEvent = { type: 'CompetitorLinked', data: { ownProductId: id, userId: 'u1', productId: 'p1', via: 'gtin' } };
    expect(
      own
        .given([imported, linked])
        .when(reject)
        .map((e) => e.type),
    ).toEqual(['CompetitorUnlinked', 'MatchRejected']);
  });

  test('removed, it refuses changes; read again from its source, it starts afresh', () => {
    const removed: OwnProductEvent = { type: 'OwnProductRemoved', data: { ownProductId: id, userId: 'u1' } };
    expect(own.given([imported, removed]).refuses({ type: 'Remove', ownProductId: id, userId: 'u1' }).status).toBe(404);
    expect(
      own
        .given([imported, removed])
        .when(importCommand())
        .map((e) => e.type),
    ).toEqual(['OwnProductImported']);
  });
});

describe('catalogue source', () => {
  const source = deciderSpec(sourceDecider);
  const connected: SourceEvent = { type: 'SourceConnected', data: { sourceId: 's1', userId: 'u1', kind: 'shopify', url: 'https://mine.example/' } };
  const counts = { imported: 0, changed: 0, removed: 0, skipped: 0, at };
  const failure = { code: 'http_error', reason: 'The store answered 500.', httpStatus: 500, at };

  test('the first read is recorded, later reads only when they change something', () => {
    const first = source.given([connected]).when({ type: 'RecordSync', sourceId: 's1', counts });
    expect(first.map((e) => e.type)).toEqual(['SourceSynced']);
    expect(source.given([connected, ...first]).when({ type: 'RecordSync', sourceId: 's1', counts })).toEqual([]);
    expect(source.given([connected, ...first]).when({ type: 'RecordSync', sourceId: 's1', counts: { ...counts, changed: 2 } })).toHaveLength(1);
  });

  test('a failure is recorded once while it lasts, and the next good read ends it', () => {
    const failed = source.given([connected]).when({ type: 'RecordFailure', sourceId: 's1', failure });
    expect(failed.map((e) => e.type)).toEqual(['SourceFailed']);
    expect(
      source.given([connected, ...failed]).when({ type: 'RecordFailure', sourceId: 's1', failure: { ...failure, at: '2026-11-20T11:00:00.000Z' } }),
    ).toEqual([]);
    const synced: SourceEvent = { type: 'SourceSynced', data: { sourceId: 's1', userId: 'u1', ...counts } };
    expect(source.given([connected, synced, ...failed]).when({ type: 'RecordSync', sourceId: 's1', counts })).toHaveLength(1);
  });

  test("another user's store is not found; a removed one is read no more", () => {
    expect(source.given([connected]).refuses({ type: 'Remove', sourceId: 's1', userId: 'u2' }).status).toBe(404);
    const removed: SourceEvent = { type: 'SourceRemoved', data: { sourceId: 's1', userId: 'u1' } };
    expect(source.given([connected, removed]).when({ type: 'RecordSync', sourceId: 's1', counts })).toEqual([]);
  });

  test('catalogue settings change only when they differ', () => {
    const settings = deciderSpec(catalogueSettingsDecider);
    expect(settings.given([]).when({ type: 'Change', userId: 'u1', settings: { ...DEFAULT_CATALOGUE_SETTINGS } })).toEqual([]);
    expect(settings.given([]).when({ type: 'Change', userId: 'u1', settings: { ...DEFAULT_CATALOGUE_SETTINGS, competitivePercent: 8 } })).toHaveLength(1);
    expect(settings.given([]).when({ type: 'Change', userId: 'u1', settings: { ...DEFAULT_CATALOGUE_SETTINGS, autoApply: true } })).toHaveLength(1);
  });
});
