import { describe, expect, test } from 'bun:test';
import type { AlertRule } from './catalogue.ts';
import { fold, type DomainError } from './decider.ts';
import { alertDecider, backtest, decideAlert, decideMarkAllRead, decideStockAlert, type AlertEvent } from './alert.ts';
import { formatMoney } from '../domain/money.ts';

const gbp = (price: number) => ({ price, currency: 'GBP' });
const NONE: AlertRule = { kind: 'none' };
const ANY: AlertRule = { kind: 'any' };
const drop = (percent: number): AlertRule => ({ kind: 'drop', percent });

describe('alert rule', () => {
  test('none never alerts', () => {
    expect(decideAlert(NONE, gbp(100), gbp(50))).toBeNull();
    expect(decideAlert(NONE, gbp(100), gbp(150))).toBeNull();
  });

  test('any: a fall is price_drop, a rise price_increase', () => {
    expect(decideAlert(ANY, gbp(20), gbp(18))).toEqual({
      type: 'price_drop',
      changePercent: -10,
      thresholdPercent: null,
      message: 'Price dropped 10.0% from £20.00 to £18.00',
    });
    expect(decideAlert(ANY, gbp(20), gbp(21))).toEqual({
      type: 'price_increase',
      changePercent: 5,
      thresholdPercent: null,
      message: 'Price rose 5.0% from £20.00 to £21.00',
    });
  });

  test('any: the smallest change counts', () => {
    expect(decideAlert(ANY, gbp(10), gbp(9.99))?.type).toBe('price_drop');
    expect(decideAlert(ANY, gbp(10), gbp(10.01))?.type).toBe('price_increase');
  });

  test('an equal price, a first observation or a missing previous price raise nothing', () => {
    for (const rule of [ANY, drop(0), drop(5)]) {
      expect(decideAlert(rule, gbp(10), gbp(10))).toBeNull();
      expect(decideAlert(rule, null, gbp(10))).toBeNull();
    }
  });

  test('drop N: met at exactly N percent and beyond, not below', () => {
    expect(decideAlert(drop(10), gbp(20), gbp(18))).toEqual({
      type: 'threshold_met',
      changePercent: -10,
      thresholdPercent: 10,
      message: 'Price dropped 10.0% from £20.00 to £18.00, past your 10% alert threshold',
    });
    expect(decideAlert(drop(10), gbp(20), gbp(12))?.type).toBe('threshold_met');
    expect(decideAlert(drop(10), gbp(20), gbp(18.01))).toBeNull();
  });

  test('drop N: exactly N percent holds despite binary fractions', () => {
    expect(decideAlert(drop(10), gbp(0.3), gbp(0.27))?.type).toBe('threshold_met');
    expect(decideAlert(drop(5), gbp(19.99), gbp(18.9905))?.type).toBe('threshold_met');
    expect(decideAlert(drop(7.5), gbp(40), gbp(37))?.type).toBe('threshold_met');
  });

  test('drop N never alerts on a rise', () => {
    expect(decideAlert(drop(5), gbp(20), gbp(40))).toBeNull();
    expect(decideAlert(drop(0), gbp(20), gbp(20.5))).toBeNull();
  });

  test('drop 0 alerts on any fall', () => {
    expect(decideAlert(drop(0), gbp(20), gbp(19.99))?.type).toBe('threshold_met');
  });

  test('drop 100 is met only by a fall to 0', () => {
    expect(decideAlert(drop(100), gbp(20), gbp(0.01))).toBeNull();
    expect(decideAlert(drop(100), gbp(20), gbp(0))?.type).toBe('threshold_met');
  });

  test('a price of 0: a fall to it is a drop of 100%, a change from it has no percent and raises nothing', () => {
    expect(decideAlert(ANY, gbp(20), gbp(0))).toEqual({
      type: 'price_drop',
      changePercent: -100,
      thresholdPercent: null,
      message: 'Price dropped 100.0% from £20.00 to £0.00',
    });
    for (const rule of [ANY, drop(0), drop(5)]) expect(decideAlert(rule, gbp(0), gbp(10))).toBeNull();
    expect(backtest(ANY, [gbp(0), gbp(5), gbp(0)])).toEqual({ alerts: 1, changes: 2, observations: 3 });
  });

  test('priceDropAlerts off silences falls, not rises', () => {
    expect(decideAlert(ANY, gbp(20), gbp(18), { priceDropAlerts: false })).toBeNull();
    expect(decideAlert(drop(5), gbp(20), gbp(10), { priceDropAlerts: false })).toBeNull();
    expect(decideAlert(ANY, gbp(20), gbp(22), { priceDropAlerts: false })?.type).toBe('price_increase');
  });

  test('a change of currency is not a price change', () => {
    expect(decideAlert(ANY, gbp(20), { price: 18, currency: 'EUR' })).toBeNull();
    // Unknown currency on either side: the numbers are taken as they are.
    expect(decideAlert(ANY, { price: 20, currency: null }, gbp(18))?.type).toBe('price_drop');
  });

  test("the message is in the shop's currency, pounds when unknown", () => {
    expect(decideAlert(ANY, { price: 20, currency: 'EUR' }, { price: 15, currency: 'EUR' })?.message).toBe('Price dropped 25.0% from €20.00 to €15.00');
    expect(decideAlert(ANY, { price: 1299.99, currency: null }, { price: 1000, currency: null })?.message).toBe(
      'Price dropped 23.1% from £1,299.99 to £1,000.00',
    );
  });

  test('the change percent is kept to 4 decimals, signed', () => {
    expect(decideAlert(ANY, gbp(3), gbp(2))?.changePercent).toBe(-33.3333);
    expect(decideAlert(ANY, gbp(3), gbp(4))?.changePercent).toBe(33.3333);
  });
});

