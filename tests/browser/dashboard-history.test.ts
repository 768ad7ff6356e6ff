import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Server } from 'bun';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axeViolations, browserAvailable, describeViolations, launchBrowser, newContext, SETUP_TIMEOUT, startProduct, type RunningProduct } from './harness.ts';

let product: RunningProduct;
let browser: Browser;
let shop: Server<undefined>;
/** What the fixture shop's product page shows; kept equal to the last price set, so a scheduled check changes nothing. */
let shopPrice = '100.00';

const NAME = 'Trail Runner Shoes';

beforeAll(async () => {
  if (!browserAvailable) return;
  shop = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    // `/gone` is a product the shop took down: its checks fail.
    fetch: (request) =>
      new URL(request.url).pathname === '/gone'
        ? new Response('Not found', { status: 404 })
        : new Response(`<!doctype html><html><head><title>${NAME}</title></head><body><h1>${NAME}</h1><p class="price">£${shopPrice}</p></body></html>`, {
            headers: { 'content-type': 'text/html; charset=utf-8' },
          }),
  });
  product = await startProduct({ CHECK_ALLOW_PRIVATE: 'true' });
  browser = await launchBrowser();
}, SETUP_TIMEOUT);
afterAll(async () => {
  await browser?.close();
  await product?.stop();
  shop?.stop(true);
}, SETUP_TIMEOUT);

async function signIn(page: Page, email: string) {
  await page.goto(`${product.url}/api/auth/demo?email=${encodeURIComponent(email)}`);
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
}

/** Calls the API from the page, as the screens do (same cookies, same origin). */
async function post(page: Page, path: string, data?: unknown) {
  const res = await page.request.post(product.url + path, { data, headers: { origin: product.url } });
  expect(res.ok()).toBe(true);
  return res.json();
}

/**
 * One product on the fixture shop with a real history: a check finds £100.00, then manual
 * updates drop it to £80.00 (-20%) and raise it to £90.00 (+12.5%), then a check confirms £90.00.
 */
async function seedProduct(page: Page): Promise<string> {
  shopPrice = '100.00';
  const added = await post(page, '/api/products', { name: NAME, url: `http://127.0.0.1:${shop.port}/trail-runner`, selector: '.price', threshold: 'none' });
  expect((await post(page, `/api/products/${added.id}/check-price`)).success).toBe(true);
  for (const price of ['80.00', '90.00']) {
    shopPrice = price;
    await post(page, `/api/products/${added.id}/update-price`, { price });
  }
  expect(await post(page, `/api/products/${added.id}/check-price`)).toMatchObject({ success: true, price: 90 });
  return added.id;
}

const card = (page: Page, title: string) => page.locator('[data-card]').filter({ has: page.getByRole('heading', { name: title }) });

