import type { Sql } from '../../db/index.ts';

/**
 * Answers of a signed-in user's read endpoints, kept until anything they show changes.
 *
 * An answer is stored with the user's read version: the last event about their products
 * (projection read-versions), and only once every read model has applied that event. A newer
 * event makes the answer miss as soon as read-versions has seen it (it is caught up first, and
 * commands wait for every read model before they answer, so a user reads their own writes).
 * Figures over sliding windows ("this week", "last 30 days") move with the clock, and a new time
 * zone moves the dashboard's days, so answers expire after a few seconds in any case. Works
 * unchanged with several API processes: the version is read from the database on every request
 * (a primary-key lookup).
 */
const encoder = new TextEncoder();

/** Answers at least this large are also kept gzipped: a history of 100 products shrinks from 190 KB to 15 KB. */
const GZIP_FROM = 4096;

type Bytes = Uint8Array<ArrayBuffer>;
type Entry = { version: string; expires: number; json: Bytes; gzip: Bytes | null };

const size = (e: Entry) => e.json.byteLength + (e.gzip?.byteLength ?? 0);

export function createUserCache(sql: Sql, opts: { ttlMs?: number; maxBytes?: number } = {}) {
  const ttlMs = opts.ttlMs ?? 10_000;
  const maxBytes = opts.maxBytes ?? 32 * 1024 * 1024;
  const entries = new Map<string, Entry>();
  let bytes = 0;

  const drop = (id: string) => {
    const old = entries.get(id);
    if (old) {
      bytes -= size(old);
      entries.delete(id);
    }
  };
  const keep = (id: string, entry: Entry) => {
    entries.set(id, entry);
    bytes += size(entry);
    for (const [oldest] of entries) {
      if (bytes <= maxBytes) break;
      drop(oldest);
    }
  };

  /** The user's read version, or null while some read model has not applied their last event yet. */
  async function versionOf(userId: string): Promise<string | null> {
    const [row] = await sql<{ version: string; applied: boolean }[]>`
      SELECT coalesce(v.position, 0)::text AS version,
             v.user_id IS NULL OR bool_and((c.transaction_id, c.position) >= (v.transaction_id, v.position)) AS applied
      FROM projection_checkpoints c LEFT JOIN user_read_versions v ON v.user_id = ${userId}
      GROUP BY v.user_id, v.position`;
    return row?.applied ? row.version : null;
  }

  /**
   * The JSON answer for (user, key), stored or computed now, as a ready Response (sent as it
   * is, gzipped when the client accepts it) typed as the value, so typed clients see the JSON shape.
   */
  return async function cached<T>(request: Request, userId: string, key: string, compute: () => Promise<T>): Promise<T> {
    const version = await versionOf(userId);
    const id = `${userId} ${key}`;
    let entry = entries.get(id);
    if (entry && version !== null && entry.version === version && entry.expires > Date.now()) {
      entries.delete(id);
      entries.set(id, entry); // most recently used last
    } else {
      drop(id);
      const json = encoder.encode(JSON.stringify(await compute()));
      entry = { version: version ?? '', expires: Date.now() + ttlMs, json, gzip: null };
      if (version === null) return respond(entry, false) as T;
      if (json.byteLength >= GZIP_FROM) entry.gzip = Bun.gzipSync(json) as Bytes;
      if (size(entry) <= maxBytes) keep(id, entry);
    }
    return respond(entry, /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')) as T;
  };
}

function respond(entry: Entry, gzip: boolean): unknown {
  const headers: Record<string, string> = { 'content-type': 'application/json', vary: 'Accept-Encoding' };
  if (gzip && entry.gzip) return new Response(entry.gzip, { headers: { ...headers, 'content-encoding': 'gzip' } });
  return new Response(entry.json, { headers });
}
