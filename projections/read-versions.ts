import type { Projection } from './projection.ts';
import { lastBy } from './batch.ts';
import { PLAN_EVENTS } from '../events/subscription.ts';

/**
 * For each user, the last event about their products. Once every read model has passed it, the
 * dashboard and price history cannot change until a newer one arrives (or the clock moves their
 * windows), so those endpoints can reuse an answer computed at that version
 * (api/http/user-cache.ts). Alerts count on the dashboard, so their events are here too, and
 * settings (a product's currency falls back on the user's), and plan changes (a product beyond
 * the plan's limit is listed as paused).
 */
export const readVersionsProjection: Projection = {
  name: 'read-versions',
  tables: ['user_read_versions'],
  ddl: `
    CREATE TABLE IF NOT EXISTS user_read_versions (
      user_id        text PRIMARY KEY,
      transaction_id xid8 NOT NULL,
      position       bigint NOT NULL
    );`,
  handles: [
    'ProductAdded',
    'ProductEdited',
    'ProductRemoved',
    'PriceManuallySet',
    'PriceObserved',
    'PriceCheckFailed',
    'PriceCorrected',
    'AlertRaised',
    'AlertRead',
    'NotificationRead',
    'AllNotificationsRead',
    'SettingsChanged',
    // The own catalogue: its positions read competitor prices and alerts too.
    'OwnProductImported',
    'OwnProductChanged',
    'OwnPriceChanged',
    'OwnProductRemoved',
    'CompetitorLinked',
    'CompetitorUnlinked',
    'MatchRejected',
    'CatalogueSettingsChanged',
    'SourceConnected',
    'SourceSynced',
    'SourceFailed',
    'SourceRemoved',
    // Pricing rules and what came of them: the dashboard counts the recommendations waiting.
    'PricingRuleSet',
    'PricingRuleRemoved',
    'RecommendationApplied',
    'RecommendationDismissed',
    'StorePriceWritten',
    'StorePriceWriteFailed',
    ...PLAN_EVENTS,
  ],
  async apply(tx, events) {
    const latest = lastBy(
      events.map((e) => ({ userId: e.data.userId, transactionId: e.transactionId, position: e.position })),
      (v) => v.userId,
    );
    if (!latest.length) return;
    await tx`
      INSERT INTO user_read_versions (user_id, transaction_id, position)
      SELECT * FROM unnest(${latest.map((v) => v.userId)}::text[], ${latest.map((v) => v.transactionId)}::text[]::xid8[], ${latest.map((v) => v.position)}::bigint[])
      ON CONFLICT (user_id) DO UPDATE SET transaction_id = EXCLUDED.transaction_id, position = EXCLUDED.position`;
  },
};
