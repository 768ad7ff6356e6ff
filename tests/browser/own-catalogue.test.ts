import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Server } from 'bun';
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

/**
 * Your Catalogue: the owner's products with their positions and band badges, the band filter and
 * the search, a product's dialog (competitors, why some are left out, unlink, link, a new
 * competitor page, the position chart), accepting a suggestion, a store whose read fails, the
 * dashboard's Price position card and its links, the Settings card, the empty state, and axe-core
 * on all of it in both themes at 390 and 1280 px.
 */

let product: RunningProduct;
let browser: Browser;
let shop: Server<undefined>;
/** The owner's feed answers 500 once this is set: a store that can no longer be read. */
let feedBroken = false;

const OWNER = 'owner@example.com';
const EMPTY = 'nothing-yet@example.com';

/** Competitor pages: price, currency and stock as their structured data states them. */
const PAGES: Record<string, { price: string; currency?: string; stock?: string }> = {
  'a/kettle': { price: '32.50' },
  'b/kettle': { price: '36.00' },
  'c/kettle': { price: '29.99', stock: 'OutOfStock' },
  'd/kettle': { price: '39.00', currency: 'USD' },
  'a/toaster': { price: '44.00' },
  'a/grinder': { price: '89.00' },
};

const OWN_CSV =
  'sku,title,price,currency\n' +
  'K-1,Kettle 1.7L Brushed Steel,34.99,GBP\n' +
  'T-4,4 Slice Toaster Black,42.00,GBP\n' +
  'G-2,Burr Coffee Grinder,90.00,GBP\n' +
  'M-1,Milk Frother,25.00,GBP\n';

const KETTLE = 'Kettle 1.7L Brushed Steel';

beforeAll(async () => {
  if (!browserAvailable) return;
  shop = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname.slice(1);
      if (path === 'feed.tsv') {
        if (feedBroken) return new Response('Server error', { status: 500 });
        const feed = 'id\ttitle\tprice\tlink\tavailability\nC-9\tEspresso Cups Set of 4\t12.00 GBP\thttps://myshop.example/cups\tin stock\n';
        return new Response(feed, { headers: { 'content-type': 'text/tab-separated-values' } });
      }
      const page = PAGES[path];
      if (!page) return new Response('Not found', { status: 404 });
      const currency = page.currency ?? 'GBP';
      const offer = { '@type': 'Offer', price: page.price, priceCurrency: currency, availability: `https://schema.org/${page.stock ?? 'InStock'}` };
      const ld = JSON.stringify({ '@context': 'https://schema.org', '@type': 'Product', name: path, offers: offer });
      const html = `<!doctype html><html><head><title>${path}</title><script type="application/ld+json">${ld}</script></head>
        <body><h1>${path}</h1><p class="price">${currency === 'USD' ? '$' : '£'}${page.price}</p></body></html>`;
      return new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } });
    },
  });
  // Only the test's own checks: no scheduled check moves a price behind its back.
  product = await startProduct({ CHECK_ALLOW_PRIVATE: 'true', CHECK_WORKER: 'off' });
  browser = await launchBrowser();
  await seedOwner();
}, SETUP_TIMEOUT);
afterAll(async () => {
  await browser?.close();
  await product?.stop();
  shop?.stop(true);
}, SETUP_TIMEOUT);

const shopUrl = (path: string) => `http://127.0.0.1:${shop.port}/${path}`;

async function call(page: Page, method: 'GET' | 'POST' | 'PUT', path: string, data?: unknown, headers: Record<string, string> = {}) {
  const res = await page.request.fetch(product.url + path, { method, data, headers: { origin: product.url, ...headers } });
  if (!res.ok()) throw new Error(`${method} ${path}: ${res.status()} ${await res.text()}`);
  return res.json();
}

/**
 * The owner on Starter: four own products from a CSV file and competitor products checked once
 * (one never), linked so that the kettle is above the market on 2 of 5 competitors, the grinder
 * competitive, the frother without a position, and the toaster left to a suggestion.
 */
