import { z } from 'zod';
import { CHECK_FREQUENCIES, CURRENCIES, DEFAULT_SETTINGS, TIMEZONES } from './settings.ts';
import { ALERT_TYPES } from '../domain/alerts.ts';
import { ROUNDINGS, STRATEGIES } from '../domain/pricing.ts';
import { AVAILABILITIES, ObservedVariant, ProductIdentifiers } from './page-facts.ts';

export { AVAILABILITIES, ObservedVariant, ProductIdentifiers, type Availability } from './page-facts.ts';

/**
 * The event catalogue: every event type with its zod schema and schema version.
 * Events are validated on append and on read; older schema versions are read through upcasters,
 * so an old event always replays into today's projections.
 */
export type EventDefinition<T extends string = string, S extends z.ZodType = z.ZodType> = {
  type: T;
  version: number;
  schema: S;
  /** upcasters[v] turns data of schema version v into version v + 1. */
  upcasters?: Record<number, (data: any) => unknown>;
};

function define<T extends string, S extends z.ZodType>(type: T, version: number, schema: S, upcasters?: EventDefinition['upcasters']) {
  return { type, version, schema, upcasters } satisfies EventDefinition<T, S>;
}

const userId = z.string().min(1);
const nullableText = z.string().nullable();

export const Settings = z.object({
  emailNotifications: z.boolean(),
  priceDropAlerts: z.boolean(),
  weeklyReports: z.boolean(),
  checkFrequency: z.enum(CHECK_FREQUENCIES),
  currency: z.enum(CURRENCIES),
  timezone: z.enum(TIMEZONES),
});
export type Settings = z.infer<typeof Settings>;
export { DEFAULT_SETTINGS };

const Profile = z.object({
  email: z.string().email(),
  firstName: nullableText,
  lastName: nullableText,
  profileImageUrl: nullableText,
});

/**
 * What a product alerts on (docs/product.md#alert-rules): nothing, any change, or a drop of at least
 * `percent` against the previous price.
 */
export const AlertRule = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('none') }),
  z.object({ kind: z.literal('any') }),
  z.object({ kind: z.literal('drop'), percent: z.number().min(0).max(100) }),
]);
export type AlertRule = z.infer<typeof AlertRule>;

const productId = z.string().min(1);
/** A price as a page or a person states it: 0 is a real price (a page saying "Free"). */
const money = z.number().nonnegative().finite();
const currency = z
  .string()
  .regex(/^[A-Z]{3}$/)
  .nullable();

const ProductDetails = z.object({
  productId,
  userId,
  name: z.string().min(1).max(200),
  url: z.string().url(),
  selector: z.string().min(1).max(500),
  alertRule: AlertRule,
  /** Alert when the product goes out of stock or comes back; every product had them before version 2. */
  stockAlerts: z.boolean().default(true),
});
/** Version 1 of ProductAdded and ProductEdited had no stockAlerts: stock alerts were on for every product. */
const withStockAlerts = { 1: (d: object) => ({ ...d, stockAlerts: true }) };

// Defaults to null for appends written before availability existed (tests, fixtures); checks always state it.
const availability = z.enum(AVAILABILITIES).nullable().default(null);
/** Version 1 of PriceObserved and PriceCheckFailed did not read availability: unknown. */
const withUnknownAvailability = { 1: (d: object) => ({ ...d, availability: null }) };
/** Which fetcher read the page: its HTML as served, or as a browser rendered it. */
const pageFetcher = z.enum(['static', 'browser']).default('static');
/** Before version 3 every page was read as served; identifiers came in 4, the variant and regular price in 5. */
const observedUpcasters = {
  ...withUnknownAvailability,
  2: (d: object) => ({ ...d, fetcher: 'static' }),
  3: (d: object) => ({ ...d, identifiers: null }),
  4: (d: object) => ({ ...d, variant: null, regularPrice: null }),
};

const paidPlan = z.enum(['starter', 'growth', 'pro']);
const billingProvider = z.enum(['stripe', 'demo']);
const subscriptionId = z.string().min(1);
const unixSeconds = z.number().int().nonnegative();
const pence = z.number().int().nonnegative();

