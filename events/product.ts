import type { AlertRule, EventData, EventOf } from './catalogue.ts';
import { DomainError, type Decider } from './decider.ts';

/**
 * The product aggregate: one tracked competitor page, its details and what happened to its price.
 * Stream `product-<id>`.
 */
export type ProductEvent =
  | EventOf<'ProductAdded'> | EventOf<'ProductEdited'> | EventOf<'ProductRemoved'>
  | EventOf<'PriceManuallySet'> | EventOf<'PriceObserved'> | EventOf<'PriceCheckFailed'>;

export type ProductDetails = { name: string; url: string; selector: string; alertRule: AlertRule };

export type ProductState =
  | { status: 'none' }
  | { status: 'live' | 'removed'; productId: string; userId: string; details: ProductDetails };

/** A check's outcome as the price-check worker reports it; the decider adds the ids. */
export type Observation = Omit<EventData<'PriceObserved'>, 'productId' | 'userId'>;
export type CheckFailure = Omit<EventData<'PriceCheckFailed'>, 'productId' | 'userId'>;

/**
 * Commands from a user carry `userId`: a product of someone else reads as not found.
 * Check results come from the worker, which acts for the product's owner.
 */
export type ProductCommand =
  | { type: 'Add'; productId: string; userId: string; details: ProductDetails; imageUrl?: string | null }
  | { type: 'Edit'; productId: string; userId: string; details: ProductDetails }
  | { type: 'Remove'; productId: string; userId: string }
  | { type: 'SetPriceManually'; productId: string; userId: string; price: number }
  | { type: 'RecordObservation'; productId: string; observation: Observation }
  | { type: 'RecordFailure'; productId: string; failure: CheckFailure };

export const productStream = (productId: string) => `product-${productId}`;

export const PRODUCT_NOT_FOUND = 'Product not found';

const sameRule = (a: AlertRule, b: AlertRule) =>
  a.kind === b.kind && (a.kind !== 'drop' || (b.kind === 'drop' && a.percent === b.percent));

const sameDetails = (a: ProductDetails, b: ProductDetails) =>
  a.name === b.name && a.url === b.url && a.selector === b.selector && sameRule(a.alertRule, b.alertRule);

type Live = Extract<ProductState, { status: 'live' }>;

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
        const { productId, userId, name, url, selector, alertRule } = event.data;
        return { status: 'live', productId, userId, details: { name, url, selector, alertRule } };
      }
      case 'ProductEdited': {
        if (state.status !== 'live') return state;
        const { name, url, selector, alertRule } = event.data;
        return { ...state, details: { name, url, selector, alertRule } };
      }
      case 'ProductRemoved':
        return state.status === 'live' ? { ...state, status: 'removed' } : state;
      // Prices live in the read models; no decision here depends on them.
      case 'PriceManuallySet':
      case 'PriceObserved':
      case 'PriceCheckFailed':
        return state;
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'Add': {
        if (state.status !== 'none') throw new DomainError('This product already exists.', 409);
        const { productId, userId, details, imageUrl } = command;
        return [{ type: 'ProductAdded', data: { productId, userId, ...details, imageUrl: imageUrl ?? null } }];
      }
      case 'Edit': {
        const product = liveProduct(state, command.userId);
        if (sameDetails(product.details, command.details)) return [];
        return [{ type: 'ProductEdited', data: { productId: product.productId, userId: product.userId, ...command.details } }];
      }
      case 'Remove': {
        const product = liveProduct(state, command.userId);
        return [{ type: 'ProductRemoved', data: { productId: product.productId, userId: product.userId } }];
      }
      case 'SetPriceManually': {
        const product = liveProduct(state, command.userId);
        if (!(command.price > 0) || !Number.isFinite(command.price)) throw new DomainError('Please enter a valid price greater than 0', 400, 'price');
        return [{ type: 'PriceManuallySet', data: { productId: product.productId, userId: product.userId, price: command.price, currency: 'GBP' } }];
      }
      case 'RecordObservation': {
        const product = liveProduct(state);
        return [{ type: 'PriceObserved', data: { ...command.observation, productId: product.productId, userId: product.userId } }];
      }
      case 'RecordFailure': {
        const product = liveProduct(state);
        return [{ type: 'PriceCheckFailed', data: { ...command.failure, productId: product.productId, userId: product.userId } }];
      }
    }
  },
};
