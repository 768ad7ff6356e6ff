import { createHash, randomBytes } from 'node:crypto';
import { transaction, type Sql } from '../../db/index.ts';
import { planOf, type Plan } from '../billing/plans.ts';
import { effectivePlan } from '../products/limit.ts';

/**
 * API keys of the public API: an operational table, like sessions. A key is a credential, not a
 * domain fact: only its SHA-256 is stored, a revocation must hold from the next request (no read
 * model in between), and the exported log never carries anything derived from one. Revoked keys
 * stay as rows, so when a key was created and revoked remains known.
 *
 * The second index serves the events API: a user's events in commit order.
 */
export const API_KEYS_DDL = `
CREATE TABLE IF NOT EXISTS api_keys (
  id         text PRIMARY KEY,
  user_id    text NOT NULL,
  key_hash   text NOT NULL UNIQUE,
  last4      text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE UNIQUE INDEX IF NOT EXISTS api_keys_one_live_per_user ON api_keys (user_id) WHERE revoked_at IS NULL;
CREATE INDEX IF NOT EXISTS events_by_user_in_commit_order ON events ((data->>'userId'), transaction_id, global_position);
`;

export const KEY_PREFIX = 'pw_live_';
const KEY_FORMAT = /^pw_live_[A-Za-z0-9_-]{43}$/;

export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');
export const maskKey = (last4: string) => `${KEY_PREFIX}${'•'.repeat(8)}${last4}`;

export const NOT_PRO = (plan: Plan) => `API access comes with the Pro plan; your plan is ${plan.name}. Upgrade on the Billing page to use the API.`;

export type KeyStatus = {
  hasKey: boolean;
  maskedKey: string | null;
  createdAt: string | null;
  /** Whether the user's plan includes the API, and why not when it does not. */
  apiAccess: boolean;
  reason: string | null;
};

export async function keyStatus(sql: Sql, userId: string): Promise<KeyStatus> {
  const [key] = await sql<{ last4: string; created_at: Date }[]>`
    SELECT last4, created_at FROM api_keys WHERE user_id = ${userId} AND revoked_at IS NULL`;
  const plan = await effectivePlan(sql, userId);
  return {
    hasKey: !!key,
    maskedKey: key ? maskKey(key.last4) : null,
    createdAt: key?.created_at.toISOString() ?? null,
    apiAccess: plan.apiAccess,
    reason: plan.apiAccess ? null : NOT_PRO(plan),
  };
}

/** What this process's open event streams wait on: their key's revocation. */
const revocationWatchers = new Set<{ keyId: string; revoked: () => void }>();

/**
 * Calls `revoked` as soon as this process revokes or replaces the key; answers the way to stop
 * watching. Streams served by other processes learn it when they next deliver or beat (eventStream).
 */
export function watchRevocation(keyId: string, revoked: () => void): () => void {
  const watcher = { keyId, revoked };
  revocationWatchers.add(watcher);
  return () => {
    revocationWatchers.delete(watcher);
  };
}

function revoked(keyIds: string[]) {
  for (const watcher of [...revocationWatchers]) if (keyIds.includes(watcher.keyId)) watcher.revoked();
}

/** Creates a key (revoking the one before): the full key is in this answer and nowhere else. */
export async function issueKey(sql: Sql, userId: string): Promise<{ key: string; status: KeyStatus }> {
  const key = KEY_PREFIX + randomBytes(32).toString('base64url');
  const replaced = await transaction(sql, async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(hashtext(${'api-key:' + userId}))`;
    const old = await tx<{ id: string }[]>`UPDATE api_keys SET revoked_at = now() WHERE user_id = ${userId} AND revoked_at IS NULL RETURNING id`;
    await tx`INSERT INTO api_keys (id, user_id, key_hash, last4) VALUES (${crypto.randomUUID()}, ${userId}, ${hashKey(key)}, ${key.slice(-4)})`;
    return old.map((r) => r.id);
  });
  revoked(replaced);
  return { key, status: await keyStatus(sql, userId) };
}

export async function revokeKey(sql: Sql, userId: string): Promise<boolean> {
  const rows = await sql<{ id: string }[]>`UPDATE api_keys SET revoked_at = now() WHERE user_id = ${userId} AND revoked_at IS NULL RETURNING id`;
  revoked(rows.map((r) => r.id));
  return rows.length > 0;
}

export type KeyOwner = { keyId: string; userId: string; plan: Plan };

/** The live key's owner and plan, or null for an unknown, malformed or revoked key. */
export async function keyOwner(sql: Sql, key: string): Promise<KeyOwner | null> {
  if (!KEY_FORMAT.test(key)) return null;
  const [row] = await sql<{ id: string; user_id: string; plan: string | null; subscription_plan: string | null }[]>`
    SELECT k.id, k.user_id, u.plan, u.subscription_plan
    FROM api_keys k LEFT JOIN users u ON u.id = k.user_id
    WHERE k.key_hash = ${hashKey(key)} AND k.revoked_at IS NULL`;
  return row ? { keyId: row.id, userId: row.user_id, plan: planOf(row.subscription_plan ?? row.plan) } : null;
}

/** Whether a key still opens the API: not revoked, its owner still on a plan with it (a long-lived event stream checks before it delivers). */
export async function keyStillValid(sql: Sql, keyId: string): Promise<boolean> {
  const [row] = await sql<{ plan: string | null; subscription_plan: string | null }[]>`
    SELECT u.plan, u.subscription_plan FROM api_keys k LEFT JOIN users u ON u.id = k.user_id
    WHERE k.id = ${keyId} AND k.revoked_at IS NULL`;
  return !!row && planOf(row.subscription_plan ?? row.plan).apiAccess;
}
