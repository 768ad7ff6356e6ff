import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { Server } from 'bun';
import {
  axeViolations,
  browserAvailable,
  describeViolations,
  launchBrowser,
  openProducts,
  SETUP_TIMEOUT,
  startProduct,
  type RunningProduct,
} from './harness.ts';

let product: RunningProduct;
let browser: Browser;
let shop: Server<undefined>;
const SHOTS = join(import.meta.dir, '../../test-results/variants');

/** A WooCommerce variable product: its price block shows the range, the variations form knows each size's price and stock. */
const variations = [
  { variation_id: 101, sku: 'TJ-S', attributes: { attribute_size: 'S' }, display_price: 49.99, display_regular_price: 59.99, is_in_stock: true },
  { variation_id: 102, sku: 'TJ-M', attributes: { attribute_size: 'M' }, display_price: 52.5, display_regular_price: 52.5, is_in_stock: true },
  { variation_id: 103, sku: 'TJ-XL', attributes: { attribute_size: 'XL' }, display_price: 54.99, display_regular_price: 69.99, is_in_stock: false },
];
const attribute = (value: string) => value.replaceAll('&', '&amp;').replaceAll('"', '&quot;');
const JACKET = `<!doctype html><html lang="en-GB"><head><title>Trail jacket – Outdoor Shop</title></head><body>
  <div class="product type-product product-type-variable"><div class="summary entry-summary">
  <h1 class="product_title entry-title">Trail jacket</h1>
  <p class="price"><span class="woocommerce-Price-amount amount"><bdi><span class="woocommerce-Price-currencySymbol">&pound;</span>49.99</bdi></span> &ndash;
    <span class="woocommerce-Price-amount amount"><bdi><span class="woocommerce-Price-currencySymbol">&pound;</span>54.99</bdi></span></p>
  <form class="variations_form cart" action="/product/trail-jacket/" method="post" data-product_id="100" data-product_variations="${attribute(JSON.stringify(variations))}">
    <table class="variations"><tbody><tr><th class="label"><label for="size">Size</label></th><td class="value">
      <select id="size" name="attribute_size"><option value="">Choose an option</option><option value="S">S</option><option value="M">M</option><option value="XL">XL</option></select>
    </td></tr></tbody></table>
    <div class="single_variation_wrap"><button type="submit" class="single_add_to_cart_button button alt">Add to basket</button></div>
  </form></div></div></body></html>`;

beforeAll(async () => {
  if (!browserAvailable) return;
  mkdirSync(SHOTS, { recursive: true });
  shop = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      if (new URL(request.url).pathname !== '/product/trail-jacket/') return new Response('Not found', { status: 404 });
      return new Response(JACKET, { headers: { 'content-type': 'text/html; charset=utf-8' } });
    },
  });
  // No model: the heuristics answer, as in demo mode. Only Check Now checks.
  product = await startProduct({ CHECK_ALLOW_PRIVATE: 'true', CHECK_WORKER: 'off', OPENAI_API_KEY: '' });
  browser = await launchBrowser();
}, SETUP_TIMEOUT);
afterAll(async () => {
  await browser?.close();
  await product?.stop();
  shop?.stop(true);
}, SETUP_TIMEOUT);

const JACKET_URL = () => `http://127.0.0.1:${shop.port}/product/trail-jacket/`;
const toast = (page: Page, text: string) => page.getByRole('region', { name: /notifications/i, includeHidden: true }).getByText(text, { exact: true });

/** A Starter trial through the demo billing flow: AI Detect is part of it. */
async function subscribe(page: Page) {
  const res = await page.request.post(`${product.url}/api/billing/create-subscription`, {
    data: { plan: 'starter', paymentMethodId: 'pm_demo_visa4242' },
    headers: { origin: product.url },
  });
  expect(res.status()).toBe(200);
  // The screen learns the plan when it loads.
  await page.reload();
  await page.getByRole('heading', { name: 'Products', level: 1 }).waitFor();
}

async function detectIn(page: Page) {
  await page.getByRole('button', { name: 'Add Product' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Add New Product' });
  await dialog.waitFor();
  await dialog.getByLabel('Product Name').fill('Trail jacket XL');
  await dialog.getByLabel('Product URL').fill(JACKET_URL());
  await dialog.getByRole('button', { name: 'AI Detect' }).click();
  await toast(page, 'Price selector detected').waitFor();
  const picker = dialog.getByRole('group', { name: 'Variants on this page' });
  await picker.waitFor();
  return { dialog, picker };
}

describe.skipIf(!browserAvailable)('picking a variant', () => {
  test('AI Detect lists the sizes; picking the sold-out XL rewrites the address, and the card shows its price, was-price, size and stock', async () => {
    const { ctx, page } = await openProducts(browser, product, 'variants@example.com');
    await subscribe(page);
    const { dialog, picker } = await detectIn(page);
    const choices = picker.getByRole('radio');
    expect(await choices.count()).toBe(3);
    // The address selects no size yet: none is picked.
    for (let i = 0; i < 3; i++) expect(await choices.nth(i).isChecked()).toBe(false);
    const xl = picker.locator('label').filter({ hasText: 'XL' });
    expect(await xl.textContent()).toContain('Out of stock');
    expect(await xl.textContent()).toContain('£54.99');
    expect(await xl.textContent()).toContain('was £69.99');

    await picker.getByRole('radio', { name: /XL/ }).check();
    expect(await dialog.getByLabel('Product URL').inputValue()).toBe(`${JACKET_URL()}?attribute_size=XL`);
    const selector = await dialog.getByLabel('CSS Selector').inputValue();
    expect(selector).toBe('form[data-product_variations]');
    expect(await picker.getByRole('radio', { name: /XL/ }).isChecked()).toBe(true);

    await dialog.getByRole('button', { name: 'Add Product' }).click();
    await toast(page, 'Product added').waitFor();
    const card = page
      .getByRole('list', { name: 'Products' })
      .getByRole('listitem')
      .filter({ has: page.getByRole('heading', { name: 'Trail jacket XL' }) });
    await card.getByRole('button', { name: 'Check Now' }).click();
    await card.getByText('£54.99', { exact: true }).waitFor();
    expect(await card.getByTestId('variant').textContent()).toBe('Variant: XL');
    expect(await card.getByTestId('regular-price').textContent()).toBe('was £69.99');
    expect(await card.getByText('Out of stock', { exact: true }).isVisible()).toBe(true);
    await ctx.close();
  }, 60_000);

  for (const mobile of [false, true]) {
    for (const theme of ['light', 'dark'] as const) {
      const size = mobile ? '390' : '1280';
      test(`the variant picker at ${size} px, ${theme}: no serious accessibility violation`, async () => {
        const { ctx, page } = await openProducts(browser, product, `variants-${size}-${theme}@example.com`, { mobile, theme });
        await subscribe(page);
        const { picker } = await detectIn(page);
        await picker.getByRole('radio', { name: /^M/ }).check();
        await picker.scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(SHOTS, `picker-${size}-${theme}.png`) });
        const violations = await axeViolations(page);
        expect(describeViolations(violations)).toBe(describeViolations([]));
        await ctx.close();
      }, 60_000);
    }
  }
});
