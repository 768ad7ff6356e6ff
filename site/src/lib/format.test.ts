import { describe, expect, test } from 'bun:test';
import {
  avatarLetter,
  badgeCount,
  displayName,
  formatPercent,
  formatDateTime,
  formatPrice,
  formatDate,
  formatSignedPercent,
  formatTimeOrDay,
  hostWithoutWww,
  planLabel,
  relativeTime,
  setDisplayTimeZone,
  zonedDate,
} from './format';
import { currencySymbol } from '../../../domain/money.ts';

// Dates are shown in local time; pin it so the expectations hold on any machine.
process.env.TZ = 'Europe/London';

describe('formatPrice', () => {
  test('pounds with two decimals', () => {
    expect(formatPrice(12, 'GBP')).toBe('£12.00');
    expect(formatPrice(0.5, 'GBP')).toBe('£0.50');
    expect(formatPrice(1299.994, 'GBP')).toBe('£1,299.99');
    expect(formatPrice('19.9', 'GBP')).toBe('£19.90');
  });
  test("every price in its own currency, with that currency's decimals", () => {
    expect(formatPrice(12.5, 'EUR')).toBe('€12.50');
    expect(formatPrice(1299.99, 'usd')).toBe('US$1,299.99');
    expect(formatPrice(12800, 'JPY')).toBe('JP¥12,800');
  });
  test('a code Intl does not know is written out, never taken for pounds', () => {
    expect(formatPrice(12.5, 'XYZ1')).toBe('12.50 XYZ1');
  });
  test('a dash when absent or not a number', () => {
    expect(formatPrice(null, 'GBP')).toBe('—');
    expect(formatPrice(undefined, 'EUR')).toBe('—');
    expect(formatPrice('', 'GBP')).toBe('—');
    expect(formatPrice('abc', 'GBP')).toBe('—');
  });
});

describe('percentages', () => {
  test('one decimal', () => {
    expect(formatPercent(5)).toBe('5.0%');
    expect(formatPercent(12.345)).toBe('12.3%');
    expect(formatPercent(-3.26)).toBe('-3.3%');
  });
  test('signed variant', () => {
    expect(formatSignedPercent(5.25)).toBe('+5.3%');
    expect(formatSignedPercent(-2)).toBe('-2.0%');
    expect(formatSignedPercent(0)).toBe('0.0%');
    expect(formatSignedPercent(0.04)).toBe('0.0%');
    expect(formatSignedPercent(-0.04)).toBe('0.0%');
    expect(formatSignedPercent('7.5')).toBe('+7.5%');
  });
});

describe('relativeTime', () => {
  const now = new Date('2026-03-05T14:30:00Z');
  const ago = (ms: number) => new Date(now.getTime() - ms);
  const MIN = 60_000;

  test('under a minute is Just now', () => {
    expect(relativeTime(now, now)).toBe('Just now');
    expect(relativeTime(ago(59_999), now)).toBe('Just now');
  });
  test('clock skew into the future is Just now', () => {
    expect(relativeTime(ago(-5 * MIN), now)).toBe('Just now');
  });
  test('minutes under an hour', () => {
    expect(relativeTime(ago(MIN), now)).toBe('1m ago');
    expect(relativeTime(ago(59 * MIN + 59_000), now)).toBe('59m ago');
  });
  test('hours under a day', () => {
    expect(relativeTime(ago(60 * MIN), now)).toBe('1h ago');
    expect(relativeTime(ago(1439 * MIN), now)).toBe('23h ago');
  });
  test('a day or more: day, short month and time, British style', () => {
    expect(relativeTime(ago(1440 * MIN), now)).toBe('4 Mar, 14:30');
    expect(relativeTime('2026-01-09T08:05:00Z', now)).toBe('9 Jan, 08:05');
    // Summer time: London is UTC+1.
    expect(relativeTime('2025-07-01T08:05:00Z', now)).toBe('1 Jul, 09:05');
  });
  test('accepts ISO strings and epoch milliseconds', () => {
    expect(relativeTime(now.toISOString(), now.getTime())).toBe('Just now');
    expect(relativeTime(now.getTime() - 5 * MIN, now)).toBe('5m ago');
  });
  test('a dash for an invalid date', () => {
    expect(relativeTime('not a date', now)).toBe('—');
  });
});

