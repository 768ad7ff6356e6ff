import type { Sql } from '../../db/index.ts';

/**
 * A token bucket per API key, kept in PostgreSQL so that it holds across every API process:
 * `capacity` requests at once, refilled at `perSecond`. One statement per request, refilling and
 * taking under the row's lock, so two processes can never both take the last token.
 */
export type RateLimit = { capacity: number; perSecond: number };

export const DEFAULT_RATE_LIMIT: RateLimit = { capacity: 60, perSecond: 1 };

export const RATE_LIMIT_DDL = `
CREATE UNLOGGED TABLE IF NOT EXISTS api_rate_buckets (
  key_id  text PRIMARY KEY,
  tokens  double precision NOT NULL,
  at      timestamptz NOT NULL,
  granted boolean NOT NULL
);`;

export type Taken = { ok: true; remaining: number } | { ok: false; retryAfter: number };

export function createRateLimiter(sql: Sql, { capacity, perSecond }: RateLimit) {
  /** Takes one token: `retryAfter` is the whole seconds until one is back when none is left. */
  return async function take(keyId: string): Promise<Taken> {
    // The bucket as refilled until now, by the database's clock (the same for every process).
    const [b] = await sql<{ tokens: number; granted: boolean }[]>`
      INSERT INTO api_rate_buckets AS b (key_id, tokens, at, granted) VALUES (${keyId}, ${capacity - 1}, clock_timestamp(), true)
      ON CONFLICT (key_id) DO UPDATE SET
        granted = least(${capacity}::float8, b.tokens + extract(epoch FROM clock_timestamp() - b.at) * ${perSecond}) >= 1,
        tokens = least(${capacity}::float8, b.tokens + extract(epoch FROM clock_timestamp() - b.at) * ${perSecond})
                 - CASE WHEN least(${capacity}::float8, b.tokens + extract(epoch FROM clock_timestamp() - b.at) * ${perSecond}) >= 1 THEN 1 ELSE 0 END,
        at = clock_timestamp()
      RETURNING tokens, granted`;
    if (!b!.granted) return { ok: false, retryAfter: Math.max(1, Math.ceil((1 - b!.tokens) / perSecond)) };
    return { ok: true, remaining: Math.floor(b!.tokens) };
  };
}
