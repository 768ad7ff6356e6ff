import { describe, expect, test } from 'bun:test';
import type { DashboardStats } from './api';
import { statCards } from './dashboard';

process.env.TZ = 'Europe/London';

const now = new Date('2026-03-05T14:30:00Z');

function stats(overrides: Partial<DashboardStats> = {}): DashboardStats {
  return {
    productsCount: 0,
    priceDropsCount: 0,
    alertsCount: 0,
    recentChanges: [],
    lastScan: { at: null, status: null, failedCount: 0 },
    trends: { productsCount: null, priceDropsCount: null, alertsCount: null },
    priceTrends: [],
    ...overrides,
  };
}

const card = (s: DashboardStats, id: string) => statCards(s, now).find((c) => c.id === id)!;

describe('statCards', () => {
  test('the four cards in order, figures from the stats', () => {
    const cards = statCards(stats({ productsCount: 12, priceDropsCount: 3, alertsCount: 2 }), now);
    expect(cards.map((c) => [c.title, c.value])).toEqual([
      ['Products Monitored', '12'],
      ['Price Drops Detected', '3'],
      ['Active Alerts', '2'],
      ['Last Scan', 'Never'],
    ]);
  });

  test('no baseline: no badges, no invented trends', () => {
    const cards = statCards(stats({ productsCount: 4 }), now);
    expect(cards.map((c) => c.change)).toEqual([undefined, undefined, undefined, undefined]);
    expect(card(stats(), 'products').label).toBeUndefined();
    expect(card(stats(), 'alerts').label).toBeUndefined();
    expect(card(stats(), 'drops').label).toBe('in the last 7 days');
    expect(card(stats(), 'scan')).toMatchObject({ label: 'No checks yet', changeType: 'neutral' });
  });

  test('trends against the baseline, coloured by direction', () => {
    const s = stats({
      productsCount: 12,
      priceDropsCount: 2,
      trends: {
        productsCount: { current: 12, previous: 10, changePercent: 20 },
        priceDropsCount: { current: 2, previous: 4, changePercent: -50 },
        alertsCount: { newToday: 3 },
      },
      alertsCount: 5,
    });
    expect(card(s, 'products')).toMatchObject({ change: '+20.0%', label: 'vs last month', changeType: 'positive' });
    expect(card(s, 'drops')).toMatchObject({ change: '-50.0%', label: 'vs last week', changeType: 'negative' });
    expect(card(s, 'alerts')).toMatchObject({ change: '+3', label: 'new today', changeType: 'warning' });
  });

  test('an unchanged figure and no new alerts are neutral', () => {
    const s = stats({
      trends: { productsCount: { current: 5, previous: 5, changePercent: 0 }, priceDropsCount: null, alertsCount: { newToday: 0 } },
      alertsCount: 2,
    });
    expect(card(s, 'products')).toMatchObject({ change: '0.0%', changeType: 'neutral' });
    expect(card(s, 'alerts')).toMatchObject({ change: '+0', changeType: 'neutral' });
  });

  test('every alert read: no count of new ones beside a zero', () => {
    const s = stats({ alertsCount: 0, trends: { productsCount: null, priceDropsCount: null, alertsCount: { newToday: 0 } } });
    expect(card(s, 'alerts')).toEqual({ id: 'alerts', title: 'Active Alerts', value: '0', label: 'all read', changeType: 'neutral' });
  });

  test('last scan: real time and status', () => {
    const at = new Date(now.getTime() - 2 * 60_000).toISOString();
    expect(card(stats({ lastScan: { at, status: 'ok', failedCount: 0 } }), 'scan')).toMatchObject({
      value: '2m ago',
      change: 'OK',
      label: 'all systems',
      changeType: 'success',
    });
    expect(card(stats({ lastScan: { at, status: 'ok', failedCount: 2 } }), 'scan')).toMatchObject({
      change: 'OK',
      label: '2 products failing',
      changeType: 'warning',
    });
    expect(card(stats({ lastScan: { at, status: 'failed', failedCount: 1 } }), 'scan')).toMatchObject({
      change: 'Failed',
      label: '1 product failing',
      changeType: 'negative',
    });
    expect(card(stats({ lastScan: { at: '2026-03-01T09:00:00Z', status: 'ok', failedCount: 0 } }), 'scan').value).toBe('1 Mar, 09:00');
  });
});
