import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import type { Server } from 'bun';
import { browserAvailable, contrastOf, launchBrowser, newContext, SETUP_TIMEOUT, startProduct, type RunningProduct } from './harness.ts';
import { startSmtp, type TestSmtp } from '../../api/testing/smtp.ts';

let product: RunningProduct;
let browser: Browser;
let shop: Server;
let smtp: TestSmtp;

/** The competitor's prices; tests change them between checks. */
const prices: Record<string, string> = { kettle: '24.99', toaster: '49.00', mixer: '24.99' };
/** What a page's JSON-LD offer says about stock (schema.org ItemAvailability), for the pages that say. */
const stock: Record<string, string> = { mixer: 'InStock' };

beforeAll(async () => {
  if (!browserAvailable) return;
  shop = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      const name = new URL(request.url).pathname.slice(1);
      if (!(name in prices)) return new Response('Not found', { status: 404 });
      const offer = { '@type': 'Offer', price: prices[name], priceCurrency: 'GBP', availability: `https://schema.org/${stock[name]}` };
      const jsonLd = name in stock ? `<script type="application/ld+json">${JSON.stringify({ '@type': 'Product', name, offers: offer })}</script>` : '';
      const html = `<!doctype html><html><head><title>${name}</title>${jsonLd}</head><body><h1>${name}</h1><span class="price">£${prices[name]}</span></body></html>`;
      return new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } });
    },
  });
  smtp = await startSmtp();
  // Checks run only when the test asks; e-mails go to the SMTP server on loopback, with demo sign-in.
  product = await startProduct({ CHECK_ALLOW_PRIVATE: 'true', CHECK_WORKER: 'off', SMTP_URL: smtp.url });
  browser = await launchBrowser();
}, SETUP_TIMEOUT);
afterAll(async () => {
  await browser?.close();
  await product?.stop();
  await smtp?.stop();
  shop?.stop(true);
}, SETUP_TIMEOUT);

const shopUrl = (path: string) => `http://127.0.0.1:${shop.port}/${path}`;

/** Records browser notifications instead of showing them, with permission granted. */
const FAKE_NOTIFICATIONS = `
  window.__notifications = [];
  window.Notification = class {
    static permission = 'granted';
    static requestPermission() { return Promise.resolve('granted'); }
    constructor(title, options) { window.__notifications.push({ title, ...options }); }
  };`;

async function signedIn(email: string): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await newContext(browser);
  await ctx.addInitScript(FAKE_NOTIFICATIONS);
  const page = await ctx.newPage();
  await page.goto(`${product.url}/api/auth/demo?email=${encodeURIComponent(email)}`);
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  return { ctx, page };
}

async function addProduct(page: Page, name: string, path: string, threshold: string): Promise<string> {
  const res = await page.request.post(`${product.url}/api/products`, {
    data: { name, url: shopUrl(path), selector: '.price', threshold },
    headers: { Origin: product.url },
  });
  expect(res.status()).toBe(201);
  return (await res.json()).id;
}

async function checkNow(page: Page, id: string) {
  const res = await page.request.post(`${product.url}/api/products/${id}/check-price`, { headers: { Origin: product.url } });
  expect((await res.json()).success).toBe(true);
}

/** Waits until the server lists this many alerts (the reactor and read model run every 250 ms). */
async function alertsListed(page: Page, n: number) {
  const deadline = Date.now() + 15_000;
  while ((await (await page.request.get(`${product.url}/api/alerts`)).json()).length < n) {
    if (Date.now() > deadline) throw new Error(`fewer than ${n} alerts`);
    await Bun.sleep(100);
  }
}

const toast = (page: Page, text: string) => page.getByRole('region', { name: /notifications/i, includeHidden: true }).getByText(text, { exact: true });
const bell = (page: Page) => page.getByRole('banner').getByRole('button', { name: /^Notifications/ });
const cards = (page: Page) => page.getByRole('list', { name: 'Alerts' }).getByRole('listitem');
const cardOf = (page: Page, text: string) => cards(page).filter({ hasText: text });
/** Waits until the Alerts screen shows the answer to its search and filters as they are now (the server filters). */
const listed = (page: Page) => page.waitForFunction(() => !document.querySelector('main [aria-busy]'));

