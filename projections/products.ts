import type { Sql } from '../db/index.ts';
import type { AlertRule, Availability, EventOf, ObservedVariant } from '../events/catalogue.ts';
import type { RecordedEvent } from '../events/store.ts';
import type { ProductEvent } from '../events/product.ts';
import type { Projection } from './projection.ts';

/**
 * Products as the screens show them, every price they had, and every change of price.
 *
 * - `products`: one row per live product (a removed product's rows go from all three tables).
 * - `price_points`: every known price, from checks and from manual updates (`source` 'manual').
 * - `price_changes`: one row per price that differs from the product's previous one;
 *   `change_percent` is positive for a rise, and null from a price of 0 (no percent of nothing).
 *
 * Prices are double precision: they arrive as JavaScript numbers and round-trip exactly.
 * A failed check never touches the price. A price of 0 is a real price (a page saying "Free").
 * Availability is the last one a page stated, from a check that found a price or one that did
 * not (a sold-out page often shows none); a page that says nothing leaves it as it was.
 */
export type ProductRow = {
  id: string;
  user_id: string;
  name: string;
  url: string;
  selector: string;
  alert_rule: AlertRule;
  /** The drop percent of a 'drop' rule; null for 'none' and 'any'. */
  threshold: number | null;
  current_price: number | null;
  currency: string | null;
  image_url: string | null;
  /** When the current price was observed or set. */
  price_updated_at: Date | string | null;
  /** The last time the price was checked, by the worker or by hand (the card's "Last checked"). */
  last_checked: Date | string | null;
  /** The last automatic check, successful or not. */
  last_check_at: Date | string | null;
  last_check_status: 'ok' | 'failed' | null;
  last_check_error: string | null;
  consecutive_failures: number;
  is_active: boolean;
  created_at: Date | string;
  updated_at: Date | string;
  availability: Availability | null;
  stock_alerts: boolean;
  /** Where the current price came from: a price point's source ('manual', 'selector', 'json-ld', 'page', ...). */
  price_source: string | null;
  /** The code of the last failed check while checks are failing; null once one succeeds. */
  last_failure_code: string | null;
  /** The variant the last observation read, when the page names one. */
  variant: ObservedVariant | null;
  /** The last observation's regular (was) price; null when the page stated none or the price was typed in. */
  regular_price: number | null;
};

type PricePoint = {
  event_position: number;
  product_id: string;
  user_id: string;
  price: number;
  currency: string | null;
  source: string;
  observed_at: Date | string;
};
type PriceChange = {
  event_position: number;
  product_id: string;
  user_id: string;
  previous_price: number;
  current_price: number;
  change_percent: number | null;
  changed_at: Date | string;
};

/** A product is shown as inactive after this many failed checks in a row, until the next success. */
export const FAILURES_BEFORE_INACTIVE = 3;

export const thresholdOf = (rule: AlertRule) => (rule.kind === 'drop' ? rule.percent : null);

const round4 = (n: number) => Math.round(n * 10_000) / 10_000;
const changePercent = (previous: number, current: number) => (previous > 0 ? round4(((current - previous) / previous) * 100) : null);
const iso = (d: Date | string) => (typeof d === 'string' ? d : d.toISOString());

