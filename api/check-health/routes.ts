import { Elysia } from 'elysia';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import type { Sql } from '../../db/index.ts';
import { authentication } from '../auth/plugin.ts';
import { restsOf } from '../fetching/host-backoff.ts';

export type HostHealth = {
  host: string;
  checks: number;
  successes: number;
  /** Failed checks by code ('blocked', 'timeout', 'http-status', 'no-price', ...). */
  failures: Record<string, number>;
  lastError: { code: string; message: string; at: string } | null;
  /** A price in the window was only readable in a browser. */
  browserNeeded: boolean;
  /** The shop turned checks away: none of its products is checked before then. */
  backedOffUntil: string | null;
};

export type CheckHealth = { hosts: HostHealth[] };

/** The window, in UTC days ending today. */
export const HEALTH_DAYS = 7;

const Query = z.object({ days: z.coerce.number().int().min(1).max(90).default(HEALTH_DAYS) });

/** How the user's checks went per shop host over the last `days` days, most failures first. */
export async function readCheckHealth(sql: Sql, userId: string, days = HEALTH_DAYS, now = new Date()): Promise<CheckHealth> {
  const first = new Date(now.getTime() - (days - 1) * 86_400_000).toISOString().slice(0, 10);
  const rows = await sql<
    {
      host: string;
      checks: number;
      successes: number;
      failures: Record<string, number>;
      last_error: { code: string; message: string; at: string } | null;
      browser_needed: boolean;
    }[]
  >`
    SELECT host, sum(checks)::int AS checks, sum(successes)::int AS successes,
           (SELECT coalesce(jsonb_object_agg(code, n), '{}'::jsonb) FROM (
              SELECT f.key AS code, sum(f.value::int)::int AS n FROM check_health d, jsonb_each_text(d.failures) f
              WHERE d.user_id = ${userId} AND d.host = h.host AND d.day >= ${first}::date GROUP BY f.key) AS s) AS failures,
           (SELECT json_build_object('code', d.last_error_code, 'message', d.last_error_message, 'at', d.last_error_at)
              FROM check_health d WHERE d.user_id = ${userId} AND d.host = h.host AND d.day >= ${first}::date AND d.last_error_at IS NOT NULL
              ORDER BY d.last_error_at DESC LIMIT 1) AS last_error,
           bool_or(browser_needed) AS browser_needed
    FROM check_health h
    WHERE user_id = ${userId} AND day >= ${first}::date
    GROUP BY host`;
  const rests = await restsOf(
    sql,
    rows.map((r) => r.host),
    now,
  );
  const failed = (r: { failures: Record<string, number> }) => Object.values(r.failures).reduce((a, b) => a + b, 0);
  const hosts = rows.map(
    (r): HostHealth => ({
      host: r.host,
      checks: r.checks,
      successes: r.successes,
      failures: r.failures,
      lastError: r.last_error ? { ...r.last_error, at: new Date(r.last_error.at).toISOString() } : null,
      browserNeeded: r.browser_needed,
      backedOffUntil: rests.get(r.host)?.toISOString() ?? null,
    }),
  );
  hosts.sort((a, b) => failed(b) - failed(a) || b.checks - a.checks || (a.host < b.host ? -1 : a.host > b.host ? 1 : 0));
  return { hosts };
}

/** GET /api/check-health[?days=1..90]: the signed-in user's check health per shop host. */
export function checkHealthRoutes(ctx: AppContext) {
  return new Elysia({ prefix: '/api/check-health' })
    .use(authentication(ctx))
    .get('/', ({ userId, query }) => readCheckHealth(ctx.sql, userId, query.days), { signedIn: true, query: Query });
}
