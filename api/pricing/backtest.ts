import type { Sql } from '../../db/index.ts';
import type { Config } from '../config.ts';
import { hostOf } from '../../domain/shops.ts';
import { backtest, dayOf, type Backtest, type BacktestCompetitor, type DailyClose } from '../../domain/backtest.ts';
import type { Availability } from '../../domain/position.ts';
import type { PricingRule } from '../../domain/pricing.ts';
import type { OwnProductRow } from '../../projections/catalogue.ts';
import { rangeStart, type TimeFilter } from '../history/series.ts';
import { intervalsOf, linkedCompetitors, readCatalogueSettings } from '../catalogue/read-model.ts';

const DAY_MS = 86_400_000;

type CloseRow = {
  product_id: string;
  day: string;
  price: number;
  currency: string | null;
  availability: Availability | null;
  last_at: Date;
  event_position: string;
};

/**
 * What `rule` would have done for one own product over `filter` (30, 90 or 365 days): the
 * competitors' daily closes from the month before the range on (their 30-day medians need it),
 * and the owner's own prices, replayed through the pure backtest.
 */
export async function runBacktest(sql: Sql, config: Config, own: OwnProductRow, rule: PricingRule, filter: TimeFilter, now = new Date()): Promise<Backtest> {
  const from = rangeStart(filter, now) ?? new Date(now.getTime() - 365 * DAY_MS);
  const [links, settings, intervalOf, ownRows] = await Promise.all([
    linkedCompetitors(sql, own.user_id, own.id),
    readCatalogueSettings(sql, own.user_id),
    intervalsOf(sql, config, own.user_id),
    sql<{ at: Date; price: number }[]>`SELECT at, price FROM own_price_points WHERE own_product_id = ${own.id} ORDER BY at, event_position`,
  ]);
  const ids = links.map((l) => l.product_id);
  const closes = ids.length
    ? await sql<CloseRow[]>`
        SELECT product_id, to_char(day, 'YYYY-MM-DD') AS day, price, currency, availability, last_at, event_position FROM competitor_days
        WHERE product_id = ANY(${ids}::text[]) AND day >= ${dayOf(from.getTime() - 31 * DAY_MS)}::date
        ORDER BY product_id, day`
    : [];
  const byProduct = Map.groupBy(closes, (c) => c.product_id);
  const competitors: BacktestCompetitor[] = links.map((l) => ({
    productId: l.product_id,
    name: l.name,
    host: hostOf(l.url) ?? '',
    checkIntervalMinutes: intervalOf(l.url),
    closes: (byProduct.get(l.product_id) ?? []).map(
      (c): DailyClose => ({
        day: c.day,
        price: c.price,
        currency: c.currency,
        availability: c.availability,
        lastAt: new Date(c.last_at).toISOString(),
        eventPosition: Number(c.event_position),
      }),
    ),
  }));
  return backtest({
    rule,
    own: { currency: own.currency, cost: own.cost, regularPrice: own.regular_price },
    ownPoints: ownRows.map((r) => ({ at: new Date(r.at).getTime(), price: r.price })),
    competitors,
    from: dayOf(from.getTime()),
    now,
    competitivePercent: settings.competitivePercent,
  });
}
