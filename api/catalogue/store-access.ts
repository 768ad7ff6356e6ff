// The write access an owner gives Pricewatch to their own store, so that an applied price can be
// written there (sources/write-price.ts): a Shopify Admin API access token, or a WooCommerce REST
// API consumer key and secret. Secrets are kept outside the event log, as alert channels' tokens
// are (channel_endpoints, docs/decisions/0004-alert-channels.md): one row per connected source,
// replaced when set again, deleted when removed. No answer ever carries the secret back; the
// owner sees a masked description.

import { Elysia } from 'elysia';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import type { Sql } from '../../db/index.ts';
import { authentication } from '../auth/plugin.ts';
import { idOf } from '../http/ids.ts';
import { parseInput } from '../http/validation.ts';
import { DomainError } from '../../events/decider.ts';
import { SOURCE_NOT_FOUND } from '../../events/catalogue-source.ts';

export type StoreAccess = { kind: 'shopify'; token: string } | { kind: 'woocommerce'; consumerKey: string; consumerSecret: string };
export type StoreAccessState = { connected: boolean; description: string | null };

export const STORE_ACCESS_DDL = `
CREATE TABLE IF NOT EXISTS catalogue_source_access (
  source_id text PRIMARY KEY,
  user_id   text NOT NULL,
  access    jsonb NOT NULL,
  set_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS catalogue_source_access_user ON catalogue_source_access (user_id);
`;

export const MERCHANT_FEED_NOT_WRITABLE = 'A Merchant feed cannot be written to: export the prices as CSV instead.';
export const MAX_SECRET_LENGTH = 200;

// ---------------------------------------------------------------------------------------
// Input

/** Printable, without spaces: a secret goes into a request header as it is. */
const secret = (name: string, what: string, prefix?: string) =>
  z
    .string({ error: `${name} must be the ${what} as text` })
    .trim()
    .min(1, `Please enter the ${what}`)
    .max(MAX_SECRET_LENGTH, `${name} must be at most ${MAX_SECRET_LENGTH} characters`)
    .regex(/^[\x21-\x7e]+$/, `${name} must be the ${what} exactly as shown, without spaces`)
    .refine((value) => !prefix || value.startsWith(prefix), `${name} must start with ${prefix} (the ${what} as WooCommerce shows it)`);

/** Shopify: the Admin API access token of a custom app with write_products (usually "shpat_…", not required). */
export const ShopifyAccessBody = z.object({ token: secret('token', 'Admin API access token') });
/** WooCommerce: a REST API key with Read/Write permission (WooCommerce → Settings → Advanced → REST API). */
export const WooCommerceAccessBody = z.object({
  consumerKey: secret('consumerKey', 'consumer key', 'ck_'),
  consumerSecret: secret('consumerSecret', 'consumer secret', 'cs_'),
});
/** The body of PUT …/write-access, by the source's kind: the route checks it once it knows the source. */
export const StoreAccessBody = { shopify: ShopifyAccessBody, woocommerce: WooCommerceAccessBody } as const;

/** The access in a request's body for a source of `kind`, or a 400 naming the first wrong field. */
export function parseStoreAccess(kind: StoreAccess['kind'], body: unknown): StoreAccess {
  if (kind === 'shopify') return { kind, ...parseInput(ShopifyAccessBody, body) };
  return { kind, ...parseInput(WooCommerceAccessBody, body) };
}

// As stored: read back through this, so a damaged row is "not connected" rather than a crash.
const StoredAccess = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('shopify'), token: z.string().min(1) }),
  z.object({ kind: z.literal('woocommerce'), consumerKey: z.string().min(1), consumerSecret: z.string().min(1) }),
]);

/** "Admin API token …a1b2", "Consumer key ck_…9f3e": enough to recognise, never the secret. */
export function describeStoreAccess(access: StoreAccess): string {
  // A short value would be mostly shown by its last four characters.
  const tail = (value: string) => (value.length >= 12 ? value.slice(-4) : '');
  if (access.kind === 'shopify') return `Admin API token …${tail(access.token)}`;
  return `Consumer key ck_…${tail(access.consumerKey)}`;
}

