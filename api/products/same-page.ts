import type { Sql } from '../../db/index.ts';
import { DomainError } from '../../events/decider.ts';
import { PRODUCT_NOT_FOUND } from '../../events/product.ts';
import { normaliseAddress } from './address.ts';
import type { ReadFrom } from './recheck.ts';

export const alreadyTrackedMessage = (name: string) => `You already track this page: ${name}`;

/**
 * 409 when another live product of the user tracks the same page (addresses compared normalised,
 * see address.ts). Another user may track the same page. Read from the log, not from the read
 * model, which may not yet show an add that has just committed; run inside `withUserProducts`
 * so two requests cannot both pass it. `editing`: the product being edited, which may keep its
 * own address; another user's or a removed product is not found (404), as the edit would be.
 * Answers the edited product's address and selector before the edit.
 */
export async function assertPageNotTracked(tx: Sql, userId: string, url: string, editing?: string): Promise<ReadFrom | null> {
  const wanted = normaliseAddress(url);
  const live = await liveProducts(tx, userId);
  const edited = editing === undefined ? null : live.find((p) => p.id === editing);
  if (edited === undefined) throw new DomainError(PRODUCT_NOT_FOUND, 404);
  const same = live.find((p) => p.id !== editing && p.url !== null && normaliseAddress(p.url) === wanted);
  if (same) throw new DomainError(alreadyTrackedMessage(same.name), 409, 'url');
  return edited?.url != null ? { url: edited.url, selector: edited.selector ?? '' } : null;
}

/** The user's live products as the log has them (see assertPageNotTracked for why the log). */
export async function liveProducts(tx: Sql, userId: string): Promise<{ id: string; name: string; url: string | null; selector: string | null }[]> {
  // Each product's last lifecycle event carries its current name, address and selector (or says it is gone).
  const products = await tx<{ type: string; id: string; name: string; url: string | null; selector: string | null }[]>`
    SELECT DISTINCT ON (stream_id) type, data->>'productId' AS id, data->>'name' AS name, data->>'url' AS url, data->>'selector' AS selector
    FROM events
    WHERE data->>'userId' = ${userId} AND type IN ('ProductAdded', 'ProductEdited', 'ProductRemoved')
    ORDER BY stream_id, stream_version DESC`;
  return products.filter((p) => p.type !== 'ProductRemoved').map(({ id, name, url, selector }) => ({ id, name, url, selector }));
}
