import type { AlertRule, Availability, EventOf } from './catalogue.ts';
import type { ALERT_TYPES, STOCK_ALERT_TYPES } from '../domain/alerts.ts';
import { DomainError, type Decider } from './decider.ts';
import { formatMoney } from '../domain/money.ts';

/**
 * Alerts: the pure rule that turns a new price into an alert, and the read state of each alert.
 * Stream `alerts-<userId>` holds a user's AlertRaised events and their reads.
 *
 * Reference price: an alert compares the new price with the product's previous price, the last
 * one observed or set by hand, whatever its age. That is the price the user last saw on their
 * card, so "dropped 12% from £20.00 to £17.60" always matches what they saw, and every change is
 * judged once: a price that stays low does not alert again on each check, and each alert has a
 * single observation that explains it. The cost: a slow slide (1% a day) never meets a 5% drop
 * threshold. Comparing with the price of the last alert or a moving peak would catch that, but
 * it hides state the user cannot see, and a drop alert could then follow a rise.
 */

export type AlertType = (typeof ALERT_TYPES)[number];
export type Price = { price: number; currency: string | null };
export type AlertDecision = { type: AlertType; changePercent: number; thresholdPercent: number | null; message: string };

/** A drop "of N percent or more" must hold for N itself despite binary fractions (0.3 -> 0.27 is 10%). */
const EPSILON = 1e-9;
const round4 = (n: number) => Math.round(n * 10_000) / 10_000;

/**
 * The alert a new price raises, or null. No previous price (the first observation), an equal
 * price, a change of currency (the numbers are not comparable) or a rule of 'none' raise
 * nothing. 'any' raises price_drop or price_increase; a drop rule of N raises threshold_met when
 * the price fell by N percent or more. `priceDropAlerts` off (the user's setting) silences
 * every alert about a fall: price_drop and threshold_met.
 */
export function decideAlert(rule: AlertRule, previous: Price | null, current: Price, opts: { priceDropAlerts?: boolean } = {}): AlertDecision | null {
  if (rule.kind === 'none' || !previous || !(previous.price > 0) || previous.price === current.price) return null;
  if (previous.currency && current.currency && previous.currency !== current.currency) return null;
  const exact = ((current.price - previous.price) / previous.price) * 100;
  const fell = exact < 0;
  if (fell && opts.priceDropAlerts === false) return null;
  const changePercent = round4(exact);
  const currency = current.currency ?? previous.currency;
  const from = formatMoney(previous.price, currency),
    to = formatMoney(current.price, currency);
  const by = formatPercent(Math.abs(exact));
  if (rule.kind === 'any') {
    return fell
      ? { type: 'price_drop', changePercent, thresholdPercent: null, message: `Price dropped ${by} from ${from} to ${to}` }
      : { type: 'price_increase', changePercent, thresholdPercent: null, message: `Price rose ${by} from ${from} to ${to}` };
  }
  if (!fell || -exact < rule.percent - EPSILON) return null;
  return {
    type: 'threshold_met',
    changePercent,
    thresholdPercent: rule.percent,
    message: `Price dropped ${by} from ${from} to ${to}, past your ${Number(rule.percent.toFixed(2))}% alert threshold`,
  };
}

export type StockAlertDecision = { type: (typeof STOCK_ALERT_TYPES)[number]; message: string };

/**
 * Whether the product can be ordered: in stock, or orderable for later (pre-order, backorder).
 * Stock alerts are about that line, so a move between the orderable states raises nothing.
 */
export const isOrderable = (a: Availability) => a !== 'OutOfStock';

/**
 * The stock alert a check's availability raises, or null. `previous` is the last availability a
 * page stated (unknown ones are skipped by the caller, so a page that says nothing neither
 * raises nor resets anything). The first known availability raises nothing: there is no change
 * to report. out_of_stock: from orderable to OutOfStock. back_in_stock: from OutOfStock to any
 * orderable state, since a pre-order or backorder can be placed again. `price` is the price the
 * check read, if any (a sold-out page often shows none).
 */