describe('user display', () => {
  test('display name: first and last, else e-mail local part, else User', () => {
    expect(displayName({ firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' })).toBe('Ada Lovelace');
    expect(displayName({ firstName: 'Ada', lastName: null, email: 'ada@example.com' })).toBe('Ada');
    expect(displayName({ firstName: null, lastName: null, email: 'ada.l@example.com' })).toBe('ada.l');
    expect(displayName({ firstName: '', lastName: '', email: '' })).toBe('User');
    expect(displayName(null)).toBe('User');
  });
  test('avatar letter: first name, else e-mail, else U', () => {
    expect(avatarLetter({ firstName: 'ada', email: 'x@example.com' })).toBe('A');
    expect(avatarLetter({ firstName: null, email: 'bob@example.com' })).toBe('B');
    expect(avatarLetter({ firstName: '  ', email: null })).toBe('U');
    expect(avatarLetter(undefined)).toBe('U');
  });
  test('plan label: subscription plan, else plan, else Free', () => {
    expect(planLabel({ subscriptionPlan: 'starter', plan: 'free' })).toBe('Starter Plan');
    expect(planLabel({ subscriptionPlan: null, plan: 'growth' })).toBe('Growth Plan');
    expect(planLabel({ subscriptionPlan: '', plan: '' })).toBe('Free Plan');
    expect(planLabel(null)).toBe('Free Plan');
  });
});

test('badge count caps at 9+', () => {
  expect(badgeCount(1)).toBe('1');
  expect(badgeCount(9)).toBe('9');
  expect(badgeCount(10)).toBe('9+');
  expect(badgeCount(250)).toBe('9+');
});

describe('hostWithoutWww', () => {
  test('strips www and the path', () => {
    expect(hostWithoutWww('https://www.shop.example.com/p/1?x=2')).toBe('shop.example.com');
    expect(hostWithoutWww('http://example.co.uk')).toBe('example.co.uk');
    expect(hostWithoutWww('https://wwwshop.example')).toBe('wwwshop.example');
  });
  test('returns what it was given when it is not a URL', () => {
    expect(hostWithoutWww('not a url')).toBe('not a url');
  });
});

describe('currencySymbol', () => {
  test('the sign prices are shown with, the code when there is none', () => {
    expect(currencySymbol('GBP')).toBe('£');
    expect(currencySymbol('EUR')).toBe('€');
    expect(currencySymbol('USD')).toBe('US$');
    expect(currencySymbol('XYZ1')).toBe('XYZ1');
  });
});

describe('formatDateTime', () => {
  test('local date and time, British style', () => {
    expect(formatDateTime('2026-03-05T14:30:00Z')).toBe('5 Mar 2026, 14:30');
    expect(formatDateTime('2026-07-01T08:05:00Z')).toBe('1 Jul 2026, 09:05');
  });
  test('a dash when absent or invalid', () => {
    expect(formatDateTime(null)).toBe('—');
    expect(formatDateTime('nope')).toBe('—');
  });
});

describe("the user's time zone", () => {
  const at = '2026-03-05T14:30:00Z';
  test('governs every format once set, whatever the browser says', () => {
    setDisplayTimeZone('America/New_York');
    try {
      expect(formatDateTime(at)).toBe('5 Mar 2026, 09:30');
      expect(formatDate('2026-03-06T02:00:00Z')).toBe('5 Mar 2026'); // still the 5th in New York
      expect(relativeTime(at, new Date('2026-03-07T00:00:00Z'))).toBe('5 Mar, 09:30');
      expect(formatTimeOrDay(at, new Date('2026-03-05T20:00:00Z'))).toBe('09:30');
      expect(formatTimeOrDay(at, new Date('2026-03-06T12:00:00Z'))).toBe('5 Mar, 09:30');
    } finally {
      setDisplayTimeZone(null);
    }
  });
  test("zonedDate reads the zone's wall clock in local fields (uPlot's tzDate)", () => {
    setDisplayTimeZone('Asia/Tokyo');
    try {
      const d = zonedDate(Date.parse(at) / 1000);
      expect([d.getDate(), d.getHours(), d.getMinutes()]).toEqual([5, 23, 30]);
    } finally {
      setDisplayTimeZone(null);
    }
  });
  test("an unknown zone falls back on the browser's", () => {
    setDisplayTimeZone('Mars/Olympus');
    expect(formatDateTime(at)).toBe('5 Mar 2026, 14:30');
  });
});