describe('stock alert rule', () => {
  const on = { stockAlerts: true };

  test('given an orderable product, when the page says out of stock, then out_of_stock', () => {
    for (const before of ['InStock', 'PreOrder', 'BackOrder'] as const) {
      expect(decideStockAlert(before, 'OutOfStock', gbp(24.99), on)).toEqual({ type: 'out_of_stock', message: 'Out of stock' });
      expect(decideStockAlert(before, 'OutOfStock', null, on)).toEqual({ type: 'out_of_stock', message: 'Out of stock' });
    }
  });

  test('given an out-of-stock product, when it can be ordered again, then back_in_stock with the price when known', () => {
    expect(decideStockAlert('OutOfStock', 'InStock', gbp(24.99), on)).toEqual({ type: 'back_in_stock', message: 'Back in stock at £24.99' });
    expect(decideStockAlert('OutOfStock', 'InStock', null, on)).toEqual({ type: 'back_in_stock', message: 'Back in stock' });
    expect(decideStockAlert('OutOfStock', 'PreOrder', gbp(30), on)).toEqual({ type: 'back_in_stock', message: 'Available to pre-order at £30.00' });
    expect(decideStockAlert('OutOfStock', 'BackOrder', { price: 9.5, currency: 'EUR' }, on)).toEqual({
      type: 'back_in_stock',
      message: 'Available on backorder at €9.50',
    });
  });

  test('no change of orderability raises nothing', () => {
    expect(decideStockAlert('InStock', 'InStock', gbp(1), on)).toBeNull();
    expect(decideStockAlert('OutOfStock', 'OutOfStock', gbp(1), on)).toBeNull();
    expect(decideStockAlert('InStock', 'PreOrder', gbp(1), on)).toBeNull();
    expect(decideStockAlert('BackOrder', 'InStock', gbp(1), on)).toBeNull();
  });

  test('the first known availability, or a page that does not say, raises nothing', () => {
    expect(decideStockAlert(null, 'OutOfStock', gbp(1), on)).toBeNull();
    expect(decideStockAlert(null, 'InStock', gbp(1), on)).toBeNull();
    expect(decideStockAlert('InStock', null, gbp(1), on)).toBeNull();
    expect(decideStockAlert('OutOfStock', null, null, on)).toBeNull();
  });

  test('stock alerts off for the product raise nothing', () => {
    expect(decideStockAlert('InStock', 'OutOfStock', gbp(1), { stockAlerts: false })).toBeNull();
    expect(decideStockAlert('OutOfStock', 'InStock', gbp(1), { stockAlerts: false })).toBeNull();
  });
});