export const productsProjection: Projection = {
  name: 'products',
  tables: ['products', 'price_points', 'price_changes'],
  ddl: `
    CREATE TABLE IF NOT EXISTS products (
      id                   text PRIMARY KEY,
      user_id              text NOT NULL,
      name                 text NOT NULL,
      url                  text NOT NULL,
      selector             text NOT NULL,
      alert_rule           jsonb NOT NULL,
      threshold            double precision,
      current_price        double precision CHECK (current_price >= 0),
      currency             text,
      image_url            text,
      price_updated_at     timestamptz,
      last_checked         timestamptz,
      last_check_at        timestamptz,
      last_check_status    text,
      last_check_error     text,
      consecutive_failures integer NOT NULL DEFAULT 0,
      is_active            boolean NOT NULL DEFAULT true,
      created_at           timestamptz NOT NULL,
      updated_at           timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS products_by_user ON products (user_id, created_at DESC);

    CREATE TABLE IF NOT EXISTS price_points (
      event_position bigint PRIMARY KEY,
      product_id     text NOT NULL,
      user_id        text NOT NULL,
      price          double precision NOT NULL CHECK (price >= 0),
      currency       text,
      source         text NOT NULL,
      observed_at    timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS price_points_by_product ON price_points (product_id, observed_at);

    CREATE TABLE IF NOT EXISTS price_changes (
      event_position bigint PRIMARY KEY,
      product_id     text NOT NULL,
      user_id        text NOT NULL,
      previous_price double precision NOT NULL,
      current_price  double precision NOT NULL,
      change_percent double precision,
      changed_at     timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS price_changes_by_user ON price_changes (user_id, changed_at DESC);
    CREATE INDEX IF NOT EXISTS price_changes_by_product ON price_changes (product_id, changed_at);

    ALTER TABLE products ADD COLUMN IF NOT EXISTS availability text;
    ALTER TABLE products ADD COLUMN IF NOT EXISTS stock_alerts boolean NOT NULL DEFAULT true;
    ALTER TABLE products ADD COLUMN IF NOT EXISTS price_source text;
    ALTER TABLE products ADD COLUMN IF NOT EXISTS last_failure_code text;
    ALTER TABLE products ADD COLUMN IF NOT EXISTS variant jsonb;
    ALTER TABLE products ADD COLUMN IF NOT EXISTS regular_price double precision;
    -- Rows projected before these columns existed learn them from what is already recorded, as a
    -- rebuild would set them (afterwards these find nothing to do).
    UPDATE products p SET price_source = (SELECT source FROM price_points pp WHERE pp.product_id = p.id ORDER BY pp.event_position DESC LIMIT 1)
      WHERE p.price_source IS NULL AND p.current_price IS NOT NULL;
    UPDATE products p SET last_failure_code = (
        SELECT e.data->>'code' FROM events e WHERE e.stream_id = 'product-' || p.id AND e.type = 'PriceCheckFailed' ORDER BY e.stream_version DESC LIMIT 1)
      WHERE p.last_failure_code IS NULL AND p.last_check_status = 'failed';
    -- Tables made before a price of 0 was a real price: allow it (NOT VALID: every row there is above 0).
    ALTER TABLE price_changes ALTER COLUMN change_percent DROP NOT NULL;
    DO $$ BEGIN
      IF EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = 'products'::regclass AND conname = 'products_current_price_check' AND pg_get_constraintdef(oid) NOT LIKE '%>=%') THEN
        ALTER TABLE products DROP CONSTRAINT products_current_price_check;
        ALTER TABLE products ADD CONSTRAINT products_current_price_check CHECK (current_price >= 0) NOT VALID;
      END IF;
      IF EXISTS (SELECT 1 FROM pg_constraint WHERE conrelid = 'price_points'::regclass AND conname = 'price_points_price_check' AND pg_get_constraintdef(oid) NOT LIKE '%>=%') THEN
        ALTER TABLE price_points DROP CONSTRAINT price_points_price_check;
        ALTER TABLE price_points ADD CONSTRAINT price_points_price_check CHECK (price >= 0) NOT VALID;
      END IF;
    END $$;

    -- Not a read model: the plan limit counts a user's products from the log itself
    -- (api/products/limit.ts), and this index keeps that count to a few index entries.
    CREATE INDEX IF NOT EXISTS events_product_lifecycle_by_user ON events ((data->>'userId'), type)
      WHERE type IN ('ProductAdded', 'ProductRemoved');
    -- Nor this: a user's products' current addresses, read from the log to refuse tracking a page twice
    -- (api/products/same-page.ts).
    CREATE INDEX IF NOT EXISTS events_product_details_by_user ON events ((data->>'userId'))
      WHERE type IN ('ProductAdded', 'ProductEdited', 'ProductRemoved');`,
  handles: ['ProductAdded', 'ProductEdited', 'ProductRemoved', 'PriceManuallySet', 'PriceObserved', 'PriceCheckFailed', 'PriceCorrected'],

  async apply(tx, recorded) {
    // A correction rewrites history already written, so the events before it are written first.
    let run: RecordedEvent<ProductEvent>[] = [];
    for (const e of recorded as RecordedEvent<ProductEvent>[]) {
      if (e.type !== 'PriceCorrected') {
        run.push(e);
        continue;
      }
      if (run.length) {
        await applyRun(tx, run);
        run = [];
      }
      await applyCorrection(tx, e);
    }
    if (run.length) await applyRun(tx, run);
  },
};

/**
 * Puts a corrected price in place of an observation's: its price point, the changes into and out
 * of that point, and the current price when it is the latest. Corrections are rare (a re-read of
 * old evidence), so a few statements each are fine.
 */
