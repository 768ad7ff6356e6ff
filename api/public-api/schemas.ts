import { z } from 'zod';
import { isStorableTime } from '../http/input.ts';
import { AVAILABILITIES, AlertRule } from '../../events/catalogue.ts';
import { ALERT_TYPES } from '../../domain/alerts.ts';
import { DetailTimeFilter } from '../history/series.ts';

/** Shapes of the public API (/api/v1): validate requests and describe answers in /api/docs. */

const isoTime = z
  .string()
  .refine((s) => !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 date or time')
  .refine((s) => isStorableTime(Date.parse(s)), 'must be a time between the years 1 and 9999')
  .meta({ format: 'date-time', example: '2025-03-01T00:00:00Z' });
const limit = (max: number, fallback: number) =>
  z.coerce
    .number()
    .int()
    .min(1)
    .max(max)
    .default(fallback)
    .meta({ description: `Items per page, 1 to ${max} (default ${fallback}).` });
const timestamp = z.string().meta({ format: 'date-time' });

export const ErrorBody = z.object({ message: z.string(), field: z.string().optional() });

export const Product = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string(),
  selector: z.string(),
  threshold: z.number().nullable().meta({ description: 'Percent drop that raises an alert; null for no alerts or alerts on any change (see alertRule).' }),
  alertRule: AlertRule,
  currentPrice: z.number().nullable().meta({ description: 'The last good price: a failed check never changes it.' }),
  lastPriceAt: timestamp.nullable().meta({ description: 'When the current price was read or typed in.' }),
  priceSource: z.enum(['selector', 'structured-data', 'visible', 'script-state', 'manual']).nullable().meta({
    description:
      "Where the current price came from: the product's selector, the page's structured data, its visible price block, its scripts' data, or typed in by hand.",
  }),
  regularPrice: z
    .number()
    .nullable()
    .meta({ description: 'The regular (struck-through, compare-at, was) price the page shows beside the current one; null when it shows none.' }),
  variant: z
    .object({ id: z.string().nullable(), sku: z.string().nullable(), gtin: z.string().nullable(), options: z.record(z.string(), z.string()) })
    .nullable()
    .meta({
      description:
        'The variant of the page\'s product the price is of (the one its address selects), with its options such as {"size": "XL", "colour": "Red"}; null when the page names none.',
    }),
  currency: z.string().nullable().meta({ description: "ISO 4217 code of the product's prices: the page's, else your currency setting." }),
  imageUrl: z.string().nullable(),
  lastChecked: timestamp.nullable(),
  changePercent: z.number().nullable().meta({ description: 'Change over the last 24 hours in percent, positive for a rise.' }),
  isActive: z.boolean(),
  lastCheckStatus: z.enum(['ok', 'failed']).nullable(),
  lastCheckError: z.string().nullable(),
  checkStatus: z.enum(['pending', 'ok', 'failing']).meta({ description: 'pending until the first check, then whether the last check found a price.' }),
  lastFailure: z
    .object({ code: z.string(), message: z.string(), at: timestamp })
    .nullable()
    .meta({ description: 'The last failed check while checks are failing; null once one succeeds.' }),
  createdAt: timestamp,
  availability: z
    .enum(AVAILABILITIES)
    .nullable()
    .meta({ description: 'The last availability the page stated (schema.org ItemAvailability); null while it has stated none.' }),
  stockAlerts: z.boolean().meta({ description: 'Alerts when the product goes out of stock or comes back.' }),
});

export const ProductList = z.object({ products: z.array(Product) });

export const PricesQuery = z.object({
  from: isoTime.optional().meta({ description: 'Prices observed at or after this time.' }),
  to: isoTime.optional().meta({ description: 'Prices observed before this time.' }),
  limit: limit(10_000, 1000),
  cursor: z.string().optional().meta({ description: 'The `next` of the previous page.' }),
});

export const PricePoint = z.object({
  price: z.number(),
  currency: z.string().nullable(),
  source: z.enum(['selector', 'json-ld', 'microdata', 'opengraph', 'manual']),
  observedAt: timestamp,
});

export const PriceList = z.object({
  productId: z.string(),
  prices: z.array(PricePoint).meta({ description: 'Oldest first; corrected prices replace the ones first read.' }),
  next: z.string().nullable().meta({ description: 'Cursor of the next page; null on the last page.' }),
});

export const AlertsQuery = z.object({
  limit: limit(500, 100),
  cursor: z.string().optional().meta({ description: 'The `next` of the previous page.' }),
  unread: z.enum(['true', 'false']).optional().meta({ description: 'true: only unread alerts.' }),
});

