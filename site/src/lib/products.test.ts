import { describe, expect, test } from 'bun:test';
import {
  filterProducts,
  formatChange,
  isValidUrl,
  parseEditThreshold,
  serverError,
  checkView,
  selectorNote,
  awaitingRecheck,
  recheckAfterEdit,
  thresholdLabel,
  availabilityBadge,
  variantLabel,
  validatePrice,
  validateProduct,
} from './products';

describe('filterProducts', () => {
  const products = [
    { name: 'Aurora Headphones', url: 'https://shop.example.com/aurora' },
    { name: 'Trail Shoes', url: 'https://www.RUNNERS.example/p/42' },
  ];
  test('matches name or url, ignoring case and surrounding spaces', () => {
    expect(filterProducts(products, 'aurora').map((p) => p.name)).toEqual(['Aurora Headphones']);
    expect(filterProducts(products, '  runners ').map((p) => p.name)).toEqual(['Trail Shoes']);
    expect(filterProducts(products, 'HEADPHONES')).toHaveLength(1);
    expect(filterProducts(products, 'example')).toHaveLength(2);
  });
  test('an empty query keeps every product; no match gives none', () => {
    expect(filterProducts(products, '')).toHaveLength(2);
    expect(filterProducts(products, '   ')).toHaveLength(2);
    expect(filterProducts(products, 'kettle')).toEqual([]);
  });
});

describe('formatChange', () => {
  test('signed, one decimal', () => {
    expect(formatChange(2.46)).toBe('+2.5%');
    expect(formatChange(-10)).toBe('-10.0%');
  });
  test("'0%' when flat or tiny", () => {
    expect(formatChange(0)).toBe('0%');
    expect(formatChange(0.04)).toBe('0%');
    expect(formatChange(-0.04)).toBe('0%');
  });
  test('a dash without a figure: no price yet, or nothing to compare with', () => {
    expect(formatChange(null)).toBe('—');
    expect(formatChange(undefined)).toBe('—');
  });
});

describe('variantLabel', () => {
  test("a variant is named by its options' values, else its SKU, else not at all", () => {
    expect(variantLabel({ sku: 'TJ-XL-RED', options: { size: 'XL', colour: 'Red' } })).toBe('XL · Red');
    // In one order however the options come: as picked, or read back from jsonb.
    expect(variantLabel({ sku: 'TJ-XL-RED', options: { colour: 'Red', size: 'XL' } })).toBe('XL · Red');
    expect(variantLabel({ sku: 'TJ-XL-RED', options: {} })).toBe('SKU TJ-XL-RED');
    expect(variantLabel({ sku: null, options: { size: ' ' } })).toBeNull();
    expect(variantLabel(null)).toBeNull();
  });
});

describe('availabilityBadge', () => {
  test('out of stock is loud, pre-order and backorder quiet, in stock and unknown show nothing', () => {
    expect(availabilityBadge('OutOfStock')).toEqual({ label: 'Out of stock', variant: 'danger' });
    expect(availabilityBadge('PreOrder')).toEqual({ label: 'Pre-order', variant: 'outline' });
    expect(availabilityBadge('BackOrder')).toEqual({ label: 'Backorder', variant: 'outline' });
    expect(availabilityBadge('InStock')).toBeNull();
    expect(availabilityBadge(null)).toBeNull();
  });
});

describe('thresholdLabel', () => {
  test('a drop percent, any change, or nothing', () => {
    expect(thresholdLabel({ kind: 'drop', percent: 5 })).toBe('5% drop');
    expect(thresholdLabel({ kind: 'drop', percent: 2.5 })).toBe('2.5% drop');
    expect(thresholdLabel({ kind: 'drop', percent: 0 })).toBe('0% drop');
    expect(thresholdLabel({ kind: 'any' })).toBe('Any change');
    expect(thresholdLabel({ kind: 'none' })).toBeNull();
    expect(thresholdLabel(null)).toBeNull();
  });
});

describe('validateProduct', () => {
  test('the messages of the add and edit dialogs', () => {
    expect(validateProduct({ name: ' ', url: '', selector: '' })).toEqual({
      name: 'Product name is required',
      url: 'Please enter a valid URL',
      selector: 'CSS selector is required',
    });
  });
  test('valid input has no errors', () => {
    expect(validateProduct({ name: 'Kettle', url: 'https://shop.example/kettle', selector: '.price' })).toEqual({});
  });
  test('urls: http and https with a host only', () => {
    expect(isValidUrl('https://shop.example/p?id=1')).toBe(true);
    expect(isValidUrl(' http://127.0.0.1:8080/item ')).toBe(true);
    expect(isValidUrl('shop.example/p')).toBe(false);
    expect(isValidUrl('ftp://shop.example/p')).toBe(false);
    expect(isValidUrl('javascript:alert(1)')).toBe(false);
    expect(isValidUrl('not a url')).toBe(false);
  });
});

describe('validatePrice', () => {
  test('required, a number above 0', () => {
    expect(validatePrice('')).toBe('Price is required');
    expect(validatePrice('  ')).toBe('Price is required');
    expect(validatePrice('0')).toBe('Please enter a valid price greater than 0');
    expect(validatePrice('-3')).toBe('Please enter a valid price greater than 0');
    expect(validatePrice('abc')).toBe('Please enter a valid price greater than 0');
    expect(validatePrice('12.99')).toBeNull();
    expect(validatePrice('12.999')).toBe('Please enter a price with at most 2 decimals');
    expect(validatePrice('1e3')).toBe('Please enter a valid price greater than 0');
    expect(validatePrice('0.01')).toBeNull();
  });
});

