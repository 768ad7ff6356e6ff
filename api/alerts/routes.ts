import { Elysia } from 'elysia';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { authentication } from '../auth/plugin.ts';
import { idOf } from '../http/ids.ts';
import { parseInput, queryParam, textUpTo } from '../http/validation.ts';
import { upcastAndValidate, type AlertRule } from '../../events/catalogue.ts';
import { ALERT_TYPES, type Standing } from '../../domain/alerts.ts';
import { DomainError, fold } from '../../events/decider.ts';
import type { AppendResult } from '../../events/store.ts';
import { transaction, type Sql } from '../../db/index.ts';
import { PRODUCT_NOT_FOUND } from '../../events/product.ts';
import { ALERT_NOT_FOUND, alertDecider, alertStream, backtest, decideMarkAllRead, type AlertEvent } from '../../events/alert.ts';
import { readSettings } from '../settings/routes.ts';
import { DEFAULT_SETTINGS } from '../../events/settings.ts';

/** An alert as the Alerts screen shows it (docs/product.md#the-alerts-screen), with the figures behind its message. */
export type AlertItem = {
  id: string;
  type: string;
  productId: string;
  productName: string;
  productImage: string | null;
  productUrl: string;
  message: string;
  /** Stock alerts carry the prices known then, if any: a sold-out page often shows none. */
  previousPrice: number | null;
  currentPrice: number | null;
  /** ISO 4217 code of the prices: the page's, else the user's currency setting. */
  currency: string;
  /** Positive for a rise; null without both prices or from a price of 0. */
  changePercent: number | null;
  /** Undercut and cheapest alerts: the owner's product and the competitor it was measured against; null for the others. */
  standing: Standing | null;
  isRead: boolean;
  createdAt: string;
};

/** A notification as the popover shows it (docs/product.md#notifications). */
export type NotificationItem = Pick<AlertItem, 'id' | 'type' | 'productName' | 'message' | 'currency' | 'isRead' | 'createdAt'> & {
  currentPrice: number | null;
  previousPrice: number | null;
};

/** GET /api/alerts lists this many, newest first; the popover fewer; the Alerts screen reads a page at a time. */
export const ALERTS_LISTED = 500;
export const NOTIFICATIONS_LISTED = 50;
export const ALERTS_PAGE = 25;
export const BACKTEST_DAYS = 30;

type Row = {
  id: string;
  type: string;
  product_id: string;
  product_name: string;
  product_image: string | null;
  product_url: string;
  message: string;
  previous_price: number | null;
  current_price: number | null;
  currency: string;
  change_percent: number | null;
  standing: Standing | null;
  is_read: boolean;
  created_at: Date;
};

/** The Alerts screen's search (product name or message, ignoring case), type and status filters. */
export const AlertsPageQuery = z.object({
  q: z.string().max(200).optional(),
  type: z.enum(['all', ...ALERT_TYPES]).optional(),
  status: z.enum(['all', 'unread', 'read']).optional(),
  /** The id of the last alert of the page before. */
  before: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(ALERTS_LISTED).default(ALERTS_PAGE),
});
type AlertFilter = Omit<z.infer<typeof AlertsPageQuery>, 'limit'>;

/** The Edit Product dialog's backtest: its threshold as the dialog holds it, at most 20 characters. */
export const BacktestQuery = z.object({ threshold: queryParam(textUpTo(20)).optional() });

const THRESHOLD_MESSAGE = 'Threshold must be a positive number';

/**
 * The backtest's rule, checked once the product is known to be the user's: empty or 'none',
 * 'any', or a drop percent from 0 to 100.
 */
export const BacktestRule = z.object({
  threshold: z
    .string()
    .optional()
    .transform((threshold, ctx): AlertRule => {
      const text = threshold?.trim() ?? '';
      if (text === '' || text === 'none') return { kind: 'none' };
      if (text === 'any') return { kind: 'any' };
      const percent = Number(text);
      if (Number.isFinite(percent) && percent >= 0 && percent <= 100) return { kind: 'drop', percent };
      ctx.addIssue({ code: 'custom', message: THRESHOLD_MESSAGE });
      return z.NEVER;
    }),
});

/** The filter as conditions on alerts `a` of one user, each starting with AND. */
function matching(sql: Sql, f: AlertFilter) {
  const needle = f.q?.trim() ?? '';
  return sql`
    ${needle ? sql`AND (strpos(lower(a.product_name), lower(${needle})) > 0 OR strpos(lower(a.message), lower(${needle})) > 0)` : sql``}
    ${f.type && f.type !== 'all' ? sql`AND a.type = ${f.type}` : sql``}
    ${f.status === 'unread' ? sql`AND NOT a.is_read` : f.status === 'read' ? sql`AND a.is_read` : sql``}`;
}

