import { describe, expect, test } from 'bun:test';
import { alertToAnnounce, alertTypeLabel, filterAlerts, listSignature, noticeLink, unreadOf, wasNowLine } from './alerts';

const alert = (id: string, type: string, productName: string, message: string, isRead = false) => ({ id, type, productName, message, isRead });
const alerts = [
  alert('1', 'price_drop', 'Steel Kettle', 'Price dropped 10.0% from £20.00 to £18.00'),
  alert('2', 'price_increase', 'Chrome Toaster', 'Price rose 5.0% from £40.00 to £42.00', true),
  alert('3', 'threshold_met', 'Glass Jug', 'Price dropped 15.0% from £10.00 to £8.50, past your 10% alert threshold'),
  alert('4', 'other', 'Blender', 'Something else'),
];
const ids = (list: { id: string }[]) => list.map((a) => a.id);

describe('filterAlerts', () => {
  const all = { query: '', type: 'all' as const, status: 'all' as const };
  test('no filter keeps everything', () => expect(ids(filterAlerts(alerts, all))).toEqual(['1', '2', '3', '4']));
  test('search by product name or message, ignoring case and spaces', () => {
    expect(ids(filterAlerts(alerts, { ...all, query: '  KETTLE ' }))).toEqual(['1']);
    expect(ids(filterAlerts(alerts, { ...all, query: 'threshold' }))).toEqual(['3']);
    expect(ids(filterAlerts(alerts, { ...all, query: '£20.00' }))).toEqual(['1']);
    expect(filterAlerts(alerts, { ...all, query: 'waffle' })).toEqual([]);
  });
  test('type filter', () => {
    expect(ids(filterAlerts(alerts, { ...all, type: 'price_drop' }))).toEqual(['1']);
    expect(ids(filterAlerts(alerts, { ...all, type: 'price_increase' }))).toEqual(['2']);
    expect(ids(filterAlerts(alerts, { ...all, type: 'threshold_met' }))).toEqual(['3']);
  });
  test('status filter', () => {
    expect(ids(filterAlerts(alerts, { ...all, status: 'unread' }))).toEqual(['1', '3', '4']);
    expect(ids(filterAlerts(alerts, { ...all, status: 'read' }))).toEqual(['2']);
  });
  test('filters combine', () => {
    expect(ids(filterAlerts(alerts, { query: 'price', type: 'price_drop', status: 'unread' }))).toEqual(['1']);
    expect(filterAlerts(alerts, { query: 'toaster', type: 'all', status: 'unread' })).toEqual([]);
  });
  test('unread ones', () => expect(ids(unreadOf(alerts))).toEqual(['1', '3', '4']));
});

test('type labels', () => {
  expect(['price_drop', 'price_increase', 'threshold_met', 'out_of_stock', 'back_in_stock', 'other', ''].map(alertTypeLabel))
    .toEqual(['Price Drop', 'Price Increase', 'Threshold Met', 'Out of Stock', 'Back in Stock', 'Alert', 'Alert']);
});

test('was/now line only with both prices, in their currency', () => {
  expect(wasNowLine({ previousPrice: 20, currentPrice: 18, currency: 'GBP' })).toBe('Was £20.00 · Now £18.00');
  expect(wasNowLine({ previousPrice: 20, currentPrice: 18, currency: 'EUR' })).toBe('Was €20.00 · Now €18.00');
  expect(wasNowLine({ previousPrice: null, currentPrice: 18, currency: 'GBP' })).toBeNull();
  expect(wasNowLine({ previousPrice: 18, currentPrice: 18, currency: 'GBP' })).toBeNull();
  expect(wasNowLine({ previousPrice: '20', currentPrice: null, currency: 'GBP' })).toBeNull();
});

describe('alertToAnnounce', () => {
  const list = [alert('new', 'price_drop', 'A', 'm'), alert('old', 'price_drop', 'B', 'm')];
  const none = new Set<string>();
  test('the newest unread one', () => expect(alertToAnnounce(list, none, null, 0)?.id).toBe('new'));
  test('nothing when it was shown already: older ones are not announced one by one', () => {
    expect(alertToAnnounce(list, new Set(['new']), null, 0)).toBeNull();
  });
  test('read ones are skipped', () => {
    expect(alertToAnnounce([{ ...list[0]!, isRead: true }, list[1]!], none, null, 0)?.id).toBe('old');
    expect(alertToAnnounce([{ ...list[0]!, isRead: true }], none, null, 0)).toBeNull();
  });
  test('at most once per 10 s', () => {
    expect(alertToAnnounce(list, none, 1_000, 10_999)).toBeNull();
    expect(alertToAnnounce(list, none, 1_000, 11_000)?.id).toBe('new');
  });
});

test('the signature changes with new alerts and reads', () => {
  const a = [{ id: '1', isRead: false }, { id: '2', isRead: true }];
  expect(listSignature(a)).toBe(listSignature([...a]));
  expect(listSignature(a)).not.toBe(listSignature([{ id: '1', isRead: true }, a[1]!]));
  expect(listSignature(a)).not.toBe(listSignature([{ id: '0', isRead: false }, ...a]));
});

test('a notice about a channel opens Settings > Notifications; product alerts have no such link', () => {
  expect(noticeLink('channel_disabled')).toBe('/settings#notifications');
  expect(noticeLink('price_drop')).toBeNull();
  expect(alertTypeLabel('channel_disabled')).toBe('Channel Off');
});
