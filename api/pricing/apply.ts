import type { AppContext } from '../context.ts';
import { DomainError, handleCommand, handleCommandsOnStreams } from '../../events/decider.ts';
import { appendedCheckpoint, type Checkpoint } from '../../events/store.ts';
import { ownProductDecider, ownProductStream, NO_PRICING_RULE, OWN_PRODUCT_NOT_FOUND, type OwnProductCommand } from '../../events/own-product.ts';
import { formatMoney } from '../../domain/money.ts';
import { effectivePlan, withUserProducts } from '../products/limit.ts';
import { readCatalogueSettings } from '../catalogue/read-model.ts';
import { PROJECTION_WAIT_MS } from '../catalogue/sync.ts';
import { readRecommendations, type RecommendationEntry } from './read-model.ts';
import { writeAppliedPrices } from './store-write.ts';

const evidenceOf = (entry: RecommendationEntry) => entry.recommendation.evidence.flatMap((e) => (e.eventPosition === null ? [] : [e.eventPosition]));

async function waitFor(ctx: AppContext, checkpoint: Checkpoint | null) {
  if (checkpoint) await ctx.projections.waitFor(checkpoint, PROJECTION_WAIT_MS);
}

/** The recommendation of one own product of the user, or 404 (not theirs, or no rule). */
export async function recommendationOf(ctx: AppContext, userId: string, ownProductId: string, now = new Date()): Promise<RecommendationEntry> {
  const [entry] = await readRecommendations(ctx.sql, ctx.config, userId, { ids: [ownProductId], now });
  if (entry) return entry;
  const [own] = await ctx.sql`SELECT 1 FROM own_products WHERE id = ${ownProductId} AND user_id = ${userId}`;
  throw new DomainError(own ? NO_PRICING_RULE : OWN_PRODUCT_NOT_FOUND, 404);
}

function assertChange(entry: RecommendationEntry, expectedPrice: number | undefined) {
  const { recommendation: rec } = entry;
  if (rec.status !== 'change') throw new DomainError(`There is nothing to apply: the rule says ${rec.status === 'keep' ? 'keep your price' : 'hold'}.`, 409);
  if (expectedPrice !== undefined && Math.abs(expectedPrice - rec.price!) > 1e-9) {
    throw new DomainError(`The recommendation changed: it is now ${formatMoney(rec.price!, rec.currency)}.`, 409, 'price');
  }
}

/** Applies or dismisses one product's `change` recommendation, as the owner saw it. */
export async function decideOne(ctx: AppContext, userId: string, ownProductId: string, kind: 'apply' | 'dismiss', expectedPrice?: number) {
  const entry = await recommendationOf(ctx, userId, ownProductId);
  assertChange(entry, expectedPrice);
  const at = new Date().toISOString();
  const price = entry.recommendation.price!;
  const command: OwnProductCommand =
    kind === 'apply'
      ? { type: 'Apply', ownProductId, userId, price, via: 'hand', evidence: evidenceOf(entry), at }
      : { type: 'Dismiss', ownProductId, userId, price, at };
  await decide(ctx, command);
}

/** Records one decision; an applied price is written to the store while the owner waits, so the answer says whether it took it. */
async function decide(ctx: AppContext, command: OwnProductCommand) {
  const { appended } = await handleCommand(ctx.store, ownProductStream(command.ownProductId), ownProductDecider, command);
  await waitFor(ctx, appendedCheckpoint(appended));
  if (command.type === 'Apply') await writeAppliedPrices(ctx, command.userId);
}

/** Sets the price an applied recommendation replaced back (the automatic mode's changes are undoable). */
export async function undoLast(ctx: AppContext, userId: string, ownProductId: string) {
  const entry = await recommendationOf(ctx, userId, ownProductId);
  const last = entry.decision;
  if (last?.kind !== 'applied' || last.via === 'undo' || last.previousPrice === null) {
    throw new DomainError('There is no applied price to undo.', 409);
  }
  const command: OwnProductCommand = {
    type: 'Apply',
    ownProductId,
    userId,
    price: last.previousPrice,
    via: 'undo',
    evidence: [],
    at: new Date().toISOString(),
  };
  await decide(ctx, command);
}

/**
 * Applies every waiting `change` of the user (or those of `ids`), in one append per 500. With
 * `automatic`, only where the product has not changed `dailyChangeCap` times by itself in the last day.
 */
export async function applyWaiting(ctx: AppContext, userId: string, opts: { ids?: readonly string[]; automatic?: boolean } = {}): Promise<number> {
  return withUserProducts(ctx.sql, userId, async (tx) => {
    const now = new Date();
    let waiting = (await readRecommendations(tx, ctx.config, userId, { ids: opts.ids, now })).filter((e) => e.waiting);
    if (opts.automatic) {
      const { dailyChangeCap } = await readCatalogueSettings(tx, userId);
      const recent = await tx<{ own_product_id: string; n: number }[]>`
        SELECT own_product_id, count(*)::int AS n FROM price_decisions
        WHERE user_id = ${userId} AND via = 'automatic' AND at > ${new Date(now.getTime() - 86_400_000)} GROUP BY own_product_id`;
      const used = new Map(recent.map((r) => [r.own_product_id, r.n]));
      waiting = waiting.filter((e) => (used.get(e.ownProductId) ?? 0) < dailyChangeCap);
    }
    const at = now.toISOString();
    const via = opts.automatic ? ('automatic' as const) : ('hand' as const);
    const commands: OwnProductCommand[] = waiting.map((e) => ({
      type: 'Apply',
      ownProductId: e.ownProductId,
      userId,
      price: e.recommendation.price!,
      via,
      evidence: evidenceOf(e),
      at,
    }));
    let checkpoint: Checkpoint | null = null;
    for (let i = 0; i < commands.length; i += 500) {
      const result = await handleCommandsOnStreams(ctx.store, ownProductDecider, (c) => ownProductStream(c.ownProductId), commands.slice(i, i + 500), tx);
      checkpoint = result.checkpoint ?? checkpoint;
    }
    return { count: commands.length, checkpoint };
  }).then(async ({ count, checkpoint }) => {
    await waitFor(ctx, checkpoint);
    // Many prices: written in the background (and by the job if this process stops first).
    if (count) writeAppliedPrices(ctx, userId).catch((err) => console.error('writing applied prices:', err));
    return count;
  });
}

/** The automatic mode: every user who turned it on (and whose plan has it) gets their waiting changes applied. */
export async function applyAutomatically(ctx: AppContext): Promise<void> {
  const users = await ctx.sql<{ user_id: string }[]>`
    SELECT s.user_id FROM catalogue_settings s WHERE s.auto_apply AND EXISTS (SELECT 1 FROM pricing_rules r WHERE r.user_id = s.user_id)`;
  for (const { user_id } of users) {
    if (!(await effectivePlan(ctx.sql, user_id)).automaticRepricing) continue;
    await applyWaiting(ctx, user_id, { automatic: true });
  }
}
