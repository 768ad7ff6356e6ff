import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import {
  waitForFocus,
  axeViolations,
  browserAvailable,
  describeViolations,
  launchBrowser,
  newContext,
  SETUP_TIMEOUT,
  startProduct,
  type RunningProduct,
} from './harness.ts';
import { FEED_PATHS, startFakeStores, type FakeStores } from '../../api/catalogue/sources/fake-stores.ts';

/**
 * Write access to the owner's own store, on the catalogue's list of connected stores: a Shopify
 * store (served by the loopback fakes) connected in the browser, write access given with its
 * Admin API access token (an empty one refused at its field first), shown masked in the list and
 * never put back into the input, then removed behind a confirmation; a WooCommerce key refused
 * at the field the server names, then given; a Merchant feed without the button; and axe-core on
 * the list and the dialogs in both themes at 390 and 1280 px, with screenshots to look at.
 */

let product: RunningProduct;
let browser: Browser;
let shopify: FakeStores;
let woo: FakeStores;

/** Connects the Shopify store in the browser; its WooCommerce store and Merchant feed are connected beforehand. */
const OWNER = 'write-access@example.com';
/** All three connected beforehand, the WooCommerce store with write access: for the accessibility checks, which change nothing. */
const AXE_OWNER = 'write-access-axe@example.com';

const TOKEN = 'shpat_0123456789abcdefa1b2';
const SHOTS = process.env.SHOTS_DIR ?? join(tmpdir(), 'pricewatch-screenshots');

beforeAll(async () => {
  if (!browserAvailable) return;
  shopify = startFakeStores({ products: 2 });
  woo = startFakeStores({ products: 2, feedItems: 2 });
  // The fake stores are on loopback: private addresses are allowed (never the metadata address).
  product = await startProduct({ CHECK_ALLOW_PRIVATE: 'true', CHECK_WORKER: 'off' });
  browser = await launchBrowser();
  await seed(OWNER, { shopify: false });
  await seed(AXE_OWNER, { shopify: true });
  mkdirSync(SHOTS, { recursive: true });
}, SETUP_TIMEOUT);
afterAll(async () => {
  await browser?.close();
  await product?.stop();
  shopify?.stop();
  woo?.stop();
}, SETUP_TIMEOUT);

async function call(page: Page, method: 'GET' | 'POST' | 'PUT', path: string, data?: unknown) {
  const res = await page.request.fetch(product.url + path, { method, data, headers: { origin: product.url } });
  if (!res.ok()) throw new Error(`${method} ${path}: ${res.status()} ${await res.text()}`);
  return res.json();
}

/** An owner on Starter with a WooCommerce store and a Merchant feed connected (and the Shopify store with `shopify`). */
async function seed(email: string, opts: { shopify: boolean }) {
  const ctx = await newContext(browser);
  const page = await ctx.newPage();
  await page.goto(`${product.url}/api/auth/demo?email=${email}`);
  await call(page, 'POST', '/api/billing/create-trial-setup');
  await call(page, 'POST', '/api/billing/create-subscription', { plan: 'starter', paymentMethodId: 'pm_demo_visa4242' });
  const wooSource = await call(page, 'POST', '/api/catalogue/sources', { kind: 'woocommerce', url: woo.origin });
  await call(page, 'POST', '/api/catalogue/sources', { kind: 'merchant-feed', url: woo.origin + FEED_PATHS.tsv });
  if (opts.shopify) {
    await call(page, 'POST', '/api/catalogue/sources', { kind: 'shopify', url: shopify.origin });
    await call(page, 'PUT', `/api/catalogue/sources/${wooSource.source.id}/write-access`, {
      consumerKey: 'ck_0123456789abcdef9f3e',
      consumerSecret: 'cs_0123456789abcdef',
    });
  }
  await ctx.close();
}

async function signedIn(email: string, opts: { mobile?: boolean; theme?: 'light' | 'dark' } = {}): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await newContext(browser, { mobile: opts.mobile });
  if (opts.theme) await ctx.addInitScript(`localStorage.setItem('vite-ui-theme', '${opts.theme}')`);
  const page = await ctx.newPage();
  await page.goto(`${product.url}/api/auth/demo?email=${encodeURIComponent(email)}`);
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  await page.goto(`${product.url}/catalogue`);
  await page.getByRole('heading', { name: 'Your Catalogue', level: 1 }).waitFor();
  return { ctx, page };
}

