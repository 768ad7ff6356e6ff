import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import {
  axeViolations,
  browserAvailable,
  describeViolations,
  newContext,
  SETUP_TIMEOUT,
  productWithHistory,
  type RunningProduct,
  type TrackedHistory,
} from './harness.ts';

/**
 * axe-core on every page of the product, signed out and signed in, in the light and the dark theme,
 * on a phone (390 px) and a desktop (1280 px), with the dialogs and popovers open where they matter:
 * no serious or critical violation anywhere.
 */

let product: RunningProduct;
let browser: Browser;

const EMAIL = 'axe@example.com';
/** A paid user with an alert channel whose test failed: Settings with its channels list and deliveries. */
const CHANNELS_EMAIL = 'axe-channels@example.com';
const NAME = 'Precision Conical Burr Coffee Grinder with 40 Grind Settings and Timer';

/** Signed out, a protected page is the sign-in-required page (/unauthorized) and '/' the landing page. */
const PUBLIC_PAGES = ['/', '/login', '/how-it-works', '/unauthorized', '/terms', '/privacy', '/no-such-page'];
/**
 * Signed in, '/' is the dashboard. The other public pages are the same static files for everyone
 * (and /login sends home), so checking them once, signed out, covers them.
 */
const SIGNED_IN_PAGES = [
  '/',
  '/dashboard',
  '/products',
  '/catalogue',
  '/catalogue?view=recommendations',
  '/price-history',
  '/alerts',
  '/billing',
  '/settings',
  '/subscribe',
];

let tracked: TrackedHistory;

beforeAll(async () => {
  if (!browserAvailable) return;
  // One user with one product, a price history and alerts, shared by every theme and width.
  tracked = await productWithHistory({ email: EMAIL, name: NAME, prices: ['149.00', '139.00', '155.00'] });
  ({ product, browser } = tracked);
  const ctx = await newContext(browser);
  const page = await ctx.newPage();
  await page.goto(`${product.url}/api/auth/demo?email=${encodeURIComponent(CHANNELS_EMAIL)}`);
  const post = async (path: string, data?: unknown) => {
    const res = await page.request.post(product.url + path, { data, headers: { origin: product.url } });
    if (!res.ok()) throw new Error(`${path}: ${res.status()} ${await res.text()}`);
    return res.json();
  };
  await post('/api/billing/create-trial-setup');
  await post('/api/billing/create-subscription', { plan: 'starter', paymentMethodId: 'pm_demo_visa4242' });
  // A port nothing listens on any more: the test delivery fails and is listed as failed.
  const gone = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() });
  const url = `http://127.0.0.1:${gone.port}/hook`;
  gone.stop(true);
  const { id } = await post('/api/channels', { type: 'webhook', url, name: 'Shop backend' });
  await post(`/api/channels/${id}/test`);
  await ctx.close();
}, SETUP_TIMEOUT);
afterAll(() => tracked?.stop(), SETUP_TIMEOUT);

/** Waits until the page has drawn what it loads: its heading, no request in flight, no loading placeholder. */
async function settled(page: Page) {
  await page.locator('h1').first().waitFor();
  await page.waitForLoadState('networkidle');
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
}

// The four runs share the product and its user, each in its own browser context; concurrently, they
// spend the time one page waits for the network on another's checks.
for (const theme of ['light', 'dark'] as const) {
  for (const mobile of [true, false]) {
    const width = mobile ? 390 : 1280;
    describe.skipIf(!browserAvailable)(`axe-core, ${theme} theme, ${width} px`, () => {
      test.concurrent('every page, signed out and signed in, with dialogs open', async () => {
        const ctx = await newContext(browser, { mobile });
        await ctx.addInitScript((t) => localStorage.setItem('vite-ui-theme', t), theme);
        const page = await ctx.newPage();
        const failures: string[] = [];
        const check = async (what: string) => {
          expect(await page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(theme === 'dark');
          const violations = await axeViolations(page);
          if (violations.length) failures.push(`${what}:\n${describeViolations(violations)}`);
        };

        for (const path of PUBLIC_PAGES) {
          await page.goto(product.url + path);
          await check(`signed out ${path}`);
        }

        await page.goto(`${product.url}/api/auth/demo?email=${encodeURIComponent(EMAIL)}`);
        for (const path of SIGNED_IN_PAGES) {
          await page.goto(product.url + path);
          await settled(page);
          await check(`signed in ${path}`);
        }

        await page.goto(product.url + '/products');
        await settled(page);
        await page.getByRole('button', { name: 'Add Product', exact: true }).click();
        await page.getByRole('dialog', { name: 'Add New Product' }).waitFor();
        await check('Add New Product dialog');

        await page.goto(product.url + '/price-history');
        await settled(page);
        await page.getByRole('button', { name: NAME }).click();
        const dialog = page.getByRole('dialog', { name: NAME });
        await dialog.getByRole('img', { name: 'Price over time' }).locator('canvas').waitFor();
        await check('price history dialog');
        await page.keyboard.press('Escape');

        await page
          .getByRole('banner')
          .getByRole('button', { name: /^Notifications/ })
          .click();
        await page.getByRole('dialog', { name: 'Notifications' }).waitFor();
        await check('notifications popover');
        await page.keyboard.press('Escape');

        await page.goto(`${product.url}/api/auth/demo?email=${encodeURIComponent(CHANNELS_EMAIL)}`);
        await page.goto(product.url + '/settings#notifications');
        await settled(page);
        await page.getByRole('article', { name: 'Shop backend' }).getByRole('button', { name: 'Recent deliveries' }).click();
        await page.getByRole('article', { name: 'Shop backend' }).getByRole('table').waitFor();
        await check('settings with alert channels and deliveries');
        await page.locator('#notifications').getByRole('button', { name: 'Add channel' }).click();
        await page.getByRole('dialog', { name: 'Add alert channel' }).waitFor();
        await check('Add alert channel dialog');
        await page.keyboard.press('Escape');

        if (mobile) {
          await page.getByRole('button', { name: 'Open menu' }).click();
          await page.getByRole('dialog', { name: 'Menu' }).waitFor();
          await check('app menu');
          await page.goto(product.url + '/how-it-works');
          await page.locator('header details > summary').click();
          await check('landing menu open');
        }

        await ctx.close();
        if (failures.length) throw new Error(`Serious or critical accessibility violations, ${theme} theme, ${width} px:\n\n${failures.join('\n\n')}`);
      }, 180_000);
    });
  }
}