async function choose(page: Page, filter: string, option: string) {
  await page.getByRole('combobox', { name: filter }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
}

describe.skipIf(!browserAvailable)('alerts', () => {
  test('a price drop: toast, browser notification, bell, popover, Alerts card and e-mail; then read', async () => {
    const { ctx, page } = await signedIn('alerts@example.com');
    const kettle = await addProduct(page, 'Steel Kettle', 'kettle', 'any');
    await checkNow(page, kettle); // the first price: nothing to compare with

    await page.goto(`${product.url}/products`);
    await page.getByRole('heading', { name: 'Products', level: 1 }).waitFor();
    expect(await bell(page).getAttribute('aria-label')).toBe('Notifications');

    prices.kettle = '19.99';
    await checkNow(page, kettle);
    await alertsListed(page, 1);
    // Coming back to the tab loads the notifications at once.
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));

    await toast(page, 'Price Drop: Steel Kettle').waitFor();
    await toast(page, 'Price dropped 20.0% from £24.99 to £19.99').waitFor();
    const notified = await page.evaluate(() => (window as any).__notifications);
    expect(notified).toEqual([
      { title: 'Steel Kettle', body: 'Price dropped 20.0% from £24.99 to £19.99\nWas £24.99 · Now £19.99', icon: '/favicon.svg', tag: expect.any(String) },
    ]);

    await page.waitForFunction(() => document.querySelector('header button[aria-label="Notifications, 1 unread"]'));
    // The badge beside the bell shows the count.
    expect(await bell(page).locator('xpath=..').innerText()).toBe('1');
    await bell(page).click();
    const popover = page.getByRole('dialog', { name: 'Notifications' });
    await popover.waitFor();
    const item = popover.getByRole('button', { name: /Steel Kettle/ });
    expect(await item.innerText()).toContain('Price dropped 20.0% from £24.99 to £19.99');
    expect(await item.innerText()).toContain('Was £24.99 · Now £19.99');
    expect(await item.innerText()).toContain('Just now');
    expect(await popover.getByRole('button', { name: 'Mark all read' }).isVisible()).toBe(true);
    await page.keyboard.press('Escape');

    // The same alert on the Alerts screen; a reload does not announce it again.
    await page.goto(`${product.url}/alerts`);
    await page.getByRole('heading', { name: 'Alerts', level: 1 }).waitFor();
    const card = cardOf(page, 'Steel Kettle');
    await card.waitFor();
    for (const text of ['Price Drop', 'Price dropped 20.0% from £24.99 to £19.99', 'Just now', 'Unread']) {
      expect(await card.getByText(text, { exact: true }).count()).toBe(1);
    }
    const link = card.getByRole('link', { name: 'View product Steel Kettle in a new tab' });
    expect(await link.getAttribute('href')).toBe(shopUrl('kettle'));
    expect(await link.getAttribute('target')).toBe('_blank');
    expect(await page.getByRole('button', { name: 'Mark all as read (1)' }).isVisible()).toBe(true);
    expect(await page.evaluate(() => (window as any).__notifications.length)).toBe(0);

    // The e-mail went out over SMTP, with the demo sign-in.
    const deadline = Date.now() + 15_000;
    while (!smtp.received.some((m) => m.to.includes('alerts@example.com')) && Date.now() < deadline) await Bun.sleep(100);
    const [mail] = smtp.received.filter((m) => m.to.includes('alerts@example.com'));
    expect(mail!.subject).toBe('Price drop: Steel Kettle is now £19.99 (-20.0%)');
    expect(mail!.text).toContain(`See all your alerts: ${product.url}/alerts`);

    // Clicking the unread card marks it read: the dot, the button and the bell's badge go.
    await card.click();
    await toast(page, 'Alert marked as read').waitFor();
    await card.getByText('Unread').waitFor({ state: 'detached' });
    expect(await page.getByRole('button', { name: /^Mark all as read/ }).count()).toBe(0);
    await page.waitForFunction(() => document.querySelector('header button[aria-label="Notifications"]'));
    await ctx.close();
  });

  // Runs once extraction reads JSON-LD offers.availability (the extraction rewrite); skipped until then.
  test('a product goes out of stock: the card badge, the Alerts card and the e-mail', async () => {
    const { ctx, page } = await signedIn('stock@example.com');
    stock.mixer = 'InStock';
    const mixer = await addProduct(page, 'Stand Mixer', 'mixer', 'none');
    await checkNow(page, mixer); // the first availability: nothing to report
    stock.mixer = 'OutOfStock'; // sold out, the price still shown
    await checkNow(page, mixer);
    await alertsListed(page, 1);

    await page.goto(`${product.url}/products`);
    const mixerCard = page.getByRole('list', { name: 'Products' }).getByRole('listitem').filter({ hasText: 'Stand Mixer' });
    await mixerCard.getByText('Out of stock', { exact: true }).waitFor();
    await mixerCard.getByText('£24.99').waitFor();

    await page.goto(`${product.url}/alerts`);
    const card = cardOf(page, 'Stand Mixer');
    await card.waitFor();
    expect(await card.getByText('Out of Stock', { exact: true }).count()).toBe(1);
    expect(await card.getByText('Out of stock', { exact: true }).count()).toBe(1);

    const deadline = Date.now() + 15_000;
    while (!smtp.received.some((m) => m.to.includes('stock@example.com')) && Date.now() < deadline) await Bun.sleep(100);
    const [mail] = smtp.received.filter((m) => m.to.includes('stock@example.com'));
    expect(mail!.subject).toBe('Out of stock: Stand Mixer');

    stock.mixer = 'InStock';
    await checkNow(page, mixer);
    await alertsListed(page, 2);
    await page.reload();
    await cardOf(page, 'Back in stock at £24.99').getByText('Back in Stock', { exact: true }).waitFor();
    await ctx.close();
  }, 30_000);

  // The screens as they show stock, with the server's answers given the availability a check will
  // record once extraction reads it; what a check records is covered by the end-to-end test above.
  test('stock on screen: card badges, alert badges and the type filter; both themes, phone and desktop, readable', async () => {
    for (const mobile of [false, true])
      for (const theme of ['light', 'dark']) {
        const ctx = await newContext(browser, { mobile });
        await ctx.addInitScript(`localStorage.setItem('vite-ui-theme', '${theme}')`);
        const page = await ctx.newPage();
        await page.goto(`${product.url}/api/auth/demo?email=${encodeURIComponent(`stock-screens-${theme}-${mobile}@example.com`)}`);
        await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
        for (const [name, path] of [
          ['Sold Out Kettle', 'kettle'],
          ['Preorder Toaster', 'toaster'],
        ] as const)
          await addProduct(page, name, path, 'none');

        const now = new Date().toISOString();
        const alert = (id: string, type: string, message: string, isRead: boolean) => ({
          id,
          type,
          productId: id,
          productName: 'Sold Out Kettle',
          productImage: null,
          productUrl: shopUrl('kettle'),
          message,
          previousPrice: 24.99,
          currentPrice: null,
          currency: 'GBP',
          changePercent: null,
          isRead,
          createdAt: now,
        });
        const alerts = [alert('a1', 'back_in_stock', 'Back in stock at £24.99', false), alert('a2', 'out_of_stock', 'Out of stock', true)];
        await page.route(`${product.url}/api/products`, async (route) => {
          if (route.request().method() !== 'GET') return route.fallback();
          const response = await route.fetch();
          const list = (await response.json()) as { name: string }[];
          await route.fulfill({ response, json: list.map((p) => ({ ...p, availability: p.name === 'Sold Out Kettle' ? 'OutOfStock' : 'PreOrder' })) });
        });
        await page.route(
          (url) => url.pathname === '/api/alerts/page',
          (route) => {
            const type = new URL(route.request().url()).searchParams.get('type') ?? 'all';
            const matching = alerts.filter((a) => type === 'all' || a.type === type);
            return route.fulfill({ json: { alerts: matching, matching: matching.length, unread: 1 } });
          },
        );
        await page.route(`${product.url}/api/notifications/unread-count`, (route) => route.fulfill({ json: { alerts: 1, notices: 0 } }));
        await page.route(`${product.url}/api/notifications`, (route) =>
          route.fulfill({
            json: alerts.map(({ id, type, productName, message, isRead, createdAt, currentPrice, previousPrice }) => ({
              id,
              type,
              productName,
              message,
              isRead,
              createdAt,
              currentPrice,
              previousPrice,
            })),
          }),
        );

        await page.goto(`${product.url}/products`);
        const productCard = (name: string) => page.getByRole('list', { name: 'Products' }).getByRole('listitem').filter({ hasText: name });
        const soldOut = productCard('Sold Out Kettle').getByText('Out of stock', { exact: true });
        const preorder = productCard('Preorder Toaster').getByText('Pre-order', { exact: true });
        await soldOut.waitFor();
        await preorder.waitFor();
        expect(await page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(theme === 'dark');
        for (const badge of [soldOut, preorder]) expect(await contrastOf(badge)).toBeGreaterThanOrEqual(4.5);

        await page.goto(`${product.url}/alerts`);
        const back = cardOf(page, 'Back in stock at £24.99').getByText('Back in Stock', { exact: true });
        const out = cardOf(page, 'Out of stock').getByText('Out of Stock', { exact: true });
        await back.waitFor();
        await out.waitFor();
        for (const badge of [back, out]) expect(await contrastOf(badge)).toBeGreaterThanOrEqual(4.5);
        await choose(page, 'Filter by type', 'Out of Stock');
        await cards(page).filter({ hasText: 'Back in stock' }).waitFor({ state: 'detached' });
        expect(await cards(page).count()).toBe(1);

        await bell(page).click();
        const popover = page.getByRole('dialog', { name: 'Notifications' });
        await popover.getByRole('button', { name: /Back in stock at £24\.99/ }).waitFor();
        await page.keyboard.press('Escape');
        await ctx.close();
      }
  }, 60_000);

  test('filters, search, mark one and mark all; the popover marks too', async () => {
    const { ctx, page } = await signedIn('filters@example.com');
    prices.kettle = '30.00';
    prices.toaster = '49.00';
    const kettle = await addProduct(page, 'Copper Kettle', 'kettle', 'any');
    const toaster = await addProduct(page, 'Chrome Toaster', 'toaster', '-10');
    await checkNow(page, kettle);
    await checkNow(page, toaster);
    prices.kettle = '27.00'; // drop
    await checkNow(page, kettle);
    prices.kettle = '28.50'; // increase
    await checkNow(page, kettle);
    prices.toaster = '40.00'; // 18.4% down: past the 10% threshold
    await checkNow(page, toaster);
    await alertsListed(page, 3);

    await page.goto(`${product.url}/alerts`);
    await cards(page).nth(2).waitFor();
    expect(await cards(page).count()).toBe(3);
    await page.getByRole('button', { name: 'Mark all as read (3)' }).waitFor();
    expect(await cardOf(page, 'Chrome Toaster').getByText('Threshold Met', { exact: true }).isVisible()).toBe(true);
    expect(await cardOf(page, 'Price rose').getByText('Price Increase', { exact: true }).isVisible()).toBe(true);

    await choose(page, 'Filter by type', 'Threshold Met');
    await listed(page);
    expect(await cards(page).count()).toBe(1);
    expect(await cards(page).first().innerText()).toContain('past your 10% alert threshold');
    await choose(page, 'Filter by type', 'Price Increase');
    await listed(page);
    expect(await cards(page).count()).toBe(1);
    expect(await cards(page).first().innerText()).toContain('Price rose 5.6% from £27.00 to £28.50');
    await choose(page, 'Filter by type', 'All Types');

    const search = page.getByRole('searchbox', { name: 'Search alerts' });
    await search.fill('TOASTER');
    await listed(page);
    expect(await cards(page).count()).toBe(1);
    await search.fill('£27.00'); // the message: the drop and the rise both name it
    await listed(page);
    expect(await cards(page).count()).toBe(2);
    await search.fill('waffle iron');
    await page.getByText('No alerts found').waitFor();
    await search.fill('');
    await listed(page);

    // Mark one with its button, then see it under Read only.
    await cardOf(page, 'Chrome Toaster').getByRole('button', { name: 'Mark as read: Chrome Toaster' }).click();
    await page.getByRole('button', { name: 'Mark all as read (2)' }).waitFor();
    await choose(page, 'Filter by status', 'Read');
    await listed(page);
    expect(await cards(page).count()).toBe(1);
    expect(await cards(page).first().innerText()).toContain('Chrome Toaster');
    await choose(page, 'Filter by status', 'Unread');
    await listed(page);
    expect(await cards(page).count()).toBe(2);
    await choose(page, 'Filter by status', 'All');
    await listed(page);

    // The bell agrees; reading one in the popover reads it on the screen.
    await page.waitForFunction(() => document.querySelector('header button[aria-label="Notifications, 2 unread"]'));
    await bell(page).click();
    const popover = page.getByRole('dialog', { name: 'Notifications' });
    await popover.getByRole('button', { name: /Price rose/ }).click();
    await page.waitForFunction(() => document.querySelector('header button[aria-label="Notifications, 1 unread"]'));
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Mark all as read (1)' }).waitFor();

    await page.getByRole('button', { name: 'Mark all as read (1)' }).click();
    await toast(page, 'All alerts marked as read').waitFor();
    await page.getByRole('button', { name: /^Mark all as read/ }).waitFor({ state: 'detached' });
    expect(await page.getByText('Unread', { exact: true }).count()).toBe(0);
    await page.waitForFunction(() => document.querySelector('header button[aria-label="Notifications"]'));

    // Mark all read in the popover, for a new alert.
    prices.toaster = '30.00';
    await checkNow(page, toaster);
    await alertsListed(page, 4);
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await page.waitForFunction(() => document.querySelector('header button[aria-label="Notifications, 1 unread"]'));
    await cards(page).nth(3).waitFor(); // the screen follows the bell
    await bell(page).click();
    await popover.getByRole('button', { name: 'Mark all read' }).click();
    await popover.getByRole('button', { name: 'Mark all read' }).waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.querySelector('header button[aria-label="Notifications"]'));
    await page.keyboard.press('Escape');
    // The screen follows the popover's read.
    await page.getByRole('button', { name: /^Mark all as read/ }).waitFor({ state: 'detached' });
    await ctx.close();
  });

  test('a failed read says so', async () => {
    const { ctx, page } = await signedIn('failing@example.com');
    prices.kettle = '10.00';
    const kettle = await addProduct(page, 'Iron Kettle', 'kettle', 'any');
    await checkNow(page, kettle);
    prices.kettle = '9.00';
    await checkNow(page, kettle);
    await alertsListed(page, 1);
    await page.goto(`${product.url}/alerts`);
    await cardOf(page, 'Iron Kettle').waitFor();
    await page.route('**/api/alerts/*/read', (route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{"message":"down"}' }));
    await page.route('**/api/alerts/mark-all-read', (route) => route.fulfill({ status: 500, contentType: 'application/json', body: '{"message":"down"}' }));
    await cardOf(page, 'Iron Kettle').getByRole('button', { name: 'Mark as read: Iron Kettle' }).click();
    await toast(page, 'Failed to mark alert as read.').waitFor();
    await page.getByRole('button', { name: 'Mark all as read (1)' }).click();
    await toast(page, 'Failed to mark alerts as read.').waitFor();
    await ctx.close();
  });

  test('mark all as read: a failed call says so, and every alert stays unread', async () => {
    const { ctx, page } = await signedIn('mark-all-failing@example.com');
    prices.grinder = '40.00';
    const grinder = await addProduct(page, 'Coffee Grinder', 'grinder', 'any');
    await checkNow(page, grinder);
    for (const price of ['36.00', '38.00', '35.00']) {
      prices.grinder = price;
      await checkNow(page, grinder);
    }
    await alertsListed(page, 3);
    await page.route(`${product.url}/api/alerts/mark-all-read`, (route) =>
      route.fulfill({ status: 500, contentType: 'application/json', body: '{"message":"down"}' }),
    );

    await page.goto(`${product.url}/alerts`);
    await page.getByRole('button', { name: 'Mark all as read (3)' }).click();
    await toast(page, 'Failed to mark alerts as read.').waitFor();
    // The list is loaded again: all three are still unread.
    await page.getByRole('button', { name: 'Mark all as read (3)' }).waitFor();
    expect(await page.getByText('Unread', { exact: true }).count()).toBe(3);
    expect(await toast(page, 'All alerts marked as read').count()).toBe(0);
    await ctx.close();
  });

  test('the Edit Product dialog counts the alerts a threshold would have raised', async () => {
    const { ctx, page } = await signedIn('backtest@example.com');
    prices.kettle = '100.00';
    const kettle = await addProduct(page, 'Test Kettle', 'kettle', 'none');
    for (const price of ['100.00', '95.00', '80.00', '90.00', '81.00']) {
      prices.kettle = price;
      await checkNow(page, kettle);
    }
    await page.goto(`${product.url}/products`);
    await page.getByRole('button', { name: 'Edit Test Kettle' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Product' });
    await edit.getByLabel('Alert Threshold (%)').fill('10');
    await edit.getByText('Over the last 30 days this would have raised 2 alerts (4 price changes).').waitFor();
    await edit.getByLabel('Alert Threshold (%)').fill('5');
    await edit.getByText('Over the last 30 days this would have raised 3 alerts (4 price changes).').waitFor();
    await edit.getByLabel('Alert Threshold (%)').fill('');
    expect(await edit.getByText(/would have raised/).count()).toBe(0);
    await ctx.close();
  });
});