/**
 * Newest first (ties by id), optionally filtered and after the alert `before` (checked to be the
 * user's). Notices (a channel turned off: no product) are listed with the notifications, not on
 * the Alerts screen.
 */
async function listAlerts(ctx: AppContext, userId: string, limit: number, opts: { withNotices?: boolean; filter?: AlertFilter } = {}): Promise<AlertItem[]> {
  const { withNotices = false, filter = {} } = opts;
  const rows = await ctx.sql<Row[]>`
    SELECT a.id, a.type, a.product_id, a.product_name, a.product_image, a.product_url, a.message, a.previous_price, a.current_price,
           coalesce(a.currency, s.currency, ${DEFAULT_SETTINGS.currency}) AS currency, a.change_percent, a.standing, a.is_read, a.created_at
    FROM alerts a LEFT JOIN user_settings s ON s.user_id = a.user_id
    WHERE a.user_id = ${userId} AND (${withNotices} OR a.product_id <> '') ${matching(ctx.sql, filter)}
      ${filter.before ? ctx.sql`AND (a.created_at, ${filter.before}::text) < ((SELECT created_at FROM alerts WHERE id = ${filter.before}), a.id)` : ctx.sql``}
    ORDER BY a.created_at DESC, a.id LIMIT ${limit}`;
  return rows.map((r) => ({
    id: r.id,
    type: r.type,
    productId: r.product_id,
    productName: r.product_name,
    productImage: r.product_image,
    productUrl: r.product_url,
    message: r.message,
    previousPrice: r.previous_price,
    currentPrice: r.current_price,
    currency: r.currency,
    changePercent: r.change_percent,
    standing: r.standing,
    isRead: r.is_read,
    createdAt: r.created_at.toISOString(),
  }));
}

/**
 * Loads what the user's alert stream says about some alerts (their AlertRaised and reads),
 * decides, and appends, in one transaction that holds the stream's lock from before the read.
 * Clients mark many alerts at once (the specification's client sends one call per alert for mark
 * all): optimistic appends would race on the stream version and fail most of them, and a bounded
 * retry can still run out under that many callers.
 * The lock makes the calls take turns, so each one decides on every read committed before it
 * (no alert is recorded read twice). Only these routes record reads, all under the lock, so the
 * decision cannot go stale before the append; alerts and notices raised meanwhile (appended with
 * 'any', without the lock) never change whether an existing alert is read, so the append takes
 * 'any' too and cannot conflict with them.
 */
async function decideOnAlerts(
  ctx: AppContext,
  userId: string,
  alertIds: string[],
  decide: (history: AlertEvent[]) => AlertEvent[],
): Promise<AppendResult | null> {
  const stream = alertStream(userId);
  return transaction(ctx.sql, async (tx) => {
    // Taken before the read: its snapshot then holds every read committed by an earlier holder.
    await tx`SELECT pg_advisory_xact_lock(hashtextextended(${'stream:' + stream}, 0))`;
    const rows = await tx<{ type: string; schema_version: number; data: unknown }[]>`
      SELECT type, schema_version, data FROM events
      WHERE stream_id = ${stream}
        AND (data->>'alertId' = ANY(${alertIds}::text[]) OR (type = 'AllNotificationsRead' AND data->'alertIds' ?| ${alertIds}::text[]))
      ORDER BY stream_version`;
    const decided = decide(rows.map((r) => ({ type: r.type, data: upcastAndValidate(r.type, r.schema_version, r.data) }) as AlertEvent));
    return decided.length ? ctx.store.append(stream, 'any', decided, tx) : null;
  });
}

