import { Elysia } from 'elysia';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { DomainError } from '../../events/decider.ts';
import { idOf, isId } from '../http/ids.ts';
import { isStorableTime } from '../http/input.ts';
import { readProducts } from '../products/read-model.ts';
import { PRODUCT_NOT_FOUND } from '../../events/product.ts';
import { OWN_PRODUCT_NOT_FOUND } from '../../events/own-product.ts';
import { readCatalogue, readPositionSummary } from '../catalogue/read-model.ts';
import { readPositionHistory } from '../catalogue/position-history.ts';
import { readMatches } from '../catalogue/matches.ts';
import { readRecommendations, type RecommendationEntry as Entry } from '../pricing/read-model.ts';

/** A recommendation as the API documents it: the rule's working figures stay inside. */
const publicRecommendation = ({ ownProductId, title, variant, sku, recommendation, waiting, decision, store }: Entry) => {
  const { target: _t, cheapest: _c, average: _a, ...answer } = recommendation;
  return {
    ownProductId,
    title,
    variant,
    sku,
    recommendation: answer,
    waiting,
    decision: decision && { kind: decision.kind, price: decision.price, previousPrice: decision.previousPrice, via: decision.via, at: decision.at },
    store: store && { state: store.state, message: store.message },
  };
};
import { keyOwner, keyStillValid, NOT_PRO, watchRevocation, type KeyOwner } from './keys.ts';
import { createRateLimiter, DEFAULT_RATE_LIMIT, type RateLimit } from './rate-limit.ts';
import { decodeCursor, userEvents } from './feed.ts';
import { createLogWatcher, eventStream } from './tail.ts';
import {
  AlertList,
  AlertsQuery,
  CatalogueEntry,
  CatalogueList,
  CatalogueQuery,
  ErrorBody,
  EventPage,
  EventsQuery,
  MatchList,
  PositionHistory,
  PositionHistoryQuery,
  PositionSummary,
  PriceList,
  PricesQuery,
  ProductList,
  RecommendationEntry,
  RecommendationList,
  RecommendationsQuery,
  StreamQuery,
} from './schemas.ts';

/** A page position over (time, tie-breaker), opaque to clients. */
const encodeKey = (at: Date, tie: string | number) => Buffer.from(JSON.stringify([at.toISOString(), tie])).toString('base64url');

/** Tie-breakers as pages give them: an event position (a bigint) or an alert id. */
const TIES = { position: (tie: string) => /^\d{1,18}$/.test(tie), id: isId };

/** The position a cursor holds, checked so that only values the database takes reach a query. */
function decodeKey(cursor: string, field: string, tie: keyof typeof TIES): [string, string] {
  try {
    const [at, after] = JSON.parse(Buffer.from(cursor, 'base64url').toString());
    const time = typeof at === 'string' ? Date.parse(at) : Number.NaN;
    const key = typeof after === 'string' || typeof after === 'number' ? String(after) : '';
    if (isStorableTime(time) && TIES[tie](key)) return [new Date(time).toISOString(), key];
  } catch {
    /* answered below */
  }
  throw new DomainError(`${field}: not a cursor this API gave`, 400, field);
}

function eventCursor(cursor: string | undefined, field: string) {
  if (cursor === undefined) return undefined;
  const at = decodeCursor(cursor);
  if (!at) throw new DomainError(`${field}: not a cursor this API gave`, 400, field);
  return at;
}

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 404: ErrorBody, 429: ErrorBody };
const doc = (tag: string, summary: string, description?: string) => ({ tags: [tag], summary, description, security: [{ apiKey: [] }] });

/** Open event streams per key: each holds a connection and a poll, so a key gets a few, not hundreds. */
const MAX_STREAMS_PER_KEY = 5;

