import type { AppContext } from '../context.ts';
import type { Sql } from '../../db/index.ts';
import { suggestMatches, type MatchSuggestion } from '../../domain/matching.ts';
import { DomainError, handleCommandsOnStreams } from '../../events/decider.ts';
import { ownProductDecider, ownProductStream, type OwnProductCommand } from '../../events/own-product.ts';
import { withUserProducts } from '../products/limit.ts';
import { readCatalogueSettings } from './read-model.ts';

/**
 * Suggested matches between the owner's products and the competitor products they track
 * (docs/catalogue.md#matching): the same GTIN, the same MPN and brand, or a close title. Pairs
 * already linked or turned down are never suggested.
 */
export async function readMatches(sql: Sql, userId: string): Promise<MatchSuggestion[]> {
  const [own, competitors, decided] = await Promise.all([
    sql<{ id: string; title: string; variant: string | null; gtin: string | null; mpn: string | null; brand: string | null }[]>`
      SELECT id, title, variant, gtin, mpn, brand FROM own_products WHERE user_id = ${userId}`,
    sql<{ productId: string; name: string; gtin: string | null; mpn: string | null; brand: string | null }[]>`
      SELECT p.id AS "productId", p.name, i.gtin, i.mpn, i.brand
      FROM products p LEFT JOIN product_identifiers i ON i.product_id = p.id WHERE p.user_id = ${userId}`,
    sql<{ own_product_id: string; product_id: string }[]>`
      SELECT own_product_id, product_id FROM own_product_links WHERE user_id = ${userId}
      UNION ALL SELECT own_product_id, product_id FROM match_rejections WHERE user_id = ${userId}`,
  ]);
  if (!own.length || !competitors.length) return [];
  const excluded = new Set(decided.map((d) => `${d.own_product_id} ${d.product_id}`));
  return suggestMatches(own, competitors, (ownProductId, productId) => excluded.has(`${ownProductId} ${productId}`));
}

/**
 * With the owner's setting on, GTIN matches are linked without asking: after every import or read
 * of a store, and when the setting is turned on. Answers how many were linked.
 */
export async function linkGtinMatches(ctx: AppContext, userId: string): Promise<number> {
  if (!(await readCatalogueSettings(ctx.sql, userId)).autoAcceptGtin) return 0;
  const gtin = (await readMatches(ctx.sql, userId)).filter((m) => m.reason === 'gtin');
  if (!gtin.length) return 0;
  const commands: OwnProductCommand[] = gtin.map((m) => ({ type: 'Link', ownProductId: m.ownProductId, userId, productId: m.productId, via: 'gtin' }));
  try {
    const { events, checkpoint } = await withUserProducts(ctx.sql, userId, (tx) =>
      handleCommandsOnStreams(ctx.store, ownProductDecider, (c) => ownProductStream(c.ownProductId), commands, tx),
    );
    if (checkpoint) await ctx.projections.waitFor(checkpoint);
    return events.length;
  } catch (err) {
    // An own product or competitor removed since the suggestions were read: the next run links the rest.
    if (err instanceof DomainError && err.status === 404) return 0;
    throw err;
  }
}
