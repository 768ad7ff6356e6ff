import { afterEach, describe, expect, test } from 'bun:test';
import { ApiError } from './api';
import {
  alertTypesSummary,
  ALERT_TYPES,
  channelBody,
  channelsIncluded,
  channelTypeLabel,
  CHANNEL_TYPES,
  describeDelivery,
  emptyDraft,
  fieldErrorOf,
  testOutcome,
  validateDraft,
} from './channels';
import { setDisplayTimeZone } from './format';
import { alertLabel } from '../../../domain/alerts.ts';

afterEach(() => setDisplayTimeZone(undefined));

test('labels for every channel type and alert type', () => {
  expect(CHANNEL_TYPES.map(channelTypeLabel)).toEqual(['Webhook', 'Slack', 'Discord', 'Telegram']);
  expect(ALERT_TYPES.map(alertLabel)).toEqual([
    'Price Drop',
    'Price Increase',
    'Threshold Met',
    'Out of Stock',
    'Back in Stock',
    'Undercut',
    "You're cheapest",
  ]);
  expect(channelTypeLabel('pager')).toBe('Channel');
  expect(alertTypesSummary([...ALERT_TYPES])).toBe('All alerts');
  expect(alertTypesSummary(['back_in_stock', 'price_drop'])).toBe('Price Drop, Back in Stock');
  expect(alertTypesSummary([])).toBe('No alerts');
});

describe('the add form', () => {
  test('URL types need an http(s) URL', () => {
    for (const type of ['webhook', 'slack', 'discord'] as const) {
      expect(validateDraft({ ...emptyDraft(type), url: '' })).toEqual({ url: 'Enter the URL.' });
      expect(validateDraft({ ...emptyDraft(type), url: 'not a url' }).url).toStartWith('Enter a full http(s) URL');
      expect(validateDraft({ ...emptyDraft(type), url: 'ftp://example.com/x' }).url).toStartWith('Enter a full http(s) URL');
      expect(validateDraft({ ...emptyDraft(type), url: 'javascript:alert(1)' }).url).toBeDefined();
      expect(validateDraft({ ...emptyDraft(type), url: ' https://example.com/hook ' })).toEqual({});
      expect(validateDraft({ ...emptyDraft(type), url: 'http://127.0.0.1:8080/hook' })).toEqual({});
    }
    expect(validateDraft({ ...emptyDraft('slack'), url: 'x' }).url).toContain('https://hooks.slack.com/services/');
  });

  test('Telegram needs a bot token and a chat id', () => {
    const telegram = emptyDraft('telegram');
    expect(Object.keys(validateDraft(telegram)).sort()).toEqual(['botToken', 'chatId']);
    expect(validateDraft({ ...telegram, botToken: '123456:short', chatId: 'group' })).toEqual({
      botToken: 'A bot token looks like 123456789:AAF…, as @BotFather gives it.',
      chatId: 'A chat id is a number like -1001234567890, or @channelname.',
    });
    expect(validateDraft({ ...telegram, botToken: '123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11', chatId: '-1001234567890' })).toEqual({});
    expect(validateDraft({ ...telegram, botToken: `123456:${'A'.repeat(35)}`, chatId: '@pricewatch_alerts' })).toEqual({});
    expect(validateDraft({ ...telegram, botToken: `123456:${'A'.repeat(35)}`, chatId: '@abc' }).chatId).toBeDefined();
    // A Telegram channel has no URL to check.
    expect(validateDraft({ ...telegram, url: 'nonsense', botToken: `1:${'a'.repeat(30)}`, chatId: '42' })).toEqual({});
  });

  test('name length and at least one alert type', () => {
    const ok = { ...emptyDraft('webhook'), url: 'https://example.com/' };
    expect(validateDraft({ ...ok, name: 'x'.repeat(100) })).toEqual({});
    expect(validateDraft({ ...ok, name: 'x'.repeat(101) })).toEqual({ name: 'Use at most 100 characters.' });
    expect(validateDraft({ ...ok, alertTypes: [] })).toEqual({ alertTypes: 'Choose at least one alert type.' });
  });

  test("the body holds only the chosen type's fields, trimmed, alert types in order", () => {
    const draft = {
      ...emptyDraft('telegram'),
      url: 'https://left.over/',
      botToken: ' 1:a ',
      chatId: ' 42 ',
      alertTypes: ['back_in_stock', 'price_drop'] as const,
    };
    expect(channelBody({ ...draft, alertTypes: [...draft.alertTypes] })).toEqual({
      type: 'telegram',
      botToken: '1:a',
      chatId: '42',
      alertTypes: ['price_drop', 'back_in_stock'],
    });
    expect(channelBody({ ...emptyDraft('webhook'), url: ' https://x.test/h ', name: ' Shop ' })).toEqual({
      type: 'webhook',
      url: 'https://x.test/h',
      name: 'Shop',
      alertTypes: [...ALERT_TYPES],
    });
  });

  test('a 400 naming a field goes on that field; other errors do not', () => {
    const answer = (status: number, body: unknown) => new ApiError(status, JSON.stringify(body), '');
    expect(fieldErrorOf(answer(400, { message: 'url: Use an https:// address.', field: 'url' }))).toEqual({
      field: 'url',
      message: 'Use an https:// address.',
    });
    expect(fieldErrorOf(answer(400, { message: 'alertTypes.0: bad', field: 'alertTypes.0' }))).toEqual({ field: 'alertTypes', message: 'bad' });
    expect(fieldErrorOf(answer(400, { message: 'Too long', field: 'name' }))).toEqual({ field: 'name', message: 'Too long' });
    expect(fieldErrorOf(answer(400, { message: 'The request body is not valid JSON.' }))).toBeNull();
    expect(fieldErrorOf(answer(403, { message: 'Plan', field: 'type' }))).toBeNull();
    expect(fieldErrorOf(new Error('offline'))).toBeNull();
  });
});

