import type { Sql } from '../../db/index.ts';
import type { Config } from '../config.ts';
import { hostOf } from '../../domain/shops.ts';
import { recommend, type PricedOffer, type PricingRule, type Recommendation } from '../../domain/pricing.ts';
import type { OwnProductRow } from '../../projections/catalogue.ts';
import type { PriceDecisionRow } from '../../projections/pricing.ts';
import { intervalsOf, linkedCompetitors } from '../catalogue/read-model.ts';

/** What became of the last applied price in the owner's store. */
export type StoreState =
  | { state: 'confirmed'; message: string }
  | { state: 'pending'; message: string }
  | { state: 'differs'; message: string; storePrice: number }
  | { state: 'failed'; message: string };

export type Decision = {
  kind: 'applied' | 'dismissed';
  price: number;
  previousPrice: number | null;
  via: PriceDecisionRow['via'];
  at: string;
  evidence: number[];
};

/** One own product with a rule, and what the rule says now (docs/pricing.md#the-recommendation). */
export type RecommendationEntry = {
  ownProductId: string;
  title: string;
  variant: string | null;
  sku: string | null;
  sourceId: string | null;
  cost: number | null;
  rule: PricingRule;
  recommendation: Recommendation;
  /** The last recommendation applied or dismissed. */
  decision: Decision | null;
  /** A `change` the owner has neither applied nor dismissed. */
  waiting: boolean;
  /** After an applied price: whether the store shows it; null before any. */
  store: StoreState | null;
};

type OwnWithRule = OwnProductRow & { rule: PricingRule };
type Facts = { eventPosition: number | null; median30: number | null; changedAt: string | null };

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());
const DAY_MS = 86_400_000;

/**
 * For the given tracked products at `now`: the log position of the observation each price comes
 * from, when the price last changed, and for those that changed within a day the median of their
 * daily closes over the 30 days before today.
 */
export async function competitorFacts(sql: Sql, productIds: readonly string[], now: Date): Promise<Map<string, Facts>> {
  const facts = new Map<string, Facts>();
  if (!productIds.length) return facts;
  const today = now.toISOString().slice(0, 10);
  const since = new Date(now.getTime() - 30 * DAY_MS).toISOString().slice(0, 10);
  const [latest, changes] = await Promise.all([
    // One index probe per product for its latest row: a DISTINCT ON would sort a year of rows each.
    sql<{ product_id: string; event_position: string }[]>`
      SELECT p.id AS product_id, d.event_position FROM unnest(${productIds}::text[]) AS p(id)
      CROSS JOIN LATERAL (SELECT event_position FROM competitor_days WHERE product_id = p.id ORDER BY day DESC LIMIT 1) d`,
    sql<{ product_id: string; changed_at: Date }[]>`
      SELECT p.id AS product_id, c.changed_at FROM unnest(${productIds}::text[]) AS p(id)
      CROSS JOIN LATERAL (SELECT changed_at FROM price_changes WHERE product_id = p.id ORDER BY changed_at DESC LIMIT 1) c`,
  ]);
  for (const id of productIds) facts.set(id, { eventPosition: null, median30: null, changedAt: null });
  for (const r of latest) facts.get(r.product_id)!.eventPosition = Number(r.event_position);
  for (const r of changes) facts.get(r.product_id)!.changedAt = iso(r.changed_at);
  // The median only matters to a price that moved within the last day (domain/pricing.ts isSpike).
  const moved = changes.filter((r) => now.getTime() - new Date(r.changed_at).getTime() <= DAY_MS).map((r) => r.product_id);
  if (moved.length) {
    const medians = await sql<{ product_id: string; median: number }[]>`
      SELECT product_id, percentile_cont(0.5) WITHIN GROUP (ORDER BY price) AS median FROM competitor_days
      WHERE product_id = ANY(${moved}::text[]) AND day >= ${since}::date AND day < ${today}::date GROUP BY product_id`;
    for (const r of medians) facts.get(r.product_id)!.median30 = r.median;
  }
  return facts;
}

type LinkedRow = Awaited<ReturnType<typeof linkedCompetitors>>[number];

/** Linked competitors as a rule reads them. */
function pricedOffers(links: readonly LinkedRow[], facts: Map<string, Facts>, intervalOf: (url: string) => number): PricedOffer[] {
  return links.map((l) => ({
    productId: l.product_id,
    name: l.name,
    host: hostOf(l.url) ?? '',
    price: l.current_price,
    currency: l.currency,
    availability: l.availability,
    lastPriceAt: iso(l.price_updated_at),
    checkIntervalMinutes: intervalOf(l.url),
    ...(facts.get(l.product_id) ?? { eventPosition: null, median30: null, changedAt: null }),
  }));
}

export const ownSide = (row: OwnProductRow) => ({ price: row.price, currency: row.currency, cost: row.cost, regularPrice: row.regular_price });

