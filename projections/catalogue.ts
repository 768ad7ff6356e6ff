import type { Sql } from '../db/index.ts';
import type { EventOf, ProductIdentifiers } from '../events/catalogue.ts';
import type { RecordedEvent } from '../events/store.ts';
import type { Projection } from './projection.ts';
import { lastBy } from './batch.ts';

/**
 * The owner's catalogue as the screens read it (docs/catalogue.md):
 *
 * - `own_products`: one row per live own product, with its price as last read;
 * - `own_price_points`: every own price it had, the owner's price history;
 * - `own_product_links`: which tracked competitor products each is compared with;
 * - `match_rejections`: suggestions the owner turned down, never suggested again;
 * - `product_identifiers`: the GTIN, MPN, SKU and brand competitor pages state, for matching;
 * - `catalogue_sources`: connected stores and how their last read went;
 * - `catalogue_settings`: the owner's competitive band, automatic GTIN matching and automatic repricing.
 *
 * Positions are not stored: they depend on how fresh each competitor price is, which changes with
 * the clock and not with events, so they are worked out from these rows when read
 * (docs/decisions/0013-catalogue-positions.md).
 */
type Handled =
  | EventOf<'OwnProductImported'>
  | EventOf<'OwnProductChanged'>
  | EventOf<'OwnPriceChanged'>
  | EventOf<'OwnProductRemoved'>
  | EventOf<'CompetitorLinked'>
  | EventOf<'CompetitorUnlinked'>
  | EventOf<'MatchRejected'>
  | EventOf<'SourceConnected'>
  | EventOf<'SourceSynced'>
  | EventOf<'SourceFailed'>
  | EventOf<'SourceRemoved'>
  | EventOf<'CatalogueSettingsChanged'>
  | EventOf<'PriceObserved'>
  | EventOf<'ProductRemoved'>
  | EventOf<'AlertRaised'>;

export type OwnProductRow = {
  id: string;
  user_id: string;
  source_id: string | null;
  external_id: string;
  title: string;
  variant: string | null;
  sku: string | null;
  gtin: string | null;
  mpn: string | null;
  brand: string | null;
  price: number;
  currency: string;
  regular_price: number | null;
  cost: number | null;
  url: string | null;
  image_url: string | null;
  availability: string | null;
  price_changed_at: string;
  /** When a competitor last went below the owner's price (an undercut alert). */
  undercut_at: string | null;
  created_at: string;
  updated_at: string;
};
type LinkRow = { own_product_id: string; product_id: string; user_id: string; via: string; linked_at: string };
type PricePoint = { event_position: number; own_product_id: string; user_id: string; price: number; currency: string; at: string };

