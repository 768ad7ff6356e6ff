import type { Projection } from './projection.ts';

/**
 * How many price points each product has per UTC day, so "points in the last N days" is a sum
 * over at most N rows (plus the points of the first, partial day) instead of a count over every
 * point: a product checked every 15 minutes has 35,000 points a year. Mirrors `price_points`
 * (projections/products.ts): one point per observed or manually set price, gone with the product.
 */
export const pricePointDaysProjection: Projection = {
  name: 'price-point-days',
  tables: ['price_point_days'],
  ddl: `
    CREATE TABLE IF NOT EXISTS price_point_days (
      product_id text NOT NULL,
      day        date NOT NULL,
      points     integer NOT NULL,
      PRIMARY KEY (product_id, day)
    );`,
  handles: ['PriceObserved', 'PriceManuallySet', 'ProductRemoved'],
  async apply(tx, events) {
    const counts = new Map<string, { productId: string; day: string; points: number }>();
    const removed = new Set<string>();
    for (const e of events) {
      if (e.type === 'ProductRemoved') {
        removed.add(e.data.productId);
        for (const [key, c] of counts) if (c.productId === e.data.productId) counts.delete(key);
        continue;
      }
      if (e.type !== 'PriceObserved' && e.type !== 'PriceManuallySet') continue;
      const { productId } = e.data;
      // Same moment as price_points.observed_at: the check's time, or when a price was set by hand.
      const day = (e.type === 'PriceObserved' ? new Date(e.data.observedAt) : e.recordedAt).toISOString().slice(0, 10);
      const key = `${productId} ${day}`;
      const c = counts.get(key);
      if (c) c.points++;
      else counts.set(key, { productId, day, points: 1 });
    }
    if (removed.size) await tx`DELETE FROM price_point_days WHERE product_id = ANY(${[...removed]}::text[])`;
    const rows = [...counts.values()];
    if (!rows.length) return;
    await tx`
      INSERT INTO price_point_days (product_id, day, points)
      SELECT * FROM unnest(${rows.map((r) => r.productId)}::text[], ${rows.map((r) => r.day)}::date[], ${rows.map((r) => r.points)}::int[])
      ON CONFLICT (product_id, day) DO UPDATE SET points = price_point_days.points + EXCLUDED.points`;
  },
};
