import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Server } from 'bun';
import { browserAvailable, launchBrowser, newContext, SETUP_TIMEOUT, startProduct, type RunningProduct } from './harness.ts';

let product: RunningProduct;
let browser: Browser;
let shop: Server<undefined>;

/** A Shopify (Dawn) product page from the detection benchmark: £24.99 sale price, £30.00 was price, related products. */
const APRON = readFileSync(join(import.meta.dir, '../../bench/detect/fixtures/shopify-dawn-sale.html'), 'utf8');
const SOLD_OUT = readFileSync(join(import.meta.dir, '../../bench/detect/fixtures/nopri-out-of-stock.html'), 'utf8');

beforeAll(async () => {
  if (!browserAvailable) return;
  shop = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const { pathname } = new URL(request.url);
      const html = pathname === '/products/linen-apron' ? APRON : pathname === '/products/retro-radio' ? SOLD_OUT : null;
      if (!html) return new Response('Not found', { status: 404 });
      await Bun.sleep(300); // long enough to see 'Detecting...'
      return new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } });
    },
  });
  // No model configured: the heuristics answer, as in demo mode.
  product = await startProduct({ CHECK_ALLOW_PRIVATE: 'true', CHECK_WORKER: 'off', OPENAI_API_KEY: '' });
  browser = await launchBrowser();
}, SETUP_TIMEOUT);
afterAll(async () => {
  await browser?.close();
  await product?.stop();
  shop?.stop(true);
}, SETUP_TIMEOUT);

const shopUrl = (path: string) => `http://127.0.0.1:${shop.port}${path}`;
// An open modal hides the rest of the page from assistive technology, the toasts' region included.
const toast = (page: Page, text: string) => page.getByRole('region', { name: /notifications/i, includeHidden: true }).getByText(text, { exact: true });

async function signIn(email: string | null): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await newContext(browser);
  const page = await ctx.newPage();
  await page.goto(`${product.url}/api/auth/demo${email ? `?email=${encodeURIComponent(email)}` : ''}`);
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  return { ctx, page };
}

async function openAddDialog(page: Page) {
  await page.goto(`${product.url}/products`);
  await page.getByRole('heading', { name: 'Products', level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Add Product' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Add New Product' });
  await dialog.waitFor();
  return dialog;
}