describe('backtest', () => {
  const prices = [100, 95, 95, 80, 90, 81, 81].map(gbp);

  test('replays the run through the rule', () => {
    expect(backtest(ANY, prices)).toEqual({ alerts: 4, changes: 4, observations: 7 });
    expect(backtest(drop(10), prices)).toEqual({ alerts: 2, changes: 4, observations: 7 }); // 95 -> 80, 90 -> 81
    expect(backtest(drop(20), prices)).toEqual({ alerts: 0, changes: 4, observations: 7 });
    expect(backtest(NONE, prices)).toEqual({ alerts: 0, changes: 4, observations: 7 });
  });

  test('the price before the run is the first reference', () => {
    expect(backtest(drop(10), [gbp(80)], gbp(100))).toEqual({ alerts: 1, changes: 1, observations: 1 });
    expect(backtest(drop(10), [gbp(80)])).toEqual({ alerts: 0, changes: 0, observations: 1 });
  });

  test('honours the drop alerts setting', () => {
    expect(backtest(ANY, prices, null, { priceDropAlerts: false }).alerts).toBe(1);
  });
});

describe('alert read state', () => {
  const raised: AlertEvent = {
    type: 'AlertRaised',
    data: {
      alertId: 'a1',
      userId: 'u1',
      productId: 'p1',
      standing: null,
      type: 'price_drop',
      productName: 'Kettle',
      productUrl: 'https://shop.example/k',
      productImage: null,
      previousPrice: 20,
      currentPrice: 18,
      currency: 'GBP',
      changePercent: -10,
      thresholdPercent: null,
      message: 'Price dropped 10.0% from £20.00 to £18.00',
      trigger: { eventType: 'PriceObserved', position: 7, at: '2026-01-01T10:00:00.000Z' },
    },
  };
  const decider = alertDecider('a1');
  const given = (events: AlertEvent[]) => fold(decider, events);

  test('an unread alert is marked read from either screen', () => {
    expect(decider.decide({ type: 'MarkRead', alertId: 'a1', userId: 'u1', via: 'alerts' }, given([raised]))).toEqual([
      { type: 'AlertRead', data: { alertId: 'a1', userId: 'u1' } },
    ]);
    expect(decider.decide({ type: 'MarkRead', alertId: 'a1', userId: 'u1', via: 'notifications' }, given([raised]))).toEqual([
      { type: 'NotificationRead', data: { alertId: 'a1', userId: 'u1' } },
    ]);
  });

  test('a read alert is not marked again, whichever way it was read', () => {
    const reads: AlertEvent[] = [
      { type: 'AlertRead', data: { alertId: 'a1', userId: 'u1' } },
      { type: 'NotificationRead', data: { alertId: 'a1', userId: 'u1' } },
      { type: 'AllNotificationsRead', data: { userId: 'u1', alertIds: ['a0', 'a1'] } },
    ];
    for (const read of reads) {
      expect(decider.decide({ type: 'MarkRead', alertId: 'a1', userId: 'u1', via: 'alerts' }, given([raised, read]))).toEqual([]);
    }
  });

  test('reads of other alerts leave it unread', () => {
    const state = given([
      raised,
      { type: 'AlertRead', data: { alertId: 'a2', userId: 'u1' } },
      { type: 'AllNotificationsRead', data: { userId: 'u1', alertIds: ['a3'] } },
    ]);
    expect(state.status).toBe('unread');
  });

  test("an unknown alert, or someone else's, is not found", () => {
    const refusal = (events: AlertEvent[], userId: string) => {
      try {
        decider.decide({ type: 'MarkRead', alertId: 'a1', userId, via: 'alerts' }, given(events));
      } catch (err) {
        return err as DomainError;
      }
      throw new Error('accepted');
    };
    expect(refusal([], 'u1').status).toBe(404);
    expect(refusal([raised], 'u2').status).toBe(404);
  });

  test('mark all names the unread ones, and nothing when all are read', () => {
    const unread = given([raised]);
    const read = fold(alertDecider('a2'), [
      { ...raised, data: { ...raised.data, alertId: 'a2' } },
      { type: 'AlertRead', data: { alertId: 'a2', userId: 'u1' } },
    ]);
    expect(decideMarkAllRead('u1', [unread, read])).toEqual([{ type: 'AllNotificationsRead', data: { userId: 'u1', alertIds: ['a1'] } }]);
    expect(decideMarkAllRead('u1', [read])).toEqual([]);
    expect(decideMarkAllRead('u2', [unread])).toEqual([]);
  });
});

test('money is shown with two decimals; a code Intl does not know is written out, never as pounds', () => {
  expect(formatMoney(5)).toBe('£5.00');
  expect(formatMoney(5, 'EUR')).toBe('€5.00');
  expect(formatMoney(5, 'XYZ1')).toBe('5.00 XYZ1');
});
