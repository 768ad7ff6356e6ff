import { upcastAndValidate, type AlertRule, type EventData, type EventOf } from './catalogue.ts';
import { DomainError, fold, type Decider } from './decider.ts';
import { ConcurrencyError, type AppendResult, type Checkpoint, type EventStore } from './store.ts';
import type { Sql } from '../db/index.ts';

/**
 * The product aggregate: one tracked competitor page, its details and what happened to its price.
 * Stream `product-<id>`.
 */
export type ProductEvent =
  | EventOf<'ProductAdded'>
  | EventOf<'ProductEdited'>
  | EventOf<'ProductRemoved'>
  | EventOf<'PriceManuallySet'>
  | EventOf<'PriceObserved'>
  | EventOf<'PriceCheckFailed'>
  | EventOf<'PriceCorrected'>;

export type ProductDetails = { name: string; url: string; selector: string; alertRule: AlertRule; stockAlerts: boolean };
/** An edit leaves the alert rule and stock alerts as they are when it does not name them; an add turns stock alerts on. */
export type ProductEdit = Omit<ProductDetails, 'alertRule' | 'stockAlerts'> & { alertRule?: AlertRule; stockAlerts?: boolean };

type Known = { productId: string; userId: string; details: ProductDetails };
type Live = Known & { status: 'live' };
export type ProductState = { status: 'none' } | Live | (Known & { status: 'removed' });

/** A check's outcome as the price-check worker reports it; the decider adds the ids. */
/** A check's observation; one that names no variant and no regular price may leave them out. */
export type Observation = Omit<EventData<'PriceObserved'>, 'productId' | 'userId' | 'variant' | 'regularPrice'> &
  Partial<Pick<EventData<'PriceObserved'>, 'variant' | 'regularPrice'>>;
export type CheckFailure = Omit<EventData<'PriceCheckFailed'>, 'productId' | 'userId'>;

/**
 * Commands from a user carry `userId`: a product of someone else reads as not found.
 * Check results come from the worker, which acts for the product's owner.
 */
export type ProductCommand =
  | { type: 'Add'; productId: string; userId: string; details: Omit<ProductDetails, 'stockAlerts'> & { stockAlerts?: boolean }; imageUrl?: string | null }
  | { type: 'Edit'; productId: string; userId: string; details: ProductEdit }
  | { type: 'Remove'; productId: string; userId: string }
  /** A new alert rule, the rest of the details as they are (bulk "Set alert threshold"). */
  | { type: 'SetAlertRule'; productId: string; userId: string; alertRule: AlertRule }
  /** `currency`: the product's (see the products list), in which the user typed the price. */
  | { type: 'SetPriceManually'; productId: string; userId: string; price: number; currency: string }
  | { type: 'RecordObservation'; productId: string; observation: Observation }
  | { type: 'RecordFailure'; productId: string; failure: CheckFailure }
  /** Prices re-read from observations' evidence (api/checks/reparse.ts). */
  | { type: 'CorrectPrices'; productId: string; corrections: PriceCorrection[] };

export type PriceCorrection = Omit<EventData<'PriceCorrected'>, 'productId' | 'userId'>;

export const productStream = (productId: string) => `product-${productId}`;

export const PRODUCT_NOT_FOUND = 'Product not found';

const sameRule = (a: AlertRule, b: AlertRule) => a.kind === b.kind && (a.kind !== 'drop' || (b.kind === 'drop' && a.percent === b.percent));

const sameDetails = (a: ProductDetails, b: ProductDetails) =>
  a.name === b.name && a.url === b.url && a.selector === b.selector && sameRule(a.alertRule, b.alertRule) && a.stockAlerts === b.stockAlerts;

/** The live product this command may change, or 404 for a missing, removed or foreign one. */
function liveProduct(state: ProductState, userId?: string): Live {
  if (state.status !== 'live' || (userId !== undefined && state.userId !== userId)) throw new DomainError(PRODUCT_NOT_FOUND, 404);
  return state;
}