export const Alert = z.object({
  id: z.string(),
  type: z.enum(ALERT_TYPES).meta({
    description: 'undercut: a competitor linked to one of your own products went below your price; cheapest: you are at or below every one again.',
  }),
  productId: z.string().meta({ description: 'The product the alert is about; for undercut and cheapest, the competitor product.' }),
  productName: z.string(),
  productUrl: z.string(),
  message: z.string(),
  previousPrice: z
    .number()
    .nullable()
    .meta({ description: 'The price before; null when a stock alert knows none. For undercut and cheapest, your own price.' }),
  currentPrice: z
    .number()
    .nullable()
    .meta({ description: "The price the check read; null for a stock alert from a page that showed none. For undercut and cheapest, the competitor's price." }),
  currency: z.string().nullable(),
  changePercent: z.number().nullable().meta({ description: 'Positive for a rise; null without both prices or from a price of 0.' }),
  thresholdPercent: z.number().nullable(),
  isRead: z.boolean(),
  createdAt: timestamp,
});

export const AlertList = z.object({
  alerts: z.array(Alert).meta({ description: 'Newest first.' }),
  next: z.string().nullable(),
});

export const EventsQuery = z.object({
  after: z.string().optional().meta({ description: "Cursor of the last event seen (`next`, or an event's `cursor`); from the start when absent." }),
  limit: limit(1000, 100),
});

export const Event = z.object({
  cursor: z.string().meta({ description: 'Opaque position of this event in the log; pass it as `after` to read what follows.' }),
  position: z.number().int(),
  stream: z.string(),
  version: z.number().int(),
  type: z.string().meta({ example: 'PriceObserved' }),
  data: z.record(z.string(), z.unknown()),
  recordedAt: timestamp,
});

export const EventPage = z.object({
  events: z.array(Event).meta({ description: 'In commit order.' }),
  next: z.string().meta({ description: 'Pass as `after` for the next page; the same cursor when no event followed yet.' }),
  hasMore: z.boolean(),
});

export const StreamQuery = z.object({
  after: z.string().optional().meta({ description: 'Resume after this cursor (or send Last-Event-ID); without it, only events appended after connecting.' }),
});

// ---- your own catalogue ---------------------------------------------------------------------

export const CatalogueQuery = z.object({
  band: z
    .enum(['cheapest', 'competitive', 'above', 'unpositioned'])
    .optional()
    .meta({ description: 'Only products in this band; unpositioned: no linked competitor counted.' }),
  q: z.string().max(200).optional().meta({ description: 'Only products whose title, SKU or variant contains this text (any case).' }),
});

export const PositionHistoryQuery = z.object({
  timeFilter: DetailTimeFilter.default('month').meta({ description: 'The range: the last 7 days, 30 days, 3 months, 12 months, or all (default month).' }),
});

export const CompetitorOffer = z.object({
  productId: z.string().meta({ description: 'The tracked competitor product (as in GET /api/v1/products).' }),
  name: z.string(),
  host: z.string().meta({ description: "The competitor's shop, from the product's address." }),
  url: z.string(),
  price: z.number().nullable().meta({ description: 'Its current price; null before its first good check.' }),
  currency: z.string().nullable(),
  availability: z.enum(AVAILABILITIES).nullable(),
  lastPriceAt: timestamp.nullable().meta({ description: 'When its price was last read by a successful check.' }),
  checkIntervalMinutes: z.number().meta({ description: 'Minutes between its checks: a price older than two of them is stale.' }),
  counted: z.boolean().meta({ description: 'Whether it counts toward the position.' }),
  reason: z.enum(['no price', 'stale', 'out of stock', 'other currency']).nullable().meta({ description: 'Why it does not count; null when it counts.' }),
});

export const Position = z.object({
  rank: z.number().int().meta({ description: '1 when no counted competitor is cheaper; equal prices do not push you down.' }),
  of: z.number().int().meta({ description: 'Counted competitors plus you.' }),
  cheapest: z.object({ productId: z.string(), price: z.number() }).meta({ description: 'The cheapest counted competitor.' }),
  average: z.number().meta({ description: "The counted competitors' average price." }),
  highest: z.number(),
  gap: z.number().meta({ description: 'Your price minus the cheapest: negative when you are cheaper.' }),
  gapPercent: z.number().nullable().meta({ description: 'The gap in percent of the cheapest price; null when that price is 0.' }),
  band: z.enum(['cheapest', 'competitive', 'above']).meta({
    description: 'cheapest: no counted competitor is cheaper; competitive: within your competitive percent of the cheapest; above: further above.',
  }),
});

export const CatalogueEntry = z.object({
  id: z.string(),
  title: z.string(),
  variant: z.string().nullable().meta({ description: 'The variant\'s own name ("XL / Red"); null for a product without variants.' }),
  sku: z.string().nullable(),
  gtin: z.string().nullable().meta({ description: 'GTIN (EAN, UPC, ISBN) as 14 digits.' }),
  mpn: z.string().nullable(),
  brand: z.string().nullable(),
  price: z.number().meta({ description: 'Your price, as your store or CSV file states it.' }),
  currency: z.string().meta({ description: 'ISO 4217 code of your price.' }),
  regularPrice: z.number().nullable().meta({ description: 'The regular (compare-at) price while on sale.' }),
  cost: z.number().nullable().meta({ description: 'What you pay for it, from a CSV file; stores do not publish it.' }),
  url: z.string().nullable(),
  imageUrl: z.string().nullable(),
  availability: z.string().nullable().meta({ description: 'As your store states it (schema.org ItemAvailability).' }),
  sourceId: z.string().nullable().meta({ description: 'The connected store it was read from; null for a CSV import.' }),
  priceChangedAt: timestamp.meta({ description: 'When your price was last set or changed.' }),
  undercutAt: timestamp.nullable().meta({ description: 'When a competitor last went below your price; null when none has.' }),
  competitors: z.array(CompetitorOffer).meta({ description: 'The linked competitor products, counted or not.' }),
  position: Position.nullable().meta({ description: 'Where your price stands; null when no linked competitor counts.' }),
  basis: z.string().nullable().meta({ description: '"based on 3 of 5: 1 stale, 1 out of stock"; null with no linked competitor.' }),
});

