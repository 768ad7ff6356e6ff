import { Elysia } from 'elysia';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import type { Sql } from '../../db/index.ts';
import { authentication } from '../auth/plugin.ts';
import { DomainError } from '../../events/decider.ts';
import { idOf } from '../http/ids.ts';
import { createUserCache } from '../http/user-cache.ts';
import { PRODUCT_NOT_FOUND } from '../../events/product.ts';
import { DEFAULT_SETTINGS } from '../../events/settings.ts';
import { changePercent, DetailTimeFilter, downsample, ListTimeFilter, rangeStart, type TimeFilter } from './series.ts';

/** Points of a sparkline (docs/product.md#price-history). */
export const SPARKLINE_POINTS = 30;

export type PricePoint = { price: number; timestamp: string };

export type PriceHistoryProduct = {
  id: string;
  name: string;
  url: string;
  imageUrl: string | null;
  currentPrice: number | null;
  /** ISO 4217 code of the product's prices: its page's, else the user's currency setting. */
  currency: string;
  /** Last point in the range against the first one; 0 with fewer than two points. */
  changePercent: number;
  lastChecked: string | null;
  /** Points in the range. */
  pointsCount: number;
  /** The range's last 30 points, oldest first. */
  priceHistory: PricePoint[];
};

const iso = (d: Date | null) => (d ? d.toISOString() : null);
// No start means all time; the epoch stands for it in queries.
const since = (filter: TimeFilter, now: Date) => rangeStart(filter, now) ?? new Date(0);

/**
 * Every product of the user with its figures for the range, newest product first. Points in the
 * range are counted per whole day from price_point_days plus the points of the partial first day,
 * so the count costs at most one row per day whatever the check frequency.
 */
export async function readHistoryProducts(sql: Sql, userId: string, filter: TimeFilter, now = new Date()): Promise<PriceHistoryProduct[]> {
  const start = since(filter, now);
  const firstFullDay = new Date(start);
  firstFullDay.setUTCHours(24, 0, 0, 0);
  // Figures and sparkline points in two statements at once: plain rows parse faster than JSON built in SQL.
  const [products, recent] = await Promise.all([
    sql<
      {
        id: string;
        name: string;
        url: string;
        image_url: string | null;
        current_price: number | null;
        currency: string;
        last_checked: Date | null;
        first_price: number | null;
        points_count: number;
      }[]
    >`
      SELECT p.id, p.name, p.url, p.image_url, p.current_price::float8 AS current_price, p.last_checked,
             coalesce(p.currency, us.currency, ${DEFAULT_SETTINGS.currency}) AS currency,
             f.price AS first_price, coalesce(d.points, 0) + s.points AS points_count
      FROM products p
      LEFT JOIN user_settings us ON us.user_id = p.user_id
      LEFT JOIN LATERAL (
        SELECT price::float8 AS price FROM price_points
        WHERE product_id = p.id AND observed_at >= ${start} ORDER BY observed_at LIMIT 1) f ON true
      LEFT JOIN LATERAL (
        SELECT sum(points)::int AS points FROM price_point_days
        WHERE product_id = p.id AND day >= ${firstFullDay.toISOString().slice(0, 10)}::date) d ON true
      LEFT JOIN LATERAL (
        SELECT count(*)::int AS points FROM price_points
        WHERE product_id = p.id AND observed_at >= ${start} AND observed_at < ${firstFullDay}) s ON true
      WHERE p.user_id = ${userId}
      ORDER BY p.created_at DESC, p.id`,
    sql<{ product_id: string; price: number; observed_at: Date }[]>`
      SELECT p.id AS product_id, r.price::float8 AS price, r.observed_at
      FROM products p
      JOIN LATERAL (
        SELECT price, observed_at FROM price_points
        WHERE product_id = p.id AND observed_at >= ${start} ORDER BY observed_at DESC LIMIT ${SPARKLINE_POINTS}) r ON true
      WHERE p.user_id = ${userId}`,
  ]);
  const sparklines = new Map<string, PricePoint[]>();
  for (const r of recent) {
    const points = sparklines.get(r.product_id) ?? [];
    if (!points.length) sparklines.set(r.product_id, points);
    points.push({ price: r.price, timestamp: r.observed_at.toISOString() });
  }
  return products.map((row) => {
    const priceHistory = (sparklines.get(row.id) ?? []).reverse(); // newest first from the index, oldest first for the chart
    return {
      id: row.id,
      name: row.name,
      url: row.url,
      imageUrl: row.image_url,
      currentPrice: row.current_price,
      currency: row.currency,
      lastChecked: iso(row.last_checked),
      changePercent: row.points_count > 1 ? changePercent(row.first_price, priceHistory.at(-1)?.price) : 0,
      pointsCount: row.points_count,
      priceHistory,
    };
  });
}

/**
 * One product's points in the range, oldest first, thinned on the server for long histories
 * (see `downsample`). Null when the product is not the user's.
 */
export async function readDetailedHistory(sql: Sql, userId: string, productId: string, filter: TimeFilter, now = new Date()): Promise<PricePoint[] | null> {
  const [owned] = await sql`SELECT 1 FROM products WHERE id = ${productId} AND user_id = ${userId}`;
  if (!owned) return null;
  const rows = await sql<{ price: number; observed_at: Date }[]>`
    SELECT price::float8 AS price, observed_at FROM price_points
    WHERE product_id = ${productId} AND observed_at >= ${since(filter, now)}
    ORDER BY observed_at`;
  return downsample(rows.map((r) => ({ at: r.observed_at.getTime(), price: r.price }))).map((p) => ({
    timestamp: new Date(p.at).toISOString(),
    price: p.price,
  }));
}

export function historyRoutes(ctx: AppContext) {
  const cached = createUserCache(ctx.sql);
  return new Elysia({ prefix: '/api/price-history' })
    .use(authentication(ctx))
    .get(
      '/products',
      ({ request, userId, query }) => cached(request, userId, `history ${query.timeFilter}`, () => readHistoryProducts(ctx.sql, userId, query.timeFilter)),
      { signedIn: true, query: z.object({ timeFilter: ListTimeFilter.default('month') }) },
    )
    .get(
      '/detailed/:productId',
      async ({ userId, params, query }) => {
        const points = await readDetailedHistory(ctx.sql, userId, idOf(params.productId, PRODUCT_NOT_FOUND), query.timeFilter);
        if (!points) throw new DomainError(PRODUCT_NOT_FOUND, 404);
        return points;
      },
      { signedIn: true, query: z.object({ timeFilter: DetailTimeFilter.default('month') }) },
    );
}
