import type { Sql } from '../../db/index.ts';
import type { Fetcher, FetchResult } from './fetcher.ts';
import { hostOf } from '../../domain/shops.ts';
import { backoff } from '../../domain/backoff.ts';

/**
 * Resting a shop that turned checks away (a bot wall or HTTP 429): no product on that host is
 * checked until `until`, by any worker process, so knocking again does not deepen the block.
 * An operational table like the check queue, not events: the refusals themselves are events.
 */
export const HOST_BACKOFF_DDL = `
CREATE TABLE IF NOT EXISTS host_backoff (
  host      text PRIMARY KEY,
  until     timestamptz NOT NULL,
  failures  integer NOT NULL,
  reason    text NOT NULL,
  blocked_at timestamptz NOT NULL
);
`;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** The first rest when the shop did not say how long; each further refusal doubles it. */
export const BACKOFF_BASE_MS = 15 * MINUTE;
export const BACKOFF_MAX_MS = 12 * HOUR;
/** A Retry-After is honoured up to this long; a shop asking for a week still gets checked daily. */
export const RETRY_AFTER_CAP_MS = 24 * HOUR;
/** A refusal this long after the last rest ended starts the doubling again. */
export const BACKOFF_RESET_MS = 24 * HOUR;

export type Backoff = { until: Date; failures: number };

/**
 * The rest after a refusal. Refusals that arrive while the host already rests (checks claimed
 * together, several workers) do not count again: they were one knock, answered once.
 */
export function nextBackoff(previous: Backoff | null, now: Date, retryAfterMs: number | null | undefined): Backoff {
  const resting = previous !== null && previous.until > now;
  const fresh = previous === null || now.getTime() - previous.until.getTime() > BACKOFF_RESET_MS;
  const failures = resting ? previous.failures : fresh ? 1 : previous.failures + 1;
  const wait =
    retryAfterMs !== null && retryAfterMs !== undefined && retryAfterMs >= 0
      ? Math.min(retryAfterMs, RETRY_AFTER_CAP_MS)
      : backoff(failures, { baseMs: BACKOFF_BASE_MS, maxMs: BACKOFF_MAX_MS });
  const until = new Date(now.getTime() + wait);
  return { until: resting && previous.until > until ? previous.until : until, failures };
}

/** Records a refusal of `host` and answers until when it rests. */
export async function recordBlocked(sql: Sql, host: string, reason: string, retryAfterMs: number | null | undefined, now = new Date()): Promise<Backoff> {
  const [row] = await sql<{ until: Date; failures: number }[]>`SELECT until, failures FROM host_backoff WHERE host = ${host}`;
  const next = nextBackoff(row ? { until: new Date(row.until), failures: row.failures } : null, now, retryAfterMs);
  await sql`
    INSERT INTO host_backoff (host, until, failures, reason, blocked_at) VALUES (${host}, ${next.until}, ${next.failures}, ${reason}, ${now})
    ON CONFLICT (host) DO UPDATE SET until = EXCLUDED.until, failures = EXCLUDED.failures, reason = EXCLUDED.reason, blocked_at = EXCLUDED.blocked_at`;
  return next;
}

export type HostRest = { host: string; until: Date; reason: string };

/** The rest `host` is under at `now`, if any. */
export async function restOf(sql: Sql, host: string | null, now = new Date()): Promise<HostRest | null> {
  if (!host) return null;
  const [row] = await sql<{ until: Date; reason: string }[]>`SELECT until, reason FROM host_backoff WHERE host = ${host} AND until > ${now}`;
  return row ? { host, until: new Date(row.until), reason: row.reason } : null;
}

/** Rests of the given hosts that are still running, by host. */
export async function restsOf(sql: Sql, hosts: readonly string[], now = new Date()): Promise<Map<string, Date>> {
  if (!hosts.length) return new Map();
  const rows = await sql<{ host: string; until: Date }[]>`SELECT host, until FROM host_backoff WHERE host = ANY(${[...hosts]}::text[]) AND until > ${now}`;
  return new Map(rows.map((r) => [r.host, new Date(r.until)]));
}

/** "another 14 minutes", "another 3 hours": how long a rest still runs, in words. */
export function restLeft(until: Date, now = new Date()): string {
  const minutes = Math.max(1, Math.ceil((until.getTime() - now.getTime()) / MINUTE));
  if (minutes < 90) return `another ${minutes} minute${minutes === 1 ? '' : 's'}`;
  const hours = Math.round(minutes / 60);
  return `another ${hours} hours`;
}

/**
 * A fetcher that records every refusal it meets in `host_backoff` before answering, and
 * remembers the rests it recorded so this process stops knocking at once.
 */
export function watchingBlocks(sql: Sql, inner: Fetcher) {
  const known = new Map<string, Date>();
  return {
    // A rendered page's own requests are not checks of the shop: they pass as they are.
    fetchResource: inner.fetchResource,
    fetchPage: async (url: string, opts?: Parameters<Fetcher['fetchPage']>[1]): Promise<FetchResult> => {
      const result = await inner.fetchPage(url, opts);
      const host = hostOf(url);
      if (!result.ok && result.code === 'blocked' && host) {
        try {
          known.set(host, (await recordBlocked(sql, host, result.reason, result.retryAfterMs)).until);
        } catch (err) {
          // The refusal is still recorded as a failed check; only the rest is lost.
          console.error('host backoff: recording a refusal failed:', err);
        }
      }
      return result;
    },
    /** Until when this process knows `url`'s host rests, if it does. */
    restingUntil(url: string, now = new Date()): Date | null {
      const host = hostOf(url);
      const until = host ? known.get(host) : undefined;
      if (!until) return null;
      if (until > now) return until;
      known.delete(host!);
      return null;
    },
  } satisfies Fetcher & { restingUntil(url: string): Date | null };
}
