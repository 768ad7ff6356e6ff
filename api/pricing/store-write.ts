import type { AppContext } from '../context.ts';
import { handleCommand } from '../../events/decider.ts';
import { appendedCheckpoint } from '../../events/store.ts';
import { ownProductDecider, ownProductStream } from '../../events/own-product.ts';
import { readSettings } from '../settings/routes.ts';
import { fetchOptionsFor } from '../checks/check.ts';
import { sharedFetcher, type Fetcher } from '../fetching/fetcher.ts';
import { watchingBlocks } from '../fetching/host-backoff.ts';
import { readStoreAccess } from '../catalogue/store-access.ts';
import { writeStorePrice } from '../catalogue/sources/write-price.ts';
import { PROJECTION_WAIT_MS } from '../catalogue/sync.ts';
import type { SourceKind } from '../catalogue/sources/read-source.ts';

type Pending = {
  own_product_id: string;
  user_id: string;
  external_id: string;
  price: number;
  currency: string;
  source_id: string;
  kind: SourceKind;
  url: string;
};

/**
 * Writes applied prices to the owner's store where they gave write access: each applied
 * decision whose price the store does not show yet and that has not been tried since it was
 * applied. The outcome is recorded on the own product (StorePriceWritten or StorePriceWriteFailed
 * with the store's reason); a failure is not retried by itself: the owner sees why, and applies again.
 * Writes to one store go one after another, as polite as its reads.
 */
export async function writeAppliedPrices(ctx: AppContext, userId?: string, fetcher: Fetcher = sharedFetcher): Promise<number> {
  const pending = await ctx.sql<Pending[]>`
    SELECT o.id AS own_product_id, o.user_id, o.external_id, d.price, o.currency, s.id AS source_id, s.kind, s.url
    FROM (SELECT DISTINCT ON (own_product_id) * FROM price_decisions ${userId ? ctx.sql`WHERE user_id = ${userId}` : ctx.sql``}
          ORDER BY own_product_id, event_position DESC) d
    JOIN own_products o ON o.id = d.own_product_id
    JOIN catalogue_sources s ON s.id = o.source_id AND s.kind IN ('shopify', 'woocommerce')
    JOIN catalogue_source_access a ON a.source_id = s.id AND a.user_id = o.user_id
    LEFT JOIN store_price_writes w ON w.own_product_id = o.id AND w.at >= d.at
    WHERE d.kind = 'applied' AND o.price <> d.price AND w.own_product_id IS NULL
    ORDER BY s.id, o.id`;
  const bySource = Map.groupBy(pending, (p) => p.source_id);
  await Promise.all(
    [...bySource.values()].map(async (items) => {
      const { source_id, kind, url, user_id } = items[0]!;
      const access = await readStoreAccess(ctx.sql, source_id);
      if (!access) return;
      const { currency: fallbackCurrency } = await readSettings(ctx.sql, user_id);
      const deps = { fetcher: watchingBlocks(ctx.sql, fetcher), fetchOptions: fetchOptionsFor(ctx.config, url), fallbackCurrency };
      for (const item of items) {
        const result = await writeStorePrice(deps, { kind: kind as 'shopify' | 'woocommerce', url }, access, item.external_id, item.price, item.currency);
        const { appended } = await handleCommand(ctx.store, ownProductStream(item.own_product_id), ownProductDecider, {
          type: 'RecordStoreWrite',
          ownProductId: item.own_product_id,
          userId: item.user_id,
          sourceId: source_id,
          price: item.price,
          failure: result.ok ? null : { reason: result.reason, httpStatus: result.httpStatus },
          at: new Date().toISOString(),
        });
        const checkpoint = appendedCheckpoint(appended);
        if (checkpoint) await ctx.projections.waitFor(checkpoint, PROJECTION_WAIT_MS);
      }
    }),
  );
  return pending.length;
}
