import { expect, test } from 'bun:test';
import { isCurrentPage, normalizePath } from './navigation';

test('paths are compared without trailing slash or .html', () => {
  expect(normalizePath('/settings')).toBe('/settings');
  expect(normalizePath('/settings/')).toBe('/settings');
  expect(normalizePath('/settings.html')).toBe('/settings');
  expect(normalizePath('/')).toBe('/');
  expect(normalizePath('')).toBe('/');
});

test('Dashboard is current at / and at /dashboard', () => {
  expect(isCurrentPage('/dashboard', '/')).toBe(true);
  expect(isCurrentPage('/dashboard', '/dashboard')).toBe(true);
  expect(isCurrentPage('/dashboard', '/dashboard.html')).toBe(true);
  expect(isCurrentPage('/dashboard', '/products')).toBe(false);
});

test('other links are current only on their own page', () => {
  expect(isCurrentPage('/products', '/products')).toBe(true);
  expect(isCurrentPage('/products', '/')).toBe(false);
  expect(isCurrentPage('/price-history', '/price-history/')).toBe(true);
  expect(isCurrentPage('/billing', '/subscribe')).toBe(false);
});