async function applyCorrection(tx: Sql, e: RecordedEvent<EventOf<'PriceCorrected'>>) {
  const { productId, correctsPosition: at, price } = e.data;
  const [point] = await tx<{ user_id: string; observed_at: Date }[]>`
    UPDATE price_points SET price = ${price} WHERE event_position = ${at} AND product_id = ${productId} RETURNING user_id, observed_at`;
  if (!point) return; // the product was removed since, or that position is no price of it
  const [before] = await tx<{ price: number }[]>`
    SELECT price FROM price_points WHERE product_id = ${productId} AND event_position < ${at} ORDER BY event_position DESC LIMIT 1`;
  const [after] = await tx<{ event_position: string; price: number; observed_at: Date }[]>`
    SELECT event_position, price, observed_at FROM price_points WHERE product_id = ${productId} AND event_position > ${at} ORDER BY event_position LIMIT 1`;
  await tx`DELETE FROM price_changes WHERE event_position = ANY(${[at, Number(after?.event_position ?? at)]}::bigint[])`;
  const change = (position: number, previous: number, current: number, changedAt: Date): PriceChange => ({
    event_position: position,
    product_id: productId,
    user_id: point.user_id,
    previous_price: previous,
    current_price: current,
    change_percent: changePercent(previous, current),
    changed_at: changedAt,
  });
  const changes: PriceChange[] = [];
  if (before && before.price !== price) changes.push(change(at, before.price, price, point.observed_at));
  if (after && after.price !== price) changes.push(change(Number(after.event_position), price, after.price, after.observed_at));
  if (changes.length) await tx`INSERT INTO price_changes SELECT * FROM jsonb_populate_recordset(NULL::price_changes, ${tx.json(changes as never)})`;
  if (!after) await tx`UPDATE products SET current_price = ${price} WHERE id = ${productId}`;
}

