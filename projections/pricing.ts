import type { EventOf } from '../events/catalogue.ts';
import type { RecordedEvent } from '../events/store.ts';
import type { Projection } from './projection.ts';
import { lastBy } from './batch.ts';

/**
 * Pricing rules and what came of them (docs/pricing.md):
 *
 * - `pricing_rules`: the rule of each own product that has one;
 * - `price_decisions`: every recommendation applied (by hand, automatically, or an undo) or dismissed;
 * - `store_price_writes`: how the last write of an applied price to the owner's store went;
 * - `competitor_days`: each tracked product's last observation per UTC day (its close), what a
 *   rule's 30-day median and a backtest read instead of every check of the year.
 *
 * Recommendations are not stored: like positions, they depend on how fresh each competitor price
 * is, so they are worked out from these rows when read (docs/decisions/0014-pricing-rules.md).
 */
type Handled =
  | EventOf<'PricingRuleSet'>
  | EventOf<'PricingRuleRemoved'>
  | EventOf<'RecommendationApplied'>
  | EventOf<'RecommendationDismissed'>
  | EventOf<'StorePriceWritten'>
  | EventOf<'StorePriceWriteFailed'>
  | EventOf<'OwnProductRemoved'>
  | EventOf<'PriceObserved'>
  | EventOf<'PriceManuallySet'>
  | EventOf<'ProductRemoved'>;

export type PriceDecisionRow = {
  event_position: string;
  own_product_id: string;
  user_id: string;
  kind: 'applied' | 'dismissed';
  price: number;
  previous_price: number | null;
  currency: string;
  via: 'hand' | 'automatic' | 'undo' | null;
  evidence: string[];
  at: Date;
};