/** What a subscription starts (or restarts) with. */
const SubscriptionTerms = z.object({
  userId,
  subscriptionId,
  provider: billingProvider,
  plan: paidPlan,
  amount: pence,
  trialEnd: unixSeconds.nullable(),
  currentPeriodEnd: unixSeconds,
  created: unixSeconds,
  at: unixSeconds,
});

const alertId = z.string().min(1);

const Email = z.object({
  userId,
  emailId: z.string().min(1),
  /** A notice: about the account, e.g. an alert channel turned off. */
  kind: z.enum(['alerts', 'weekly', 'notice']),
  alertIds: z.array(alertId),
  to: z.string().email(),
  messageId: z.string().min(1),
});

const Payment = z.object({
  userId,
  subscriptionId: subscriptionId.nullable(),
  invoiceId: z.string().min(1),
  amount: pence,
  currency: z.string().regex(/^[a-z]{3}$/),
  at: unixSeconds,
});

/** Alert channels beyond e-mail (events/channel.ts). */
export const CHANNEL_TYPES = ['webhook', 'slack', 'discord', 'telegram'] as const;
const channelId = z.string().min(1);
const ChannelSettings = z.object({
  channelId,
  userId,
  name: z.string().min(1).max(100),
  /** Which alerts the channel receives. */
  alertTypes: z.array(z.enum(ALERT_TYPES)),
});
/** One attempt to deliver a message (an alert, or a test) to a channel; the message id is kept across retries. */
const DeliveryAttempt = z.object({
  channelId,
  userId,
  messageId: z.string().min(1),
  /** Null for a test message. */
  alertId: alertId.nullable(),
  productName: z.string().nullable(),
  /** The attempt this was, from 1. */
  attempt: z.number().int().positive(),
  /** The receiver's HTTP status; null when none answered. */
  status: z.number().int().nullable(),
  at: z.string().datetime(),
});

/**
 * The shop owner's own catalogue (docs/catalogue.md): own products (stream `own-product-<id>`),
 * the stores they are read from (stream `catalogue-source-<id>`) and the owner's catalogue
 * settings (stream `catalogue-<userId>`).
 */
const ownProductId = z.string().min(1);
const sourceId = z.string().min(1);
export const SOURCE_KINDS = ['shopify', 'woocommerce', 'merchant-feed'] as const;
const currencyCode = z.string().regex(/^[A-Z]{3}$/);
const shortText = (max: number) => z.string().min(1).max(max).nullable();
/** What an own product is, apart from its price: as the source or the CSV file states it. */
export const OwnProductDetails = z.object({
  title: z.string().min(1).max(300),
  /** The variant's own name ("XL / Red"); null for a product without variants. */
  variant: shortText(200),
  sku: shortText(100),
  gtin: ProductIdentifiers.shape.gtin,
  mpn: shortText(100),
  brand: shortText(100),
  /** The compare-at or regular price when the product is on sale. */
  regularPrice: money.nullable(),
  /** What the owner pays for it (CSV only: stores do not publish it). */
  cost: money.nullable(),
  url: z.string().url().max(2000).nullable(),
  imageUrl: z.string().max(2000).nullable(),
  availability,
});
export type OwnProductDetails = z.infer<typeof OwnProductDetails>;
/** Where a link came from: the owner's hand, an accepted suggestion, or the automatic GTIN setting. */
export const LINK_ORIGINS = ['hand', 'suggestion', 'gtin'] as const;
const ownLink = z.object({ ownProductId, userId, productId });

const percent = (min: number, max: number) => z.number().min(min).max(max);
/** A pricing rule as stored (domain/pricing.ts): every field stated, null where it does not apply. */
export const PricingRuleData = z.object({
  strategy: z.enum(STRATEGIES),
  offsetPercent: percent(-50, 50).nullable(),
  offsetAmount: money.nullable(),
  floor: z.object({ costMarginPercent: percent(0, 1000).nullable(), amount: money.nullable() }),
  ceiling: z.object({ amount: money.nullable(), regular: z.boolean() }),
  rounding: z.enum(ROUNDINGS),
  maxStepPercent: percent(0.1, 100),
  minCompetitors: z.number().int().min(1).max(50),
  spikePercent: percent(1, 1000),
  competitors: z.array(productId).max(200).nullable(),
});
/** Who set a price from a recommendation: the owner, the automatic mode, or an undo of an earlier one. */
export const APPLIED_VIA = ['hand', 'automatic', 'undo'] as const;
const ownPriceMove = z.object({ ownProductId, userId, price: money, currency: currencyCode, at: z.string().datetime() });

