import { createHash } from 'node:crypto';
import type { EventOf, OwnProductDetails } from './catalogue.ts';
import type { PricingRule } from '../domain/pricing.ts';
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
  | EventOf<'MatchRejected'>
  | EventOf<'PricingRuleSet'>
  | EventOf<'PricingRuleRemoved'>
  | EventOf<'RecommendationApplied'>
  | EventOf<'RecommendationDismissed'>
  | EventOf<'StorePriceWritten'>
  | EventOf<'StorePriceWriteFailed'>;

type Live = {
  status: 'live';
  ownProductId: string;
  userId: string;
  details: OwnProductDetails;
  price: number;
  currency: string;
  links: ReadonlySet<string>;
  rejected: ReadonlySet<string>;
  rule: PricingRule | null;
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
  | { type: 'Reject'; ownProductId: string; userId: string; productId: string }
  /** The owner's cost, set by hand; null clears it. */
  | { type: 'SetCost'; ownProductId: string; userId: string; cost: number | null; at: string }
  | { type: 'SetRule'; ownProductId: string; userId: string; rule: PricingRule; at: string }
  | { type: 'RemoveRule'; ownProductId: string; userId: string; at: string }
  /** A recommended price taken (by the owner, the automatic mode, or an undo) or turned down. */
  | {
      type: 'Apply';
      ownProductId: string;
      userId: string;
      price: number;
      via: 'hand' | 'automatic' | 'undo';
      evidence: number[];
      at: string;
    }
  | { type: 'Dismiss'; ownProductId: string; userId: string; price: number; at: string }
  /** How writing an applied price to the store went. */
  | {
      type: 'RecordStoreWrite';
      ownProductId: string;
      userId: string;
      sourceId: string;
      price: number;
      failure: { reason: string; httpStatus: number | null } | null;
      at: string;
    };

export const ownProductStream = (ownProductId: string) => `own-product-${ownProductId}`;
export const OWN_PRODUCT_NOT_FOUND = 'Product not found';
export const NO_PRICING_RULE = 'This product has no pricing rule';

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
        return { status: 'live', ownProductId, userId, details: detailsOf(event.data), price, currency, links: new Set(), rejected: new Set(), rule: null };
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
      case 'PricingRuleSet':
        return state.status === 'live' ? { ...state, rule: event.data.rule } : state;
      case 'PricingRuleRemoved':
        return state.status === 'live' ? { ...state, rule: null } : state;
      case 'RecommendationApplied':
      case 'RecommendationDismissed':
      case 'StorePriceWritten':
      case 'StorePriceWriteFailed':
        return state;
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'Import': {
        const { ownProductId, userId, sourceId, externalId, at } = command;
        let { item } = command;
        const { price, currency } = item;
        if (state.status !== 'live') {
          return [{ type: 'OwnProductImported', data: { ownProductId, userId, sourceId, externalId, ...detailsOf(item), price, currency, at } }];
        }
        const events: OwnProductEvent[] = [];
        // Stores do not publish costs: a read that states none keeps the cost the owner gave.
        if (item.cost === null) item = { ...item, cost: state.details.cost };
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
      case 'SetCost': {
        const p = live(state, command.userId);
        if (p.details.cost === command.cost) return [];
        return [{ type: 'OwnProductChanged', data: { ownProductId: p.ownProductId, userId: p.userId, ...p.details, cost: command.cost, at: command.at } }];
      }
      case 'SetRule': {
        const p = live(state, command.userId);
        if (p.rule && JSON.stringify(p.rule) === JSON.stringify(command.rule)) return [];
        return [{ type: 'PricingRuleSet', data: { ownProductId: p.ownProductId, userId: p.userId, rule: command.rule, at: command.at } }];
      }
      case 'RemoveRule': {
        const p = live(state, command.userId);
        if (!p.rule) throw new DomainError(NO_PRICING_RULE, 404);
        return [{ type: 'PricingRuleRemoved', data: { ownProductId: p.ownProductId, userId: p.userId, at: command.at } }];
      }
      case 'Apply': {
        const p = live(state, command.userId);
        const { price, via, evidence, at } = command;
        return [
          {
            type: 'RecommendationApplied',
            data: { ownProductId: p.ownProductId, userId: p.userId, price, previousPrice: p.price, currency: p.currency, via, evidence, at },
          },
        ];
      }
      case 'Dismiss': {
        const p = live(state, command.userId);
        return [
          {
            type: 'RecommendationDismissed',
            data: { ownProductId: p.ownProductId, userId: p.userId, price: command.price, currency: p.currency, at: command.at },
          },
        ];
      }
      case 'RecordStoreWrite': {
        if (state.status !== 'live') return [];
        const { sourceId, price, failure, at } = command;
        const data = { ownProductId: state.ownProductId, userId: state.userId, sourceId, price, currency: state.currency, at };
        return [failure ? { type: 'StorePriceWriteFailed', data: { ...data, ...failure } } : { type: 'StorePriceWritten', data }];
      }
    }
  },
};
