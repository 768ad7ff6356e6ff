import { Elysia } from 'elysia';
import type { AppContext } from '../context.ts';
import type { Sql } from '../../db/index.ts';
import { authentication } from '../auth/plugin.ts';
import { createUserCache } from '../http/user-cache.ts';
import { DEFAULT_SETTINGS } from '../../events/catalogue.ts';
import { dailySeries, trend, TREND_DAYS, type DayOfChanges, type Trend } from './figures.ts';

/** How many recent changes the stats carry: the dashboard shows 5, its full history table all of them. */
export const RECENT_CHANGES = 50;

const DAY = 86_400_000;

export type RecentChange = {
  productId: string;
  productName: string;
  url: string;
  previousPrice: number;
  currentPrice: number;
  /** ISO 4217 code of both prices: the page's, else the user's currency setting. */
  currency: string;
  /** Positive is a rise; null from a price of 0. */
  changePercent: number | null;
  timestamp: string;
};

export type DashboardStats = {
  productsCount: number;
  /** Drops found by checks in the last 7 days (a price typed in by hand is not a detected drop). */
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
    /**
     * Unread alerts raised since midnight (the user's time zone): part of alertsCount, so the two
     * never contradict each other; null until alerts exist.
     */
    alertsCount: { newToday: number } | null;
  };
  /** Average change percent per day of the user's time zone, the last 90 days, oldest first. */
  priceTrends: DayOfChanges[];
};

/**
 * The alert figures, as a subquery of the stats statement: unread alerts, and those of them raised
 * since the user's midnight. The only place the dashboard reads alerts.
 * (A fragment, not a promise: awaiting it would run it on its own.)
 */
function alertFigures(sql: Sql, userId: string) {
  return sql`(SELECT json_build_object('active', count(*) FILTER (WHERE NOT a.is_read), 'newToday', count(*) FILTER (WHERE NOT a.is_read AND a.created_at >= clock.midnight))
              FROM alerts a WHERE a.user_id = ${userId} AND a.product_id <> '')`; // notices have no product
}

type StatsRow = {
  today: string;
  products: number;
  products_month_ago: number;
  last_check_at: Date | null;
  last_check_status: string | null;
  failed: number;
  drops_this_week: number;
  drops_last_week: number;
  recent: {
    productId: string;
    productName: string;
    url: string;
    previousPrice: number;
    currentPrice: number;
    currency: string;
    changePercent: number | null;
    timestamp: string;
  }[];
  days: { date: string; changes: number; sum: number }[];
  alerts: { active: number; newToday: number } | null;
};

/**
 * Every figure of the dashboard in one statement (one round trip). Days are the user's calendar
 * days, in the time zone of their settings.
 */
export async function readDashboardStats(sql: Sql, userId: string, now = new Date()): Promise<DashboardStats> {
  const weekAgo = new Date(now.getTime() - 7 * DAY);
  const twoWeeksAgo = new Date(now.getTime() - 14 * DAY);
  const monthAgo = new Date(now.getTime() - 30 * DAY);
  const [row] = await sql<StatsRow[]>`
    WITH clock AS MATERIALIZED (
      SELECT tz AS timezone, (${now}::timestamptz AT TIME ZONE tz)::date AS today, date_trunc('day', ${now}::timestamptz, tz) AS midnight,
             coalesce((SELECT currency FROM user_settings WHERE user_id = ${userId}), ${DEFAULT_SETTINGS.currency}) AS currency
      FROM coalesce((SELECT timezone FROM user_settings WHERE user_id = ${userId}), ${DEFAULT_SETTINGS.timezone}) AS tz
    )
    SELECT to_char(clock.today, 'YYYY-MM-DD') AS today, p.*, d.*,
      (SELECT coalesce(json_agg(r), '[]') FROM (
         SELECT c.product_id AS "productId", pr.name AS "productName", pr.url, c.previous_price AS "previousPrice",
                c.current_price AS "currentPrice", c.change_percent AS "changePercent", c.changed_at AS timestamp,
                coalesce(pp.currency, pr.currency, clock.currency) AS currency
         FROM price_changes c JOIN products pr ON pr.id = c.product_id
           -- A change and the price it changed to are the same event.
           LEFT JOIN price_points pp ON pp.event_position = c.event_position
         WHERE c.user_id = ${userId}
         ORDER BY c.changed_at DESC, c.event_position DESC
         LIMIT ${RECENT_CHANGES}) r) AS recent,
      -- One index range per local day: no time zone arithmetic per change.
      (SELECT coalesce(json_agg(t), '[]') FROM (
         SELECT to_char(day, 'YYYY-MM-DD') AS date, x.changes, x.sum
         FROM generate_series((clock.today - ${TREND_DAYS - 1}::int)::timestamp, clock.today::timestamp, interval '1 day') AS day,
           LATERAL (
             -- A change from a price of 0 has no percent, so it does not count in the day's average.
             SELECT count(change_percent) AS changes, sum(change_percent) AS sum FROM price_changes
             WHERE user_id = ${userId} AND changed_at >= (day AT TIME ZONE clock.timezone)
               AND changed_at < ((day + interval '1 day') AT TIME ZONE clock.timezone)) x
         WHERE x.changes > 0) t) AS days,
      ${alertFigures(sql, userId)} AS alerts
    FROM clock,
      LATERAL (
        SELECT count(*)::int AS products,
               count(*) FILTER (WHERE created_at <= ${monthAgo})::int AS products_month_ago,
               max(last_check_at) AS last_check_at,
               (array_agg(last_check_status ORDER BY last_check_at DESC NULLS LAST))[1] AS last_check_status,
               count(*) FILTER (WHERE last_check_status = 'failed')::int AS failed
        FROM products WHERE user_id = ${userId}) p,
      LATERAL (
        SELECT count(*) FILTER (WHERE changed_at > ${weekAgo})::int AS drops_this_week,
               count(*) FILTER (WHERE changed_at <= ${weekAgo})::int AS drops_last_week
        FROM price_changes c
        WHERE user_id = ${userId} AND change_percent < 0 AND changed_at > ${twoWeeksAgo} AND changed_at <= ${now}
          -- Detected by a check: a price typed in by hand is the user's own news.
          AND NOT EXISTS (SELECT 1 FROM price_points pp WHERE pp.event_position = c.event_position AND pp.source = 'manual')) d`;
  const r = row!;
  return {
    productsCount: r.products,
    priceDropsCount: r.drops_this_week,
    alertsCount: r.alerts?.active ?? 0,
    recentChanges: r.recent.map((c) => ({ ...c, timestamp: new Date(c.timestamp).toISOString() })),
    lastScan: {
      at: r.last_check_at?.toISOString() ?? null,
      status: r.last_check_at ? (r.last_check_status === 'failed' ? 'failed' : 'ok') : null,
      failedCount: r.failed,
    },
    trends: {
      productsCount: trend(r.products, r.products_month_ago),
      priceDropsCount: trend(r.drops_this_week, r.drops_last_week),
      alertsCount: r.alerts ? { newToday: r.alerts.newToday } : null,
    },
    priceTrends: dailySeries(
      r.days.map((x) => ({ date: x.date, changes: x.changes, sumChangePercent: x.sum })),
      r.today,
    ),
  };
}

export function dashboardRoutes(ctx: AppContext) {
  const cached = createUserCache(ctx.sql);
  return new Elysia({ prefix: '/api/dashboard' })
    .use(authentication(ctx))
    .get('/stats', ({ request, userId }) => cached(request, userId, 'stats', () => readDashboardStats(ctx.sql, userId)), { signedIn: true });
}