export const pricingProjection: Projection = {
  name: 'pricing',
  tables: ['pricing_rules', 'price_decisions', 'store_price_writes', 'competitor_days'],
  ddl: `
    CREATE TABLE IF NOT EXISTS pricing_rules (
      own_product_id text PRIMARY KEY,
      user_id        text NOT NULL,
      rule           jsonb NOT NULL,
      set_at         timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS pricing_rules_by_user ON pricing_rules (user_id);
    CREATE TABLE IF NOT EXISTS price_decisions (
      event_position bigint PRIMARY KEY,
      own_product_id text NOT NULL,
      user_id        text NOT NULL,
      kind           text NOT NULL,
      price          double precision NOT NULL,
      previous_price double precision,
      currency       text NOT NULL,
      via            text,
      evidence       bigint[] NOT NULL,
      at             timestamptz NOT NULL
    );
    CREATE INDEX IF NOT EXISTS price_decisions_by_product ON price_decisions (own_product_id, event_position DESC);
    CREATE INDEX IF NOT EXISTS price_decisions_by_user ON price_decisions (user_id, at DESC);
    CREATE TABLE IF NOT EXISTS store_price_writes (
      own_product_id text PRIMARY KEY,
      source_id      text NOT NULL,
      price          double precision NOT NULL,
      ok             boolean NOT NULL,
      reason         text,
      at             timestamptz NOT NULL
    );
    CREATE TABLE IF NOT EXISTS competitor_days (
      product_id     text NOT NULL,
      day            date NOT NULL,
      price          double precision NOT NULL,
      currency       text,
      availability   text,
      last_at        timestamptz NOT NULL,
      event_position bigint NOT NULL,
      PRIMARY KEY (product_id, day)
    );`,
  handles: [
    'PricingRuleSet',
    'PricingRuleRemoved',
    'RecommendationApplied',
    'RecommendationDismissed',
    'StorePriceWritten',
    'StorePriceWriteFailed',
    'OwnProductRemoved',
    'PriceObserved',
    'PriceManuallySet',
    'ProductRemoved',
  ],

  async apply(tx, recorded) {
    const events = recorded as RecordedEvent<Handled>[];
    const gone = new Set<string>();
    const removedProducts = new Set<string>();
    for (const e of events) {
      if (e.type === 'OwnProductRemoved') gone.add(e.data.ownProductId);
      if (e.type === 'ProductRemoved') removedProducts.add(e.data.productId);
    }

    const rules = lastBy(
      events.filter((e) => e.type === 'PricingRuleSet' || e.type === 'PricingRuleRemoved'),
      (e) => e.data.ownProductId,
    );
    const setRules = rules.flatMap((e) =>
      e.type === 'PricingRuleSet' && !gone.has(e.data.ownProductId)
        ? [{ own_product_id: e.data.ownProductId, user_id: e.data.userId, rule: e.data.rule, set_at: e.data.at }]
        : [],
    );
    const dropRules = [...gone, ...rules.filter((e) => e.type === 'PricingRuleRemoved').map((e) => e.data.ownProductId)];
    if (dropRules.length) await tx`DELETE FROM pricing_rules WHERE own_product_id = ANY(${dropRules}::text[])`;
    if (setRules.length) {
      await tx`INSERT INTO pricing_rules SELECT * FROM jsonb_populate_recordset(NULL::pricing_rules, ${tx.json(setRules as never)}) ON CONFLICT (own_product_id) DO UPDATE SET rule = EXCLUDED.rule, set_at = EXCLUDED.set_at`;
    }

    type Decision = {
      event_position: number;
      own_product_id: string;
      user_id: string;
      kind: string;
      price: number;
      previous_price: number | null;
      currency: string;
      via: string | null;
      evidence: number[];
      at: string;
    };
    const decisions = events.flatMap((e): Decision[] => {
      if (e.type === 'RecommendationApplied') {
        const d = e.data;
        return [
          {
            event_position: e.position,
            own_product_id: d.ownProductId,
            user_id: d.userId,
            kind: 'applied',
            price: d.price,
            previous_price: d.previousPrice,
            currency: d.currency,
            via: d.via,
            evidence: d.evidence,
            at: d.at,
          },
        ];
      }
      if (e.type === 'RecommendationDismissed') {
        const d = e.data;
        return [
          {
            event_position: e.position,
            own_product_id: d.ownProductId,
            user_id: d.userId,
            kind: 'dismissed',
            price: d.price,
            previous_price: null,
            currency: d.currency,
            via: null,
            evidence: [],
            at: d.at,
          },
        ];
      }
      return [];
    });
    if (decisions.length) {
      await tx`INSERT INTO price_decisions SELECT * FROM jsonb_populate_recordset(NULL::price_decisions, ${tx.json(decisions as never)})
        ON CONFLICT (event_position) DO NOTHING`;
    }

    const writes = lastBy(
      events.filter((e) => e.type === 'StorePriceWritten' || e.type === 'StorePriceWriteFailed'),
      (e) => e.data.ownProductId,
    ).map((e) => ({
      own_product_id: e.data.ownProductId,
      source_id: e.data.sourceId,
      price: e.data.price,
      ok: e.type === 'StorePriceWritten',
      reason: e.type === 'StorePriceWriteFailed' ? e.data.reason : null,
      at: e.data.at,
    }));
    if (writes.length) {
      await tx`INSERT INTO store_price_writes ${tx(writes)} ON CONFLICT (own_product_id) DO UPDATE
        SET source_id = EXCLUDED.source_id, price = EXCLUDED.price, ok = EXCLUDED.ok, reason = EXCLUDED.reason, at = EXCLUDED.at`;
    }
    if (gone.size) {
      await tx`DELETE FROM price_decisions WHERE own_product_id = ANY(${[...gone]}::text[])`;
      await tx`DELETE FROM store_price_writes WHERE own_product_id = ANY(${[...gone]}::text[])`;
    }

    // One close per product and day: the batch's last observation of that day wins, and a
    // later batch's only when it is later (a replayed batch changes nothing).
    const closes = lastBy(
      events.flatMap((e) => {
        if (removedProducts.has((e.data as { productId?: string }).productId ?? '')) return [];
        // The same prices as price_points: every observed price, and a price set by hand.
        const seen =
          e.type === 'PriceObserved' && e.data.price >= 0
            ? {
                productId: e.data.productId,
                price: e.data.price,
                currency: e.data.currency,
                availability: e.data.availability,
                at: new Date(e.data.observedAt),
              }
            : e.type === 'PriceManuallySet' && e.data.price > 0
              ? { productId: e.data.productId, price: e.data.price, currency: e.data.currency, availability: null, at: e.recordedAt }
              : null;
        if (!seen) return [];
        const { productId, price, currency, availability, at } = seen;
        return [
          { product_id: productId, day: at.toISOString().slice(0, 10), price, currency, availability, last_at: at.toISOString(), event_position: e.position },
        ];
      }),
      (c) => `${c.product_id} ${c.day}`,
    );
    if (removedProducts.size) await tx`DELETE FROM competitor_days WHERE product_id = ANY(${[...removedProducts]}::text[])`;
    if (closes.length) {
      await tx`
        INSERT INTO competitor_days (product_id, day, price, currency, availability, last_at, event_position)
        SELECT * FROM unnest(${closes.map((c) => c.product_id)}::text[], ${closes.map((c) => c.day)}::date[], ${closes.map((c) => c.price)}::float8[],
          ${closes.map((c) => c.currency)}::text[], ${closes.map((c) => c.availability)}::text[], ${closes.map((c) => c.last_at)}::timestamptz[],
          ${closes.map((c) => c.event_position)}::bigint[])
        ON CONFLICT (product_id, day) DO UPDATE SET price = EXCLUDED.price, currency = EXCLUDED.currency, availability = EXCLUDED.availability,
          last_at = EXCLUDED.last_at, event_position = EXCLUDED.event_position
        WHERE EXCLUDED.last_at >= competitor_days.last_at`;
    }
  },
};