const stores = (page: Page) => page.getByRole('region', { name: 'Connected stores' });
/** A connected store's entry, by its platform: every fake store is on 127.0.0.1. */
const store = (page: Page, platform: 'Shopify' | 'WooCommerce' | 'Google Merchant feed') =>
  stores(page)
    .getByRole('listitem')
    .filter({ hasText: `· ${platform}` });
const toast = (page: Page, text: string) => page.getByRole('region', { name: /notifications/i, includeHidden: true }).getByText(text, { exact: true });
/** The text of the element a control's aria-describedby names first: its error when it has one. */
const describedBy = async (page: Page, control: ReturnType<Page['getByLabel']>) =>
  page.locator(`[id="${(await control.getAttribute('aria-describedby'))!.split(' ')[0]}"]`).textContent();
const accessOf = async (page: Page, platform: 'shopify' | 'woocommerce') => {
  const sources: { id: string; kind: string }[] = await call(page, 'GET', '/api/catalogue/sources');
  return call(page, 'GET', `/api/catalogue/sources/${sources.find((s) => s.kind === platform)!.id}/write-access`);
};

describe.skipIf(!browserAvailable)('write access to your store', () => {
  test('give write access with a token, see it masked, change and remove it; a WooCommerce key; none for a feed', async () => {
    const { ctx, page } = await signedIn(OWNER);

    // The Shopify store, connected here; until write access is given, applied prices are exported.
    await page.getByRole('main').getByRole('button', { name: 'Connect store' }).first().click();
    const connect = page.getByRole('dialog', { name: 'Connect store' });
    await connect.getByLabel('Store address').fill(shopify.origin);
    await connect.getByRole('button', { name: 'Connect store' }).click();
    await connect.waitFor({ state: 'detached' });
    const shop = store(page, 'Shopify');
    await shop.getByText('Read only: applied prices are exported as CSV').waitFor();
    await store(page, 'WooCommerce').getByText('Read only: applied prices are exported as CSV').waitFor();
    // A Merchant feed has nothing to write to: no status, no button.
    await store(page, 'Google Merchant feed').waitFor();
    expect(
      await store(page, 'Google Merchant feed')
        .getByRole('button', { name: /write access/ })
        .count(),
    ).toBe(0);
    expect(
      await store(page, 'Google Merchant feed')
        .getByText(/Read only|written/)
        .count(),
    ).toBe(0);

    // An empty token is refused at its field, in the server's words.
    await shop.getByRole('button', { name: 'Give write access: 127.0.0.1' }).click();
    const dialog = page.getByRole('dialog', { name: 'Give write access' });
    const token = dialog.getByLabel('Admin API access token');
    expect(await token.getAttribute('type')).toBe('password');
    await dialog.getByText(/custom app with the write_products scope/).waitFor();
    await dialog.getByRole('button', { name: 'Give write access' }).click();
    await waitForFocus(page, () => document.activeElement?.getAttribute('aria-invalid') === 'true');
    expect(await token.getAttribute('aria-invalid')).toBe('true');
    expect(await describedBy(page, token)).toBe('Please enter the Admin API access token');

    // A token: saved, a toast, and the list shows it masked; focus goes back to the button.
    await token.fill(TOKEN);
    expect(await token.getAttribute('aria-invalid')).toBeNull();
    await dialog.getByRole('button', { name: 'Give write access' }).click();
    await toast(page, 'Applied prices are now written to 127.0.0.1.').waitFor();
    await dialog.waitFor({ state: 'detached' });
    await shop.getByText('Prices are written to this store · Admin API token …a1b2').waitFor();
    await waitForFocus(page, () => document.activeElement?.getAttribute('aria-label') === 'Change write access: 127.0.0.1');
    expect(await accessOf(page, 'shopify')).toEqual({ connected: true, description: 'Admin API token …a1b2' });

    // Changing it starts from an empty input: the secret never comes back, only its description.
    await shop.getByRole('button', { name: 'Change write access: 127.0.0.1' }).click();
    const change = page.getByRole('dialog', { name: 'Change write access' });
    await change.getByText(/Now: Admin API token …a1b2/).waitFor();
    expect(await change.getByLabel('Admin API access token').inputValue()).toBe('');
    expect(await page.content()).not.toContain(TOKEN);
    await change.getByRole('button', { name: 'Cancel' }).click();
    await change.waitFor({ state: 'detached' });

    // WooCommerce: a key that is not one is refused at the key's field; then a key and secret.
    const shopWoo = store(page, 'WooCommerce');
    await shopWoo.getByRole('button', { name: 'Give write access: 127.0.0.1' }).click();
    const wooDialog = page.getByRole('dialog', { name: 'Give write access' });
    const key = wooDialog.getByLabel('Consumer key');
    const secret = wooDialog.getByLabel('Consumer secret');
    await wooDialog.getByText(/WooCommerce > Settings > Advanced > REST API/).waitFor();
    await key.fill('0123456789abcdef');
    await secret.fill('cs_0123456789abcdef');
    await wooDialog.getByRole('button', { name: 'Give write access' }).click();
    await waitForFocus(page, () => document.activeElement?.getAttribute('aria-invalid') === 'true');
    expect(await key.getAttribute('aria-invalid')).toBe('true');
    expect(await secret.getAttribute('aria-invalid')).toBeNull();
    expect(await describedBy(page, key)).toContain('must start with ck_');
    await key.fill('ck_0123456789abcdef9f3e');
    await wooDialog.getByRole('button', { name: 'Give write access' }).click();
    await wooDialog.waitFor({ state: 'detached' });
    await shopWoo.getByText('Prices are written to this store · Consumer key ck_…9f3e').waitFor();

    // Removed behind a confirmation: the store is read only again.
    await shop.getByRole('button', { name: 'Remove write access: 127.0.0.1' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Remove write access to 127.0.0.1?' });
    await confirm.getByRole('button', { name: 'Remove write access' }).click();
    await toast(page, 'Write access removed').waitFor();
    await confirm.waitFor({ state: 'detached' });
    await shop.getByText('Read only: applied prices are exported as CSV').waitFor();
    expect(await shop.getByRole('button', { name: 'Remove write access: 127.0.0.1' }).count()).toBe(0);
    await waitForFocus(page, () => document.activeElement?.getAttribute('aria-label') === 'Give write access: 127.0.0.1');
    expect(await accessOf(page, 'shopify')).toEqual({ connected: false, description: null });
    expect((await accessOf(page, 'woocommerce')).connected).toBe(true);
    await ctx.close();
  }, 90_000);

  for (const theme of ['light', 'dark'] as const) {
    for (const mobile of [false, true]) {
      const width = mobile ? 390 : 1280;
      test.concurrent(`${theme} theme at ${width} px: no serious accessibility violation`, async () => {
        const { ctx, page } = await signedIn(AXE_OWNER, { mobile, theme });
        const failures: string[] = [];
        const check = async (what: string, shot: string) => {
          await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
          await page.screenshot({ path: join(SHOTS, `write-access-${shot}-${theme}-${width}.png`) });
          const violations = await axeViolations(page);
          if (violations.length) failures.push(`${what}:\n${describeViolations(violations)}`);
        };

        await store(page, 'Shopify').getByText('Read only: applied prices are exported as CSV').waitFor();
        await store(page, 'WooCommerce').getByText('Prices are written to this store · Consumer key ck_…9f3e').waitFor();
        await check('connected stores with write access', 'list');

        await store(page, 'Shopify').getByRole('button', { name: 'Give write access: 127.0.0.1' }).click();
        const dialog = page.getByRole('dialog', { name: 'Give write access' });
        await dialog.getByRole('button', { name: 'Give write access' }).click();
        await dialog.getByText('Please enter the Admin API access token').waitFor();
        await check('Give write access dialog with an error', 'shopify');
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });

        await store(page, 'WooCommerce').getByRole('button', { name: 'Change write access: 127.0.0.1' }).click();
        const change = page.getByRole('dialog', { name: 'Change write access' });
        await change.getByLabel('Consumer secret').waitFor();
        await check('Change write access dialog (WooCommerce)', 'woocommerce');
        await page.keyboard.press('Escape');
        await change.waitFor({ state: 'detached' });

        await store(page, 'WooCommerce').getByRole('button', { name: 'Remove write access: 127.0.0.1' }).click();
        const confirm = page.getByRole('alertdialog', { name: 'Remove write access to 127.0.0.1?' });
        await confirm.waitFor();
        await check('Remove write access confirmation', 'remove');
        await confirm.getByRole('button', { name: 'Cancel' }).click();
        await confirm.waitFor({ state: 'detached' });
        await ctx.close();
        if (failures.length) throw new Error(failures.join('\n\n'));
      }, 90_000);
    }
  }
});
