import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { createContext } from '../../api/create-context.ts';
import { loadConfig } from '../../api/config.ts';
import { createApp } from '../../api/server.ts';
import { signInDemo } from '../../api/testing/sign-in.ts';
import { endSubscription, startTrial } from '../../api/testing/plans.ts';
import { axeViolations, browserAvailable, describeViolations, freePort, launchBrowser, newContext, startProduct, type RunningProduct } from './harness.ts';

/**
 * What the plan allows, said before anything is refused: the product limit on the Products screen,
 * products paused beyond it after a subscription ended, what cancelling does to them, the check
 * frequencies a plan offers and the API Access field without a key. Each state in both themes at
 * 390 and 1280 px, axe-clean, with a screenshot in test-results/plan-limits.
 */

/** On Free with three products: at the limit. */
const AT_LIMIT = 'at-limit@example.com';
/** Added five on a Growth trial that then ended: two are paused. */
const ENDED = 'ended@example.com';
/** Five products on a Growth trial, about to cancel. */
const CANCELLING = 'cancelling@example.com';
/** Saved hourly checks on Growth, then the trial ended. */
const DOWNGRADED = 'downgraded@example.com';
const FIVE = ['Steel Kettle', 'Chrome Toaster', 'Glass Jug', 'Burr Grinder', 'Kitchen Scale'];

const SHOTS = join(import.meta.dir, '../../test-results/plan-limits');
let product: RunningProduct;
let browser: Browser;