async function applyRun(tx: Sql, events: RecordedEvent<ProductEvent>[]) {
  // Read the involved products once, fold the batch in memory, then write with a few statements.
  const ids = [...new Set(events.map((e) => e.data.productId))];
  const loaded = await tx<ProductRow[]>`SELECT * FROM products WHERE id = ANY(${ids}::text[])`;
  const products = new Map(loaded.map((row) => [row.id, row]));
  const changed = new Set<string>();
  const removed = new Set<string>();
  const points: PricePoint[] = [];
  const changes: PriceChange[] = [];

  const recordPrice = (row: ProductRow, e: RecordedEvent, price: number, currency: string | null, source: string, at: Date | string) => {
    points.push({ event_position: e.position, product_id: row.id, user_id: row.user_id, price, currency, source, observed_at: at });
    const previous = row.current_price;
    if (previous !== null && previous !== price) {
      changes.push({
        event_position: e.position,
        product_id: row.id,
        user_id: row.user_id,
        previous_price: previous,
        current_price: price,
        change_percent: changePercent(previous, price),
        changed_at: at,
      });
    }
    row.current_price = price;
    row.currency = currency ?? row.currency;
    row.price_source = source;
    row.price_updated_at = at;
    row.last_checked = at;
  };

  for (const e of events) {
    if (e.type === 'ProductAdded') {
      const d = e.data;
      products.set(d.productId, {
        id: d.productId,
        user_id: d.userId,
        name: d.name,
        url: d.url,
        selector: d.selector,
        alert_rule: d.alertRule,
        threshold: thresholdOf(d.alertRule),
        current_price: null,
        currency: null,
        image_url: d.imageUrl,
        price_updated_at: null,
        last_checked: null,
        last_check_at: null,
        last_check_status: null,
        last_check_error: null,
        consecutive_failures: 0,
        is_active: true,
        created_at: e.recordedAt,
        updated_at: e.recordedAt,
        availability: null,
        stock_alerts: d.stockAlerts,
        price_source: null,
        last_failure_code: null,
        variant: null,
        regular_price: null,
      });
      changed.add(d.productId);
      continue;
    }
    const row = products.get(e.data.productId);
    if (!row) continue; // removed earlier, or never added
    changed.add(row.id);
    switch (e.type) {
      case 'ProductEdited': {
        const d = e.data;
        Object.assign(row, {
          name: d.name,
          url: d.url,
          selector: d.selector,
          alert_rule: d.alertRule,
          threshold: thresholdOf(d.alertRule),
          stock_alerts: d.stockAlerts,
          updated_at: e.recordedAt,
        });
        break;
      }
      case 'ProductRemoved':
        products.delete(row.id);
        removed.add(row.id);
        break;
      case 'PriceManuallySet':
        if (!(e.data.price > 0)) break;
        recordPrice(row, e, e.data.price, e.data.currency, 'manual', e.recordedAt);
        row.regular_price = null; // a price typed in states no was-price
        break;
      case 'PriceObserved': {
        const d = e.data;
        if (!(d.price >= 0)) break;
        recordPrice(row, e, d.price, d.currency, d.source, d.observedAt);
        row.availability = d.availability ?? row.availability;
        Object.assign(row, {
          variant: d.variant,
          regular_price: d.regularPrice,
          last_check_at: d.observedAt,
          last_check_status: 'ok',
          last_check_error: null,
          last_failure_code: null,
          consecutive_failures: 0,
          is_active: true,
        });
        if (d.imageUrl) row.image_url = d.imageUrl;
        break;
      }
      case 'PriceCorrected':
        break; // applied on its own (applyCorrection)
      case 'PriceCheckFailed': {
        const d = e.data;
        const failures = row.consecutive_failures + 1;
        Object.assign(row, {
          last_checked: d.attemptedAt,
          last_check_at: d.attemptedAt,
          last_check_status: 'failed',
          last_check_error: d.reason,
          last_failure_code: d.code,
          consecutive_failures: failures,
          is_active: failures < FAILURES_BEFORE_INACTIVE,
          availability: d.availability ?? row.availability,
        });
        break;
      }
    }
  }

  // Each table is written with one statement and no limit on the number of rows: one JSON parameter,
  // or typed arrays for price points, the bulk of every batch (a quarter faster than parsing JSON).
  if (removed.size) {
    const gone = [...removed];
    await tx`DELETE FROM products WHERE id = ANY(${gone}::text[])`;
    await tx`DELETE FROM price_points WHERE product_id = ANY(${gone}::text[])`;
    await tx`DELETE FROM price_changes WHERE product_id = ANY(${gone}::text[])`;
  }
  const rows = [...changed].filter((id) => !removed.has(id)).map((id) => products.get(id)!);
  if (rows.length) {
    await tx`
      INSERT INTO products SELECT * FROM jsonb_populate_recordset(NULL::products, ${tx.json(rows as never)})
      ON CONFLICT (id) DO UPDATE SET
        name = EXCLUDED.name, url = EXCLUDED.url, selector = EXCLUDED.selector, alert_rule = EXCLUDED.alert_rule,
        threshold = EXCLUDED.threshold, current_price = EXCLUDED.current_price, currency = EXCLUDED.currency,
        image_url = EXCLUDED.image_url, price_updated_at = EXCLUDED.price_updated_at, last_checked = EXCLUDED.last_checked,
        last_check_at = EXCLUDED.last_check_at, last_check_status = EXCLUDED.last_check_status,
        last_check_error = EXCLUDED.last_check_error, consecutive_failures = EXCLUDED.consecutive_failures,
        is_active = EXCLUDED.is_active, updated_at = EXCLUDED.updated_at,
        availability = EXCLUDED.availability, stock_alerts = EXCLUDED.stock_alerts,
        price_source = EXCLUDED.price_source, last_failure_code = EXCLUDED.last_failure_code,
        variant = EXCLUDED.variant, regular_price = EXCLUDED.regular_price`;
  }
  const keptPoints = points.filter((p) => !removed.has(p.product_id));
  if (keptPoints.length) {
    await tx`
      INSERT INTO price_points (event_position, product_id, user_id, price, currency, source, observed_at)
      SELECT * FROM unnest(${keptPoints.map((p) => p.event_position)}::bigint[], ${keptPoints.map((p) => p.product_id)}::text[],
        ${keptPoints.map((p) => p.user_id)}::text[], ${keptPoints.map((p) => p.price)}::float8[], ${keptPoints.map((p) => p.currency) as string[]}::text[],
        ${keptPoints.map((p) => p.source)}::text[], ${keptPoints.map((p) => iso(p.observed_at))}::text[]::timestamptz[])`;
  }
  const keptChanges = changes.filter((c) => !removed.has(c.product_id));
  if (keptChanges.length) await tx`INSERT INTO price_changes SELECT * FROM jsonb_populate_recordset(NULL::price_changes, ${tx.json(keptChanges as never)})`;
}