export const events = {
  UserSignedUp: define(
    'UserSignedUp',
    1,
    Profile.extend({
      userId,
      provider: z.enum(['google', 'demo']),
      subject: z.string().min(1),
    }),
  ),
  UserProfileUpdated: define('UserProfileUpdated', 1, Profile.extend({ userId })),
  SettingsChanged: define('SettingsChanged', 1, z.object({ userId, settings: Settings })),

  ProductAdded: define('ProductAdded', 2, ProductDetails.extend({ imageUrl: nullableText }), withStockAlerts),
  ProductEdited: define('ProductEdited', 2, ProductDetails, withStockAlerts),
  ProductRemoved: define('ProductRemoved', 1, z.object({ productId, userId })),
  /**
   * A price the user typed in: history, not news (it raises no alert). In the product's currency,
   * else the user's currency setting; version 1 was always in pounds, and reads as it was.
   */
  PriceManuallySet: define('PriceManuallySet', 2, z.object({ productId, userId, price: money, currency: currency.unwrap() }), { 1: (d: object) => d }),
  /**
   * A successful check with its evidence, so a parser fixed later can re-derive the price from
   * the log: where the price came from, the raw text it was read from, and the page it was on.
   */
  PriceObserved: define(
    'PriceObserved',
    5,
    z.object({
      productId,
      userId,
      price: money,
      currency,
      source: z.enum(['selector', 'page', 'json-ld', 'microdata', 'rdfa', 'opengraph', 'meta', 'script-state']),
      selector: z.string().nullable(),
      matchedText: z.string().max(2000),
      url: z.string().url(),
      httpStatus: z.number().int(),
      pageHash: z.string(),
      observedAt: z.string().datetime(),
      imageUrl: nullableText.optional(),
      /** An out-of-stock page that still shows a price is an observation with availability OutOfStock. */
      availability,
      fetcher: pageFetcher,
      /** The product identifiers the page states (docs/catalogue.md#matching); null before version 4 and when it states none. */
      identifiers: ProductIdentifiers.nullable().default(null),
      /** The variant the address selected and the page priced; null before version 5 and when the page names none. */
      variant: ObservedVariant.nullable().default(null),
      /** The offer's regular (struck-through, compare-at, was) price; null before version 5 and when the page states none. */
      regularPrice: money.nullable().default(null),
    }),
    observedUpcasters,
  ),
  /**
   * A past observation's price read again from its evidence (its matched text) by a newer
   * parser, where the result differs. The observation stays in the log as it was; read models
   * show the corrected price in its place. A later correction of the same position wins.
   */
  PriceCorrected: define(
    'PriceCorrected',
    1,
    z.object({
      productId,
      userId,
      /** Global position of the PriceObserved event whose price this corrects. */
      correctsPosition: z.number().int().positive(),
      price: money,
      /** The price in effect for that observation before this correction. */
      previousPrice: money,
      reason: z.string().min(1).max(500),
    }),
  ),
  /** A check that found no price, with a reason a shop owner can act on. Never a price of 0. */
  PriceCheckFailed: define(
    'PriceCheckFailed',
    2,
    z.object({
      productId,
      userId,
      code: z.string().min(1),
      reason: z.string().min(1),
      httpStatus: z.number().int().nullable(),
      url: z.string().url(),
      attemptedAt: z.string().datetime(),
      /** A page without a price can still say it is sold out ("Currently unavailable"). */
      availability,
    }),
    withUnknownAvailability,
  ),

  /**
   * Subscriptions (stream `subscription-<userId>`). Times are Unix seconds as the payment
   * provider gives them; `at` is when the provider says the change happened, so news that
   * arrives out of order can be told from newer news. Amounts are monthly, in pence.
   */
  BillingCustomerCreated: define('BillingCustomerCreated', 1, z.object({ userId, provider: billingProvider, customerId: z.string().min(1) })),
  TrialStarted: define('TrialStarted', 1, SubscriptionTerms),
  SubscriptionActivated: define('SubscriptionActivated', 1, SubscriptionTerms),
  SubscriptionPlanChanged: define('SubscriptionPlanChanged', 1, z.object({ userId, subscriptionId, plan: paidPlan, amount: pence, at: unixSeconds })),
  SubscriptionPeriodChanged: define(
    'SubscriptionPeriodChanged',
    1,
    z.object({
      userId,
      subscriptionId,
      trialEnd: unixSeconds.nullable(),
      currentPeriodEnd: unixSeconds,
      at: unixSeconds,
    }),
  ),
  /** Cancelled at the end of the period: access stays until `accessUntil`. */
  SubscriptionCanceled: define('SubscriptionCanceled', 1, z.object({ userId, subscriptionId, accessUntil: unixSeconds, at: unixSeconds })),
  SubscriptionResumed: define('SubscriptionResumed', 1, z.object({ userId, subscriptionId, at: unixSeconds })),
  /** A payment is needed; only past_due keeps access while the provider retries. */
  SubscriptionAwaitingPayment: define(
    'SubscriptionAwaitingPayment',
    1,
    z.object({
      userId,
      subscriptionId,
      plan: paidPlan,
      status: z.enum(['past_due', 'unpaid', 'incomplete', 'paused']),
      at: unixSeconds,
    }),
  ),
  SubscriptionEnded: define('SubscriptionEnded', 1, z.object({ userId, subscriptionId, at: unixSeconds })),
  PaymentSucceeded: define('PaymentSucceeded', 1, Payment),
  PaymentFailed: define('PaymentFailed', 1, Payment.extend({ attempt: z.number().int().nonnegative() })),

  /**
   * Alerts (stream `alerts-<userId>`, events/alert.ts). An alert carries what it was about as it was
   * then, and the observation that raised it, so "why did I get this?" always has an answer.
   */
  AlertRaised: define(
    'AlertRaised',
    2,
    z.object({
      alertId,
      userId,
      productId,
      type: z.enum(ALERT_TYPES),
      productName: z.string().min(1),
      productUrl: z.string().url(),
      productImage: nullableText,
      /** Stock alerts carry the prices known then, if any: a sold-out page often shows none. */
      previousPrice: money.nullable(),
      currentPrice: money.nullable(),
      currency,
      /** Positive for a rise; null when either price is unknown or the previous one was 0. */
      changePercent: z.number().finite().nullable(),
      /** The drop percent of the rule that was met; null for alerts on any change. */
      thresholdPercent: z.number().nullable(),
      message: z.string().min(1),
      trigger: z.object({
        eventType: z.enum(['PriceObserved', 'PriceManuallySet', 'PriceCheckFailed', 'OwnPriceChanged', 'OwnProductImported']),
        position: z.number().int().positive(),
        at: z.string().datetime(),
      }),
      /**
       * For `undercut` and `cheapest`: the owner's product and the competitor it is measured against
       * (`productId` is that competitor's tracked product). Null for the other alerts and before version 2.
       */
      standing: z
        .object({
          ownProductId,
          ownTitle: z.string().min(1),
          ownPrice: money,
          competitorName: z.string().min(1),
          competitorHost: z.string(),
          competitorPrice: money,
          /** The owner's price minus the competitor's: positive when undercut. */
          gap: z.number().finite(),
          gapPercent: z.number().finite().nullable(),
        })
        .nullable()
        .default(null),
    }),
    { 1: (d: object) => d },
  ),
  /** Read on the Alerts screen. */
  AlertRead: define('AlertRead', 1, z.object({ alertId, userId })),
  /** Read in the notifications popover; an alert and its notification share their read state. */
  NotificationRead: define('NotificationRead', 1, z.object({ alertId, userId })),
  /** 'Mark all read': the alerts that were unread at that moment. */
  AllNotificationsRead: define('AllNotificationsRead', 1, z.object({ userId, alertIds: z.array(alertId).min(1) })),

  /** E-mails (stream `emails-<userId>`): one per batch of alerts, or a weekly report. */
  EmailSent: define('EmailSent', 1, Email.extend({ response: z.string() })),
  /** Given up: a permanent refusal, or no delivery within the retry window. */
  EmailFailed: define('EmailFailed', 1, Email.extend({ error: z.string(), attempts: z.number().int().positive() })),

  /**
   * Alert channels (stream `channel-<channelId>`): where the address, token or signing secret
   * lives is in `channel_endpoints`, outside the log (docs/decisions/0004-alert-channels.md);
   * `target` is its masked description.
   */
  ChannelAdded: define('ChannelAdded', 1, ChannelSettings.extend({ type: z.enum(CHANNEL_TYPES), target: z.string().min(1).max(300) })),
  /** Renamed, switched on or off, other alert types; `disabledReason` when Pricewatch turned it off after failed deliveries. */
  ChannelChanged: define('ChannelChanged', 1, ChannelSettings.extend({ enabled: z.boolean(), disabledReason: z.string().nullable() })),
  ChannelRemoved: define('ChannelRemoved', 1, z.object({ channelId, userId })),
  /** Deliveries (stream `deliveries-<channelId>`): the receiver accepted the message (2xx). */
  AlertDelivered: define('AlertDelivered', 1, DeliveryAttempt.extend({ status: z.number().int() })),
  /** An attempt that failed; `retryAt` when another follows, null after the last. */
  AlertDeliveryFailed: define('AlertDeliveryFailed', 1, DeliveryAttempt.extend({ error: z.string().min(1), retryAt: z.string().datetime().nullable() })),
  /**
   * A notice to the user about their account, not a price (stream `alerts-<userId>`): shown and
   * read like an alert in the notifications, and e-mailed. `alertId` is the notice's id.
   */
  NoticeRaised: define(
    'NoticeRaised',
    1,
    z.object({
      alertId,
      userId,
      kind: z.enum(['channel_disabled']),
      title: z.string().min(1).max(200),
      message: z.string().min(1).max(1000),
      /** Where in the app it is dealt with. */
      link: z.string().startsWith('/'),
      at: z.string().datetime(),
    }),
  ),

  /** An own product read for the first time from a source (or a CSV row); `externalId` is its id there (the CSV's SKU). */
  OwnProductImported: define(
    'OwnProductImported',
    1,
    OwnProductDetails.extend({
      ownProductId,
      userId,
      /** Null for a CSV row. */
      sourceId: sourceId.nullable(),
      externalId: z.string().min(1).max(200),
      price: money,
      currency: currencyCode,
      at: z.string().datetime(),
    }),
  ),
  /** Its details as the source states them now (the price has its own event). */
  OwnProductChanged: define('OwnProductChanged', 1, OwnProductDetails.extend({ ownProductId, userId, at: z.string().datetime() })),
  /** The owner's own price changed: the owner's price history. */
  OwnPriceChanged: define(
    'OwnPriceChanged',
    1,
    z.object({ ownProductId, userId, price: money, previousPrice: money, currency: currencyCode, at: z.string().datetime() }),
  ),
  /** Gone from its source, its source removed, or deleted by the owner. */
  OwnProductRemoved: define('OwnProductRemoved', 1, z.object({ ownProductId, userId })),
  /** A tracked competitor product is compared with this own product. */
  CompetitorLinked: define('CompetitorLinked', 1, ownLink.extend({ via: z.enum(LINK_ORIGINS) })),
  CompetitorUnlinked: define('CompetitorUnlinked', 1, ownLink),
  /** A suggested match the owner turned down: never suggested again. */
  MatchRejected: define('MatchRejected', 1, ownLink),

  SourceConnected: define('SourceConnected', 1, z.object({ sourceId, userId, kind: z.enum(SOURCE_KINDS), url: z.string().url().max(2000) })),
  /** A read of the source that changed something, or the first that worked after failures. */
  SourceSynced: define(
    'SourceSynced',
    1,
    z.object({
      sourceId,
      userId,
      imported: z.number().int().nonnegative(),
      changed: z.number().int().nonnegative(),
      removed: z.number().int().nonnegative(),
      skipped: z.number().int().nonnegative(),
      at: z.string().datetime(),
    }),
  ),
  /** A read that failed, with a reason the owner can act on (the same codes as price checks). */
  SourceFailed: define(
    'SourceFailed',
    1,
    z.object({
      sourceId,
      userId,
      code: z.string().min(1),
      reason: z.string().min(1).max(1000),
      httpStatus: z.number().int().nullable(),
      at: z.string().datetime(),
    }),
  ),
  SourceRemoved: define('SourceRemoved', 1, z.object({ sourceId, userId })),

  /**
   * How the owner's position is judged, whether GTIN matches are accepted without asking, and
   * whether recommendations apply themselves (at most `dailyChangeCap` changes a day per product).
   */
  CatalogueSettingsChanged: define(
    'CatalogueSettingsChanged',
    2,
    z.object({
      userId,
      competitivePercent: z.number().min(0).max(20),
      autoAcceptGtin: z.boolean(),
      autoApply: z.boolean(),
      dailyChangeCap: z.number().int().min(1).max(24),
    }),
    { 1: (d: object) => ({ ...d, autoApply: false, dailyChangeCap: 2 }) },
  ),

  /** Pricing rules and what came of their recommendations (stream `own-product-<id>`, docs/pricing.md). */
  PricingRuleSet: define('PricingRuleSet', 1, z.object({ ownProductId, userId, rule: PricingRuleData, at: z.string().datetime() })),
  PricingRuleRemoved: define('PricingRuleRemoved', 1, z.object({ ownProductId, userId, at: z.string().datetime() })),
  /** A recommended price the owner (or the automatic mode) took; `evidence` are the log positions it rests on. */
  RecommendationApplied: define(
    'RecommendationApplied',
    1,
    ownPriceMove.extend({ previousPrice: money, via: z.enum(APPLIED_VIA), evidence: z.array(z.number().int().positive()).max(200) }),
  ),
  /** A recommended price the owner turned down: not offered again until the recommendation changes. */
  RecommendationDismissed: define('RecommendationDismissed', 1, ownPriceMove),
  /** The applied price written to the owner's store with the write access they gave, or why it was not. */
  StorePriceWritten: define('StorePriceWritten', 1, ownPriceMove.extend({ sourceId })),
  StorePriceWriteFailed: define(
    'StorePriceWriteFailed',
    1,
    ownPriceMove.extend({ sourceId, reason: z.string().min(1).max(1000), httpStatus: z.number().int().nullable() }),
  ),
} as const;