/** What `rule` (saved or not) recommends for one own product at `now`: the form's live preview. */
export async function previewRecommendation(sql: Sql, config: Config, row: OwnProductRow, rule: PricingRule, now: Date): Promise<Recommendation> {
  const [links, intervalOf] = await Promise.all([linkedCompetitors(sql, row.user_id, row.id), intervalsOf(sql, config, row.user_id)]);
  const facts = await competitorFacts(
    sql,
    links.map((l) => l.product_id),
    now,
  );
  return recommend(rule, ownSide(row), pricedOffers(links, facts, intervalOf), now);
}

function storeStateOf(
  own: OwnProductRow,
  decision: Decision | null,
  write: { ok: boolean; reason: string | null; at: Date } | undefined,
  readAt: Date | null,
): StoreState | null {
  if (decision?.kind !== 'applied') return null;
  if (Math.abs(own.price - decision.price) < 1e-9) return { state: 'confirmed', message: 'Your store shows the applied price.' };
  const appliedAt = Date.parse(decision.at);
  if (write && !write.ok && write.at.getTime() >= appliedAt) return { state: 'failed', message: write.reason ?? 'The store did not take the price.' };
  if (readAt && readAt.getTime() > appliedAt) return { state: 'differs', message: 'Applied, but the store still shows another price.', storePrice: own.price };
  if (!own.source_id) return { state: 'pending', message: 'Applied: export the new prices and upload them to your store.' };
  return { state: 'pending', message: "Applied: waiting for your store's next read to confirm it." };
}

/**
 * Every own product of the user with a rule (or the ones in `ids`), with its recommendation at
 * `now`, worked out from the read models as the catalogue's positions are.
 */
export async function readRecommendations(
  sql: Sql,
  config: Config,
  userId: string,
  opts: { now?: Date; ids?: readonly string[] } = {},
): Promise<RecommendationEntry[]> {
  const now = opts.now ?? new Date();
  const one = opts.ids?.length === 1 ? opts.ids[0] : undefined;
  const [rows, links, intervalOf] = await Promise.all([
    sql<OwnWithRule[]>`
      SELECT o.*, r.rule FROM own_products o JOIN pricing_rules r ON r.own_product_id = o.id
      WHERE o.user_id = ${userId} ${opts.ids ? sql`AND o.id = ANY(${opts.ids as string[]}::text[])` : sql``}
      ORDER BY lower(o.title), o.variant NULLS FIRST, o.id`,
    linkedCompetitors(sql, userId, one),
    intervalsOf(sql, config, userId),
  ]);
  if (!rows.length) return [];
  const ownIds = rows.map((r) => r.id);
  const [facts, decisions, writes, reads] = await Promise.all([
    competitorFacts(sql, [...new Set(links.map((l) => l.product_id))], now),
    sql<PriceDecisionRow[]>`
      SELECT DISTINCT ON (own_product_id) * FROM price_decisions WHERE own_product_id = ANY(${ownIds}::text[])
      ORDER BY own_product_id, event_position DESC`,
    sql<{ own_product_id: string; ok: boolean; reason: string | null; at: Date }[]>`
      SELECT own_product_id, ok, reason, at FROM store_price_writes WHERE own_product_id = ANY(${ownIds}::text[])`,
    sql<{ source_id: string; read_at: Date | null }[]>`SELECT source_id, read_at FROM catalogue_source_schedule WHERE user_id = ${userId}`,
  ]);
  const byOwn = Map.groupBy(links, (l) => l.own_product_id);
  const offersOf = (id: string) => pricedOffers(byOwn.get(id) ?? [], facts, intervalOf);
  const decisionOf = new Map(decisions.map((d) => [d.own_product_id, d]));
  const writeOf = new Map(writes.map((w) => [w.own_product_id, { ...w, at: new Date(w.at) }]));
  const readOf = new Map(reads.map((r) => [r.source_id, r.read_at ? new Date(r.read_at) : null]));
  return rows.map((row) => {
    const recommendation = recommend(row.rule, ownSide(row), offersOf(row.id), now);
    const d = decisionOf.get(row.id);
    const decision: Decision | null = d
      ? { kind: d.kind, price: d.price, previousPrice: d.previous_price, via: d.via, at: iso(d.at)!, evidence: d.evidence.map(Number) }
      : null;
    // Decided already: the same price applied (waiting for the store) or turned down.
    const decided = decision !== null && recommendation.price !== null && Math.abs(decision.price - recommendation.price) < 1e-9;
    return {
      ownProductId: row.id,
      title: row.title,
      variant: row.variant,
      sku: row.sku,
      sourceId: row.source_id,
      cost: row.cost,
      rule: row.rule,
      recommendation,
      decision,
      waiting: recommendation.status === 'change' && !decided,
      store: storeStateOf(row, decision, writeOf.get(row.id), row.source_id ? (readOf.get(row.source_id) ?? null) : null),
    };
  });
}