// ---------------------------------------------------------------------------------------
// Storage

/** Sets (or replaces) a source's access; a row of another user's is left alone. */
export async function saveStoreAccess(sql: Sql, sourceId: string, userId: string, access: StoreAccess): Promise<void> {
  const stored = StoredAccess.parse(access);
  await sql`
    INSERT INTO catalogue_source_access (source_id, user_id, access) VALUES (${sourceId}, ${userId}, ${sql.json(stored as never)})
    ON CONFLICT (source_id) DO UPDATE SET access = EXCLUDED.access, set_at = now()
      WHERE catalogue_source_access.user_id = EXCLUDED.user_id`;
}

export async function readStoreAccess(sql: Sql, sourceId: string): Promise<StoreAccess | null> {
  const [row] = await sql<{ access: unknown }[]>`SELECT access FROM catalogue_source_access WHERE source_id = ${sourceId}`;
  if (!row) return null;
  const parsed = StoredAccess.safeParse(row.access);
  return parsed.success ? parsed.data : null;
}

/** Whether there was one to remove. Also for when the source itself is removed. */
export async function removeStoreAccess(sql: Sql, sourceId: string, userId: string): Promise<boolean> {
  const removed = await sql`DELETE FROM catalogue_source_access WHERE source_id = ${sourceId} AND user_id = ${userId} RETURNING 1`;
  return removed.length > 0;
}

export async function storeAccessState(sql: Sql, sourceId: string): Promise<StoreAccessState> {
  const access = await readStoreAccess(sql, sourceId);
  return { connected: access !== null, description: access && describeStoreAccess(access) };
}

// ---------------------------------------------------------------------------------------
// Routes

type WritableSource = { id: string; kind: 'shopify' | 'woocommerce' | 'merchant-feed' };

/**
 * PUT, GET and DELETE /api/catalogue/sources/:id/write-access, for the signed-in owner's connected
 * sources only (any other id: 404). A Merchant feed has nothing to write to: PUT refuses it (400),
 * GET answers it as not connected.
 */
export function storeAccessRoutes(ctx: AppContext) {
  async function ownSource(userId: string, id: string): Promise<WritableSource> {
    const [row] = await ctx.sql<WritableSource[]>`SELECT id, kind FROM catalogue_sources WHERE id = ${idOf(id, SOURCE_NOT_FOUND)} AND user_id = ${userId}`;
    if (!row) throw new DomainError(SOURCE_NOT_FOUND, 404);
    return row;
  }

  return new Elysia({ prefix: '/api/catalogue/sources' })
    .use(authentication(ctx))
    .get(
      '/:id/write-access',
      async ({ userId, params }): Promise<StoreAccessState> => {
        const source = await ownSource(userId, params.id);
        if (source.kind === 'merchant-feed') return { connected: false, description: null };
        return storeAccessState(ctx.sql, source.id);
      },
      { signedIn: true },
    )
    .put(
      '/:id/write-access',
      async ({ userId, params, body }): Promise<StoreAccessState> => {
        const source = await ownSource(userId, params.id);
        if (source.kind === 'merchant-feed') throw new DomainError(MERCHANT_FEED_NOT_WRITABLE, 400);
        const access = parseStoreAccess(source.kind, body);
        await saveStoreAccess(ctx.sql, source.id, userId, access);
        return { connected: true, description: describeStoreAccess(access) };
      },
      { signedIn: true },
    )
    .delete(
      '/:id/write-access',
      async ({ userId, params }): Promise<StoreAccessState> => {
        const source = await ownSource(userId, params.id);
        await removeStoreAccess(ctx.sql, source.id, userId);
        return { connected: false, description: null };
      },
      { signedIn: true },
    );
}
