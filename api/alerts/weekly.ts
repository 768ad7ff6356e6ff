import type { AppContext } from '../context.ts';
import { transaction } from '../../db/index.ts';
import type { WeeklyReport } from './email.ts';
import { enqueueWeeklyReport } from './outbox.ts';

const DAY = 86_400_000;

/**
 * The weekly report (setting weeklyReports): on Monday from 08:00 in the user's time zone, one
 * summary of the last 7 days per user and week. Run every minute; `weekly_reports` remembers who
 * had this week's report, so a run that repeats, overlaps another process or follows a restart
 * queues nothing twice. A server that was down at 08:00 catches up later that Monday.
 * Weekly reports are their own choice: they do not depend on the alert e-mails setting.
 */
export async function queueWeeklyReports(ctx: Pick<AppContext, 'sql'>, now = new Date()): Promise<number> {
  const due = await ctx.sql<{ user_id: string; email: string; week_of: string }[]>`
    SELECT s.user_id, u.email, to_char(local.at::date, 'YYYY-MM-DD') AS week_of
    FROM user_settings s JOIN users u ON u.id = s.user_id,
      LATERAL (SELECT ${now}::timestamptz AT TIME ZONE s.timezone AS at) local
    WHERE s.weekly_reports AND extract(isodow FROM local.at) = 1 AND local.at::time >= '08:00'
      AND NOT EXISTS (SELECT 1 FROM weekly_reports w WHERE w.user_id = s.user_id AND w.week_of = local.at::date)`;
  let queued = 0;
  for (const user of due) {
    await transaction(ctx.sql, async (tx) => {
      const claimed =
        await tx`INSERT INTO weekly_reports (user_id, week_of) VALUES (${user.user_id}, ${user.week_of}) ON CONFLICT DO NOTHING RETURNING user_id`;
      if (!claimed.length) return; // another run got there first
      const report = await weekOf(tx, user.user_id, user.week_of, now);
      await enqueueWeeklyReport(tx, { id: `weekly-${user.user_id}-${user.week_of}`, userId: user.user_id, to: user.email, report });
      queued++;
    });
  }
  return queued;
}

type Row = {
  name: string;
  url: string;
  currency: string | null;
  end_price: number | null;
  before_price: number | null;
  first_price: number | null;
  low: number | null;
  high: number | null;
  changes: number;
};

/** Each product's last 7 days: the price when they began (or the first one seen since), now, the range and the number of changes. */
export async function weekOf(db: AppContext['sql'], userId: string, weekOfDate: string, now: Date): Promise<WeeklyReport> {
  const from = new Date(now.getTime() - 7 * DAY);
  const rows = await db<Row[]>`
    SELECT p.name, p.url, coalesce(p.currency, (SELECT s.currency FROM user_settings s WHERE s.user_id = p.user_id)) AS currency, p.current_price AS end_price,
      (SELECT price FROM price_points pp WHERE pp.product_id = p.id AND pp.observed_at <= ${from}
       ORDER BY pp.observed_at DESC, pp.event_position DESC LIMIT 1) AS before_price,
      (SELECT price FROM price_points pp WHERE pp.product_id = p.id AND pp.observed_at > ${from}
       ORDER BY pp.observed_at, pp.event_position LIMIT 1) AS first_price,
      w.low, w.high,
      (SELECT count(*)::int FROM price_changes c WHERE c.product_id = p.id AND c.changed_at > ${from} AND c.changed_at <= ${now}) AS changes
    FROM products p
    LEFT JOIN LATERAL (SELECT min(price) AS low, max(price) AS high FROM price_points pp
                       WHERE pp.product_id = p.id AND pp.observed_at > ${from} AND pp.observed_at <= ${now}) w ON true
    WHERE p.user_id = ${userId}
    ORDER BY p.created_at, p.id`;
  const range = (f: (...n: number[]) => number, ...values: (number | null)[]) => {
    const known = values.filter((v): v is number => v !== null);
    return known.length ? f(...known) : null;
  };
  return {
    weekOf: weekOfDate,
    products: rows.map((r) => ({
      name: r.name,
      url: r.url,
      currency: r.currency,
      startPrice: r.before_price ?? r.first_price,
      endPrice: r.end_price,
      low: range(Math.min, r.low, r.before_price),
      high: range(Math.max, r.high, r.before_price),
      changes: r.changes,
    })),
  };
}
