import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { axeViolations, browserAvailable, describeViolations, launchBrowser, newContext, SETUP_TIMEOUT, startProduct, type RunningProduct } from './harness.ts';

let product: RunningProduct;
let browser: Browser;

beforeAll(async () => {
  if (!browserAvailable) return;
  product = await startProduct();
  browser = await launchBrowser();
}, SETUP_TIMEOUT);
afterAll(async () => {
  await browser?.close();
  await product?.stop();
}, SETUP_TIMEOUT);

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

  for (const mobile of [false, true]) {
    for (const theme of ['light', 'dark'] as const) {
      test(`a signed-in visitor is offered the dashboard, not sign-in, on every public page, at once and without a script (${mobile ? 390 : 1280} px, ${theme})`, async () => {
        const ctx = await newContext(browser, { mobile });
        ctx.setDefaultTimeout(15_000);
        await ctx.addInitScript((t) => localStorage.setItem('vite-ui-theme', t), theme);
        const page = await ctx.newPage();
        await page.goto(`${product.url}/api/auth/demo?email=${encodeURIComponent('visitor@example.com')}`);
        await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
        for (const path of ['/how-it-works', '/terms', '/privacy', '/no-such-page']) {
          // The server marks the page for a signed-in visitor: the first paint has the right links, no script decides them.
          await page.goto(product.url + path);
          expect(await page.locator('html').getAttribute('data-signed-in')).toBe('');
          const header = page.getByRole('banner');
          const dashboard = header.getByRole('link', { name: 'Open dashboard' });
          expect(await dashboard.isVisible()).toBe(true);
          expect(await dashboard.getAttribute('href')).toBe('/dashboard');
          expect(await header.getByRole('link', { name: 'Sign In' }).count()).toBe(0);
          expect(await header.getByRole('link', { name: 'Start Free Trial' }).count()).toBe(0);
          expect(await page.locator('script[type="module"]').count()).toBe(0);
        }
        // How it works ends with the way in that fits: the dashboard, not a new trial.
        await page.goto(product.url + '/how-it-works');
        const closing = page.getByRole('region', { name: 'Ready to try it on your competitors?' });
        expect(await closing.getByRole('link', { name: 'Open dashboard' }).isVisible()).toBe(true);
        expect(await closing.getByRole('link', { name: 'Start Free Trial' }).count()).toBe(0);
        if (mobile) {
          await page.locator('[data-site-menu] summary').click();
          const menu = page.getByRole('navigation', { name: 'Mobile' });
          await menu.getByRole('link', { name: 'How It Works' }).waitFor();
          expect(await menu.getByRole('link', { name: 'Sign In' }).count()).toBe(0);
        }
        expect(describeViolations(await axeViolations(page))).toBe('');
        // Told to sign in while signed in: on to the dashboard instead.
        await page.goto(product.url + '/unauthorized');
        await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
        expect(await page.getByText('Sign in required').count()).toBe(0);
        await ctx.close();
      });
    }
  }

  test('signed out, the same pages offer sign-in and the trial, not the dashboard', async () => {
    const ctx = await newContext(browser, { javaScript: false });
    const page = await ctx.newPage();
    for (const path of ['/how-it-works', '/terms']) {
      await page.goto(product.url + path);
      const header = page.getByRole('banner');
      expect(await header.getByRole('link', { name: 'Sign In' }).isVisible()).toBe(true);
      expect(await header.getByRole('link', { name: 'Start Free Trial' }).isVisible()).toBe(true);
      expect(await page.getByRole('link', { name: 'Open dashboard' }).count()).toBe(0);
    }
    await page.goto(product.url + '/unauthorized');
    expect(await page.getByRole('heading', { name: 'Sign in required' }).isVisible()).toBe(true);
    await ctx.close();
  });
});