export type EventType = keyof typeof events;
export type EventData<T extends EventType> = z.infer<(typeof events)[T]['schema']>;
/** A domain event as deciders produce it. */
export type DomainEvent = { [T in EventType]: { type: T; data: EventData<T> } }[EventType];
/** An event as it may be appended: fields with a default (added in a later schema version) may be left out. */
export type DomainEventInput = { [T in EventType]: { type: T; data: z.input<(typeof events)[T]['schema']> } }[EventType];
export type EventOf<T extends EventType> = Extract<DomainEvent, { type: T }>;

export class EventValidationError extends Error {
  constructor(
    readonly eventType: string,
    readonly issues: string,
  ) {
    super(`Invalid ${eventType} event: ${issues}`);
    this.name = 'EventValidationError';
  }
}

function definitionOf(type: string): EventDefinition {
  const def = (events as Record<string, EventDefinition>)[type];
  if (!def) throw new EventValidationError(type, 'unknown event type');
  return def;
}

function parse(def: EventDefinition, data: unknown) {
  const result = def.schema.safeParse(data);
  if (!result.success) {
    throw new EventValidationError(def.type, result.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; '));
  }
  return result.data;
}

/** Validates data about to be appended; returns it with the current schema version. */
export function validateForAppend(type: string, data: unknown): { data: unknown; schemaVersion: number } {
  const def = definitionOf(type);
  return { data: parse(def, data), schemaVersion: def.version };
}

/** Validates a stored event, upcasting older schema versions to the current one. */
export function upcastAndValidate(type: string, schemaVersion: number, data: unknown): unknown {
  const def = definitionOf(type);
  let current = data;
  for (let v = schemaVersion; v < def.version; v++) {
    const up = def.upcasters?.[v];
    if (!up) throw new EventValidationError(type, `no upcaster from schema version ${v}`);
    current = up(current);
  }
  return parse(def, current);
}
