import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Locator, Page } from 'playwright-core';
import type { Server } from 'bun';
import { browserAvailable, launchBrowser, SETUP_TIMEOUT, startProduct, type RunningProduct, openProducts } from './harness.ts';

let product: RunningProduct;
let browser: Browser;
let shop: Server;

/** The competitor's price; tests change it between checks. */
let kettlePrice = '24.99';

beforeAll(async () => {
  if (!browserAvailable) return;
  // A competitor's shop on loopback; slow enough that 'Checking...' can be seen.
  shop = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const { pathname } = new URL(request.url);
      const name = pathname.slice(1);
      if (!['kettle', 'toaster', 'blender'].includes(name)) return new Response('Not found', { status: 404 });
      await Bun.sleep(400);
      const price = name === 'kettle' ? kettlePrice : '49.00';
      // The kettle's picture is missing: the card falls back to its icon.
      const html = `<!doctype html><html><head><title>${name}</title><meta property="og:image" content="/missing-${name}.png"></head>
        <body><h1>${name}</h1><p>Was <s>£99.00</s></p><span class="price">£${price}</span></body></html>`;
      return new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } });
    },
  });
  // Only Check Now checks: no scheduled check changes prices behind the test's back.
  product = await startProduct({ CHECK_ALLOW_PRIVATE: 'true', CHECK_WORKER: 'off' });
  browser = await launchBrowser();
}, SETUP_TIMEOUT);
afterAll(async () => {
  await browser?.close();
  await product?.stop();
  shop?.stop(true);
}, SETUP_TIMEOUT);

const shopUrl = (path: string) => `http://127.0.0.1:${shop.port}/${path}`;

/** Adds a product through the API, as the signed-in user of `page`. */
async function addThroughApi(page: Page, body: { name: string; url: string; selector: string; threshold: string }) {
  const res = await page.request.post(`${product.url}/api/products`, { data: body, headers: { Origin: product.url } });
  expect(res.status()).toBe(201);
}

const card = (page: Page, name: string) =>
  page
    .getByRole('list', { name: 'Products' })
    .getByRole('listitem')
    .filter({ has: page.getByRole('heading', { name, exact: true }) });
/** What a card shows under one of its headings (Current Price, 24h Change). */
const figure = (c: Locator, term: string) =>
  c
    .locator('dl > div')
    .filter({ has: c.page().getByText(term, { exact: true }) })
    .locator('dd')
    .first();
// An open modal hides the rest of the page from assistive technology, the toasts' region included.
const toast = (page: Page, text: string) => page.getByRole('region', { name: /notifications/i, includeHidden: true }).getByText(text, { exact: true });

