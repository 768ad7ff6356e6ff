import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import { browserAvailable, launchBrowser, newContext, SETUP_TIMEOUT, startProduct, type RunningProduct } from './harness.ts';

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

/** Signs in as a demo user through the product's own pages and links. */
async function signIn(page: Page, email?: string) {
  if (email) await page.goto(`${product.url}/api/auth/demo?email=${encodeURIComponent(email)}`);
  else {
    await page.goto(product.url + '/');
    await page.getByRole('link', { name: 'Sign In' }).first().click();
    await page.waitForURL('**/login');
    await page.getByRole('link', { name: /Continue with Google/ }).click();
  }
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
}

describe.skipIf(!browserAvailable)('signed-in shell', () => {
  test('demo sign-in from the landing page reaches the dashboard shell', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signIn(page);
    expect(new URL(page.url()).pathname).toBe('/');
    const visible = (text: string) => page.getByText(text, { exact: true }).filter({ visible: true }).count();
    expect(await visible('Monitor your competitor pricing')).toBe(1);
    expect(await visible('Demo account')).toBeGreaterThan(0);
    expect(await visible('Demo User')).toBeGreaterThan(0);
    expect(await visible('Free Plan')).toBeGreaterThan(0);
    const nav = page.getByRole('navigation', { name: 'Main' });
    expect(await nav.getByRole('link', { name: 'Dashboard' }).getAttribute('aria-current')).toBe('page');
    for (const item of ['Products', 'Price History', 'Alerts', 'Billing', 'Settings']) {
      expect(await nav.getByRole('link', { name: item }).isVisible()).toBe(true);
    }
    expect(await page.title()).toContain('Dashboard');
    expect(await page.locator('meta[name="robots"]').getAttribute('content')).toBe('noindex, nofollow');
    // Signed in, /login sends the user home.
    await page.goto(product.url + '/login');
    expect(new URL(page.url()).pathname).toBe('/');
    await ctx.close();
  });

  test('the theme toggle persists across a reload', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signIn(page, 'theme@example.com');
    const isDark = () => page.evaluate(() => document.documentElement.classList.contains('dark'));
    const before = await isDark();
    await page.getByRole('button', { name: before ? 'Switch to light theme' : 'Switch to dark theme' }).click();
    expect(await isDark()).toBe(!before);
    expect(await page.evaluate(() => localStorage.getItem('vite-ui-theme'))).toBe(before ? 'light' : 'dark');
    await page.reload();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    expect(await isDark()).toBe(!before);
    await ctx.close();
  });

  test('on a phone the sidebar opens from the menu button and closes on the overlay and on navigation', async () => {
    const ctx = await newContext(browser, { mobile: true });
    const page = await ctx.newPage();
    await signIn(page, 'phone@example.com');
    const menu = page.getByRole('dialog', { name: 'Menu' });
    expect(await menu.count()).toBe(0);
    await page.getByRole('button', { name: 'Open menu' }).click();
    await menu.waitFor();
    await page.mouse.click(380, 400); // the overlay, right of the drawer
    await menu.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Open menu' }).click();
    await menu.getByRole('link', { name: 'Settings' }).click();
    await page.waitForURL('**/settings');
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    expect(await menu.count()).toBe(0);
    await ctx.close();
  });

  test('settings are saved and shown again after a reload', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signIn(page, 'settings@example.com');
    await page.goto(product.url + '/settings');
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    const weekly = page.getByRole('switch', { name: /weekly reports/i });
    await weekly.waitFor();
    expect(await weekly.getAttribute('aria-checked')).toBe('false');
    await weekly.click();
    await page.getByRole('button', { name: 'Save Settings' }).click();
    await page.getByText('Settings saved').first().waitFor();
    await page.reload();
    await page.getByRole('switch', { name: /weekly reports/i }).waitFor();
    expect(await page.getByRole('switch', { name: /weekly reports/i }).getAttribute('aria-checked')).toBe('true');
    await ctx.close();
  });

  test('an expired session shows the toast and signs in again', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signIn(page, 'expired@example.com');
    await page.goto(product.url + '/settings');
    await page.getByRole('button', { name: 'Save Settings' }).waitFor();
    await ctx.clearCookies();
    // The toast lives only for the 500 ms before the redirect: the page reports it the moment it appears.
    let toastSeen = false;
    await page.exposeFunction('reportToast', () => {
      toastSeen = true;
    });
    await page.evaluate(() => {
      new MutationObserver(() => {
        if (document.body.innerText.includes('You are logged out. Logging in again...')) (window as any).reportToast();
      }).observe(document.body, { childList: true, subtree: true, characterData: true });
    });
    await page.getByRole('button', { name: 'Save Settings' }).click();
    // After 500 ms the browser goes to /api/login, which signs the demo user in again.
    await page.waitForURL((url) => url.pathname === '/', { timeout: 20_000 });
    expect(toastSeen).toBe(true);
    await ctx.close();
  });

  test('logout ends the session and returns to the landing page', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signIn(page, 'logout@example.com');
    await page.getByRole('button', { name: 'Logout' }).click();
    await page.getByRole('heading', { name: 'Never Miss a Price Drop Again' }).waitFor();
    const res = await page.request.get(product.url + '/api/auth/user');
    expect(res.status()).toBe(401);
    await page.goto(product.url + '/dashboard');
    expect(await page.getByRole('link', { name: /Sign in with Google/i }).isVisible()).toBe(true);
    await ctx.close();
  });
});
