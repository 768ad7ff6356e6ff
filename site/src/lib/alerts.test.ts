import { describe, expect, test } from 'bun:test';
import { alertToAnnounce, listSignature, NEWS_GRACE_MS, noticeLink, unreadSummary, wasNowLine } from './alerts';
import { alertLabel as alertTypeLabel } from '../../../domain/alerts.ts';

test('type labels', () => {
  expect(['price_drop', 'price_increase', 'threshold_met', 'out_of_stock', 'back_in_stock', 'undercut', 'cheapest', 'other', ''].map(alertTypeLabel)).toEqual([
    'Price Drop',
    'Price Increase',
    'Threshold Met',
    'Out of Stock',
    'Back in Stock',
    'Undercut',
    "You're cheapest",
    'Alert',
    'Alert',
  ]);
});

test('was/now line only with both prices, in their currency', () => {
  expect(wasNowLine({ previousPrice: 20, currentPrice: 18, currency: 'GBP' })).toBe('Was £20.00 · Now £18.00');
  expect(wasNowLine({ previousPrice: 20, currentPrice: 18, currency: 'EUR' })).toBe('Was €20.00 · Now €18.00');
  expect(wasNowLine({ previousPrice: null, currentPrice: 18, currency: 'GBP' })).toBeNull();
  expect(wasNowLine({ previousPrice: 18, currentPrice: 18, currency: 'GBP' })).toBeNull();
  expect(wasNowLine({ previousPrice: '20', currentPrice: null, currency: 'GBP' })).toBeNull();
  expect(wasNowLine({ type: 'undercut', previousPrice: 99, currentPrice: 95, currency: 'GBP' })).toBeNull();
});

describe('alertToAnnounce', () => {
  // The page loaded at 10:00; its first list held a day-old unread alert and one read.
  const since = Date.parse('2026-06-10T10:00:00Z');
  const at = (iso: string) => new Date(Date.parse(iso)).toISOString();
  const n = (id: string, createdAt: string, isRead = false) => ({ id, isRead, createdAt: at(createdAt) });
  const dayOld = n('day-old', '2026-06-09T10:00:00Z'),
    read = n('read', '2026-06-10T09:00:00Z', true);
  const known = new Set([dayOld.id, read.id]);
  const none = new Set<string>();
  const now = since + 60_000;
  const announce = (list: ReturnType<typeof n>[], o: Partial<Parameters<typeof alertToAnnounce>[1]> = {}) =>
    alertToAnnounce(list, { known, shown: none, lastShownAt: null, since, now, ...o })?.id ?? null;

  test('the first load of a page announces nothing, however new its unread ones', () => {
    expect(announce([n('fresh', '2026-06-10T10:00:30Z'), dayOld], { known: null })).toBeNull();
  });
  test('one raised since the page loaded, the newest unread such', () => {
    expect(announce([n('new', '2026-06-10T10:00:50Z'), n('newer-but-read', '2026-06-10T10:00:55Z', true), dayOld])).toBe('new');
    expect(announce([n('b', '2026-06-10T10:00:50Z'), n('a', '2026-06-10T10:00:40Z'), dayOld])).toBe('b');
  });
  test('what the page had when it loaded is never news, even when reads make it the newest unread one', () => {
    expect(announce([{ ...read }, dayOld])).toBeNull();
    expect(announce([n('newest-read', '2026-06-10T10:00:50Z', true), dayOld])).toBeNull();
  });
  test('one older than the page is never news, even when it was not in the first list', () => {
    expect(announce([n('older', '2026-06-09T11:00:00Z'), dayOld])).toBeNull();
    // Clocks differ and a check running when the page loaded raises its alert later: a few minutes' grace.
    expect(announce([n('just-before', new Date(since - NEWS_GRACE_MS).toISOString()), dayOld])).toBe('just-before');
    expect(announce([n('too-early', new Date(since - NEWS_GRACE_MS - 1).toISOString()), dayOld])).toBeNull();
  });
  test('nothing when the newest new one was shown already: older ones are not announced one by one', () => {
    const list = [n('new', '2026-06-10T10:00:50Z'), n('also-new', '2026-06-10T10:00:40Z'), dayOld];
    expect(announce(list, { shown: new Set(['new']) })).toBeNull();
  });
  test('at most once per 10 s', () => {
    const list = [n('new', '2026-06-10T10:00:50Z')];
    expect(announce(list, { lastShownAt: now - 9_999 })).toBeNull();
    expect(announce(list, { lastShownAt: now - 10_000 })).toBe('new');
  });
});

test('what the bell counts, in words', () => {
  expect(unreadSummary({ alerts: 107, notices: 1 })).toBe('107 unread alerts · 1 unread notice');
  expect(unreadSummary({ alerts: 1, notices: 0 })).toBe('1 unread alert');
  expect(unreadSummary({ alerts: 0, notices: 2 })).toBe('2 unread notices');
  expect(unreadSummary({ alerts: 1_250, notices: 0 })).toBe('1,250 unread alerts');
  expect(unreadSummary({ alerts: 0, notices: 0 })).toBeNull();
});

test('the signature changes with new alerts and reads', () => {
  const a = [
    { id: '1', isRead: false },
    { id: '2', isRead: true },
  ];
  expect(listSignature(a)).toBe(listSignature([...a]));
  expect(listSignature(a)).not.toBe(listSignature([{ id: '1', isRead: true }, a[1]!]));
  expect(listSignature(a)).not.toBe(listSignature([{ id: '0', isRead: false }, ...a]));
});

test('a notice about a channel opens Settings > Notifications; product alerts have no such link', () => {
  expect(noticeLink('channel_disabled')).toBe('/settings#notifications');
  expect(noticeLink('price_drop')).toBeNull();
  expect(alertTypeLabel('channel_disabled')).toBe('Channel Off');
});