export const productDecider: Decider<ProductState, ProductCommand, ProductEvent> = {
  initialState: () => ({ status: 'none' }),

  evolve(state, event) {
    switch (event.type) {
      case 'ProductAdded': {
        const { productId, userId, name, url, selector, alertRule, stockAlerts } = event.data;
        return { status: 'live', productId, userId, details: { name, url, selector, alertRule, stockAlerts } };
      }
      case 'ProductEdited': {
        if (state.status !== 'live') return state;
        const { name, url, selector, alertRule, stockAlerts } = event.data;
        return { ...state, details: { name, url, selector, alertRule, stockAlerts } };
      }
      case 'ProductRemoved':
        return state.status === 'live' ? { ...state, status: 'removed' } : state;
      // Prices live in the read models; no decision here depends on them.
      case 'PriceManuallySet':
      case 'PriceObserved':
      case 'PriceCheckFailed':
      case 'PriceCorrected':
        return state;
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'Add': {
        if (state.status !== 'none') throw new DomainError('This product already exists.', 409);
        const { productId, userId, details, imageUrl } = command;
        return [
          {
            type: 'ProductAdded',
            data: {
              productId,
              userId,
              ...details,
              stockAlerts: details.stockAlerts ?? true,
              imageUrl: imageUrl ?? null,
            },
          },
        ];
      }
      case 'Edit': {
        const product = liveProduct(state, command.userId);
        const details = {
          ...command.details,
          alertRule: command.details.alertRule ?? product.details.alertRule,
          stockAlerts: command.details.stockAlerts ?? product.details.stockAlerts,
        };
        if (sameDetails(product.details, details)) return [];
        return [{ type: 'ProductEdited', data: { productId: product.productId, userId: product.userId, ...details } }];
      }
      case 'SetAlertRule': {
        const product = liveProduct(state, command.userId);
        if (sameRule(product.details.alertRule, command.alertRule)) return [];
        return [{ type: 'ProductEdited', data: { productId: product.productId, userId: product.userId, ...product.details, alertRule: command.alertRule } }];
      }
      case 'Remove': {
        const product = liveProduct(state, command.userId);
        return [{ type: 'ProductRemoved', data: { productId: product.productId, userId: product.userId } }];
      }
      case 'SetPriceManually': {
        const product = liveProduct(state, command.userId);
        if (!(command.price > 0) || !Number.isFinite(command.price)) throw new DomainError('Please enter a valid price greater than 0', 400, 'price');
        return [{ type: 'PriceManuallySet', data: { productId: product.productId, userId: product.userId, price: command.price, currency: command.currency } }];
      }
      case 'RecordObservation': {
        const product = liveProduct(state);
        const { variant = null, regularPrice = null, ...observation } = command.observation;
        return [{ type: 'PriceObserved', data: { ...observation, variant, regularPrice, productId: product.productId, userId: product.userId } }];
      }
      case 'RecordFailure': {
        const product = liveProduct(state);
        return [{ type: 'PriceCheckFailed', data: { ...command.failure, productId: product.productId, userId: product.userId } }];
      }
      case 'CorrectPrices': {
        const product = liveProduct(state);
        // Only a real price, and only where it changes something.
        return command.corrections
          .filter((c) => c.price > 0 && Number.isFinite(c.price) && c.price !== c.previousPrice)
          .map((c) => ({ type: 'PriceCorrected' as const, data: { ...c, productId: product.productId, userId: product.userId } }));
      }
    }
  },
};

/** The events a product's decisions depend on; prices and check results change none. */
const LIFECYCLE = ['ProductAdded', 'ProductEdited', 'ProductRemoved'];

/**
 * Loads, decides and appends a product command, like `handleCommand`, but folds only the
 * lifecycle events: a product's stream grows by one event per check, and reading thousands of
 * observations to decide an edit would make every command slower as the product ages.
 * The stream version comes from the same statement, so the append still fails on any
 * concurrent write (then it reloads and decides again, unless it runs in the caller's `tx`).
 */
export async function handleProductCommand(
  store: EventStore,
  command: ProductCommand,
  opts: { tx?: Sql; attempts?: number } = {},
): Promise<{ events: ProductEvent[]; appended: AppendResult | null }> {
  const db = opts.tx ?? store.sql;
  const streamId = productStream(command.productId);
  for (let attempt = 1; ; attempt++) {
    const rows = await db<{ version: string; type: string | null; schema_version: number | null; data: unknown }[]>`
      SELECT s.version, e.type, e.schema_version, e.data
      FROM streams s LEFT JOIN events e ON e.stream_id = s.stream_id AND e.type = ANY(${LIFECYCLE}::text[])
      WHERE s.stream_id = ${streamId}
      ORDER BY e.stream_version`;
    const version = rows.length ? Number(rows[0]!.version) : 0;
    const history = rows.flatMap((r) => (r.type ? [{ type: r.type, data: upcastAndValidate(r.type, r.schema_version!, r.data) } as ProductEvent] : []));
    const decided = productDecider.decide(command, fold(productDecider, history));
    if (decided.length === 0) return { events: [], appended: null };
    try {
      return { events: decided, appended: await store.append(streamId, version === 0 ? 'no_stream' : version, decided, opts.tx) };
    } catch (err) {
      if (!(err instanceof ConcurrencyError) || attempt >= (opts.attempts ?? 3) || opts.tx) throw err;
    }
  }
}

/**
 * Decides many product commands (one per product) and appends all their events in one statement
 * in the caller's transaction: all or nothing. The first refusal (a product that is not the
 * user's: 404) throws before anything is written. Folds lifecycle events only, like
 * `handleProductCommand`. Answers the checkpoint of the last event, or null when nothing changed.
 */
export async function handleProductCommands(store: EventStore, commands: ProductCommand[], tx: Sql): Promise<{ count: number; checkpoint: Checkpoint | null }> {
  const streamIds = commands.map((c) => productStream(c.productId));
  const rows = await tx<{ stream_id: string; version: string; type: string | null; schema_version: number | null; data: unknown }[]>`
    SELECT s.stream_id, s.version, e.type, e.schema_version, e.data
    FROM streams s LEFT JOIN events e ON e.stream_id = s.stream_id AND e.type = ANY(${LIFECYCLE}::text[])
    WHERE s.stream_id = ANY(${streamIds}::text[])
    ORDER BY s.stream_id, e.stream_version`;
  const streams = new Map<string, { version: number; history: ProductEvent[] }>();
  for (const r of rows) {
    const stream = streams.get(r.stream_id) ?? { version: Number(r.version), history: [] };
    if (r.type) stream.history.push({ type: r.type, data: upcastAndValidate(r.type, r.schema_version!, r.data) } as ProductEvent);
    streams.set(r.stream_id, stream);
  }
  const batch = commands.flatMap((command, i) => {
    const stream = streams.get(streamIds[i]!);
    const events = productDecider.decide(command, fold(productDecider, stream?.history ?? []));
    return events.length ? [{ streamId: streamIds[i]!, expected: stream?.version || ('no_stream' as const), events }] : [];
  });
  if (!batch.length) return { count: 0, checkpoint: null };
  return { count: batch.length, checkpoint: await store.appendToStreams(batch, tx) };
}