beforeAll(async () => {
  if (!browserAvailable) return;
  mkdirSync(SHOTS, { recursive: true });
  const dataDir = mkdtempSync(join(tmpdir(), 'pricewatch-plan-limits-'));
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const ctx = await createContext(loadConfig({ NODE_ENV: 'development', PORT: String(port), PUBLIC_URL: url, DATA_DIR: dataDir }));
  const app = createApp(ctx);
  const send = async (cookie: string, method: string, path: string, body: unknown) => {
    const res = await app.handle(
      new Request(new URL(path, url), {
        method,
        headers: { cookie, origin: url, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  };
  const addProducts = async (cookie: string, names: string[]) => {
    for (const name of names) {
      await send(cookie, 'POST', '/api/products', {
        name,
        url: `https://shop.example/${name.toLowerCase().replace(' ', '-')}`,
        selector: '.price',
        threshold: 'none',
      });
    }
  };
  const atLimit = await signInDemo(app, url, AT_LIMIT);
  await addProducts(atLimit.cookie, FIVE.slice(0, 3));
  const ended = await signInDemo(app, url, ENDED);
  const endedTrial = await startTrial(ctx, ended.userId, 'growth');
  await addProducts(ended.cookie, FIVE);
  await endSubscription(ctx, ended.userId, endedTrial);
  const cancelling = await signInDemo(app, url, CANCELLING);
  await startTrial(ctx, cancelling.userId, 'growth');
  await addProducts(cancelling.cookie, FIVE);
  const downgraded = await signInDemo(app, url, DOWNGRADED);
  const downgradedTrial = await startTrial(ctx, downgraded.userId, 'growth');
  await send(downgraded.cookie, 'PUT', '/api/settings', {
    emailNotifications: true,
    priceDropAlerts: true,
    weeklyReports: false,
    checkFrequency: 'hourly',
    currency: 'GBP',
    timezone: 'Europe/London',
  });
  await endSubscription(ctx, downgraded.userId, downgradedTrial);
  await ctx.close();
  product = await startProduct({ CHECK_WORKER: 'off' }, { dataDir, port });
  browser = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await product?.stop();
}, 60_000);

const VIEWS = [
  { theme: 'light', mobile: false },
  { theme: 'dark', mobile: false },
  { theme: 'light', mobile: true },
  { theme: 'dark', mobile: true },
] as const;
type View = (typeof VIEWS)[number];
const viewName = (v: View) => `${v.theme}-${v.mobile ? 390 : 1280}`;

/** Signed in as `email` on `path`, in the view's theme and width, once its heading is there and nothing loads. */
async function open(email: string, path: string, view: View): Promise<{ page: Page; close: () => Promise<void> }> {
  const ctx = await newContext(browser, { mobile: view.mobile });
  await ctx.addInitScript(`localStorage.setItem('vite-ui-theme', '${view.theme}')`);
  const page = await ctx.newPage();
  await page.goto(`${product.url}/api/auth/demo?email=${encodeURIComponent(email)}`);
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  await page.goto(product.url + path);
  await page.locator('h1').first().waitFor();
  await page.waitForLoadState('networkidle');
  await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
  return { page, close: () => ctx.close() };
}

/** No serious axe violation, and a screenshot named after the state and the view. */
async function check(page: Page, state: string, view: View, fullPage = true) {
  const violations = await axeViolations(page);
  expect(describeViolations(violations)).toBe('');
  await page.screenshot({ path: join(SHOTS, `${state}-${viewName(view)}.png`), fullPage });
}

const card = (page: Page, name: string) => page.getByRole('listitem').filter({ has: page.getByRole('heading', { name, exact: true }) });

describe.skipIf(!browserAvailable)('plan limits', () => {
  for (const view of VIEWS) {
    test(`at the limit the Products screen says so, and Add Product says why before any form (${viewName(view)})`, async () => {
      const { page, close } = await open(AT_LIMIT, '/products', view);
      const notice = page.getByText('3 of 3 products on Free.');
      await notice.waitFor();
      expect(await page.getByRole('link', { name: 'Upgrade your plan' }).getAttribute('href')).toBe('/billing');
      await check(page, 'products-at-limit', view);
      await page.getByRole('button', { name: 'Add Product' }).click();
      const dialog = page.getByRole('dialog', { name: 'Product limit reached' });
      await dialog.getByText('Your Free plan allows 3 products. Upgrade your plan to add more.').waitFor();
      expect(await dialog.getByRole('textbox').count()).toBe(0);
      expect(await dialog.getByRole('link', { name: 'See plans' }).getAttribute('href')).toBe('/billing');
      await check(page, 'add-at-limit', view, false);
      await dialog.getByRole('button', { name: 'Close' }).first().click();
      await dialog.waitFor({ state: 'detached' });
      await close();
    }, 60_000);

    test(`after a plan ended, the products beyond Free are paused and say why (${viewName(view)})`, async () => {
      const { page, close } = await open(ENDED, '/products', view);
      await page.getByText('5 of 3 products on Free: 2 paused.').waitFor();
      for (const name of FIVE) {
        const paused = name === 'Burr Grinder' || name === 'Kitchen Scale';
        await card(page, name).waitFor();
        expect(await card(page, name).getByText('Checks paused', { exact: true }).count()).toBe(paused ? 2 : 0);
        expect(await card(page, name).getByRole('button', { name: 'Check Now' }).isDisabled()).toBe(paused);
      }
      await card(page, 'Kitchen Scale')
        .getByText(/^Your Free plan checks the first 3 products you added\./)
        .waitFor();
      await check(page, 'products-paused', view);

      // Billing on Free says which are paused now.
      await page.goto(`${product.url}/billing`);
      await page.getByText(/^Free checks 3 products: Steel Kettle, Chrome Toaster, Glass Jug\. These 2 are paused: Burr Grinder, Kitchen Scale\./).waitFor();
      await page.waitForLoadState('networkidle');
      await check(page, 'billing-free-paused', view);
      await close();
    }, 60_000);

    test(`before cancelling, the dialog says which products keep being checked after the end date and which pause (${viewName(view)})`, async () => {
      const { page, close } = await open(CANCELLING, '/billing', view);
      await page.getByRole('button', { name: 'Cancel Subscription' }).click();
      const dialog = page.getByRole('alertdialog', { name: 'Cancel Subscription' });
      await dialog
        .getByText(
          /^After \d{1,2} [A-Z][a-z]{2,3} \d{4}, these 3 products keep being checked: Steel Kettle, Chrome Toaster, Glass Jug; these 2 pause: Burr Grinder, Kitchen Scale\./,
        )
        .waitFor();
      await check(page, 'cancel-dialog', view, false);
      await dialog.getByRole('button', { name: 'Keep Subscription' }).click();
      await close();
    }, 60_000);

    test(`Settings offer only the frequencies the plan checks at, and the API Access field tells the truth (${viewName(view)})`, async () => {
      const { page, close } = await open(AT_LIMIT, '/settings', view);
      const frequency = page.getByRole('combobox', { name: 'Default Check Frequency' });
      await frequency.waitFor();
      await page.getByText('Hourly checks come with the Growth and Pro plans.').waitFor();
      expect(await page.getByLabel('API Key', { exact: true }).inputValue()).toBe('API access is on Pro');
      await check(page, 'settings-free', view);
      await frequency.click();
      await page.getByRole('option').first().waitFor();
      const options = await page.getByRole('option').allTextContents();
      expect(options).toEqual(['Daily', 'Weekly']);
      // No axe here: an open select hides the rest of the page from assistive technology on purpose.
      await page.screenshot({ path: join(SHOTS, `settings-frequency-open-${viewName(view)}.png`) });
      await page.keyboard.press('Escape');
      await close();

      // Hourly saved on Growth reads as what applies on Free now.
      const downgraded = await open(DOWNGRADED, '/settings', view);
      await downgraded.page.getByText('Hourly was saved on an earlier plan. Free checks prices daily at most, so Daily applies.').waitFor();
      expect(await downgraded.page.getByRole('combobox', { name: 'Default Check Frequency' }).textContent()).toBe('Daily');
      await check(downgraded.page, 'settings-downgraded', view);
      await downgraded.close();
    }, 60_000);
  }

  test('cancelling keeps the explanation on the Billing page; saving downgraded settings saves what applies', async () => {
    const { page, close } = await open(CANCELLING, '/billing', VIEWS[0]);
    await page.getByRole('button', { name: 'Cancel Subscription' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Cancel Subscription' });
    await dialog.getByRole('button', { name: 'Cancel Subscription' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByText(/^After .*, these 3 products keep being checked: .*; these 2 pause: Burr Grinder, Kitchen Scale\./).waitFor();
    await close();
    for (const view of VIEWS) {
      const billing = await open(CANCELLING, '/billing', view);
      await billing.page.getByText(/these 2 pause: Burr Grinder, Kitchen Scale/).waitFor();
      await check(billing.page, 'billing-cancelled', view);
      await billing.close();
    }

    const settings = await open(DOWNGRADED, '/settings', VIEWS[0]);
    await settings.page.getByRole('button', { name: 'Save Settings' }).click();
    await settings.page.getByText('Settings saved').first().waitFor();
    const saved = await settings.page.evaluate(async () => (await fetch('/api/settings')).json());
    expect(saved.checkFrequency).toBe('daily');
    await settings.close();
  }, 120_000);
});