export const CatalogueList = z.object({ catalogue: z.array(CatalogueEntry).meta({ description: 'By title, then variant.' }) });

export const PositionSummary = z.object({
  index: z.number().nullable().meta({
    description: "Price index: the mean of your price ÷ the competitors' average × 100 (95 = 5% below the market); null with no positioned product.",
  }),
  cheapest: z.number().int().meta({ description: 'Products where you are the cheapest.' }),
  competitive: z.number().int().meta({ description: 'Products within your competitive percent of the cheapest.' }),
  above: z.number().int().meta({ description: 'Products priced further above the cheapest.' }),
  unpositioned: z.number().int().meta({ description: 'Products with no linked competitor that counts.' }),
  undercutLast24h: z.number().int().meta({ description: 'Products a competitor went below in the last 24 hours.' }),
});

export const PositionPoint = z.object({
  at: timestamp,
  price: z.number().meta({ description: 'Your price then.' }),
  cheapest: z.number().nullable().meta({ description: 'The cheapest counted competitor then; null when none counted.' }),
  average: z.number().nullable().meta({ description: "The counted competitors' average then." }),
  counted: z.number().int().meta({ description: 'How many competitors counted then: priced recently, in your currency.' }),
});

export const PositionHistory = z.object({
  id: z.string().meta({ description: 'The own product.' }),
  timeFilter: DetailTimeFilter,
  points: z.array(PositionPoint).meta({
    description: 'Oldest first: one at the start of the range, one at each price change (yours or a linked competitor’s), one now; thinned when long.',
  }),
});

export const MatchList = z.object({
  matches: z
    .array(
      z.object({
        ownProductId: z.string(),
        productId: z.string().meta({ description: 'The tracked competitor product suggested.' }),
        reason: z.enum(['gtin', 'mpn', 'title']).meta({ description: 'The same GTIN, the same MPN and brand, or a close title.' }),
        confidence: z.number().meta({ description: 'From 0 to 1.' }),
      }),
    )
    .meta({ description: 'Suggested links between your products and the competitor products you track; pairs already linked or turned down are left out.' }),
});

export const RecommendationsQuery = z.object({
  include: z.enum(['all']).optional().meta({ description: '`all`: every product with a pricing rule, not only the waiting changes.' }),
});

const Recommendation = z.object({
  status: z
    .enum(['change', 'keep', 'hold'])
    .meta({ description: '`change`: a new price; `keep`: your price satisfies the rule; `hold`: held back, `explanation` says why.' }),
  price: z.number().nullable().meta({ description: 'The recommended price; null when held back.' }),
  currentPrice: z.number(),
  currency: z.string(),
  explanation: z.array(z.string()).meta({ description: 'Sentences: what was counted, the arithmetic, the bounds; or why it holds.' }),
  evidence: z
    .array(
      z.object({
        productId: z.string(),
        name: z.string(),
        price: z.number(),
        currency: z.string(),
        observedAt: timestamp,
        eventPosition: z.number().int().nullable().meta({ description: 'The global position of the observation in your event log (see /events).' }),
      }),
    )
    .meta({ description: 'Every competitor observation it used.' }),
  bounds: z.object({
    floor: z.number().nullable(),
    ceiling: z.number().nullable(),
    decidedBy: z.enum(['target', 'rounding', 'floor', 'ceiling', 'step']).nullable(),
  }),
});

export const RecommendationEntry = z.object({
  ownProductId: z.string(),
  title: z.string(),
  variant: z.string().nullable(),
  sku: z.string().nullable(),
  recommendation: Recommendation,
  waiting: z.boolean().meta({ description: 'A change you have neither applied nor dismissed.' }),
  decision: z
    .object({
      kind: z.enum(['applied', 'dismissed']),
      price: z.number(),
      previousPrice: z.number().nullable(),
      via: z.enum(['hand', 'automatic', 'undo']).nullable(),
      at: timestamp,
    })
    .nullable()
    .meta({ description: 'The last recommendation applied or dismissed.' }),
  store: z
    .object({ state: z.enum(['confirmed', 'pending', 'differs', 'failed']), message: z.string() })
    .nullable()
    .meta({ description: 'After an applied price: whether your store shows it.' }),
});

export const RecommendationList = z.object({ recommendations: z.array(RecommendationEntry) });