export const catalogueProjection: Projection = {
  name: 'catalogue',
  tables: ['own_products', 'own_price_points', 'own_product_links', 'match_rejections', 'product_identifiers', 'catalogue_sources', 'catalogue_settings'],
  ddl: `
    CREATE TABLE IF NOT EXISTS own_products (
      id               text PRIMARY KEY,
      user_id          text NOT NULL,
      source_id        text,
      external_id      text NOT NULL,
      title            text NOT NULL,
      variant          text,
      sku              text,
      gtin             text,
      mpn              text,
      brand            text,
      price            double precision NOT NULL,
      currency         text NOT NULL,
      regular_price    double precision,
      cost             double precision,
      url              text,
      image_url        text,
      availability     text,
      price_changed_at timestamptz NOT NULL,
      undercut_at      timestamptz,
      created_at       timestamptz NOT NULL,
      updated_at       timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS own_products_user ON own_products (user_id, title);
    CREATE TABLE IF NOT EXISTS own_price_points (
      event_position bigint PRIMARY KEY,
      own_product_id text NOT NULL,
      user_id        text NOT NULL,
      price          double precision NOT NULL,
      currency       text NOT NULL,
      at             timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS own_price_points_product ON own_price_points (own_product_id, at);
    CREATE TABLE IF NOT EXISTS own_product_links (
      own_product_id text NOT NULL,
      product_id     text NOT NULL,
      user_id        text NOT NULL,
      via            text NOT NULL,
      linked_at      timestamptz NOT NULL,
      PRIMARY KEY (own_product_id, product_id)
    );
    CREATE INDEX IF NOT EXISTS own_product_links_user ON own_product_links (user_id);
    CREATE INDEX IF NOT EXISTS own_product_links_product ON own_product_links (product_id);
    CREATE TABLE IF NOT EXISTS match_rejections (
      own_product_id text NOT NULL,
      product_id     text NOT NULL,
      user_id        text NOT NULL,
      PRIMARY KEY (own_product_id, product_id)
    );
    CREATE INDEX IF NOT EXISTS match_rejections_user ON match_rejections (user_id);
    CREATE TABLE IF NOT EXISTS product_identifiers (
      product_id text PRIMARY KEY,
      user_id    text NOT NULL,
      gtin       text,
      mpn        text,
      sku        text,
      brand      text
    );
    CREATE INDEX IF NOT EXISTS product_identifiers_user ON product_identifiers (user_id);
    CREATE TABLE IF NOT EXISTS catalogue_sources (
      id             text PRIMARY KEY,
      user_id        text NOT NULL,
      kind           text NOT NULL,
      url            text NOT NULL,
      created_at     timestamptz NOT NULL,
      synced_at      timestamptz,
      imported       integer,
      changed        integer,
      removed        integer,
      skipped        integer,
      failure_code   text,
      failure_reason text,
      failed_at      timestamptz
    );
    CREATE INDEX IF NOT EXISTS catalogue_sources_user ON catalogue_sources (user_id);
    CREATE TABLE IF NOT EXISTS catalogue_settings (
      user_id             text PRIMARY KEY,
      competitive_percent double precision NOT NULL,
      auto_accept_gtin    boolean NOT NULL
    );
    ALTER TABLE catalogue_settings ADD COLUMN IF NOT EXISTS auto_apply boolean NOT NULL DEFAULT false;
    ALTER TABLE catalogue_settings ADD COLUMN IF NOT EXISTS daily_change_cap integer NOT NULL DEFAULT 2;`,
  handles: [
    'OwnProductImported',
    'OwnProductChanged',
    'OwnPriceChanged',
    'OwnProductRemoved',
    'CompetitorLinked',
    'CompetitorUnlinked',
    'MatchRejected',
    'SourceConnected',
    'SourceSynced',
    'SourceFailed',
    'SourceRemoved',
    'CatalogueSettingsChanged',
    'PriceObserved',
    'ProductRemoved',
    'AlertRaised',
  ],

  async apply(tx, recorded) {
    const events = recorded as RecordedEvent<Handled>[];
    await applyOwnProducts(tx, events);
    await applySources(tx, events);
    await applyIdentifiers(tx, events);
    const undercuts = lastBy(
      events.flatMap((e) =>
        e.type === 'AlertRaised' && e.data.type === 'undercut' && e.data.standing ? [{ id: e.data.standing.ownProductId, at: e.data.trigger.at }] : [],
      ),
      (u) => u.id,
    );
    for (const u of undercuts) await tx`UPDATE own_products SET undercut_at = ${u.at} WHERE id = ${u.id}`;
    const settings = lastBy(
      events.flatMap((e) => (e.type === 'CatalogueSettingsChanged' ? [e.data] : [])),
      (d) => d.userId,
    ).map((d) => ({
      user_id: d.userId,
      competitive_percent: d.competitivePercent,
      auto_accept_gtin: d.autoAcceptGtin,
      auto_apply: d.autoApply,
      daily_change_cap: d.dailyChangeCap,
    }));
    if (settings.length) {
      await tx`INSERT INTO catalogue_settings ${tx(settings)} ON CONFLICT (user_id) DO UPDATE
        SET competitive_percent = EXCLUDED.competitive_percent, auto_accept_gtin = EXCLUDED.auto_accept_gtin,
          auto_apply = EXCLUDED.auto_apply, daily_change_cap = EXCLUDED.daily_change_cap`;
    }
  },
};

const pairKey = (ownProductId: string, productId: string) => `${ownProductId} ${productId}`;

