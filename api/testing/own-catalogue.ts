import type { AppContext } from '../context.ts';
import { handleCommandsOnStreams } from '../../events/decider.ts';
import { ownProductDecider, ownProductIdFor, ownProductStream, type OwnItem, type OwnProductCommand } from '../../events/own-product.ts';

/** An own product as a test states it: a title and a price; the rest as a CSV row without extras gives it. */
export const ownItem = (title: string, price: number, extra: Partial<OwnItem> = {}): OwnItem => ({
  title,
  variant: null,
  sku: null,
  gtin: null,
  mpn: null,
  brand: null,
  regularPrice: null,
  cost: null,
  url: null,
  imageUrl: null,
  availability: 'InStock',
  price,
  currency: 'GBP',
  ...extra,
});

/** Runs own product commands as the catalogue's routes do, and waits until the read models show them. */
export async function runOwnCommands(ctx: Pick<AppContext, 'store' | 'projections' | 'sql'>, commands: OwnProductCommand[]) {
  const { checkpoint } = await ctx.sql.begin((tx) =>
    handleCommandsOnStreams(ctx.store, ownProductDecider, (c) => ownProductStream(c.ownProductId), commands, tx as never),
  );
  if (checkpoint) await ctx.projections.waitFor(checkpoint);
}

/** Imports own products as CSV rows keyed by `sku` (the title when none is given); answers their ids in order. */
export async function importOwn(ctx: Pick<AppContext, 'store' | 'projections' | 'sql'>, userId: string, items: OwnItem[], at = new Date().toISOString()) {
  const commands: OwnProductCommand[] = items.map((item) => {
    const externalId = item.sku ?? item.title;
    return { type: 'Import', ownProductId: ownProductIdFor(userId, null, externalId), userId, sourceId: null, externalId, item, at };
  });
  await runOwnCommands(ctx, commands);
  return commands.map((c) => c.ownProductId);
}