describe.skipIf(!browserAvailable)('AI help', () => {
  test('on the Free plan AI Detect is off and says how to get it', async () => {
    const { ctx, page } = await signIn('free-detect@example.com');
    const dialog = await openAddDialog(page);
    const detect = dialog.getByRole('button', { name: 'AI Detect' });
    await dialog.getByLabel('Product URL').fill(shopUrl('/products/linen-apron'));
    expect(await detect.isDisabled()).toBe(true);
    const hint = dialog.getByText('AI Detect is part of the paid plans.');
    expect(await hint.isVisible()).toBe(true);
    expect(await detect.getAttribute('aria-describedby')).toBe(await hint.getAttribute('id'));
    expect(await dialog.getByRole('link', { name: 'Start a free trial' }).getAttribute('href')).toBe('/subscribe?plan=starter');
    // The server refuses it all the same, with its reason.
    const refused = await page.request.post(`${product.url}/api/ai/detect-selector`, {
      data: { url: shopUrl('/products/linen-apron') },
      headers: { origin: product.url },
    });
    expect(refused.status()).toBe(403);
    expect((await refused.json()).message).toStartWith('AI price detection is not part of the Free plan.');
    await ctx.close();
  });

  test('on a paid plan AI Detect fills the selector field, offers the other suggestions, and the product checks at that price', async () => {
    const { ctx, page } = await signIn('paid-detect@example.com');
    // Start a Starter trial through the demo billing flow.
    const subscribed = await page.request.post(`${product.url}/api/billing/create-subscription`, {
      data: { plan: 'starter', paymentMethodId: 'pm_demo_visa4242' },
      headers: { origin: product.url },
    });
    expect(subscribed.status()).toBe(200);

    const dialog = await openAddDialog(page);
    const detect = dialog.getByRole('button', { name: 'AI Detect' });
    expect(await dialog.getByText('AI Detect is part of the paid plans.').count()).toBe(0);
    await detect.click();
    await toast(page, 'URL Required').waitFor();
    expect(await toast(page, 'Please enter a product URL first.').isVisible()).toBe(true);
    await dialog.getByLabel('Product URL').fill('competitor.com/apron');
    await detect.click();
    await toast(page, 'Invalid URL').waitFor();
    expect(await toast(page, 'Please enter a valid URL.').isVisible()).toBe(true);

    await dialog.getByLabel('Product Name').fill('Linen Apron');
    await dialog.getByLabel('Product URL').fill(shopUrl('/products/linen-apron'));
    await detect.click();
    await dialog.getByRole('button', { name: /Detecting\.\.\./ }).waitFor();
    await toast(page, 'Price selector detected').waitFor();

    const selector = dialog.getByLabel('CSS Selector');
    expect(await selector.inputValue()).toBe('.price--large .price-item--sale');
    const choices = dialog.getByRole('group', { name: 'Detected price selectors' }).getByRole('radio');
    expect(await choices.count()).toBeGreaterThan(1);
    expect(await choices.first().isChecked()).toBe(true);
    const best = dialog.getByRole('group', { name: 'Detected price selectors' }).locator('label').first();
    // The demo shop writes "£24.99 GBP", as Shopify themes do: the description quotes what the page shows.
    expect(await best.textContent()).toContain("Sale price £24.99 GBP in the product details, matching the page's JSON-LD offer");
    expect(await best.getByText(/^\d{1,2}%$/).isVisible()).toBe(true);

    // Picking another fills it in; picking the best again restores it.
    await choices.nth(1).check();
    expect(await selector.inputValue()).not.toBe('.price--large .price-item--sale');
    await choices.first().check();
    expect(await selector.inputValue()).toBe('.price--large .price-item--sale');

    await dialog.getByRole('button', { name: 'Add Product' }).click();
    await toast(page, 'Product added').waitFor();
    const card = page
      .getByRole('list', { name: 'Products' })
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: 'Linen Apron' }) });
    await card.getByRole('button', { name: 'Check Now' }).click();
    await card.getByText('£24.99').waitFor();

    // A page without a price of its own.
    const again = await openAddDialog(page);
    await again.getByLabel('Product URL').fill(shopUrl('/products/retro-radio'));
    await again.getByRole('button', { name: 'AI Detect' }).click();
    await toast(page, 'No selectors found').waitFor();
    expect(await toast(page, "AI couldn't detect price selectors. Try entering manually.").isVisible()).toBe(true);
    expect(await again.getByLabel('CSS Selector').inputValue()).toBe('');

    // A page that cannot be fetched: the server says why.
    await again.getByLabel('Product URL').fill(shopUrl('/products/gone'));
    await again.getByRole('button', { name: 'AI Detect' }).click();
    await toast(page, 'AI Detection Failed').waitFor();
    await page
      .getByRole('region', { name: /notifications/i, includeHidden: true })
      .getByText(/^The page could not be analysed: /)
      .waitFor();
    await ctx.close();
  });

  test('pricing suggestions appear in the price history dialog', async () => {
    // The demo account comes with a week of history on the built-in demo shop.
    const { ctx, page } = await signIn(null);
    await page.goto(`${product.url}/price-history`);
    const row = page.getByRole('list', { name: 'Products' }).getByRole('listitem').first();
    await row.waitFor();
    await row.getByRole('button').first().click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await dialog.getByRole('img', { name: 'Price over time' }).locator('canvas').first().waitFor();

    // Held back a moment, so 'Analyzing...' can be seen.
    await page.route('**/api/price-suggestions', async (route) => {
      await Bun.sleep(400);
      await route.continue();
    });
    await dialog.getByRole('button', { name: 'Get Pricing Suggestions' }).click();
    const analyzing = dialog.getByRole('button', { name: /Analyzing\.\.\./ });
    await analyzing.waitFor();
    expect(await analyzing.isDisabled()).toBe(true);
    await dialog.getByText('AI Pricing Insights').waitFor();
    const suggestions = dialog.getByRole('list', { name: 'Pricing suggestions' }).getByRole('listitem');
    expect(await suggestions.count()).toBeGreaterThan(0);
    const first = suggestions.first();
    expect(await first.getByRole('heading', { level: 3 }).textContent()).not.toBe('Not enough price history yet');
    expect(await first.getByText(/^\d{1,3}% confidence$/).isVisible()).toBe(true);
    expect(await first.getByText('Recommended Action').isVisible()).toBe(true);

    // Another range asks again.
    await dialog.getByRole('combobox', { name: 'Time range' }).click();
    await page.getByRole('option', { name: 'Last 7 days' }).click();
    await dialog.getByText('AI Pricing Insights').waitFor({ state: 'detached' });
    await dialog.getByRole('button', { name: 'Get Pricing Suggestions' }).click();
    await dialog.getByText('AI Pricing Insights').waitFor();
    await ctx.close();
  });
});
