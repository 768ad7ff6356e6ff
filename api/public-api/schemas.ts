import { z } from 'zod';
import { isStorableTime } from '../http/input.ts';
import { AVAILABILITIES, AlertRule } from '../../events/catalogue.ts';
import { ALERT_TYPES } from '../../domain/alerts.ts';

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
  type: z.enum(ALERT_TYPES),
  productId: z.string(),
  productName: z.string(),
  productUrl: z.string(),
  message: z.string(),
  previousPrice: z.number().nullable().meta({ description: 'The price before; null when a stock alert knows none.' }),
  currentPrice: z.number().nullable().meta({ description: 'The price the check read; null for a stock alert from a page that showed none.' }),
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
