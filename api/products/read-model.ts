import type { Sql } from '../../db/index.ts';
import type { AlertRule, Availability, ObservedVariant } from '../../events/catalogue.ts';
import { DEFAULT_SETTINGS } from '../../events/settings.ts';
import { priceSourceOf, type PriceSource } from '../reading/price-source.ts';
import { productsBeyondPlan } from './beyond-plan.ts';

/** A product as GET /api/products lists it. */
export type ProductItem = {
  id: string;
  name: string;
  url: string;
  selector: string;
  /** Percent drop that raises an alert; null when the rule is 'none' or 'any' (see alertRule). */
  threshold: number | null;
  alertRule: AlertRule;
  /** The last good price: a failed check never changes it. */
  currentPrice: number | null;
  /** When the current price was read or typed in. */
  lastPriceAt: string | null;
  /** Where the current price came from; null while there is none. */
  priceSource: PriceSource | null;
  /** The regular (struck-through, compare-at, was) price beside the current one; null when the page states none. */
  regularPrice: number | null;
  /** The variant of the page's product the price is of ({options: {size: "XL", colour: "Red"}}); null when the page names none. */
  variant: ObservedVariant | null;
  /**
   * ISO 4217 code of the product's prices: the one its page states, else the user's currency
   * setting (also the currency a price typed in by hand is recorded in).
   */
  currency: string;
  imageUrl: string | null;
  /** The last check, successful or not, or the last price typed in. */
  lastChecked: string | null;
  /** Change over the last 24 hours in percent, positive for a rise; null while the product has no price. */
  changePercent: number | null;
  /** False after several failed checks in a row, true again after the next successful one. */
  isActive: boolean;
  lastCheckStatus: 'ok' | 'failed' | null;
  lastCheckError: string | null;
  /** 'pending' until the first check, then whether the last check found a price. */
  checkStatus: 'pending' | 'ok' | 'failing';
  /** The last failed check while checks are failing (null once one succeeds). */
  lastFailure: { code: string; message: string; at: string } | null;
  createdAt: string;
  /** The last availability a page stated (schema.org ItemAvailability); null while none has. */
  availability: Availability | null;
  /** Alerts when the product goes out of stock or comes back. */
  stockAlerts: boolean;
  /** Beyond the plan's product limit: kept, but not checked until the owner upgrades or removes others (beyond-plan.ts). */
  checksPaused: boolean;
};

type Row = {
  id: string;
  name: string;
  url: string;
  selector: string;
  alert_rule: AlertRule;
  threshold: number | null;
  current_price: number | null;
  currency: string;
  image_url: string | null;
  last_checked: Date | null;
  price_updated_at: Date | null;
  price_source: string | null;
  regular_price: number | null;
  variant: ObservedVariant | null;
  is_active: boolean;
  last_check_status: 'ok' | 'failed' | null;
  last_check_error: string | null;
  created_at: Date;
  last_check_at: Date | null;
  last_failure_code: string | null;
  availability: Availability | null;
  stock_alerts: boolean;
  baseline: number | null;
  checks_paused: boolean;
};

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Percent from the baseline to the current price; null without a price, or from a price of 0 (no percent of nothing). */
function changeOf(baseline: number | null, current: number | null): number | null {
  if (current === null || baseline === null) return null;
  if (current === baseline) return 0;
  return baseline > 0 ? Math.round(((current - baseline) / baseline) * 10_000) / 100 : null;
}

function toItem(row: Row): ProductItem {
  const { current_price: current, baseline } = row;
  return {
    id: row.id,
    name: row.name,
    url: row.url,
    selector: row.selector,
    threshold: row.threshold,
    alertRule: row.alert_rule,
    currentPrice: current,
    lastPriceAt: iso(row.price_updated_at),
    priceSource: priceSourceOf(row.price_source),
    // A was-price only stands beside the price it was stated with, and only above it.
    regularPrice: current !== null && row.regular_price !== null && row.regular_price > current ? row.regular_price : null,
    variant: row.variant,
    currency: row.currency,
    imageUrl: row.image_url,
    lastChecked: iso(row.last_checked),
    changePercent: changeOf(baseline, current),
    isActive: row.is_active,
    lastCheckStatus: row.last_check_status,
    lastCheckError: row.last_check_error,
    checkStatus: row.last_check_status === null ? 'pending' : row.last_check_status === 'ok' ? 'ok' : 'failing',
    lastFailure:
      row.last_check_status === 'failed'
        ? { code: row.last_failure_code ?? 'failed', message: row.last_check_error ?? 'The last price check failed.', at: iso(row.last_check_at)! }
        : null,
    createdAt: row.created_at.toISOString(),
    availability: row.availability,
    stockAlerts: row.stock_alerts,
    checksPaused: row.checks_paused,
  };
}

/**
 * The user's products, newest first (an import's, added in one moment, by their time-ordered ids), or the one product `productId` of that user.
 *
 * The 24h change compares the current price with the price in effect 24 hours ago, or with the
 * first price for a product first priced since: both are the previous price of the product's
 * first price change in the last 24 hours, and without such a change the price did not move.
 * That is one range scan over the user's recent changes instead of probes per product.
 */
export async function readProducts(db: Sql, userId: string, productId?: string): Promise<ProductItem[]> {
  const rows = await db<Row[]>`
    SELECT p.id, p.name, p.url, p.selector, p.alert_rule, p.threshold, p.current_price, p.image_url,
           coalesce(p.currency, s.currency, ${DEFAULT_SETTINGS.currency}) AS currency, p.price_updated_at, p.price_source, p.regular_price, p.variant,
           p.last_checked, p.is_active, p.last_check_status, p.last_check_error, p.last_check_at, p.last_failure_code,
           p.created_at, p.availability, p.stock_alerts,
           coalesce(first_change.previous_price, p.current_price) AS baseline,
           paused.id IS NOT NULL AS checks_paused
    FROM products p
    LEFT JOIN user_settings s ON s.user_id = p.user_id
    LEFT JOIN (
      SELECT DISTINCT ON (product_id) product_id, previous_price
      FROM price_changes
      WHERE user_id = ${userId} AND changed_at > now() - interval '24 hours'
      ORDER BY product_id, changed_at
    ) first_change ON first_change.product_id = p.id
    LEFT JOIN (${productsBeyondPlan(db, userId)}) paused ON paused.id = p.id
    WHERE p.user_id = ${userId} ${productId === undefined ? db`` : db`AND p.id = ${productId}`}
    ORDER BY p.created_at DESC, p.id DESC`;
  return rows.map(toItem);
}

export async function readProduct(db: Sql, userId: string, productId: string): Promise<ProductItem | null> {
  return (await readProducts(db, userId, productId))[0] ?? null;
}