test('a test outcome says what really happened', () => {
  expect(testOutcome({ delivered: true, status: 200, error: null })).toBe('Test delivered (200)');
  expect(testOutcome({ delivered: false, status: 404, error: null })).toBe('Test failed: 404 Not Found');
  expect(testOutcome({ delivered: false, status: 404, error: 'HTTP 404' })).toBe('Test failed: 404 Not Found');
  expect(testOutcome({ delivered: false, status: 500, error: 'HTTP 500: database down' })).toBe('Test failed: 500 Internal Server Error: database down');
  expect(testOutcome({ delivered: false, status: 418, error: 'HTTP 418: teapot' })).toBe('Test failed: 418: teapot');
  expect(testOutcome({ delivered: false, status: 599, error: null })).toBe('Test failed: 599');
  expect(testOutcome({ delivered: false, status: null, error: 'connection refused' })).toBe('Test failed: connection refused');
});

test("a delivery reads as its outcome, status or error, and when it is tried again, in the user's time zone", () => {
  setDisplayTimeZone('Asia/Tokyo');
  const now = new Date('2026-03-05T03:00:00Z');
  expect(describeDelivery({ delivered: true, status: 200, error: null, retryAt: null }, now)).toBe('Delivered · 200');
  expect(describeDelivery({ delivered: false, status: 500, error: 'HTTP 500', retryAt: '2026-03-05T03:05:00Z' }, now)).toBe(
    'Failed · 500 · will retry at 12:05',
  );
  expect(describeDelivery({ delivered: false, status: null, error: 'connection refused', retryAt: null }, now)).toBe('Failed · connection refused');
  expect(describeDelivery({ delivered: false, status: 410, error: 'Gone', retryAt: null }, now)).toBe('Failed · 410');
});

test('channels come with every paid plan, judged by the subscription first', () => {
  expect(channelsIncluded({ plan: 'free', subscriptionPlan: null })).toBe(false);
  expect(channelsIncluded({ plan: 'free', subscriptionPlan: 'starter' })).toBe(true);
  expect(channelsIncluded({ plan: 'pro', subscriptionPlan: null })).toBe(true);
  expect(channelsIncluded(null)).toBe(false);
});
