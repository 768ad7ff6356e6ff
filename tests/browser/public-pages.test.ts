import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { browserAvailable, launchBrowser, newContext, SETUP_TIMEOUT, startProduct, type RunningProduct } from './harness.ts';

let product: RunningProduct;
let browser: Browser;

beforeAll(async () => {
  if (!browserAvailable) return;
  product = await startProduct();
  browser = await launchBrowser();
}, SETUP_TIMEOUT);
afterAll(async () => { await browser?.close(); await product?.stop(); }, SETUP_TIMEOUT);

const pages = [
  { path: '/', title: /Pricewatch/, heading: 'Never Miss a Price Drop Again', indexed: true },
  { path: '/how-it-works', title: /How It Works/i, heading: null, indexed: true },
  { path: '/login', title: /Sign In/i, heading: null, indexed: false },
  { path: '/unauthorized', title: /Sign In Required|Sign in required/i, heading: null, indexed: false },
  { path: '/terms', title: /Terms/i, heading: null, indexed: true },
  { path: '/privacy', title: /Privacy/i, heading: null, indexed: true },
];

describe.skipIf(!browserAvailable)('public pages', () => {
  for (const p of pages) {
    test(`${p.path} has its own title and meta tags`, async () => {
      const ctx = await newContext(browser);
      const page = await ctx.newPage();
      const res = await page.goto(product.url + p.path);
      expect(res!.status()).toBe(200);
      expect(await page.title()).toMatch(p.title);
      const meta = (sel: string) => page.locator(sel).first().getAttribute('content');
      expect(await meta('meta[name="description"]')).toBeTruthy();
      expect(await meta('meta[name="keywords"]')).toBeTruthy();
      expect(await meta('meta[name="robots"]')).toBe(p.indexed ? 'index, follow' : 'noindex, nofollow');
      expect(await meta('meta[property="og:title"]')).toBeTruthy();
      expect(await meta('meta[property="og:description"]')).toBeTruthy();
      // Absolute, at the address the product runs at (a port no build could know).
      const address = p.path === '/' ? `${product.url}/` : product.url + p.path;
      expect(await meta('meta[property="og:image"]')).toBe(`${product.url}/og-image.png`);
      expect(await meta('meta[property="og:url"]')).toBe(address);
      expect(await page.locator('link[rel="canonical"]').getAttribute('href')).toBe(address);
      expect(await page.content()).not.toContain('pricewatch.invalid');
      if (p.heading) await expect(page.getByRole('heading', { name: p.heading })).toBeDefined();
      await ctx.close();
    });
  }

  test('the landing page works with JavaScript off and prices come from the plan table', async () => {
    const ctx = await newContext(browser, { javaScript: false });
    const page = await ctx.newPage();
    await page.goto(product.url + '/');
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toContain('Never Miss a Price Drop Again');
    const pricing = await page.locator('#pricing').innerText();
    for (const price of ['£0', '£18', '£49', '£99']) expect(pricing).toContain(price);
    expect(pricing).toContain('Most Popular');
    expect(await page.locator('a[href="/api/login"]').count()).toBeGreaterThan(0);
    // A marketing page ships no island scripts.
    expect(await page.locator('script[type="module"]').count()).toBe(0);
    await ctx.close();
  });

  test('an unknown path is the 404 page with status 404', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    const res = await page.goto(product.url + '/no/such/page');
    expect(res!.status()).toBe(404);
    expect(await page.title()).toBe('404 Page Not Found');
    expect(await page.locator('meta[name="robots"]').getAttribute('content')).toBe('noindex, nofollow');
    // It stands for any missing address, so it names none.
    expect(await page.locator('link[rel="canonical"]').count()).toBe(0);
    expect(await page.locator('meta[property="og:url"]').count()).toBe(0);
    expect(await page.locator('meta[property="og:image"]').getAttribute('content')).toBe(`${product.url}/og-image.png`);
    await ctx.close();
  });

  test('a protected page signed out shows the sign-in-required page with a redirect back', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await page.goto(product.url + '/products?q=abc');
    const href = await page.getByRole('link', { name: /Sign in with Google/i }).getAttribute('href');
    expect(href).toBe('/api/auth/google?redirect=' + encodeURIComponent('/products?q=abc'));
    expect(await page.getByRole('link', { name: /Return to Homepage/i }).getAttribute('href')).toBe('/');
    await ctx.close();
  });
});