async function seedOwner() {
  const ctx = await newContext(browser);
  const page = await ctx.newPage();
  await page.goto(`${product.url}/api/auth/demo?email=${OWNER}`);
  await call(page, 'POST', '/api/billing/create-trial-setup');
  await call(page, 'POST', '/api/billing/create-subscription', { plan: 'starter', paymentMethodId: 'pm_demo_visa4242' });
  const imported = await call(page, 'POST', '/api/catalogue/import', OWN_CSV, { 'content-type': 'text/csv' });
  expect(imported.created).toBe(4);
  const own = new Map<string, string>((await call(page, 'GET', '/api/catalogue')).map((e: { sku: string; id: string }) => [e.sku, e.id]));
  const add = async (name: string, path: string, check = true) => {
    const { id } = await call(page, 'POST', '/api/products', { name, url: shopUrl(path), selector: '.price', threshold: 'none' });
    if (check) expect((await call(page, 'POST', `/api/products/${id}/check-price`)).success).toBe(true);
    return id as string;
  };
  const kettles = [
    await add(KETTLE, 'a/kettle'),
    await add('Steel Kettle 1.7 L', 'b/kettle'),
    await add('Brushed Kettle 1.7L', 'c/kettle'),
    await add('Kettle 1.7L Steel US', 'd/kettle'),
    await add('Electric Kettle Never Checked', 'e/kettle', false),
  ];
  await add('Toaster 4-Slice Black', 'a/toaster');
  const grinder = await add('Burr Coffee Grinder', 'a/grinder');
  for (const id of kettles) await call(page, 'PUT', `/api/catalogue/${own.get('K-1')}/competitors/${id}`);
  await call(page, 'PUT', `/api/catalogue/${own.get('G-2')}/competitors/${grinder}`);
  await ctx.close();
}

async function signedIn(email: string, opts: { mobile?: boolean; theme?: 'light' | 'dark' } = {}): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await newContext(browser, { mobile: opts.mobile });
  if (opts.theme) await ctx.addInitScript(`localStorage.setItem('vite-ui-theme', '${opts.theme}')`);
  const page = await ctx.newPage();
  await page.goto(`${product.url}/api/auth/demo?email=${encodeURIComponent(email)}`);
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  return { ctx, page };
}

const table = (page: Page) => page.getByRole('table', { name: 'Your products' });
const row = (page: Page, title: string) =>
  table(page)
    .getByRole('row')
    .filter({ has: page.getByRole('button', { name: title, exact: true }) });
const toast = (page: Page, text: string) => page.getByRole('region', { name: /notifications/i, includeHidden: true }).getByText(text, { exact: true });
const rowTitles = (page: Page) => table(page).locator('tbody button[aria-haspopup="dialog"]').allTextContents();

