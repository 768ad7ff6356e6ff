import { Elysia } from 'elysia';
import type { AppContext } from '../context.ts';
import type { Sql } from '../db.ts';
import { authentication } from '../auth/plugin.ts';
import { DEFAULT_SETTINGS } from '../../events/catalogue.ts';
import { addDays, dailySeries, trend, TREND_DAYS, type DayOfChanges, type Trend } from './figures.ts';

/** How many recent changes the stats carry: the dashboard shows 5, its full history table all of them. */
export const RECENT_CHANGES = 50;

const DAY = 86_400_000;

export type RecentChange = {
  productId: string; productName: string; url: string;
  previousPrice: number; currentPrice: number;
  /** Positive is a rise. */
  changePercent: number;
  timestamp: string;
};

export type DashboardStats = {
  productsCount: number;
  /** Drops in the last 7 days. */
  priceDropsCount: number;
  /** Unread alerts. */
  alertsCount: number;
  recentChanges: RecentChange[];
  /** The user's latest check: when, how it went, and how many products failed their last check. */
  lastScan: { at: string | null; status: 'ok' | 'failed' | null; failedCount: number };
  trends: {
    /** Products now against products a month ago. */
    productsCount: Trend;
    /** Drops in the last 7 days against the 7 days before. */
    priceDropsCount: Trend;
    /** Alerts raised since midnight (the user's time zone); null until alerts exist. */
    alertsCount: { newToday: number } | null;
  };
  /** Average change percent per day of the user's time zone, the last 90 days, oldest first. */
  priceTrends: DayOfChanges[];
};

/**
 * Alert figures, from the alerts read model when it exists (it comes with the alerts work);
 * until then there are no alerts. The only place the dashboard reads alerts.
 */
async function readAlertFigures(sql: Sql, userId: string, midnight: Date): Promise<{ active: number; newToday: number } | null> {
  const [table] = await sql<{ exists: boolean }[]>`SELECT to_regclass('alerts') IS NOT NULL AS exists`;
  if (!table?.exists) return null;
  const [row] = await sql<{ active: number; new_today: number }[]>`
    SELECT count(*) FILTER (WHERE NOT is_read)::int AS active, count(*) FILTER (WHERE created_at >= ${midnight})::int AS new_today
    FROM alerts WHERE user_id = ${userId}`;
  return { active: row!.active, newToday: row!.new_today };
}

export async function readDashboardStats(sql: Sql, userId: string, now = new Date()): Promise<DashboardStats> {
  const weekAgo = new Date(now.getTime() - 7 * DAY);
  const twoWeeksAgo = new Date(now.getTime() - 14 * DAY);
  const monthAgo = new Date(now.getTime() - 30 * DAY);

  // Days are the user's calendar days: today and midnight in their time zone.
  const [clock] = await sql<{ timezone: string; today: string; midnight: Date }[]>`
    WITH tz AS (SELECT coalesce((SELECT timezone FROM user_settings WHERE user_id = ${userId}), ${DEFAULT_SETTINGS.timezone}) AS timezone)
    SELECT timezone, to_char(${now}::timestamptz AT TIME ZONE timezone, 'YYYY-MM-DD') AS today,
           date_trunc('day', ${now}::timestamptz, timezone) AS midnight
    FROM tz`;
  const { timezone, today } = clock!;
  const firstDay = addDays(today, 1 - TREND_DAYS);

  const [products, drops, recent, days, alerts] = await Promise.all([
    sql<{ count: number; month_ago: number; last_check_at: Date | null; last_status: string | null; failed: number }[]>`
      SELECT count(*)::int AS count,
             count(*) FILTER (WHERE created_at <= ${monthAgo})::int AS month_ago,
             max(last_check_at) AS last_check_at,
             (array_agg(last_check_status ORDER BY last_check_at DESC NULLS LAST))[1] AS last_status,
             count(*) FILTER (WHERE last_check_status = 'failed')::int AS failed
      FROM products WHERE user_id = ${userId}`,
    sql<{ this_week: number; last_week: number }[]>`
      SELECT count(*) FILTER (WHERE changed_at > ${weekAgo})::int AS this_week,
             count(*) FILTER (WHERE changed_at <= ${weekAgo})::int AS last_week
      FROM price_changes
      WHERE user_id = ${userId} AND change_percent < 0 AND changed_at > ${twoWeeksAgo} AND changed_at <= ${now}`,
    sql<{ product_id: string; name: string; url: string; previous_price: number; current_price: number; change_percent: number; changed_at: Date }[]>`
      SELECT c.product_id, p.name, p.url, c.previous_price::float8 AS previous_price, c.current_price::float8 AS current_price,
             c.change_percent::float8 AS change_percent, c.changed_at
      FROM price_changes c JOIN products p ON p.id = c.product_id
      WHERE c.user_id = ${userId}
      ORDER BY c.changed_at DESC, c.event_position DESC
      LIMIT ${RECENT_CHANGES}`,
    sql<{ date: string; changes: number; sum: number }[]>`
      SELECT to_char(changed_at AT TIME ZONE ${timezone}, 'YYYY-MM-DD') AS date, count(*)::int AS changes, sum(change_percent)::float8 AS sum
      FROM price_changes
      WHERE user_id = ${userId} AND changed_at >= (${firstDay}::date AT TIME ZONE ${timezone})
      GROUP BY 1`,
    readAlertFigures(sql, userId, clock!.midnight),
  ]);

  const p = products[0]!;
  const d = drops[0]!;
  return {
    productsCount: p.count,
    priceDropsCount: d.this_week,
    alertsCount: alerts?.active ?? 0,
    recentChanges: recent.map((c) => ({
      productId: c.product_id, productName: c.name, url: c.url,
      previousPrice: c.previous_price, currentPrice: c.current_price, changePercent: c.change_percent,
      timestamp: c.changed_at.toISOString(),
    })),
    lastScan: {
      at: p.last_check_at?.toISOString() ?? null,
      status: p.last_check_at ? (p.last_status === 'failed' ? 'failed' : 'ok') : null,
      failedCount: p.failed,
    },
    trends: {
      productsCount: trend(p.count, p.month_ago),
      priceDropsCount: trend(d.this_week, d.last_week),
      alertsCount: alerts ? { newToday: alerts.newToday } : null,
    },
    priceTrends: dailySeries(days.map((x) => ({ date: x.date, changes: x.changes, sumChangePercent: x.sum })), today),
  };
}

export function dashboardRoutes(ctx: AppContext) {
  return new Elysia({ prefix: '/api/dashboard' })
    .use(authentication(ctx))
    .get('/stats', ({ userId }) => readDashboardStats(ctx.sql, userId), { signedIn: true });
}
