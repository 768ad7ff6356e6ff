import { createHash } from 'node:crypto';
import type { AlertRule, Availability, EventOf } from '../../events/catalogue.ts';
import { DEFAULT_SETTINGS } from '../../events/settings.ts';
import { alertStream, decideAlert, decideStockAlert, type AlertType } from '../../events/alert.ts';
import type { EventStore, NewEvent, RecordedEvent } from '../../events/store.ts';
import type { Projection } from '../../projections/projection.ts';

/**
 * Raises alerts from prices: a reactor, run like a projection (a batch of events and the
 * checkpoint in one transaction) but appending AlertRaised events in that same transaction, so
 * an observation raises its alert exactly once, whether a check is retried or the process
 * crashes. Reactors are never rebuilt: a rebuild would raise every alert again.
 *
 * A price typed in by hand (PriceManuallySet) raises nothing but becomes the reference price.
 * It keeps its own state (each product's rule and last price, each user's drop alert and currency settings)
 * rather than reading the read models, which may be ahead of or behind its checkpoint.
 * A PriceCorrected (a past observation read again by a fixed parser) of the last price becomes
 * the reference for the next one, silently: a parser fix is not a change in the shop.
 * Stock alerts compare a check's availability (PriceObserved or PriceCheckFailed) with the last
 * one a page stated; a check whose page says nothing leaves that as it is.
 */

type Handled =
  | EventOf<'ProductAdded'>
  | EventOf<'ProductEdited'>
  | EventOf<'ProductRemoved'>
  | EventOf<'PriceObserved'>
  | EventOf<'PriceManuallySet'>
  | EventOf<'PriceCorrected'>
  | EventOf<'PriceCheckFailed'>
  | EventOf<'SettingsChanged'>;

type ProductState = {
  product_id: string;
  user_id: string;
  name: string;
  url: string;
  image_url: string | null;
  rule: AlertRule;
  price: number | null;
  currency: string | null;
  /** The event the price comes from. */
  price_position: number | null;
  /** The last availability a page stated; null until one does. */
  availability: Availability | null;
  stock_alerts: boolean;
};

/**
 * A stable id per triggering event and kind: the same observation can only ever name the same
 * alerts, and one observation can raise a price alert and a stock alert.
 */
