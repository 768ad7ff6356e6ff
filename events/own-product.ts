import { createHash } from 'node:crypto';
import type { EventOf, OwnProductDetails } from './catalogue.ts';
import { DomainError, type Decider } from './decider.ts';

/**
 * An own product: one product (or variant) the shop owner sells, as its source states it, with the
 * competitors it is compared with and the suggestions the owner turned down. Stream `own-product-<id>`.
 */
export type OwnProductEvent =
  | EventOf<'OwnProductImported'>
  | EventOf<'OwnProductChanged'>
  | EventOf<'OwnPriceChanged'>
  | EventOf<'OwnProductRemoved'>
  | EventOf<'CompetitorLinked'>
  | EventOf<'CompetitorUnlinked'>
  | EventOf<'MatchRejected'>;

type Live = {
  status: 'live';
  ownProductId: string;
  userId: string;
  details: OwnProductDetails;
  price: number;
  currency: string;
  links: ReadonlySet<string>;
  rejected: ReadonlySet<string>;
};
export type OwnProductState = { status: 'none' } | Live | { status: 'removed'; ownProductId: string; userId: string };

/** An item as a source or a CSV row states it. */
export type OwnItem = OwnProductDetails & { price: number; currency: string };

export type OwnProductCommand =
  /** From a source read or a CSV row: imports it, or records what changed since the last read. */
  | { type: 'Import'; ownProductId: string; userId: string; sourceId: string | null; externalId: string; item: OwnItem; at: string }
  | { type: 'Remove'; ownProductId: string; userId: string }
  | { type: 'Link'; ownProductId: string; userId: string; productId: string; via: 'hand' | 'suggestion' | 'gtin' }
  | { type: 'Unlink'; ownProductId: string; userId: string; productId: string }
  | { type: 'Reject'; ownProductId: string; userId: string; productId: string };

export const ownProductStream = (ownProductId: string) => `own-product-${ownProductId}`;
export const OWN_PRODUCT_NOT_FOUND = 'Product not found';

/**
 * The same item of the same source is always the same own product (a CSV row is known by its
 * SKU), so a re-read updates it rather than adding it again. Shaped as a UUID like other ids.
 */
export function ownProductIdFor(userId: string, sourceId: string | null, externalId: string): string {
  const h = createHash('sha256')
    .update(`own:${userId}:${sourceId ?? 'csv'}:${externalId}`)
    .digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

const DETAIL_KEYS = ['title', 'variant', 'sku', 'gtin', 'mpn', 'brand', 'regularPrice', 'cost', 'url', 'imageUrl', 'availability'] as const;
const detailsOf = (item: OwnProductDetails): OwnProductDetails => Object.fromEntries(DETAIL_KEYS.map((k) => [k, item[k]])) as OwnProductDetails;
const sameDetails = (a: OwnProductDetails, b: OwnProductDetails) => DETAIL_KEYS.every((k) => a[k] === b[k]);

function live(state: OwnProductState, userId: string): Live {
  if (state.status !== 'live' || state.userId !== userId) throw new DomainError(OWN_PRODUCT_NOT_FOUND, 404);
  return state;
}

const without = (set: ReadonlySet<string>, id: string) => new Set([...set].filter((x) => x !== id));

export const ownProductDecider: Decider<OwnProductState, OwnProductCommand, OwnProductEvent> = {
  initialState: () => ({ status: 'none' }),

  evolve(state, event) {
    switch (event.type) {
      case 'OwnProductImported': {
        const { ownProductId, userId, price, currency } = event.data;
        // A product back in its source starts afresh: its old links went with it.
        return { status: 'live', ownProductId, userId, details: detailsOf(event.data), price, currency, links: new Set(), rejected: new Set() };
      }
      case 'OwnProductChanged':
        return state.status === 'live' ? { ...state, details: detailsOf(event.data) } : state;
      case 'OwnPriceChanged':
        return state.status === 'live' ? { ...state, price: event.data.price, currency: event.data.currency } : state;
      case 'OwnProductRemoved':
        return state.status === 'live' ? { status: 'removed', ownProductId: state.ownProductId, userId: state.userId } : state;
      case 'CompetitorLinked':
        return state.status === 'live' ? { ...state, links: new Set([...state.links, event.data.productId]) } : state;
      case 'CompetitorUnlinked':
        return state.status === 'live' ? { ...state, links: without(state.links, event.data.productId) } : state;
      case 'MatchRejected':
        return state.status === 'live' ? { ...state, rejected: new Set([...state.rejected, event.data.productId]) } : state;
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'Import': {
        const { ownProductId, userId, sourceId, externalId, item, at } = command;
        const { price, currency } = item;
        if (state.status !== 'live') {
          return [{ type: 'OwnProductImported', data: { ownProductId, userId, sourceId, externalId, ...detailsOf(item), price, currency, at } }];
        }
        const events: OwnProductEvent[] = [];
        if (!sameDetails(state.details, item)) events.push({ type: 'OwnProductChanged', data: { ownProductId, userId, ...detailsOf(item), at } });
        if (state.price !== price || state.currency !== currency) {
          events.push({ type: 'OwnPriceChanged', data: { ownProductId, userId, price, previousPrice: state.price, currency, at } });
        }
        return events;
      }
      case 'Remove': {
        const p = live(state, command.userId);
        return [{ type: 'OwnProductRemoved', data: { ownProductId: p.ownProductId, userId: p.userId } }];
      }
      case 'Link': {
        const p = live(state, command.userId);
        if (p.links.has(command.productId)) return [];
        return [{ type: 'CompetitorLinked', data: { ownProductId: p.ownProductId, userId: p.userId, productId: command.productId, via: command.via } }];
      }
      case 'Unlink': {
        const p = live(state, command.userId);
        if (!p.links.has(command.productId)) return [];
        return [{ type: 'CompetitorUnlinked', data: { ownProductId: p.ownProductId, userId: p.userId, productId: command.productId } }];
      }
      case 'Reject': {
        const p = live(state, command.userId);
        if (p.rejected.has(command.productId)) return [];
        const ids = { ownProductId: p.ownProductId, userId: p.userId, productId: command.productId };
        // Turning down a match that was accepted (or linked automatically) also ends the link.
        return [...(p.links.has(command.productId) ? [{ type: 'CompetitorUnlinked' as const, data: ids }] : []), { type: 'MatchRejected', data: ids }];
      }
    }
  },
};