/** Folds the batch in memory (an import of thousands is one batch), then writes each table once. */
async function applyOwnProducts(tx: Sql, events: RecordedEvent<Handled>[]) {
  const changedIds = [...new Set(events.flatMap((e) => (e.type === 'OwnProductChanged' || e.type === 'OwnPriceChanged' ? [e.data.ownProductId] : [])))];
  const rows = new Map<string, OwnProductRow>();
  if (changedIds.length) {
    for (const row of await tx<OwnProductRow[]>`SELECT * FROM own_products WHERE id = ANY(${changedIds}::text[])`) rows.set(row.id, row);
  }
  const gone = new Set<string>();
  const goneCompetitors = new Set<string>();
  const points: PricePoint[] = [];
  const links = new Map<string, LinkRow | null>();
  const rejections = new Map<string, { own_product_id: string; product_id: string; user_id: string }>();
  const dirty = new Set<string>();

  for (const e of events) {
    const at = e.recordedAt.toISOString();
    switch (e.type) {
      case 'OwnProductImported': {
        const d = e.data;
        rows.set(d.ownProductId, {
          id: d.ownProductId,
          user_id: d.userId,
          source_id: d.sourceId,
          external_id: d.externalId,
          title: d.title,
          variant: d.variant,
          sku: d.sku,
          gtin: d.gtin,
          mpn: d.mpn,
          brand: d.brand,
          price: d.price,
          currency: d.currency,
          regular_price: d.regularPrice,
          cost: d.cost,
          url: d.url,
          image_url: d.imageUrl,
          availability: d.availability,
          price_changed_at: d.at,
          undercut_at: null,
          created_at: at,
          updated_at: at,
        });
        dirty.add(d.ownProductId);
        points.push({ event_position: e.position, own_product_id: d.ownProductId, user_id: d.userId, price: d.price, currency: d.currency, at: d.at });
        break;
      }
      case 'OwnProductChanged': {
        const d = e.data;
        const row = rows.get(d.ownProductId);
        if (!row) break;
        Object.assign(row, {
          title: d.title,
          variant: d.variant,
          sku: d.sku,
          gtin: d.gtin,
          mpn: d.mpn,
          brand: d.brand,
          regular_price: d.regularPrice,
          cost: d.cost,
          url: d.url,
          image_url: d.imageUrl,
          availability: d.availability,
          updated_at: at,
        });
        dirty.add(d.ownProductId);
        break;
      }
      case 'OwnPriceChanged': {
        const d = e.data;
        const row = rows.get(d.ownProductId);
        if (!row) break;
        Object.assign(row, { price: d.price, currency: d.currency, price_changed_at: d.at, updated_at: at });
        dirty.add(d.ownProductId);
        points.push({ event_position: e.position, own_product_id: d.ownProductId, user_id: d.userId, price: d.price, currency: d.currency, at: d.at });
        break;
      }
      case 'OwnProductRemoved': {
        const id = e.data.ownProductId;
        rows.delete(id);
        dirty.delete(id);
        gone.add(id);
        for (const key of [...links.keys(), ...rejections.keys()]) {
          if (key.startsWith(`${id} `)) {
            links.delete(key);
            rejections.delete(key);
          }
        }
        for (let i = points.length - 1; i >= 0; i--) if (points[i]!.own_product_id === id) points.splice(i, 1);
        break;
      }
      case 'CompetitorLinked': {
        const d = e.data;
        links.set(pairKey(d.ownProductId, d.productId), {
          own_product_id: d.ownProductId,
          product_id: d.productId,
          user_id: d.userId,
          via: d.via,
          linked_at: at,
        });
        break;
      }
      case 'CompetitorUnlinked':
        links.set(pairKey(e.data.ownProductId, e.data.productId), null);
        break;
      case 'MatchRejected': {
        const d = e.data;
        rejections.set(pairKey(d.ownProductId, d.productId), { own_product_id: d.ownProductId, product_id: d.productId, user_id: d.userId });
        break;
      }
      case 'ProductRemoved': {
        const id = e.data.productId;
        goneCompetitors.add(id);
        for (const key of [...links.keys()]) if (key.endsWith(` ${id}`)) links.delete(key);
        for (const key of [...rejections.keys()]) if (key.endsWith(` ${id}`)) rejections.delete(key);
        break;
      }
    }
  }

  // A product removed and read again within the batch is deleted first, then written anew.
  if (gone.size) {
    const ids = [...gone];
    await tx`DELETE FROM own_products WHERE id = ANY(${ids}::text[])`;
    await tx`DELETE FROM own_price_points WHERE own_product_id = ANY(${ids}::text[])`;
    await tx`DELETE FROM own_product_links WHERE own_product_id = ANY(${ids}::text[])`;
    await tx`DELETE FROM match_rejections WHERE own_product_id = ANY(${ids}::text[])`;
  }
  if (goneCompetitors.size) {
    const ids = [...goneCompetitors];
    await tx`DELETE FROM own_product_links WHERE product_id = ANY(${ids}::text[])`;
    await tx`DELETE FROM match_rejections WHERE product_id = ANY(${ids}::text[])`;
  }
  const written = [...dirty].map((id) => rows.get(id)!);
  for (let i = 0; i < written.length; i += 1000) {
    await tx`INSERT INTO own_products ${tx(written.slice(i, i + 1000))} ON CONFLICT (id) DO UPDATE SET
      title = EXCLUDED.title, variant = EXCLUDED.variant, sku = EXCLUDED.sku, gtin = EXCLUDED.gtin, mpn = EXCLUDED.mpn,
      brand = EXCLUDED.brand, price = EXCLUDED.price, currency = EXCLUDED.currency, regular_price = EXCLUDED.regular_price,
      cost = EXCLUDED.cost, url = EXCLUDED.url, image_url = EXCLUDED.image_url, availability = EXCLUDED.availability,
      price_changed_at = EXCLUDED.price_changed_at, updated_at = EXCLUDED.updated_at`;
  }
  for (let i = 0; i < points.length; i += 2000) await tx`INSERT INTO own_price_points ${tx(points.slice(i, i + 2000))} ON CONFLICT DO NOTHING`;

  const unlinked = [...links].filter(([, row]) => row === null).map(([key]) => key.split(' '));
  if (unlinked.length) {
    await tx`DELETE FROM own_product_links l USING unnest(${unlinked.map((k) => k[0]!)}::text[], ${unlinked.map((k) => k[1]!)}::text[]) AS u(o, p)
      WHERE l.own_product_id = u.o AND l.product_id = u.p`;
  }
  const linked = [...links.values()].filter((row): row is LinkRow => row !== null);
  if (linked.length) await tx`INSERT INTO own_product_links ${tx(linked)} ON CONFLICT DO NOTHING`;
  if (rejections.size) await tx`INSERT INTO match_rejections ${tx([...rejections.values()])} ON CONFLICT DO NOTHING`;
}