export function alertRoutes(ctx: AppContext) {
  /** Waits until the read models show the change, so the screen's refetch sees it. */
  async function caughtUp(appended: AppendResult | null) {
    if (appended) await ctx.projections.waitFor({ transactionId: appended.transactionId, position: appended.lastPosition });
  }

  async function markRead(userId: string, id: string, via: 'alerts' | 'notifications') {
    const alertId = idOf(id, ALERT_NOT_FOUND);
    const decider = alertDecider(alertId);
    await caughtUp(
      await decideOnAlerts(ctx, userId, [alertId], (history) => decider.decide({ type: 'MarkRead', alertId, userId, via }, fold(decider, history))),
    );
    return { id: alertId, isRead: true };
  }

  /**
   * Marks read what the user sees unread: every alert (and, from the popover, every notice). An
   * alert raised a moment ago and not shown yet stays unread. One event names them all, decided
   * under the stream's lock like single reads, so none is recorded read twice.
   */
  async function markAllRead(userId: string, withNotices: boolean) {
    const unread = (
      await ctx.sql<{ id: string }[]>`
      SELECT id FROM alerts WHERE user_id = ${userId} AND NOT is_read AND (${withNotices} OR product_id <> '')`
    ).map((r) => r.id);
    let count = 0;
    if (unread.length) {
      await caughtUp(
        await decideOnAlerts(ctx, userId, unread, (history) => {
          const decided = decideMarkAllRead(
            userId,
            unread.map((id) => fold(alertDecider(id), history)),
          );
          count = decided.length ? (decided[0] as { data: { alertIds: string[] } }).data.alertIds.length : 0;
          return decided;
        }),
      );
    }
    return { success: true, count };
  }

  return (
    new Elysia()
      .use(authentication(ctx))
      .get('/api/alerts', ({ userId }) => listAlerts(ctx, userId, ALERTS_LISTED), { signedIn: true })
      // The Alerts screen: a page of the alerts the filters match, how many match in all, and how many are unread in all.
      .get(
        '/api/alerts/page',
        async ({ userId, query }) => {
          const { limit, ...filter } = query;
          if (filter.before !== undefined) {
            const before = idOf(filter.before, ALERT_NOT_FOUND);
            const [mine] = await ctx.sql`SELECT 1 FROM alerts WHERE id = ${before} AND user_id = ${userId} AND product_id <> ''`;
            if (!mine) throw new DomainError(ALERT_NOT_FOUND, 404);
          }
          const alerts = await listAlerts(ctx, userId, limit, { filter });
          const [counts] = await ctx.sql<{ matching: number; unread: number }[]>`
        SELECT count(*) FILTER (WHERE TRUE ${matching(ctx.sql, filter)})::int AS matching, count(*) FILTER (WHERE NOT a.is_read)::int AS unread
        FROM alerts a WHERE a.user_id = ${userId} AND a.product_id <> ''`;
          return { alerts, matching: counts!.matching, unread: counts!.unread };
        },
        { signedIn: true, query: AlertsPageQuery },
      )
      .post('/api/alerts/mark-all-read', ({ userId }) => markAllRead(userId, false), { signedIn: true })
      .patch('/api/alerts/:id/read', ({ userId, params }) => markRead(userId, params.id, 'alerts'), { signedIn: true })

      .get(
        '/api/notifications',
        async ({ userId }): Promise<NotificationItem[]> =>
          (await listAlerts(ctx, userId, NOTIFICATIONS_LISTED, { withNotices: true })).map(
            ({ id, type, productName, message, currentPrice, previousPrice, currency, isRead, createdAt }) => ({
              id,
              type,
              productName,
              message,
              currentPrice,
              previousPrice,
              currency,
              isRead,
              createdAt,
            }),
          ),
        { signedIn: true },
      )
      // The bell's badge: every unread notification, not only those listed. Its alerts are the dashboard's Active Alerts.
      .get(
        '/api/notifications/unread-count',
        async ({ userId }) => {
          const [counts] = await ctx.sql<{ alerts: number; notices: number }[]>`
        SELECT count(*) FILTER (WHERE product_id <> '')::int AS alerts, count(*) FILTER (WHERE product_id = '')::int AS notices
        FROM alerts WHERE user_id = ${userId} AND NOT is_read`;
          return { alerts: counts!.alerts, notices: counts!.notices };
        },
        { signedIn: true },
      )
      .post('/api/notifications/mark-all-read', ({ userId }) => markAllRead(userId, true), { signedIn: true })
      .post('/api/notifications/:id/read', ({ userId, params }) => markRead(userId, params.id, 'notifications'), { signedIn: true })

      // The Edit Product dialog's backtest: how many alerts a threshold would have raised lately.
      .get(
        '/api/products/:id/alert-backtest',
        async ({ userId, params, query }) => {
          const productId = idOf(params.id, PRODUCT_NOT_FOUND);
          const { threshold: rule } = parseInput(BacktestRule, query);
          const [product] = await ctx.sql`SELECT id FROM products WHERE id = ${productId} AND user_id = ${userId}`;
          if (!product) throw new DomainError(PRODUCT_NOT_FOUND, 404);
          const since = new Date(Date.now() - BACKTEST_DAYS * 86_400_000);
          const [before] = await ctx.sql<{ price: number; currency: string | null }[]>`
        SELECT price, currency FROM price_points WHERE product_id = ${productId} AND observed_at < ${since}
        ORDER BY observed_at DESC, event_position DESC LIMIT 1`;
          const prices = await ctx.sql<{ price: number; currency: string | null }[]>`
        SELECT price, currency FROM price_points WHERE product_id = ${productId} AND observed_at >= ${since}
        ORDER BY observed_at, event_position`;
          const { priceDropAlerts } = await readSettings(ctx.sql, userId);
          return { ...backtest(rule, prices, before ?? null, { priceDropAlerts }), days: BACKTEST_DAYS, priceDropAlerts };
        },
        { signedIn: true, query: BacktestQuery },
      )
  );
}