describe.skipIf(!browserAvailable)('your catalogue', () => {
  test('positions, filters, the product dialog, suggestions, stores, the dashboard card and settings', async () => {
    const { ctx, page } = await signedIn(OWNER);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Your Catalogue' }).click();
    await page.getByRole('heading', { name: 'Your Catalogue', level: 1 }).waitFor();
    await page.getByRole('banner').getByText('Your products and where you stand').waitFor();

    // Positions: the kettle is 2nd of the 3 counted prices, £2.49 above the cheapest.
    const kettle = row(page, KETTLE);
    await kettle.waitFor();
    const cells = async (r: typeof kettle) => (await r.getByRole('cell').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    expect(await cells(kettle)).toEqual([
      `${KETTLE} SKU K-1`,
      '£34.99',
      '£32.50 127.0.0.1',
      '£34.25',
      '2nd of 3',
      '+£2.49 (+7.7%) above the cheapest',
      'Above market checked just now',
    ]);
    expect((await cells(row(page, 'Burr Coffee Grinder'))).slice(4)).toEqual(['2nd of 2', '+£1.00 (+1.1%) above the cheapest', 'Competitive checked just now']);
    expect((await cells(row(page, 'Milk Frother'))).slice(1)).toEqual(['£25.00', '—', '—', '—', '—', 'No position No competitors linked']);

    // The band filter (kept in the address) and the search by title or SKU.
    const filters = page.getByRole('group', { name: 'Filter by position' });
    await filters.getByRole('button', { name: 'Above market 1' }).click();
    await page.waitForURL(/\?band=above$/);
    expect(await rowTitles(page)).toEqual([KETTLE]);
    await filters.getByRole('button', { name: 'No position 2' }).click();
    expect(await rowTitles(page)).toEqual(['4 Slice Toaster Black', 'Milk Frother']);
    await filters.getByRole('button', { name: /^All/ }).click();
    const search = page.getByRole('searchbox', { name: 'Search your products by title or SKU' });
    await search.fill('g-2');
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    expect(await rowTitles(page)).toEqual(['Burr Coffee Grinder']);
    await search.fill('toaster');
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    expect(await rowTitles(page)).toEqual(['4 Slice Toaster Black']);
    await search.fill('no such thing');
    await page.getByText('No product title or SKU matches “no such thing”.').waitFor();
    await search.fill('');
    await row(page, 'Milk Frother').waitFor();

    // A row opens by keyboard: the competitors, why three are left out, and the basis.
    await kettle.getByRole('button', { name: KETTLE, exact: true }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: KETTLE });
    await dialog.getByText('Position based on 2 of 5: 1 no price, 1 out of stock, 1 other currency').waitFor();
    const competitors = dialog.getByRole('list', { name: 'Linked competitors' }).getByRole('listitem');
    expect(await competitors.count()).toBe(5);
    const competitor = (name: string) => competitors.filter({ hasText: name });
    await competitor('Brushed Kettle 1.7L').getByText('Not counted: out of stock').waitFor();
    await competitor('Kettle 1.7L Steel US').getByText('Not counted: priced in another currency').waitFor();
    await competitor('Electric Kettle Never Checked').getByText('Not counted: no price yet').waitFor();
    await competitor(KETTLE).getByText('Cheapest', { exact: true }).waitFor();
    expect(await competitor('Steel Kettle 1.7 L').getByText('Not counted').count()).toBe(0);
    await dialog
      .getByRole('img', { name: /Your price, the cheapest competitor and the market average/ })
      .locator('canvas')
      .waitFor();

    // Unlink one, then link it back from the tracked products.
    await dialog.getByRole('button', { name: 'Unlink Electric Kettle Never Checked' }).click();
    await dialog.getByText('Position based on 2 of 4: 1 out of stock, 1 other currency').waitFor();
    await dialog.getByRole('searchbox', { name: 'Search your tracked products' }).fill('never');
    await dialog.getByRole('button', { name: 'Link Electric Kettle Never Checked' }).click();
    await dialog.getByText('Position based on 2 of 5: 1 no price, 1 out of stock, 1 other currency').waitFor();

    // A new competitor page, added with the usual dialog, is linked once it is added.
    await dialog.getByRole('button', { name: 'Add competitor page' }).click();
    const add = page.getByRole('dialog', { name: 'Add New Product' });
    await add.getByLabel('Product Name').fill('Kettle Outlet');
    await add.getByLabel('Product URL').fill(shopUrl('f/kettle'));
    await add.getByLabel('CSS Selector').fill('.price');
    await add.getByRole('button', { name: 'Add Product' }).click();
    await add.waitFor({ state: 'detached' });
    await competitor('Kettle Outlet').getByText('Not counted: no price yet').waitFor();
    await dialog.getByText('Position based on 2 of 6: 2 no price, 1 out of stock, 1 other currency').waitFor();
    // Escape closes the newest layer first: the "Product added" toast, then the dialog.
    await toast(page, 'Product added').waitFor();
    await page.keyboard.press('Escape');
    await toast(page, 'Product added').waitFor({ state: 'detached' });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await page.waitForFunction((title) => document.activeElement?.textContent === title, KETTLE);

    // The toaster's suggestion: accepted from the waiting suggestions, it gives the toaster a position.
    const matches: { ownProductId: string }[] = await (await page.request.get(`${product.url}/api/catalogue/matches`)).json();
    const waiting = `${matches.length} suggested ${matches.length === 1 ? 'match is' : 'matches are'} waiting`;
    await page.getByText(waiting).waitFor();
    await page.getByRole('button', { name: 'Review suggestions' }).click();
    await page.getByRole('list', { name: 'Suggested matches' }).getByText('Similar title').first().waitFor();
    await page.getByRole('button', { name: 'Accept Toaster 4-Slice Black for 4 Slice Toaster Black' }).click();
    await row(page, '4 Slice Toaster Black').getByText('Cheapest', { exact: true }).waitFor();
    expect((await cells(row(page, '4 Slice Toaster Black'))).slice(4, 6)).toEqual(['1st of 2', '−£2.00 (−4.5%) below the cheapest']);

    // A connected store: an address the checker refuses is said under the field; then the feed, which later fails.
    await page.getByRole('button', { name: 'Connect store' }).click();
    const connect = page.getByRole('dialog', { name: 'Connect store' });
    await connect.getByRole('combobox', { name: 'Platform' }).click();
    await page.getByRole('option', { name: 'Google Merchant feed' }).click();
    const address = connect.getByLabel('Feed address');
    await address.fill('http://127.0.0.1:1/feed');
    await connect.getByRole('button', { name: 'Connect store' }).click();
    await waitForFocus(page, () => document.activeElement?.getAttribute('aria-invalid') === 'true');
    const errorId = (await address.getAttribute('aria-describedby'))!.split(' ')[0]!;
    expect(await page.locator(`[id="${errorId}"]`).textContent()).toContain('Port 1');
    await address.fill(shopUrl('feed.tsv'));
    await connect.getByRole('button', { name: 'Connect store' }).click();
    await toast(page, '1 product imported.').waitFor();
    await row(page, 'Espresso Cups Set of 4').waitFor();
    const stores = page.getByRole('region', { name: 'Connected stores' });
    feedBroken = true;
    await stores.getByRole('button', { name: 'Sync now: 127.0.0.1' }).click();
    await stores.getByText(/^Your store could not be read: .+/).waitFor();

    // The dashboard card: the index, today's undercuts, and counts linking to the filtered catalogue.
    const position = await (await page.request.get(`${product.url}/api/position`)).json();
    await page.goto(`${product.url}/dashboard`);
    await page.getByText(`Price index ${position.index.toFixed(1)}`, { exact: true }).waitFor();
    await page.getByText('100 = the market average', { exact: false }).waitFor();
    await page.getByText(`${position.undercutLast24h} undercut today`).waitFor();
    await page.getByRole('list', { name: 'Products by position' }).getByRole('link', { name: 'Above market 1' }).click();
    await page.waitForURL(`${product.url}/catalogue?band=above`);
    await row(page, KETTLE).waitFor();
    expect(await page.getByRole('button', { name: 'Above market 1' }).getAttribute('aria-pressed')).toBe('true');
    expect(await rowTitles(page)).toEqual([KETTLE]);

    // Settings: a wider competitive band makes the kettle competitive.
    await page.goto(`${product.url}/settings`);
    const band = page.getByLabel('Competitive band');
    await band.fill('25');
    await page.getByRole('button', { name: 'Save price position' }).click();
    await page.getByText('Enter a percentage from 0 to 20').waitFor();
    await band.fill('10');
    await page.getByRole('switch', { name: 'Accept GTIN matches automatically' }).waitFor();
    await page.getByRole('button', { name: 'Save price position' }).click();
    await toast(page, 'Competitive means within 10% of the cheapest.').waitFor();
    const [saved] = (await (await page.request.get(`${product.url}/api/catalogue?band=competitive&q=kettle`)).json()) as { sku: string }[];
    expect(saved?.sku).toBe('K-1');
    await ctx.close();
  }, 90_000);

  test('an owner without a catalogue is shown how to start', async () => {
    const { ctx, page } = await signedIn(EMPTY);
    await page.getByText('Set up your catalogue').waitFor();
    await page.goto(`${product.url}/catalogue`);
    await page.getByRole('heading', { name: 'Connect your store to see where you stand' }).waitFor();
    const main = page.getByRole('main');
    expect(await main.getByRole('button', { name: 'Connect store' }).count()).toBe(2);
    await main.getByRole('button', { name: 'Import CSV' }).last().click();
    await page.getByRole('dialog', { name: 'Import CSV' }).waitFor();
    await ctx.close();
  }, 30_000);

  for (const theme of ['light', 'dark'] as const) {
    for (const mobile of [false, true]) {
      const width = mobile ? 390 : 1280;
      test.concurrent(`${theme} theme at ${width} px: no serious accessibility violation`, async () => {
        const { ctx, page } = await signedIn(OWNER, { mobile, theme });
        const failures: string[] = [];
        const check = async (what: string) => {
          await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
          const violations = await axeViolations(page);
          if (violations.length) failures.push(`${what}:\n${describeViolations(violations)}`);
        };
        await page.getByRole('heading', { name: 'Price position' }).waitFor();
        await check('dashboard with the Price position card');

        await page.goto(`${product.url}/catalogue`);
        const open = page.getByRole('button', { name: KETTLE, exact: true });
        await open.waitFor();
        await check('catalogue');
        await open.click();
        const dialog = page.getByRole('dialog', { name: KETTLE });
        await dialog
          .getByRole('img', { name: /Your price, the cheapest competitor/ })
          .locator('canvas')
          .waitFor();
        await check('product dialog');
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });
        await page.getByRole('main').getByRole('button', { name: 'Connect store' }).click();
        await page.getByRole('dialog', { name: 'Connect store' }).waitFor();
        await check('Connect store dialog');
        await page.keyboard.press('Escape');

        await page.goto(`${product.url}/settings`);
        await page.getByLabel('Competitive band').waitFor();
        await check('settings');
        await ctx.close();

        const empty = await signedIn(EMPTY, { mobile, theme });
        await empty.page.goto(`${product.url}/catalogue`);
        await empty.page.getByText('Connect your store to see where you stand').waitFor();
        const violations = await axeViolations(empty.page);
        if (violations.length) failures.push(`empty catalogue:\n${describeViolations(violations)}`);
        await empty.ctx.close();
        if (failures.length) throw new Error(failures.join('\n\n'));
      }, 90_000);
    }
  }
});
