import type { Projection } from './projection.ts';
import { hostOf } from '../domain/shops.ts';
import { normaliseFailureCode } from '../domain/check-failures.ts';

/**
 * How the checks of each shop went, per user, host and UTC day of the check: checks, prices
 * found, failures by code, the day's last error, and whether a page needed a browser to show
 * its price. "Check health" sums the last days of it.
 *
 * Old 'bot-protection' failures count as 'blocked'. A removed product's checks stay: they are
 * still how that shop answered. Sums do not depend on batch boundaries, and the last error is
 * the latest by check time (a later event wins a tie), so a rebuild yields the same rows.
 */
export type CheckHealthRow = {
  user_id: string;
  host: string;
  day: string;
  checks: number;
  successes: number;
  failures: Record<string, number>;
  last_error_code: string | null;
  last_error_message: string | null;
  last_error_at: Date | string | null;
  browser_needed: boolean;
};

export const checkHealthProjection: Projection = {
  name: 'check-health',
  tables: ['check_health'],
  ddl: `
    CREATE TABLE IF NOT EXISTS check_health (
      user_id            text NOT NULL,
      host               text NOT NULL,
      day                date NOT NULL,
      checks             integer NOT NULL,
      successes          integer NOT NULL,
      failures           jsonb NOT NULL,
      last_error_code    text,
      last_error_message text,
      last_error_at      timestamptz,
      browser_needed     boolean NOT NULL,
      PRIMARY KEY (user_id, host, day)
    );`,
  handles: ['PriceObserved', 'PriceCheckFailed'],
  async apply(tx, events) {
    type Day = {
      userId: string;
      host: string;
      day: string;
      checks: number;
      successes: number;
      failures: Record<string, number>;
      lastError: { code: string; message: string; at: string } | null;
      browser: boolean;
    };
    const days = new Map<string, Day>();
    for (const e of events) {
      if (e.type !== 'PriceObserved' && e.type !== 'PriceCheckFailed') continue;
      const host = hostOf(e.data.url);
      if (!host) continue;
      const at = e.type === 'PriceObserved' ? e.data.observedAt : e.data.attemptedAt;
      const day = at.slice(0, 10);
      const key = `${e.data.userId} ${host} ${day}`;
      let d = days.get(key);
      if (!d) days.set(key, (d = { userId: e.data.userId, host, day, checks: 0, successes: 0, failures: {}, lastError: null, browser: false }));
      d.checks++;
      if (e.type === 'PriceObserved') {
        d.successes++;
        // Added to PriceObserved later: absent means the page was read without a browser.
        if ((e.data as { fetcher?: unknown }).fetcher === 'browser') d.browser = true;
      } else {
        const code = normaliseFailureCode(e.data.code);
        d.failures[code] = (d.failures[code] ?? 0) + 1;
        if (!d.lastError || Date.parse(at) >= Date.parse(d.lastError.at)) d.lastError = { code, message: e.data.reason, at };
      }
    }
    const rows = [...days.values()];
    if (!rows.length) return;
    await tx`
      INSERT INTO check_health AS h (user_id, host, day, checks, successes, failures, last_error_code, last_error_message, last_error_at, browser_needed)
      SELECT u, h, d::date, c, s, f::jsonb, ec, em, ea::timestamptz, b::boolean
      FROM unnest(${rows.map((r) => r.userId)}::text[], ${rows.map((r) => r.host)}::text[], ${rows.map((r) => r.day)}::text[],
                  ${rows.map((r) => r.checks)}::int[], ${rows.map((r) => r.successes)}::int[], ${rows.map((r) => JSON.stringify(r.failures))}::text[],
                  ${rows.map((r) => r.lastError?.code ?? null)}::text[], ${rows.map((r) => r.lastError?.message ?? null)}::text[],
                  ${rows.map((r) => r.lastError?.at ?? null)}::text[], ${rows.map((r) => String(r.browser))}::text[])
           AS t(u, h, d, c, s, f, ec, em, ea, b)
      ON CONFLICT (user_id, host, day) DO UPDATE SET
        checks = h.checks + EXCLUDED.checks,
        successes = h.successes + EXCLUDED.successes,
        failures = (SELECT coalesce(jsonb_object_agg(code, n), '{}'::jsonb) FROM (
                      SELECT code, sum(n::int) AS n FROM (
                        SELECT key AS code, value AS n FROM jsonb_each_text(h.failures)
                        UNION ALL SELECT key, value FROM jsonb_each_text(EXCLUDED.failures)) AS both_sides
                      GROUP BY code) AS summed),
        last_error_code = CASE WHEN EXCLUDED.last_error_at >= h.last_error_at OR h.last_error_at IS NULL AND EXCLUDED.last_error_at IS NOT NULL THEN EXCLUDED.last_error_code ELSE h.last_error_code END,
        last_error_message = CASE WHEN EXCLUDED.last_error_at >= h.last_error_at OR h.last_error_at IS NULL AND EXCLUDED.last_error_at IS NOT NULL THEN EXCLUDED.last_error_message ELSE h.last_error_message END,
        last_error_at = CASE WHEN EXCLUDED.last_error_at >= h.last_error_at OR h.last_error_at IS NULL AND EXCLUDED.last_error_at IS NOT NULL THEN EXCLUDED.last_error_at ELSE h.last_error_at END,
        browser_needed = h.browser_needed OR EXCLUDED.browser_needed`;
  },
};