/**
 * The public API of the Pro plan, under /api/v1, authenticated by `Authorization: Bearer <key>`
 * (keys: Settings > API Access). An unknown or revoked key is 401, a key whose owner is not on
 * Pro is 403, and each key has a rate limit (429 with Retry-After). A key reads its owner's
 * data only: another user's product is 404, like a missing one.
 */
export function publicApiRoutes(ctx: AppContext, opts: { rateLimit?: RateLimit; heartbeatMs?: number } = {}) {
  const take = createRateLimiter(ctx.sql, opts.rateLimit ?? DEFAULT_RATE_LIMIT);
  const watcher = createLogWatcher(ctx.store);
  const streams = new Map<string, number>();

  return (
    new Elysia({ prefix: '/api/v1' })
      // Before query validation: who is asking comes first.
      .derive(async ({ request, set }): Promise<{ owner: KeyOwner }> => {
        const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '');
        if (!bearer) {
          set.headers['www-authenticate'] = 'Bearer';
          throw new DomainError('Send your API key as "Authorization: Bearer <key>". Create one in Settings > API Access.', 401);
        }
        const owner = await keyOwner(ctx.sql, bearer[1]!);
        if (!owner) {
          set.headers['www-authenticate'] = 'Bearer error="invalid_token"';
          throw new DomainError('This API key is not valid: it was revoked or replaced, or never existed.', 401);
        }
        if (!owner.plan.apiAccess) throw new DomainError(NOT_PRO(owner.plan), 403);
        const allowed = await take(owner.keyId);
        if (!allowed.ok) {
          set.headers['retry-after'] = String(allowed.retryAfter);
          throw new DomainError(`Too many requests with this API key. Try again in ${allowed.retryAfter} s.`, 429);
        }
        set.headers['x-ratelimit-remaining'] = String(allowed.remaining);
        return { owner };
      })

      .get('/products', async ({ owner }) => ({ products: await readProducts(ctx.sql, owner.userId) }), {
        response: { 200: ProductList, ...errors },
        detail: doc(
          'Products',
          'Your tracked products',
          'Newest first, with the current price, the change over the last 24 hours and the last known availability.',
        ),
      })

      .get(
        '/products/:id/prices',
        async ({ owner, params, query }) => {
          const productId = idOf(params.id, PRODUCT_NOT_FOUND);
          const [product] = await ctx.sql`SELECT 1 FROM products WHERE id = ${productId} AND user_id = ${owner.userId}`;
          if (!product) throw new DomainError(PRODUCT_NOT_FOUND, 404);
          const after = query.cursor ? decodeKey(query.cursor, 'cursor', 'position') : null;
          const rows = await ctx.sql<{ price: number; currency: string | null; source: string; observed_at: Date; event_position: string }[]>`
        SELECT price, currency, source, observed_at, event_position FROM price_points
        WHERE product_id = ${productId} AND user_id = ${owner.userId}
          ${query.from ? ctx.sql`AND observed_at >= ${new Date(query.from)}` : ctx.sql``}
          ${query.to ? ctx.sql`AND observed_at < ${new Date(query.to)}` : ctx.sql``}
          ${after ? ctx.sql`AND (observed_at, event_position) > (${after[0]}::timestamptz, ${after[1]}::bigint)` : ctx.sql``}
        ORDER BY observed_at, event_position LIMIT ${query.limit + 1}`;
          const page = rows.slice(0, query.limit);
          const last = page[page.length - 1];
          return {
            productId,
            prices: page.map((r) => ({ price: r.price, currency: r.currency, source: r.source as never, observedAt: r.observed_at.toISOString() })),
            next: rows.length > query.limit && last ? encodeKey(last.observed_at, last.event_position) : null,
          };
        },
        {
          params: z.object({ id: z.string() }),
          query: PricesQuery,
          response: { 200: PriceList, ...errors },
          detail: doc('Products', "A product's price history", 'Every price observed or set, oldest first, in pages.'),
        },
      )

      .get(
        '/alerts',
        async ({ owner, query }) => {
          const after = query.cursor ? decodeKey(query.cursor, 'cursor', 'id') : null;
          const rows = await ctx.sql<
            {
              id: string;
              type: string;
              product_id: string;
              product_name: string;
              product_url: string;
              message: string;
              previous_price: number | null;
              current_price: number | null;
              currency: string | null;
              change_percent: number | null;
              threshold_percent: number | null;
              is_read: boolean;
              created_at: Date;
            }[]
          >`
        SELECT id, type, product_id, product_name, product_url, message, previous_price, current_price, currency,
               change_percent, threshold_percent, is_read, created_at
        FROM alerts WHERE user_id = ${owner.userId} AND product_id <> ''
          ${query.unread === 'true' ? ctx.sql`AND NOT is_read` : ctx.sql``}
          ${after ? ctx.sql`AND (created_at, id) < (${after[0]}::timestamptz, ${after[1]})` : ctx.sql``}
        ORDER BY created_at DESC, id DESC LIMIT ${query.limit + 1}`;
          const page = rows.slice(0, query.limit);
          const last = page[page.length - 1];
          return {
            alerts: page.map((r) => ({
              id: r.id,
              type: r.type as never,
              productId: r.product_id,
              productName: r.product_name,
              productUrl: r.product_url,
              message: r.message,
              previousPrice: r.previous_price,
              currentPrice: r.current_price,
              currency: r.currency,
              changePercent: r.change_percent,
              thresholdPercent: r.threshold_percent,
              isRead: r.is_read,
              createdAt: r.created_at.toISOString(),
            })),
            next: rows.length > query.limit && last ? encodeKey(last.created_at, last.id) : null,
          };
        },
        {
          query: AlertsQuery,
          response: { 200: AlertList, ...errors },
          detail: doc('Alerts', 'Your alerts', 'Price drops, rises, thresholds met and stock changes (out of stock, back in stock), newest first.'),
        },
      )

      .get('/catalogue', async ({ owner, query }) => ({ catalogue: await readCatalogue(ctx.sql, ctx.config, owner.userId, query) }), {
        query: CatalogueQuery,
        response: { 200: CatalogueList, ...errors },
        detail: doc(
          'Catalogue',
          'Your own products',
          'The products you sell, read from your store or a CSV file, each with its linked competitor products and where your price stands among them.',
        ),
      })
      .get('/catalogue/position', ({ owner }) => readPositionSummary(ctx.sql, ctx.config, owner.userId), {
        response: { 200: PositionSummary, ...errors },
        detail: doc(
          'Catalogue',
          'Where you stand',
          'How many of your products sit in each band, your price index, and how many were undercut in the last 24 hours.',
        ),
      })
      .get(
        '/catalogue/recommendations',
        async ({ owner, query }) => {
          const entries = await readRecommendations(ctx.sql, ctx.config, owner.userId);
          return { recommendations: entries.filter((e) => query.include === 'all' || e.waiting).map(publicRecommendation) };
        },
        {
          query: RecommendationsQuery,
          response: { 200: RecommendationList, ...errors },
          detail: doc(
            'Catalogue',
            'Price recommendations',
            'What your pricing rules recommend now and why: the new prices waiting for you, or with `include=all` every product with a rule. Each names the observations it rests on by their position in your event log.',
          ),
        },
      )
      .get('/catalogue/matches', async ({ owner }) => ({ matches: await readMatches(ctx.sql, owner.userId) }), {
        response: { 200: MatchList, ...errors },
        detail: doc('Catalogue', 'Suggested matches', 'Competitor products you track that look like your own products: link them in the app.'),
      })
      .get(
        '/catalogue/:id',
        async ({ owner, params }) => {
          const [entry] = await readCatalogue(ctx.sql, ctx.config, owner.userId, { id: idOf(params.id, OWN_PRODUCT_NOT_FOUND) });
          if (!entry) throw new DomainError(OWN_PRODUCT_NOT_FOUND, 404);
          return entry;
        },
        {
          params: z.object({ id: z.string() }),
          response: { 200: CatalogueEntry, ...errors },
          detail: doc('Catalogue', 'One of your own products', 'With its linked competitor products and where your price stands among them.'),
        },
      )
      .get(
        '/catalogue/:id/recommendation',
        async ({ owner, params }) => {
          const id = idOf(params.id, OWN_PRODUCT_NOT_FOUND);
          const [entry] = await readRecommendations(ctx.sql, ctx.config, owner.userId, { ids: [id] });
          if (!entry) throw new DomainError(OWN_PRODUCT_NOT_FOUND, 404);
          return publicRecommendation(entry);
        },
        {
          params: z.object({ id: z.string() }),
          response: { 200: RecommendationEntry, ...errors },
          detail: doc(
            'Catalogue',
            "An own product's price recommendation",
            'What its pricing rule recommends now, why, and from which observations; 404 when it has no rule.',
          ),
        },
      )
      .get(
        '/catalogue/:id/position-history',
        async ({ owner, params, query }) => {
          const id = idOf(params.id, OWN_PRODUCT_NOT_FOUND);
          const points = await readPositionHistory(ctx.sql, ctx.config, owner.userId, id, query.timeFilter);
          if (!points) throw new DomainError(OWN_PRODUCT_NOT_FOUND, 404);
          return { id, timeFilter: query.timeFilter, points };
        },
        {
          params: z.object({ id: z.string() }),
          query: PositionHistoryQuery,
          response: { 200: PositionHistory, ...errors },
          detail: doc('Catalogue', "An own product's position over time", "Your price against the counted competitors' cheapest and average."),
        },
      )

      .get('/events', ({ owner, query }) => userEvents(ctx.store, owner.userId, eventCursor(query.after, 'after'), query.limit), {
        query: EventsQuery,
        response: { 200: EventPage, ...errors },
        detail: doc(
          'Events',
          'Your events',
          "The events of your account, products, subscription and alerts, in the log's commit order. " +
            'Page with `after`: no event is skipped or repeated, even while new ones are being recorded.',
        ),
      })

      .get(
        '/events/stream',
        async ({ owner, query, request }) => {
          const from = eventCursor(request.headers.get('last-event-id') ?? query.after, 'after') ?? (await ctx.store.head());
          const open = streams.get(owner.keyId) ?? 0;
          if (open >= MAX_STREAMS_PER_KEY) throw new DomainError(`At most ${MAX_STREAMS_PER_KEY} event streams per API key are open at once.`, 429);
          streams.set(owner.keyId, open + 1);
          // Revoked here: the stream ends at once. Revoked through another process: stillAllowed ends it.
          const revoked = new AbortController();
          const unwatch = watchRevocation(owner.keyId, () => revoked.abort());
          const body = eventStream({
            store: ctx.store,
            watcher,
            userId: owner.userId,
            from,
            signal: AbortSignal.any([request.signal, revoked.signal]),
            heartbeatMs: opts.heartbeatMs,
            stillAllowed: () => keyStillValid(ctx.sql, owner.keyId),
            onClose: () => {
              unwatch();
              const n = (streams.get(owner.keyId) ?? 1) - 1;
              if (n > 0) streams.set(owner.keyId, n);
              else streams.delete(owner.keyId);
            },
          });
          return new Response(body, {
            headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' },
          });
        },
        {
          query: StreamQuery,
          detail: {
            ...doc(
              'Events',
              'New events as they happen',
              'Server-sent events (text/event-stream): each event has `id` (its cursor), ' +
                '`event` (its type) and `data` (the event as JSON, as in GET /api/v1/events). A comment line is sent every 15 s. ' +
                'Reconnect with Last-Event-ID to resume.',
            ),
            responses: { 200: { description: 'An event stream', content: { 'text/event-stream': { schema: { type: 'string' } } } } },
          },
        },
      )
  );
}