describe.skipIf(!browserAvailable)('dashboard and price history', () => {
  let ctx: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    if (!browserAvailable) return;
    ctx = await newContext(browser);
    page = await ctx.newPage();
    await signIn(page, 'shopper@example.com');
    await seedProduct(page);
  }, SETUP_TIMEOUT);
  afterAll(async () => {
    await ctx?.close();
  });

  test('the dashboard cards show the real figures and the last check', async () => {
    await page.goto(product.url + '/dashboard');
    await card(page, 'Products Monitored').getByText('1', { exact: true }).waitFor();
    // The one drop (to £80.00) was typed in by hand: no check detected it.
    expect(await card(page, 'Price Drops Detected').getByText('0', { exact: true }).isVisible()).toBe(true);
    // No baseline last week: the period, not an invented trend.
    expect(await card(page, 'Price Drops Detected').getByText('in the last 7 days').isVisible()).toBe(true);
    expect(await card(page, 'Active Alerts').getByText('0', { exact: true }).isVisible()).toBe(true);
    const scan = card(page, 'Last Scan');
    expect(await scan.getByText('Just now').isVisible()).toBe(true);
    expect(await scan.getByText('OK', { exact: true }).isVisible()).toBe(true);
    expect(await scan.getByText('all systems').isVisible()).toBe(true);
    // No product existed a month ago: no "vs last month".
    expect(await page.getByText('vs last month').count()).toBe(0);
  });

  test('Recent Price Changes lists the changes, newest first, with direction badges', async () => {
    await page.goto(product.url + '/dashboard');
    const items = page.getByRole('list', { name: 'Recent price changes' }).getByRole('listitem');
    await items.first().waitFor();
    expect(await items.count()).toBe(2);
    const rise = items.nth(0);
    expect(await rise.getByText(NAME).isVisible()).toBe(true);
    expect(await rise.getByText('127.0.0.1').isVisible()).toBe(true);
    expect(await rise.getByText('£90.00').isVisible()).toBe(true);
    const riseBadge = rise.getByText('12.5%');
    expect(await riseBadge.getAttribute('aria-label')).toBe('Up 12.5%');
    expect(await riseBadge.getAttribute('class')).toContain('bg-destructive');
    const dropBadge = items.nth(1).getByText('20.0%');
    expect(await dropBadge.getAttribute('aria-label')).toBe('Down 20.0%');
    expect(await dropBadge.getAttribute('class')).toContain('bg-secondary');
    expect(await page.getByRole('link', { name: 'View all', exact: true }).getAttribute('href')).toBe('/products');
  });

  test('the history table has a row per change with prices, change and local time', async () => {
    await page.goto(product.url + '/dashboard');
    const table = page.getByRole('table');
    await table.waitFor();
    expect(await table.getByRole('columnheader').allTextContents()).toEqual(['Product', 'Previous Price', 'Current Price', 'Change', 'Time']);
    const rows = table.getByRole('row');
    expect(await rows.count()).toBe(3);
    const cells = await rows.nth(1).getByRole('cell').allTextContents();
    expect(cells.slice(0, 4)).toEqual([`${NAME}127.0.0.1`, '£80.00', '£90.00', '+12.5%']);
    expect(cells[4]).toMatch(/^\d{1,2} \w{3} \d{4}, \d{2}:\d{2}$/);
    expect((await rows.nth(2).getByRole('cell').allTextContents())[3]).toBe('-20.0%');
    expect(await page.getByRole('link', { name: 'View all history' }).getAttribute('href')).toBe('/products');
  });

  for (const theme of ['light', 'dark'] as const) {
    test(`on a phone each change is a stacked row with every figure in view (${theme} theme)`, async () => {
      const phone = await newContext(browser, { mobile: true });
      phone.setDefaultTimeout(15_000);
      await phone.addInitScript((t) => localStorage.setItem('vite-ui-theme', t), theme);
      const p = await phone.newPage();
      await signIn(p, 'shopper@example.com');
      const list = p.getByRole('list', { name: 'Price change history' });
      await list.waitFor();
      // No table to scroll sideways in a box of its own.
      expect(await p.getByRole('table').count()).toBe(0);
      const rows = list.getByRole('listitem');
      expect(await rows.count()).toBe(2);
      const rise = rows.nth(0);
      const shown = [
        rise.getByText(NAME),
        rise.getByText('127.0.0.1'),
        rise.getByText('£80.00', { exact: true }),
        rise.getByText('£90.00', { exact: true }),
        rise.getByText('+12.5%'),
        rise.getByText(/^\d{1,2} \w{3} \d{4}, \d{2}:\d{2}$/),
      ];
      for (const figure of shown) {
        const box = (await figure.boundingBox())!;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(390);
      }
      expect(await rows.nth(1).getByText('-20.0%').isVisible()).toBe(true);
      expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
      const violations = await axeViolations(p);
      expect(describeViolations(violations)).toBe('');
      await phone.close();
    });
  }

  for (const mobile of [false, true]) {
    test(`the Last Scan card says all of a failure (${mobile ? 390 : 1280} px)`, async () => {
      const view = await newContext(browser, { mobile });
      view.setDefaultTimeout(15_000);
      const p = await view.newPage();
      await signIn(p, 'taken-down@example.com');
      if (!(await (await p.request.get(product.url + '/api/products')).json()).length) {
        const added = await post(p, '/api/products', {
          name: 'Withdrawn Boots',
          url: `http://127.0.0.1:${shop.port}/gone`,
          selector: '.price',
          threshold: 'none',
        });
        expect((await post(p, `/api/products/${added.id}/check-price`)).success).toBe(false);
        await p.reload();
      }
      const scan = card(p, 'Last Scan');
      await scan.getByText('1 product failing').waitFor();
      expect(await scan.getByText('Failed', { exact: true }).isVisible()).toBe(true);
      // Nothing in the card is cut off: every text fits its box.
      const cut = await scan.evaluate((el) => [...el.querySelectorAll('*')].filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent));
      expect(cut).toEqual([]);
      await view.close();
    });
  }

  test('Price Trends draws today and switches between 7D, 30D and 90D', async () => {
    await page.goto(product.url + '/dashboard');
    const chart = page.getByRole('img', { name: /Average daily price change/ });
    await chart.locator('canvas').first().waitFor();
    expect(await chart.getAttribute('aria-label')).toBe('Average daily price change, 7D');
    const group = page.getByRole('group', { name: 'Trend range' });
    expect(await group.getByRole('button', { name: '7D' }).getAttribute('aria-pressed')).toBe('true');
    for (const range of ['30D', '90D', '7D']) {
      await group.getByRole('button', { name: range }).click();
      expect(await group.getByRole('button', { name: range }).getAttribute('aria-pressed')).toBe('true');
      await page
        .getByRole('img', { name: `Average daily price change, ${range}` })
        .locator('canvas')
        .first()
        .waitFor();
    }
  });

  test('Price History lists the product with its sparkline, price and change', async () => {
    await page.goto(product.url + '/price-history');
    const row = page.getByRole('list', { name: 'Products' }).getByRole('listitem').filter({ hasText: NAME });
    await row.waitFor();
    expect(await row.getByText('£90.00').isVisible()).toBe(true);
    const change = row.getByText('-10.0%');
    expect(await change.getAttribute('class')).toContain('bg-secondary');
    expect(await row.getByText(/Last checked \d{1,2} \w{3} \d{4}, \d{2}:\d{2}/).isVisible()).toBe(true);
    const points = Number((await row.getByText(/price points tracked/).textContent())!.match(/\d+/)![0]);
    expect(points).toBeGreaterThanOrEqual(4);
    const spark = row.getByRole('img', { name: /^Last \d+ prices: £100\.00 to £90\.00$/ });
    expect(await spark.locator('polyline').getAttribute('points')).toBeTruthy();
    // The range select refetches; a week still holds every point.
    await page.getByRole('combobox', { name: 'Time range' }).click();
    await page.getByRole('option', { name: 'Last 7 days' }).click();
    await row.getByText('-10.0%').waitFor();
    expect(await page.getByRole('combobox', { name: 'Time range' }).textContent()).toBe('Last 7 days');
    // Search by name.
    await page.getByRole('searchbox', { name: 'Search products' }).fill('kettle');
    await page.getByText('No products match “kettle”.').waitFor();
    await page.getByRole('searchbox', { name: 'Search products' }).fill('trail');
    await row.waitFor();
  });

  test('the open link opens the product page in a new tab without opening the dialog', async () => {
    await page.goto(product.url + '/price-history');
    const link = page.getByRole('link', { name: `Open ${NAME} product page in a new tab` });
    await link.waitFor();
    expect(await link.getAttribute('target')).toBe('_blank');
    const [popup] = await Promise.all([ctx.waitForEvent('page'), link.click()]);
    await popup.waitForLoadState();
    expect(popup.url()).toBe(`http://127.0.0.1:${shop.port}/trail-runner`);
    await popup.close();
    expect(await page.getByRole('dialog').count()).toBe(0);
  });

  test('a row opens the detail dialog with its cards, chart, ranges and pricing suggestions', async () => {
    await page.goto(product.url + '/price-history');
    const row = page.getByRole('listitem').filter({ hasText: NAME });
    await row.waitFor();
    // A click anywhere on the row (here: on the sparkline) opens it.
    const spark = (await row.getByRole('img').boundingBox())!;
    await page.mouse.click(spark.x + spark.width / 2, spark.y + spark.height / 2);
    const dialog = page.getByRole('dialog', { name: NAME });
    await dialog.waitFor();
    const figure = (title: string) => dialog.getByRole('heading', { name: title, level: 3 }).locator('xpath=..');
    await figure('Price Change').getByText('-10.0%').waitFor();
    expect(await figure('Current Price').getByText('£90.00').isVisible()).toBe(true);
    expect(Number(await figure('Data Points').locator('p').textContent())).toBeGreaterThanOrEqual(4);
    expect(await dialog.getByText('Price Trend Analysis').isVisible()).toBe(true);
    await dialog.getByRole('img', { name: 'Price over time' }).locator('canvas').first().waitFor();

    await dialog.getByRole('combobox', { name: 'Time range' }).click();
    await page.getByRole('option', { name: 'All time' }).click();
    await dialog.getByRole('img', { name: 'Price over time' }).locator('canvas').first().waitFor();
    expect(await dialog.getByRole('combobox', { name: 'Time range' }).textContent()).toBe('All time');

    // Hovering the line shows the price readout.
    const box = (await dialog.getByRole('img', { name: 'Price over time' }).locator('.u-over').boundingBox())!;
    await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2);
    await dialog.getByText('Price: £90.00').waitFor();

    // Four prices within minutes: the insights say honestly that this is too little history.
    await dialog.getByRole('button', { name: 'Get Pricing Suggestions' }).click();
    await dialog.getByText('AI Pricing Insights').waitFor();
    expect(await dialog.getByRole('heading', { name: 'Not enough price history yet' }).isVisible()).toBe(true);

    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    // Enter on the row's button opens it too.
    await row.getByRole('button', { name: NAME }).focus();
    await page.keyboard.press('Enter');
    await dialog.waitFor();
    await page.keyboard.press('Escape');
  });

  test('an expired session on the dashboard says so and goes to sign in', async () => {
    const ctx2 = await newContext(browser);
    const page2 = await ctx2.newPage();
    await signIn(page2, 'expiring@example.com');
    await page2.route('**/api/dashboard/stats', (route) => route.fulfill({ status: 401, contentType: 'application/json', body: '{"message":"Unauthorized"}' }));
    const login = page2.waitForRequest((req) => new URL(req.url()).pathname === '/api/login');
    await page2.goto(product.url + '/dashboard');
    await page2.getByText('Session Expired', { exact: true }).waitFor();
    expect(await page2.getByText('Please log in again to continue.', { exact: true }).isVisible()).toBe(true);
    await login;
    await ctx2.close();
  });
});