describe.skipIf(!browserAvailable)('products screen', () => {
  test('add with validation, check now, edit, update manually, delete', async () => {
    const { ctx, page } = await openProducts(browser, product, 'kettles@example.com');
    await page.getByText('No products yet').waitFor();

    // Add: the empty form shows every message of docs/product.md#form-messages and focuses the first field.
    await page.getByRole('button', { name: 'Add Your First Product' }).click();
    const add = page.getByRole('dialog', { name: 'Add New Product' });
    await add.waitFor();
    await add.getByRole('button', { name: 'Add Product' }).click();
    for (const message of ['Product name is required', 'Please enter a valid URL', 'CSS selector is required']) {
      await add.getByText(message).waitFor();
    }
    const name = add.getByLabel('Product Name');
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await name.getAttribute('aria-describedby'))!.split(' ')[0]!;
    expect(await page.locator(`[id="${describedBy}"]`).textContent()).toBe('Product name is required');
    await page.waitForFunction(() => document.activeElement?.getAttribute('aria-invalid') === 'true');

    await name.fill('Steel Kettle');
    expect(await add.getByText('Product name is required').count()).toBe(0); // typing clears the field's message
    await add.getByLabel('Product URL').fill(shopUrl('kettle'));
    await add.getByLabel('CSS Selector').fill('.price');
    await add.getByRole('combobox', { name: 'Alert Threshold' }).click();
    await page.getByRole('option', { name: '10% decrease' }).click();
    await add.getByRole('button', { name: 'Add Product' }).click();
    await toast(page, 'Product added').waitFor();
    await add.waitFor({ state: 'detached' });

    const kettle = card(page, 'Steel Kettle');
    await kettle.waitFor();
    expect(await kettle.getByText('127.0.0.1', { exact: true }).isVisible()).toBe(true);
    // No price yet: a dash for the price and for its change, not a change of 0%.
    expect(await figure(kettle, 'Current Price').textContent()).toBe('—');
    expect(await figure(kettle, '24h Change').textContent()).toBe('—');
    expect(await kettle.getByText('10% drop').isVisible()).toBe(true);
    // No worker runs in this file: the first check waits, and the card never looks checked.
    expect(await kettle.getByText('First check running…').isVisible()).toBe(true);
    const open = kettle.getByRole('link', { name: 'Open Steel Kettle page in a new tab' });
    expect(await open.getAttribute('href')).toBe(shopUrl('kettle'));
    expect(await open.getAttribute('target')).toBe('_blank');
    expect(await open.getAttribute('rel')).toContain('noopener');

    // Check Now: 'Checking...' and disabled while the shop answers, then the price.
    await kettle.getByRole('button', { name: 'Check Now' }).click();
    const checking = kettle.getByRole('button', { name: 'Checking...' });
    await checking.waitFor();
    expect(await checking.isDisabled()).toBe(true);
    await toast(page, 'Price checked').waitFor();
    await kettle.getByText('£24.99').waitFor();
    await kettle.getByText('Last checked: Just now').waitFor();
    const [listed] = await (await page.request.get(`${product.url}/api/products`)).json();
    expect(listed.imageUrl).toBe(shopUrl('missing-kettle.png'));
    await page.waitForFunction(() => document.querySelectorAll('main li img').length === 0);
    expect(await kettle.getByRole('button', { name: 'Check Now' }).isEnabled()).toBe(true);

    // Edit: a negative threshold is refused, then name and threshold are saved.
    await kettle.getByRole('button', { name: 'Edit Steel Kettle' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Product' });
    await edit.waitFor();
    expect(await edit.getByLabel('Product Name').inputValue()).toBe('Steel Kettle');
    expect(await edit.getByLabel('Alert Threshold (%)').inputValue()).toBe('10');
    await edit.getByLabel('Alert Threshold (%)').fill('-3');
    await edit.getByRole('button', { name: 'Save Changes' }).click();
    await edit.getByText('Threshold must be a positive number').waitFor();
    await edit.getByLabel('Product Name').fill('Steel Kettle 1.7L');
    await edit.getByLabel('Alert Threshold (%)').fill('7.5');
    await edit.getByRole('button', { name: 'Save Changes' }).click();
    await toast(page, 'Product updated').waitFor();
    await edit.waitFor({ state: 'detached' });
    const renamed = card(page, 'Steel Kettle 1.7L');
    await renamed.getByText('7.5% drop').waitFor();

    // The competitor lowers the price: the next check shows it and the 24h change.
    kettlePrice = '19.99';
    await renamed.getByRole('button', { name: 'Check Now' }).click();
    await renamed.getByText('£19.99').waitFor();
    await renamed.getByText('-20.0%').waitFor();

    // Update Price manually: required, greater than 0, then saved.
    await renamed.getByRole('button', { name: 'Update Price' }).click();
    const manual = page.getByRole('dialog', { name: 'Update Price Manually' });
    await manual.waitFor();
    await manual.getByRole('button', { name: 'Update Price' }).click();
    await manual.getByText('Price is required').waitFor();
    await manual.getByLabel('New Price (£)').fill('0');
    await manual.getByRole('button', { name: 'Update Price' }).click();
    await manual.getByText('Please enter a valid price greater than 0').waitFor();
    await manual.getByLabel('New Price (£)').fill('21.5');
    await manual.getByRole('button', { name: 'Update Price' }).click();
    await toast(page, 'New price: £21.50').waitFor();
    await manual.waitFor({ state: 'detached' });
    await renamed.getByText('£21.50').waitFor();
    // Typed in, not checked: the card says so.
    await renamed.getByText('Price set by hand: Just now').waitFor({ timeout: 10_000 });
    expect(await renamed.getByText(/Last checked/).count()).toBe(0);

    // Delete: asks first; Cancel keeps the product.
    await renamed.getByRole('button', { name: 'Delete Steel Kettle 1.7L' }).click();
    const confirm = page.getByRole('alertdialog');
    await confirm.getByText('Are you sure you want to delete this product? This action cannot be undone.').waitFor();
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect(await renamed.isVisible()).toBe(true);
    await renamed.getByRole('button', { name: 'Delete Steel Kettle 1.7L' }).click();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await toast(page, 'Product deleted').waitFor();
    await page.getByText('No products yet').waitFor();
    // The deleted card's button is gone: focus goes to the search box, not the page's start.
    await page.waitForFunction(() => document.activeElement?.getAttribute('aria-label') === 'Search products');

    // The list really changed on the server.
    expect(await (await page.request.get(`${product.url}/api/products`)).json()).toEqual([]);
    await ctx.close();
  });

  test('the stock alerts switch: on for a new product, turned off in the add dialog, on again in the edit dialog', async () => {
    const { ctx, page } = await openProducts(browser, product, 'stock-switch@example.com');
    await page.getByRole('button', { name: 'Add Your First Product' }).click();
    const add = page.getByRole('dialog', { name: 'Add New Product' });
    const addSwitch = add.getByRole('switch', { name: 'Stock alerts' });
    expect(await addSwitch.getAttribute('aria-checked')).toBe('true');
    expect(await add.getByText('Alert me when it goes out of stock or comes back.').isVisible()).toBe(true);
    await add.getByLabel('Product Name').fill('Stand Mixer');
    await add.getByLabel('Product URL').fill(shopUrl('toaster'));
    await add.getByLabel('CSS Selector').fill('.price');
    await addSwitch.press('Space'); // the keyboard works it too
    expect(await addSwitch.getAttribute('aria-checked')).toBe('false');
    await add.getByRole('button', { name: 'Add Product' }).click();
    await add.waitFor({ state: 'detached' });
    const listed = async () => (await (await page.request.get(`${product.url}/api/products`)).json())[0];
    expect((await listed()).stockAlerts).toBe(false);

    await card(page, 'Stand Mixer').getByRole('button', { name: 'Edit Stand Mixer' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Product' });
    const editSwitch = edit.getByRole('switch', { name: 'Stock alerts' });
    expect(await editSwitch.getAttribute('aria-checked')).toBe('false');
    await editSwitch.click();
    await edit.getByRole('button', { name: 'Save Changes' }).click();
    await edit.waitFor({ state: 'detached' });
    expect(await listed()).toMatchObject({ stockAlerts: true, availability: null });
    await ctx.close();
  });

  test('search by name or address, the no-match state, and the plan limit before any form', async () => {
    const { ctx, page } = await openProducts(browser, product, 'search@example.com');
    await page.getByText('No products yet').waitFor();
    await addThroughApi(page, { name: 'Steel Kettle', url: shopUrl('kettle'), selector: '.price', threshold: 'none' });
    await addThroughApi(page, { name: 'Chrome Toaster', url: shopUrl('toaster'), selector: '.price', threshold: 'any' });
    await addThroughApi(page, { name: 'Glass Jug', url: shopUrl('blender'), selector: '.price', threshold: '-5' });
    await page.reload();
    const headings = page.getByRole('list', { name: 'Products' }).getByRole('heading');
    await card(page, 'Glass Jug').waitFor();
    expect(await headings.allTextContents()).toEqual(['Glass Jug', 'Chrome Toaster', 'Steel Kettle']);
    expect(await card(page, 'Chrome Toaster').getByText('Any change').isVisible()).toBe(true);
    expect(await card(page, 'Steel Kettle').getByText('Alert Threshold').count()).toBe(0); // only when set

    const search = page.getByRole('searchbox', { name: 'Search products' });
    await search.fill('KETTLE');
    expect(await headings.allTextContents()).toEqual(['Steel Kettle']);
    await search.fill('blender'); // matches the address only
    expect(await headings.allTextContents()).toEqual(['Glass Jug']);
    await search.fill('waffle iron');
    await page.getByText('No products found').waitFor();
    expect(await page.getByRole('button', { name: 'Add Product' }).count()).toBe(2);
    await page.getByRole('button', { name: 'Clear Search' }).click();
    expect(await search.inputValue()).toBe('');
    await card(page, 'Steel Kettle').waitFor();
    expect(await headings.count()).toBe(3);

    // The free plan allows three products: the screen says so, and Add Product says why instead of a form.
    await page.getByText('3 of 3 products on Free.').waitFor();
    await page.getByRole('button', { name: 'Add Product' }).click();
    const limit = page.getByRole('dialog', { name: 'Product limit reached' });
    await limit.getByText('Your Free plan allows 3 products. Upgrade your plan to add more.').waitFor();
    expect(await page.getByRole('dialog', { name: 'Add New Product' }).count()).toBe(0);
    await ctx.close();
  });

  test("a server's field error shows under its field, and a pending save cannot be dismissed", async () => {
    const { ctx, page } = await openProducts(browser, product, 'pending@example.com');
    await page.getByRole('button', { name: 'Add Product' }).click();
    const add = page.getByRole('dialog', { name: 'Add New Product' });
    await add.getByLabel('Product Name').fill('Odd Selector');
    await add.getByLabel('Product URL').fill(shopUrl('kettle'));
    await add.getByLabel('CSS Selector').fill('.price[[');
    await add.getByRole('button', { name: 'Add Product' }).click();
    await toast(page, 'Failed to add product').waitFor();
    const selector = add.getByLabel('CSS Selector');
    expect(await selector.getAttribute('aria-invalid')).toBe('true');
    await add.getByText('CSS selector is not valid', { exact: true }).waitFor();

    await selector.fill('.price');
    await add.getByRole('button', { name: 'Add Product' }).click();
    const kettle = card(page, 'Odd Selector');
    await kettle.waitFor();

    // Hold the manual price save until the test lets it through.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/update-price', async (route) => {
      await held;
      await route.continue();
    });
    await kettle.getByRole('button', { name: 'Update Price' }).click();
    const manual = page.getByRole('dialog', { name: 'Update Price Manually' });
    await manual.getByLabel('New Price (£)').fill('12.34');
    await manual.getByRole('button', { name: 'Update Price' }).click();
    await manual.getByRole('button', { name: 'Updating...' }).waitFor();
    await page.keyboard.press('Escape');
    await page.mouse.click(5, 5); // the overlay
    expect(await manual.isVisible()).toBe(true);
    expect(await manual.getByRole('button', { name: 'Cancel' }).isDisabled()).toBe(true);
    release();
    await toast(page, 'New price: £12.34').waitFor();
    await manual.waitFor({ state: 'detached' });
    await kettle.getByText('£12.34').waitFor();
    await ctx.close();
  });

  test("a signed-out products list says 'Session Expired'", async () => {
    const { ctx, page } = await openProducts(browser, product, 'expired-products@example.com');
    await page.route('**/api/products', (route) => route.fulfill({ status: 401, contentType: 'application/json', body: '{"message":"Unauthorized"}' }));
    await page.reload();
    await toast(page, 'Please log in again to continue.').waitFor();
    expect(await toast(page, 'Session Expired').isVisible()).toBe(true);
    await ctx.close();
  });
});

describe.skipIf(!browserAvailable)('toasts keep what matters in view', () => {
  const email = 'toasts@example.com';
  beforeAll(async () => {
    if (!browserAvailable) return;
    const { ctx, page } = await openProducts(browser, product, email);
    const post = async (path: string, data?: unknown) => {
      const res = await page.request.post(product.url + path, { data, headers: { origin: product.url } });
      expect(res.ok()).toBe(true);
    };
    // Starter allows more than three products: enough rows that the bulk-action bar sticks to the window's bottom.
    await post('/api/billing/create-trial-setup');
    await post('/api/billing/create-subscription', { plan: 'starter', paymentMethodId: 'pm_demo_visa4242' });
    // The first has a long name: the toast refusing it again runs to several lines.
    await addThroughApi(page, {
      name: 'Kettle 1, brushed steel, 1.7 litres, with temperature control and keep-warm',
      url: shopUrl('kettle?n=1'),
      selector: '.price',
      threshold: 'none',
    });
    for (let i = 2; i <= 9; i++) await addThroughApi(page, { name: `Kettle ${i}`, url: shopUrl(`kettle?n=${i}`), selector: '.price', threshold: 'none' });
    await ctx.close();
  }, SETUP_TIMEOUT);

  type Box = { x: number; y: number; width: number; height: number };
  const box = async (l: Locator): Promise<Box> => (await l.boundingBox())!;
  const overlap = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
  const toastBox = (page: Page, title: string) => box(toast(page, title).locator('xpath=ancestor::li[1]'));
  // The toasts find their place on the next frame.
  const settle = (page: Page) => page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));

  for (const mobile of [false, true]) {
    test(`a toast never covers the bulk-action bar (${mobile ? 390 : 1280} px)`, async () => {
      const { ctx, page } = await openProducts(browser, product, email, { mobile });
      ctx.setDefaultTimeout(15_000);
      await card(page, 'Kettle 9').waitFor();
      await page.getByRole('checkbox', { name: 'Select Kettle 9' }).check();
      await page.getByRole('checkbox', { name: 'Select Kettle 8' }).check();
      const bar = page.getByRole('region', { name: 'Bulk actions' });
      await bar.waitFor();
      await card(page, 'Kettle 9').getByRole('button', { name: 'Check Now' }).click();
      await toast(page, 'Price checked').waitFor();
      await settle(page);
      const [toastAt, barAt] = [await toastBox(page, 'Price checked'), await box(bar)];
      expect(overlap(toastAt, barAt)).toBe(false);
      expect(toastAt.y + toastAt.height).toBeLessThanOrEqual(mobile ? 844 : 900);
      await ctx.close();
    });
  }

  test('on a phone a toast leaves the top of a dialog in view: its title and close button', async () => {
    const { ctx, page } = await openProducts(browser, product, email, { mobile: true });
    ctx.setDefaultTimeout(15_000);
    await card(page, 'Kettle 9').waitFor();
    // A refused add keeps the dialog open and says why in a toast.
    await page.getByRole('button', { name: 'Add Product' }).first().click();
    const add = page.getByRole('dialog', { name: 'Add New Product' });
    await add.getByLabel('Product Name').fill('Kettle again');
    await add.getByLabel('Product URL').fill(shopUrl('kettle?n=1'));
    await add.getByLabel('CSS Selector').fill('.price');
    await add.getByRole('button', { name: 'Add Product' }).click();
    await toast(page, 'Failed to add product').waitFor();
    await settle(page);
    const refused = await toastBox(page, 'Failed to add product');
    expect(overlap(refused, await box(add.getByRole('heading', { name: 'Add New Product' })))).toBe(false);
    expect(overlap(refused, await box(add.getByRole('button', { name: 'Close' })))).toBe(false);
    await ctx.close();
  });
});