describe('parseEditThreshold', () => {
  test('empty is no alerts, a number at least 0 is a drop percent', () => {
    expect(parseEditThreshold('')).toEqual({ value: null });
    expect(parseEditThreshold('0')).toEqual({ value: 0 });
    expect(parseEditThreshold('7.5')).toEqual({ value: 7.5 });
    expect(parseEditThreshold('-1')).toEqual({ error: 'Threshold must be a positive number' });
    expect(parseEditThreshold('x')).toEqual({ error: 'Threshold must be a positive number' });
  });
});

describe('serverError', () => {
  test("a 400's message and field, without the field prefix", () => {
    const error = new Error('400: {"message":"name: Product name is required","field":"name"}');
    expect(serverError(error)).toEqual({ status: 400, message: 'Product name is required', field: 'name' });
  });
  test('a refusal without a field', () => {
    const error = new Error('403: {"message":"Your Free plan allows 3 products. Upgrade your plan to add more."}');
    expect(serverError(error)).toEqual({
      status: 403,
      message: 'Your Free plan allows 3 products. Upgrade your plan to add more.',
      field: null,
    });
  });
  test('plain text bodies and errors that never reached the server', () => {
    expect(serverError(new Error('502: Bad Gateway'))).toEqual({ status: 502, message: 'Bad Gateway', field: null });
    expect(serverError(new TypeError('Failed to fetch'))).toEqual({ status: null, message: null, field: null });
    expect(serverError('nope')).toEqual({ status: null, message: null, field: null });
  });
});

describe('checkView', () => {
  const now = Date.parse('2026-03-05T14:30:00Z');
  const base = { isActive: true, lastChecked: '2026-03-05T14:25:00Z', lastFailure: null, createdAt: '2026-03-01T00:00:00Z' };
  test('working checks: a green dot and when', () => {
    expect(checkView({ ...base, checkStatus: 'ok' }, now)).toEqual({ tone: 'ok', label: 'Checks working', line: 'Last checked: 5m ago' });
  });
  test('a price typed in by hand was not checked: the card says so, with when', () => {
    const manual = {
      ...base,
      checkStatus: 'ok' as const,
      priceSource: 'manual' as const,
      lastPriceAt: '2026-03-05T14:29:50Z',
      lastChecked: '2026-03-05T14:29:50Z',
    };
    expect(checkView(manual, now)).toEqual({ tone: 'ok', label: 'Checks working', line: 'Price set by hand: Just now' });
    // The next check reads the page again: its time is the last check's.
    expect(checkView({ ...manual, priceSource: 'selector' }, now).line).toBe('Last checked: Just now');
  });
  test('a new product: its first check runs, then it waits, never green', () => {
    expect(checkView({ ...base, checkStatus: 'pending', lastChecked: null, createdAt: '2026-03-05T14:29:50Z' }, now)).toEqual({
      tone: 'pending',
      label: 'Not checked yet',
      line: 'First check running…',
    });
    expect(checkView({ ...base, checkStatus: 'pending', lastChecked: null, createdAt: '2026-03-05T14:20:00Z' }, now).line).toBe('Waiting for the first check');
  });
  test('failing checks: amber after a failure, red when they keep failing, with the reason', () => {
    const lastFailure = { message: 'The shop did not answer in time.', at: '2026-03-05T14:28:00Z' };
    expect(checkView({ ...base, checkStatus: 'failing', lastFailure }, now)).toEqual({
      tone: 'warning',
      label: 'The last check failed: The shop did not answer in time.',
      line: 'Last check failed: 2m ago',
    });
    expect(checkView({ ...base, checkStatus: 'failing', isActive: false, lastFailure }, now).tone).toBe('failing');
  });
});

describe('selectorNote', () => {
  const product = { checkStatus: 'ok' as const, selector: '.price' };
  test('only when the price came from elsewhere than the selector', () => {
    expect(selectorNote({ ...product, priceSource: 'structured-data' })).toBe("Read from the page's structured data; your selector matched nothing.");
    expect(selectorNote({ ...product, priceSource: 'selector' })).toBeNull();
    expect(selectorNote({ ...product, priceSource: 'manual' })).toBeNull();
    expect(selectorNote({ ...product, priceSource: null })).toBeNull();
    expect(selectorNote({ ...product, checkStatus: 'failing', priceSource: 'visible' })).toBeNull();
  });
  test("Check Now's own sentence is preferred", () => {
    expect(selectorNote({ ...product, priceSource: 'visible' }, 'Read from X; your selector matched no price.')).toBe(
      'Read from X; your selector matched no price.',
    );
  });
});

describe('the check an edit queues', () => {
  const now = Date.parse('2026-03-05T14:30:00Z');
  const product = { url: 'https://shop.example/lamp', selector: '.price', lastChecked: '2026-03-05T14:00:00Z' };

  test('a new selector or address is waited for; a rename or a new threshold is not', () => {
    expect(recheckAfterEdit(product, { ...product, selector: '.amount' }, now)).toEqual({ lastChecked: '2026-03-05T14:00:00Z', since: now });
    expect(recheckAfterEdit(product, { ...product, url: 'https://shop.example/lamp-2' }, now)).not.toBeNull();
    expect(recheckAfterEdit(product, { ...product }, now)).toBeNull();
  });

  test('until the product has been checked since, for a minute at most', () => {
    const recheck = recheckAfterEdit(product, { ...product, selector: '.amount' }, now)!;
    expect(awaitingRecheck(product, recheck, now + 2_000)).toBe(true);
    expect(awaitingRecheck({ ...product, lastChecked: '2026-03-05T14:30:01Z' }, recheck, now + 2_000)).toBe(false);
    expect(awaitingRecheck(product, recheck, now + 60_000)).toBe(false);
    expect(awaitingRecheck(product, undefined, now)).toBe(false);
  });
});