describe.skipIf(!browserAvailable)('empty states for a new user', () => {
  test('dashboard and price history without products', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signIn(page, 'newcomer@example.com');
    await card(page, 'Products Monitored').getByText('0', { exact: true }).waitFor();
    expect(await card(page, 'Last Scan').getByText('Never').isVisible()).toBe(true);
    expect(await card(page, 'Last Scan').getByText('No checks yet').isVisible()).toBe(true);
    expect(await page.getByText('No price data available').isVisible()).toBe(true);
    expect(await page.getByText('Add products to see trends').isVisible()).toBe(true);
    expect(await page.getByText('No price changes yet').count()).toBe(2);
    expect(await page.getByText('Add products to start monitoring').isVisible()).toBe(true);
    expect(await page.getByText('Start monitoring products to see price trends and changes').isVisible()).toBe(true);
    for (const name of ['Add Product', 'Add Your First Product']) {
      expect(await page.getByRole('link', { name, exact: true }).getAttribute('href')).toBe('/products');
    }
    expect(await page.getByRole('table').count()).toBe(0);

    await page.goto(product.url + '/price-history');
    await page.getByText('No price history yet').waitFor();
    expect(await page.getByRole('combobox', { name: 'Time range' }).textContent()).toBe('Last 30 days');
    await ctx.close();
  });
});