async function applySources(tx: Sql, events: RecordedEvent<Handled>[]) {
  for (const e of events) {
    switch (e.type) {
      case 'SourceConnected': {
        const d = e.data;
        await tx`INSERT INTO catalogue_sources (id, user_id, kind, url, created_at)
          VALUES (${d.sourceId}, ${d.userId}, ${d.kind}, ${d.url}, ${e.recordedAt}) ON CONFLICT DO NOTHING`;
        break;
      }
      case 'SourceSynced': {
        const d = e.data;
        await tx`UPDATE catalogue_sources SET synced_at = ${d.at}, imported = ${d.imported}, changed = ${d.changed}, removed = ${d.removed},
          skipped = ${d.skipped}, failure_code = NULL, failure_reason = NULL, failed_at = NULL WHERE id = ${d.sourceId}`;
        break;
      }
      case 'SourceFailed': {
        const d = e.data;
        await tx`UPDATE catalogue_sources SET failure_code = ${d.code}, failure_reason = ${d.reason}, failed_at = ${d.at} WHERE id = ${d.sourceId}`;
        break;
      }
      case 'SourceRemoved':
        await tx`DELETE FROM catalogue_sources WHERE id = ${e.data.sourceId}`;
        break;
    }
  }
}

const noIdentifiers: ProductIdentifiers = { gtin: null, mpn: null, sku: null, brand: null };

/** The identifiers each competitor page last stated; one a page stops stating is kept. */
async function applyIdentifiers(tx: Sql, events: RecordedEvent<Handled>[]) {
  const stated = new Map<string, { userId: string; ids: ProductIdentifiers }>();
  for (const e of events) {
    if (e.type !== 'PriceObserved' || !e.data.identifiers) continue;
    const before = stated.get(e.data.productId)?.ids ?? noIdentifiers;
    const now = e.data.identifiers;
    stated.set(e.data.productId, {
      userId: e.data.userId,
      ids: { gtin: now.gtin ?? before.gtin, mpn: now.mpn ?? before.mpn, sku: now.sku ?? before.sku, brand: now.brand ?? before.brand },
    });
  }
  const removed = events.flatMap((e) => (e.type === 'ProductRemoved' ? [e.data.productId] : []));
  for (const id of removed) stated.delete(id);
  if (removed.length) await tx`DELETE FROM product_identifiers WHERE product_id = ANY(${removed}::text[])`;
  const rows = [...stated].map(([productId, { userId, ids }]) => ({ product_id: productId, user_id: userId, ...ids }));
  if (!rows.length) return;
  await tx`INSERT INTO product_identifiers ${tx(rows)} ON CONFLICT (product_id) DO UPDATE SET
    gtin = COALESCE(EXCLUDED.gtin, product_identifiers.gtin), mpn = COALESCE(EXCLUDED.mpn, product_identifiers.mpn),
    sku = COALESCE(EXCLUDED.sku, product_identifiers.sku), brand = COALESCE(EXCLUDED.brand, product_identifiers.brand)`;
}