export function decideStockAlert(
  previous: Availability | null,
  current: Availability | null,
  price: Price | null,
  opts: { stockAlerts: boolean },
): StockAlertDecision | null {
  if (!opts.stockAlerts || previous === null || current === null) return null;
  if (isOrderable(previous) && !isOrderable(current)) return { type: 'out_of_stock', message: 'Out of stock' };
  if (!isOrderable(previous) && isOrderable(current)) {
    const what = current === 'PreOrder' ? 'Available to pre-order' : current === 'BackOrder' ? 'Available on backorder' : 'Back in stock';
    return { type: 'back_in_stock', message: price ? `${what} at ${formatMoney(price.price, price.currency)}` : what };
  }
  return null;
}

/**
 * How many alerts a rule would have raised over a run of prices, oldest first, replayed through
 * `decideAlert` (the Edit Product dialog's backtest). `before` is the price in effect when the run
 * starts, if any.
 */
export function backtest(rule: AlertRule, prices: readonly Price[], before: Price | null = null, opts: { priceDropAlerts?: boolean } = {}) {
  let previous = before,
    alerts = 0,
    changes = 0;
  for (const current of prices) {
    if (previous && previous.price !== current.price) changes++;
    if (decideAlert(rule, previous, current, opts)) alerts++;
    previous = current;
  }
  return { alerts, changes, observations: prices.length };
}

export const formatPercent = (n: number) => `${n.toFixed(1)}%`;

// ---------------------------------------------------------------------------------------------
// Read state of one alert. An alert and its notification are one thing shown in two places:
// reading it on the Alerts screen or in the popover reads it in both.

export const alertStream = (userId: string) => `alerts-${userId}`;

export type AlertEvent =
  | EventOf<'AlertRaised'>
  | EventOf<'NoticeRaised'>
  | EventOf<'AlertRead'>
  | EventOf<'NotificationRead'>
  | EventOf<'AllNotificationsRead'>;

export type AlertState = { status: 'none' } | { status: 'unread' | 'read'; alertId: string; userId: string };

export type AlertCommand = { type: 'MarkRead'; alertId: string; userId: string; via: 'alerts' | 'notifications' };

export const ALERT_NOT_FOUND = 'Alert not found';

/** The state of alert `alertId`, given the events of its user's stream that mention it. */
export const alertDecider = (alertId: string): Decider<AlertState, AlertCommand, AlertEvent> => ({
  initialState: () => ({ status: 'none' }),

  evolve(state, event) {
    switch (event.type) {
      case 'AlertRaised':
      case 'NoticeRaised':
        return event.data.alertId === alertId ? { status: 'unread', alertId, userId: event.data.userId } : state;
      case 'AlertRead':
      case 'NotificationRead':
        return state.status !== 'none' && event.data.alertId === alertId ? { ...state, status: 'read' } : state;
      case 'AllNotificationsRead':
        return state.status !== 'none' && event.data.alertIds.includes(alertId) ? { ...state, status: 'read' } : state;
    }
  },

  decide(command, state) {
    // Someone else's alert reads as not found.
    if (state.status === 'none' || state.userId !== command.userId) throw new DomainError(ALERT_NOT_FOUND, 404);
    if (state.status === 'read') return []; // read items are not marked again
    const data = { alertId, userId: command.userId };
    return [command.via === 'alerts' ? { type: 'AlertRead', data } : { type: 'NotificationRead', data }];
  },
});

/** 'Mark all read': one event naming the alerts, of those given, that are still unread; none when all are read. */
export function decideMarkAllRead(userId: string, states: readonly AlertState[]): AlertEvent[] {
  const alertIds = states.flatMap((s) => (s.status === 'unread' && s.userId === userId ? [s.alertId] : []));
  return alertIds.length ? [{ type: 'AllNotificationsRead', data: { userId, alertIds } }] : [];
}
