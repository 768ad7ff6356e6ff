import type { Sql } from '../../db/index.ts';

/**
 * Sessions (operational state, not events). A token is `<id>.<secret>`; only the SHA-256 of the
 * secret is stored and compared in constant time, so a leaked table cannot be replayed as cookies.
 * Expiry slides forward while the user is active.
 */
export const SESSIONS_DDL = `
CREATE TABLE IF NOT EXISTS sessions (
  id           text PRIMARY KEY,
  secret_hash  bytea NOT NULL,
  user_id      text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_by_user ON sessions (user_id);
`;

export const SESSION_COOKIE = 'pw_session';

export type Session = { id: string; userId: string; expiresAt: Date };

const DAY = 86_400_000;

function randomToken(bytes: number): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString('base64url');
}

async function sha256(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
}

function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  let diff = 0;
  for (let i = 0; i < a.byteLength; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/**
 * The id and secret of a token as this store issues them (base64url), or null for anything
 * else a cookie may hold: such a cookie is simply not a session, and never reaches a query.
 */
function partsOf(token: unknown): { id: string; secret: string } | null {
  const m = typeof token === 'string' ? /^([\w-]{1,64})\.([\w-]{1,128})$/.exec(token) : null;
  return m ? { id: m[1]!, secret: m[2]! } : null;
}

export function createSessionStore(sql: Sql, opts: { lifetimeDays: number; now?: () => number }) {
  const lifetime = opts.lifetimeDays * DAY;
  const now = opts.now ?? Date.now;

  async function create(userId: string): Promise<{ token: string; session: Session }> {
    const id = randomToken(15);
    const secret = randomToken(24);
    const expiresAt = new Date(now() + lifetime);
    await sql`INSERT INTO sessions (id, secret_hash, user_id, expires_at) VALUES (${id}, ${await sha256(secret)}, ${userId}, ${expiresAt})`;
    return { token: `${id}.${secret}`, session: { id, userId, expiresAt } };
  }

  /** The session of a token, or null; renews the expiry once less than half the lifetime is left. */
  async function validate(token: unknown): Promise<Session | null> {
    const parts = partsOf(token);
    if (!parts) return null;
    const { id, secret } = parts;
    const [row] = await sql<{ secret_hash: Uint8Array; user_id: string; expires_at: Date }[]>`
      SELECT secret_hash, user_id, expires_at FROM sessions WHERE id = ${id}`;
    if (!row || !constantTimeEqual(new Uint8Array(row.secret_hash), await sha256(secret))) return null;
    if (row.expires_at.getTime() <= now()) {
      await sql`DELETE FROM sessions WHERE id = ${id}`;
      return null;
    }
    let expiresAt = row.expires_at;
    if (expiresAt.getTime() - now() < lifetime / 2) {
      expiresAt = new Date(now() + lifetime);
      await sql`UPDATE sessions SET expires_at = ${expiresAt} WHERE id = ${id}`;
    }
    return { id, userId: row.user_id, expiresAt };
  }

  async function invalidate(token: unknown): Promise<void> {
    const id = partsOf(token)?.id;
    if (id) await sql`DELETE FROM sessions WHERE id = ${id}`;
  }

  return { create, validate, invalidate, lifetime };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
