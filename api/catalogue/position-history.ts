import type { Sql } from '../../db/index.ts';
import type { Config } from '../config.ts';
import { positionOf, type CompetitorOffer } from '../../domain/position.ts';
import { hostOf } from '../../domain/shops.ts';
import { MAX_CHART_POINTS, rangeStart, type TimeFilter } from '../history/series.ts';
import { intervalsOf, linkedCompetitors, readCatalogueSettings } from './read-model.ts';

/** The owner's price against the counted competitors' cheapest and average at one moment. */
export type PositionPoint = { at: string; price: number; cheapest: number | null; average: number | null; counted: number };

type Point = { at: number; price: number; currency: string | null };

/** The last point at or before `t` of a time-ordered list, moving `cursor` forward only. */
function lastUpTo(points: readonly Point[], t: number, cursor: { i: number }): Point | null {
  while (cursor.i + 1 < points.length && points[cursor.i + 1]!.at <= t) cursor.i++;
  return cursor.i >= 0 && points[cursor.i]!.at <= t ? points[cursor.i]! : null;
}

/**
 * How the owner stood over a range, rebuilt from the price points of the log: at every moment a
 * price changed (the owner's or a linked competitor's), the same judgement as today's position
 * (currency, freshness at that moment) over the prices known then. Stock is not in the price
 * points, so a past position counts every competitor that had a fresh price. Null when the own
 * product is not the user's.
 */
export async function readPositionHistory(
  sql: Sql,
  config: Config,
  userId: string,
  ownProductId: string,
  filter: TimeFilter,
  now = new Date(),
): Promise<PositionPoint[] | null> {
  const [own] = await sql<{ id: string }[]>`SELECT id FROM own_products WHERE id = ${ownProductId} AND user_id = ${userId}`;
  if (!own) return null;
  const [links, settings, intervalOf, ownRows] = await Promise.all([
    linkedCompetitors(sql, userId, ownProductId),
    readCatalogueSettings(sql, userId),
    intervalsOf(sql, config, userId),
    sql<
      { at: Date; price: number; currency: string }[]
    >`SELECT at, price, currency FROM own_price_points WHERE own_product_id = ${ownProductId} ORDER BY at, event_position`,
  ]);
  const competitorRows = links.length
    ? await sql<{ product_id: string; observed_at: Date; price: number; currency: string | null }[]>`
        SELECT product_id, observed_at, price, currency FROM price_points WHERE product_id = ANY(${links.map((l) => l.product_id)}::text[])
        ORDER BY observed_at, event_position`
    : [];
  const ownPoints: Point[] = ownRows.map((r) => ({ at: new Date(r.at).getTime(), price: r.price, currency: r.currency }));
  const byCompetitor = new Map<string, Point[]>(links.map((l) => [l.product_id, []]));
  for (const r of competitorRows) byCompetitor.get(r.product_id)?.push({ at: new Date(r.observed_at).getTime(), price: r.price, currency: r.currency });

  const start = rangeStart(filter, now)?.getTime() ?? Number.NEGATIVE_INFINITY;
  const end = now.getTime();
  const moments = [...new Set([...ownPoints, ...competitorRows.map((r) => ({ at: new Date(r.observed_at).getTime() }))].map((p) => p.at))]
    .filter((t) => t >= start && t <= end)
    .sort((a, b) => a - b);
  if (Number.isFinite(start)) moments.unshift(start);
  moments.push(end);

  const ownCursor = { i: -1 };
  const cursors = new Map(links.map((l) => [l.product_id, { i: -1 }]));
  const history: PositionPoint[] = [];
  for (const t of moments) {
    const mine = lastUpTo(ownPoints, t, ownCursor);
    if (!mine?.currency) continue;
    const offers: CompetitorOffer[] = links.map((l) => {
      const seen = lastUpTo(byCompetitor.get(l.product_id)!, t, cursors.get(l.product_id)!);
      return {
        productId: l.product_id,
        name: l.name,
        host: hostOf(l.url) ?? '',
        price: seen?.price ?? null,
        currency: seen?.currency ?? null,
        availability: null,
        lastPriceAt: seen ? new Date(seen.at).toISOString() : null,
        checkIntervalMinutes: intervalOf(l.url),
      };
    });
    const { offers: judged, position } = positionOf({ price: mine.price, currency: mine.currency }, offers, {
      now: new Date(t),
      competitivePercent: settings.competitivePercent,
    });
    history.push({
      at: new Date(t).toISOString(),
      price: mine.price,
      cheapest: position?.cheapest.price ?? null,
      average: position?.average ?? null,
      counted: judged.filter((o) => o.counted).length,
    });
  }
  // Evenly thinned when long: a chart as wide as a screen shows no more.
  if (history.length <= MAX_CHART_POINTS) return history;
  const step = history.length / MAX_CHART_POINTS;
  return Array.from({ length: MAX_CHART_POINTS }, (_, i) => history[Math.min(history.length - 1, Math.round(i * step))]!).concat(history.at(-1)!);
}