export function alertIdFor(triggerPosition: number, kind: 'price' | 'stock' = 'price'): string {
  const h = createHash('sha256')
    .update(kind === 'price' ? `alert:${triggerPosition}` : `alert:${triggerPosition}:${kind}`)
    .digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

export function alertRulesReactor(store: EventStore): Projection {
  return {
    name: 'alert-rules',
    tables: ['alert_rule_products', 'alert_rule_settings'],
    ddl: `
      CREATE TABLE IF NOT EXISTS alert_rule_products (
        product_id text PRIMARY KEY,
        user_id    text NOT NULL,
        name       text NOT NULL,
        url        text NOT NULL,
        image_url  text,
        rule       jsonb NOT NULL,
        price      double precision,
        currency   text
      );
      ALTER TABLE alert_rule_products ADD COLUMN IF NOT EXISTS price_position bigint;
      ALTER TABLE alert_rule_products ADD COLUMN IF NOT EXISTS availability text;
      ALTER TABLE alert_rule_products ADD COLUMN IF NOT EXISTS stock_alerts boolean NOT NULL DEFAULT true;
      CREATE TABLE IF NOT EXISTS alert_rule_settings (
        user_id           text PRIMARY KEY,
        price_drop_alerts boolean NOT NULL
      );
      -- The currency a price is written in when its page stated none; rows from before learn it from the log.
      ALTER TABLE alert_rule_settings ADD COLUMN IF NOT EXISTS currency text;
      UPDATE alert_rule_settings s SET currency = (
          SELECT e.data->'settings'->>'currency' FROM events e
          WHERE e.stream_id = 'user-' || s.user_id AND e.type = 'SettingsChanged' ORDER BY e.stream_version DESC LIMIT 1)
        WHERE s.currency IS NULL;`,
    appends: true,
    handles: ['ProductAdded', 'ProductEdited', 'ProductRemoved', 'PriceObserved', 'PriceManuallySet', 'PriceCorrected', 'PriceCheckFailed', 'SettingsChanged'],

    async apply(tx, recorded) {
      const events = recorded as RecordedEvent<Handled>[];
      const productIds = [...new Set(events.flatMap((e) => (e.type === 'SettingsChanged' ? [] : [e.data.productId])))];
      const userIds = [...new Set(events.map((e) => e.data.userId))];
      const products = new Map(
        (await tx<ProductState[]>`SELECT * FROM alert_rule_products WHERE product_id = ANY(${productIds}::text[])`).map((p) => [p.product_id, p]),
      );
      const settings = new Map(
        (
          await tx<{ user_id: string; price_drop_alerts: boolean; currency: string | null }[]>`
        SELECT * FROM alert_rule_settings WHERE user_id = ANY(${userIds}::text[])`
        ).map((s) => [s.user_id, s]),
      );
      const dropAlertsOf = (userId: string) => settings.get(userId)?.price_drop_alerts ?? DEFAULT_SETTINGS.priceDropAlerts;
      /** The currency of a price whose page stated none, nor any before: the user's currency setting. */
      const currencyOf = (p: ProductState, stated: string | null) => stated ?? p.currency ?? settings.get(p.user_id)?.currency ?? DEFAULT_SETTINGS.currency;
      const changed = new Set<string>(),
        removed = new Set<string>(),
        settingsChanged = new Set<string>();
      const alerts = new Map<string, NewEvent[]>();

      const raise = (
        p: ProductState,
        e: RecordedEvent,
        kind: 'price' | 'stock',
        alert: {
          type: AlertType;
          message: string;
          previousPrice: number | null;
          currentPrice: number | null;
          currency: string | null;
          changePercent: number | null;
          thresholdPercent: number | null;
          at: string;
        },
      ) => {
        const { at, ...figures } = alert;
        const list = alerts.get(p.user_id) ?? [];
        list.push({
          // Raised from backfilled history: shown in the app like any alert, but not news to e-mail.
          ...(e.metadata.backfill ? { metadata: { backfill: true } } : {}),
          type: 'AlertRaised',
          data: {
            alertId: alertIdFor(e.position, kind),
            userId: p.user_id,
            productId: p.product_id,
            productName: p.name,
            productUrl: p.url,
            productImage: p.image_url,
            ...figures,
            trigger: { eventType: e.type as 'PriceObserved' | 'PriceManuallySet' | 'PriceCheckFailed', position: e.position, at },
          },
        });
        alerts.set(p.user_id, list);
      };

      // Backfilled history (the demo account's past week) raises the alerts its rules would have raised then.
      const priced = (p: ProductState, e: RecordedEvent, price: number, currency: string | null, at: string) => {
        const written = currencyOf(p, currency);
        const decision = decideAlert(
          p.rule,
          p.price === null ? null : { price: p.price, currency: p.currency },
          { price, currency: written },
          { priceDropAlerts: dropAlertsOf(p.user_id) },
        );
        if (decision) {
          raise(p, e, 'price', { ...decision, previousPrice: p.price!, currentPrice: price, currency: written, at });
        }
        p.price = price;
        p.currency = currency ?? p.currency;
        p.price_position = e.position;
      };

      /** `price` is what this check read (null for a failed check); the alert also names the price before it. */
      const stocked = (p: ProductState, e: RecordedEvent, availability: Availability | null, price: number | null, currency: string | null, at: string) => {
        if (availability === null) return; // the page did not say: nothing changes
        const previousPrice = p.price,
          known = currencyOf(p, currency);
        const decision = decideStockAlert(p.availability, availability, price === null ? null : { price, currency: known }, { stockAlerts: p.stock_alerts });
        if (decision) {
          const comparable = price !== null && previousPrice !== null && previousPrice > 0;
          raise(p, e, 'stock', {
            ...decision,
            previousPrice,
            currentPrice: price,
            currency: known,
            thresholdPercent: null,
            at,
            changePercent: comparable ? Math.round(((price - previousPrice) / previousPrice) * 1_000_000) / 10_000 : null,
          });
        }
        p.availability = availability;
      };

      for (const e of events) {
        if (e.type === 'SettingsChanged') {
          settings.set(e.data.userId, { user_id: e.data.userId, price_drop_alerts: e.data.settings.priceDropAlerts, currency: e.data.settings.currency });
          settingsChanged.add(e.data.userId);
          continue;
        }
        if (e.type === 'ProductAdded') {
          const d = e.data;
          products.set(d.productId, {
            product_id: d.productId,
            user_id: d.userId,
            name: d.name,
            url: d.url,
            image_url: d.imageUrl,
            rule: d.alertRule,
            price: null,
            currency: null,
            price_position: null,
            availability: null,
            stock_alerts: d.stockAlerts,
          });
          removed.delete(d.productId);
          changed.add(d.productId);
          continue;
        }
        const p = products.get(e.data.productId);
        if (!p) continue;
        changed.add(p.product_id);
        switch (e.type) {
          case 'ProductEdited':
            Object.assign(p, { name: e.data.name, url: e.data.url, rule: e.data.alertRule, stock_alerts: e.data.stockAlerts });
            break;
          case 'ProductRemoved':
            products.delete(p.product_id);
            removed.add(p.product_id);
            break;
          case 'PriceManuallySet':
            // A price the user typed in is history, not news: it raises nothing, on any channel.
            // It becomes the reference for the next observed price, as the card shows it: an alert
            // then says "from" the price the user last saw, and an observation that confirms the
            // typed price raises nothing. (Against the last observed price instead, confirming
            // what the user typed would raise an alert about a change they reported themselves.)
            p.price = e.data.price;
            p.currency = e.data.currency;
            p.price_position = e.position;
            break;
          case 'PriceObserved': {
            if (e.data.imageUrl) p.image_url = e.data.imageUrl;
            // Stock first: its alert names the price before this one.
            stocked(p, e, e.data.availability, e.data.price, e.data.currency, e.data.observedAt);
            priced(p, e, e.data.price, e.data.currency, e.data.observedAt);
            break;
          }
          case 'PriceCheckFailed':
            stocked(p, e, e.data.availability, null, null, e.data.attemptedAt);
            break;
          case 'PriceCorrected':
            if (Number(p.price_position) === e.data.correctsPosition) p.price = e.data.price;
            break;
        }
      }

      if (removed.size) await tx`DELETE FROM alert_rule_products WHERE product_id = ANY(${[...removed]}::text[])`;
      const rows = [...changed].filter((id) => !removed.has(id)).map((id) => products.get(id)!);
      if (rows.length) {
        await tx`
          INSERT INTO alert_rule_products SELECT * FROM jsonb_populate_recordset(NULL::alert_rule_products, ${tx.json(rows as never)})
          ON CONFLICT (product_id) DO UPDATE SET name = EXCLUDED.name, url = EXCLUDED.url, image_url = EXCLUDED.image_url,
            rule = EXCLUDED.rule, price = EXCLUDED.price, currency = EXCLUDED.currency, price_position = EXCLUDED.price_position,
            availability = EXCLUDED.availability, stock_alerts = EXCLUDED.stock_alerts`;
      }
      if (settingsChanged.size) {
        const saved = [...settingsChanged].map((id) => settings.get(id)!);
        await tx`
          INSERT INTO alert_rule_settings SELECT * FROM jsonb_populate_recordset(NULL::alert_rule_settings, ${tx.json(saved)})
          ON CONFLICT (user_id) DO UPDATE SET price_drop_alerts = EXCLUDED.price_drop_alerts, currency = EXCLUDED.currency`;
      }
      // A fixed order of streams keeps two writers from waiting on each other.
      const users = [...alerts.keys()].sort();
      await Promise.all(users.map((userId) => store.append(alertStream(userId), 'any', alerts.get(userId)!, tx)));
    },
  };
}
