import type { Sql } from '../../db/index.ts';
import type { Config } from '../config.ts';
import { hostOf } from '../../domain/shops.ts';
import {
  exclusionSummary,
  positionOf,
  summarisePositions,
  type PositionSummary,
  type Availability,
  type Band,
  type CompetitorOffer,
  type JudgedOffer,
  type Position,
} from '../../domain/position.ts';
import { DEFAULT_CATALOGUE_SETTINGS, type CatalogueSettings } from '../../events/catalogue-source.ts';
import type { OwnProductRow } from '../../projections/catalogue.ts';
import { effectivePlan } from '../products/limit.ts';
import { checkIntervalMinutes } from '../checks/schedule.ts';
import { isDemoShopUrl } from '../demo-shop/address.ts';
import type { CheckFrequencySetting } from '../../events/settings.ts';

/** One own product as the catalogue lists it (docs/catalogue.md#the-list). */
export type CatalogueEntry = {
  id: string;
  title: string;
  variant: string | null;
  sku: string | null;
  gtin: string | null;
  mpn: string | null;
  brand: string | null;
  price: number;
  currency: string;
  regularPrice: number | null;
  cost: number | null;
  url: string | null;
  imageUrl: string | null;
  availability: string | null;
  sourceId: string | null;
  priceChangedAt: string;
  /** When a competitor last went below the owner's price; null when none has. */
  undercutAt: string | null;
  competitors: (JudgedOffer & { url: string; lastPriceAt: string | null })[];
  position: Position | null;
  /** "based on 3 of 5: 1 stale, 1 out of stock"; null with no linked competitor. */
  basis: string | null;
};

export type BandFilter = Band | 'unpositioned';

const iso = (d: Date | string | null) => (d === null ? null : typeof d === 'string' ? new Date(d).toISOString() : d.toISOString());

export async function readCatalogueSettings(sql: Sql, userId: string): Promise<CatalogueSettings> {
  const [row] = await sql<{ competitive_percent: number; auto_accept_gtin: boolean; auto_apply: boolean; daily_change_cap: number }[]>`
    SELECT competitive_percent, auto_accept_gtin, auto_apply, daily_change_cap FROM catalogue_settings WHERE user_id = ${userId}`;
  return row
    ? { competitivePercent: row.competitive_percent, autoAcceptGtin: row.auto_accept_gtin, autoApply: row.auto_apply, dailyChangeCap: row.daily_change_cap }
    : DEFAULT_CATALOGUE_SETTINGS;
}

/** Minutes between a user's scheduled checks: the plan's interval, or the slower one the user chose. */
export async function userCheckMinutes(sql: Sql, config: Config, userId: string): Promise<number> {
  const plan = await effectivePlan(sql, userId);
  const [settings] = await sql<{ check_frequency: CheckFrequencySetting }[]>`SELECT check_frequency FROM user_settings WHERE user_id = ${userId}`;
  return checkIntervalMinutes(
    { plan: plan.id, checkFrequency: settings?.check_frequency ?? null, demoShop: false },
    { demoCheckMinutes: config.demoCheckMinutes },
  );
}

/** Minutes between the checks of a user's competitor product: what decides whether its price is still fresh. */
export async function intervalsOf(sql: Sql, config: Config, userId: string): Promise<(url: string) => number> {
  const normal = await userCheckMinutes(sql, config, userId);
  return (url) => (isDemoShopUrl(config, url) ? config.demoCheckMinutes : normal);
}

type LinkedRow = {
  own_product_id: string;
  product_id: string;
  name: string;
  url: string;
  current_price: number | null;
  currency: string | null;
  availability: Availability | null;
  price_updated_at: Date | string | null;
};

/** The linked competitors of a user's own products (or of one), as the read models know them now. */
export async function linkedCompetitors(sql: Sql, userId: string, ownProductId?: string): Promise<LinkedRow[]> {
  return sql<LinkedRow[]>`
    SELECT l.own_product_id, p.id AS product_id, p.name, p.url, p.current_price, p.currency, p.availability, p.price_updated_at
    FROM own_product_links l JOIN products p ON p.id = l.product_id
    WHERE l.user_id = ${userId} ${ownProductId ? sql`AND l.own_product_id = ${ownProductId}` : sql``}
    ORDER BY l.linked_at, p.id`;
}

/**
 * The catalogue with every product's position at `now`: few enough rows per user (thousands) to
 * judge them all in one pass, which the band counts need anyway.
 */
export async function readCatalogue(
  sql: Sql,
  config: Config,
  userId: string,
  opts: { now?: Date; id?: string; band?: BandFilter; q?: string } = {},
): Promise<CatalogueEntry[]> {
  const now = opts.now ?? new Date();
  const [rows, links, settings, intervalOf] = await Promise.all([
    sql<OwnProductRow[]>`
      SELECT * FROM own_products WHERE user_id = ${userId} ${opts.id ? sql`AND id = ${opts.id}` : sql``}
      ORDER BY lower(title), variant NULLS FIRST, id`,
    linkedCompetitors(sql, userId, opts.id),
    readCatalogueSettings(sql, userId),
    intervalsOf(sql, config, userId),
  ]);
  const byOwn = Map.groupBy(links, (l) => l.own_product_id);
  const q = opts.q?.trim().toLowerCase();
  const entries: CatalogueEntry[] = [];
  for (const row of rows) {
    if (q && !row.title.toLowerCase().includes(q) && !(row.sku ?? '').toLowerCase().includes(q) && !(row.variant ?? '').toLowerCase().includes(q)) continue;
    const offers: (CompetitorOffer & { url: string })[] = (byOwn.get(row.id) ?? []).map((l) => ({
      productId: l.product_id,
      name: l.name,
      host: hostOf(l.url) ?? '',
      url: l.url,
      price: l.current_price,
      currency: l.currency,
      availability: l.availability,
      lastPriceAt: iso(l.price_updated_at),
      checkIntervalMinutes: intervalOf(l.url),
    }));
    const judged = positionOf({ price: row.price, currency: row.currency }, offers, { now, competitivePercent: settings.competitivePercent });
    const band: BandFilter = judged.position?.band ?? 'unpositioned';
    if (opts.band && opts.band !== band) continue;
    entries.push({
      id: row.id,
      title: row.title,
      variant: row.variant,
      sku: row.sku,
      gtin: row.gtin,
      mpn: row.mpn,
      brand: row.brand,
      price: row.price,
      currency: row.currency,
      regularPrice: row.regular_price,
      cost: row.cost,
      url: row.url,
      imageUrl: row.image_url,
      availability: row.availability,
      sourceId: row.source_id,
      priceChangedAt: iso(row.price_changed_at)!,
      undercutAt: iso(row.undercut_at),
      competitors: judged.offers as CatalogueEntry['competitors'],
      position: judged.position,
      basis: offers.length ? exclusionSummary(judged.offers) : null,
    });
  }
  return entries;
}

/** The catalogue in figures (GET /api/position): the price index, the counts per band, and the products undercut in the last day. */
export async function readPositionSummary(sql: Sql, config: Config, userId: string, now = new Date()): Promise<PositionSummary & { undercutLast24h: number }> {
  const entries = await readCatalogue(sql, config, userId, { now });
  const since = now.getTime() - 86_400_000;
  return {
    ...summarisePositions(entries.map((e) => ({ ownPrice: e.price, position: e.position }))),
    undercutLast24h: entries.filter((e) => e.undercutAt !== null && Date.parse(e.undercutAt) >= since).length,
  };
}
