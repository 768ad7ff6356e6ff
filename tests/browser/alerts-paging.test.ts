import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { Server } from 'bun';
import { createContext } from '../../api/create-context.ts';
import { loadConfig } from '../../api/config.ts';
import { createApp } from '../../api/server.ts';
import { signInDemo } from '../../api/testing/sign-in.ts';
import { addProduct, observePrices } from '../../api/testing/prices.ts';
import {
  axeViolations,
  browserAvailable,
  contrastOf,
  describeViolations,
  freePort,
  launchBrowser,
  newContext,
  SETUP_TIMEOUT,
  startProduct,
  type RunningProduct,
} from './harness.ts';

/**
 * A shop owner a day into tracking an espresso machine whose price moved every quarter of an hour:
 * 107 unread alerts (the oldest "from £140.49 to £137.99", the price now £111.99) and a notice
 * about a channel. Each test has its own owner with that history, written before the product starts.
 */

const ALERTS = 107;
const OWNERS = ['counts', 'toasts', 'paging', 'screens'].map((name) => `${name}@example.com`);
const SHOTS = join(import.meta.dir, '../../test-results/alerts');

let product: RunningProduct;
let browser: Browser;
let shop: Server;
let espressoPrice = '111.99';

/** 108 prices, a fall or (every fourth) a rise each time: £140.49, £137.99, ... £111.99. */
const PRICES = Array.from({ length: ALERTS + 1 }, (_, i) => (i === 0 ? 140.49 : Number((137.99 - (i - 1) * 0.25 + (i % 4 === 3 ? 0.5 : 0)).toFixed(2))));
const RISES = PRICES.filter((p, i) => i > 0 && p > PRICES[i - 1]!).length;

beforeAll(async () => {
  if (!browserAvailable) return;
  mkdirSync(SHOTS, { recursive: true });
  shop = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: () =>
      new Response(`<!doctype html><title>Espresso Machine</title><h1>Espresso Machine</h1><p class="price">£${espressoPrice}</p>`, {
        headers: { 'content-type': 'text/html; charset=utf-8' },
      }),
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'pricewatch-alerts-'));
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const ctx = await createContext(loadConfig({ NODE_ENV: 'development', PORT: String(port), PUBLIC_URL: url, DATA_DIR: dataDir }));
  const app = createApp(ctx);
  const start = Date.now() - 26 * 3_600_000;
  for (const email of OWNERS) {
    const { userId } = await signInDemo(app, url, email);
    const espresso = await addProduct(ctx, userId, { name: 'Espresso Machine', url: `http://127.0.0.1:${shop.port}/espresso` });
    await observePrices(
      ctx,
      espresso,
      userId,
      PRICES.map((price, i) => [price, new Date(start + i * 800_000)] as const),
    );
    await ctx.store.append(`alerts-${userId}`, 'any', [
      {
        type: 'NoticeRaised',
        data: {
          alertId: crypto.randomUUID(),
          userId,
          kind: 'channel_disabled',
          title: 'Team Slack turned off',
          message: 'Slack refused 10 deliveries in a row, so we turned this channel off.',
          link: '/settings#notifications',
          at: new Date(Date.now() - 3_600_000).toISOString(),
        },
      },
    ]);
  }
  await ctx.close();
  // The alerts are raised from that history when the product starts; checks run only when a test asks.
  product = await startProduct({ CHECK_ALLOW_PRIVATE: 'true', CHECK_WORKER: 'off' }, { dataDir, port });
  browser = await launchBrowser();
}, SETUP_TIMEOUT);
afterAll(async () => {
  await browser?.close();
  await product?.stop();
  shop?.stop(true);
}, SETUP_TIMEOUT);

/** Records browser notifications (every announcement makes one) instead of showing them, with permission granted. */
const FAKE_NOTIFICATIONS = `
  window.__notifications = [];
  window.Notification = class {
    static permission = 'granted';
    static requestPermission() { return Promise.resolve('granted'); }
    constructor(title, options) { window.__notifications.push({ title, ...options }); }
  };`;

type Listed = { id: string; isRead: boolean; message: string };

async function signedIn(email: string, opts: { mobile?: boolean; theme?: 'light' | 'dark' } = {}) {
  const ctx = await newContext(browser, { mobile: opts.mobile });
  await ctx.addInitScript(FAKE_NOTIFICATIONS);
  if (opts.theme) await ctx.addInitScript(`localStorage.setItem('vite-ui-theme', '${opts.theme}')`);
  const page = await ctx.newPage();
  await page.goto(`${product.url}/api/auth/demo?email=${encodeURIComponent(email)}`);
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  // The history's alerts are raised as the product starts: the test begins once they all are.
  await alertsListed(page, ALERTS);
  await page.goto(`${product.url}/dashboard`);
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  return { ctx, page };
}

/** The alerts as GET /api/alerts lists them, once the server has raised at least `n`. */
async function alertsListed(page: Page, n: number): Promise<Listed[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const list = (await (await page.request.get(`${product.url}/api/alerts`)).json()) as Listed[];
    if (list.length >= n) return list;
    if (Date.now() > deadline) throw new Error(`fewer than ${n} alerts`);
    await Bun.sleep(200);
  }
}

const bellNamed = (page: Page, name: string) => page.waitForFunction((n) => document.querySelector(`header button[aria-label="${n}"]`), name);
const bell = (page: Page) => page.getByRole('banner').getByRole('button', { name: /^Notifications/ });
const cards = (page: Page) => page.getByRole('list', { name: 'Alerts' }).getByRole('listitem');
const listed = (page: Page) => page.waitForFunction(() => !document.querySelector('main [aria-busy]'));
const announced = (page: Page) => page.evaluate(() => (window as unknown as { __notifications: { title: string; body: string }[] }).__notifications);
const toast = (page: Page, text: string) => page.getByRole('region', { name: /notifications/i, includeHidden: true }).getByText(text, { exact: true });

async function choose(page: Page, filter: string, option: string) {
  await page.getByRole('combobox', { name: filter }).click();
  await page.getByRole('option', { name: option, exact: true }).click();
  await listed(page);
}

describe.skipIf(!browserAvailable)('alerts by the hundred', () => {
  test("the bell counts every unread alert and notice, says so, and its alerts are the dashboard's Active Alerts", async () => {
    const { ctx, page } = await signedIn(OWNERS[0]!);
    await page.locator('[data-card="alerts"]').getByText(String(ALERTS), { exact: true }).waitFor();
    // 107 alerts and the notice, though the popover lists the newest 50.
    await bellNamed(page, `Notifications, ${ALERTS + 1} unread`);
    expect(await bell(page).locator('xpath=..').innerText()).toBe('9+');
    await bell(page).click();
    const popover = page.getByRole('dialog', { name: 'Notifications' });
    await popover.getByText(`${ALERTS} unread alerts · 1 unread notice`, { exact: true }).waitFor();
    await page.keyboard.press('Escape');

    // One read on the Alerts screen: every count follows.
    await page.goto(`${product.url}/alerts`);
    await page.getByRole('button', { name: `Mark all as read (${ALERTS})` }).waitFor();
    await cards(page)
      .first()
      .getByRole('button', { name: /^Mark as read/ })
      .click();
    await page.getByRole('button', { name: `Mark all as read (${ALERTS - 1})` }).waitFor();
    await bellNamed(page, `Notifications, ${ALERTS} unread`);
    await page.goto(`${product.url}/dashboard`);
    await page
      .locator('[data-card="alerts"]')
      .getByText(String(ALERTS - 1), { exact: true })
      .waitFor();
    await ctx.close();
  }, 60_000);

  test('after a partial mark all, an alert from before the page loaded never pops up; one raised since does', async () => {
    const { ctx, page } = await signedIn(OWNERS[1]!);
    await page.goto(`${product.url}/alerts`);
    await cards(page).first().waitFor();
    await bellNamed(page, `Notifications, ${ALERTS + 1} unread`);
    // The newest unread alerts when the page loaded are hours old: not news.
    expect(await announced(page)).toEqual([]);

    // Some of the reads of a mark all go through; the newest unread one is now a day old.
    const alerts = await alertsListed(page, ALERTS);
    for (const alert of alerts.slice(0, ALERTS - 1)) {
      const res = await page.request.patch(`${product.url}/api/alerts/${alert.id}/read`, { headers: { Origin: product.url } });
      expect(res.status()).toBe(200);
    }
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));
    await bellNamed(page, 'Notifications, 2 unread');
    await page.getByRole('button', { name: 'Mark all as read (1)' }).waitFor();
    expect(alerts.at(-1)!.message).toBe('Price dropped 1.8% from £140.49 to £137.99');
    await Bun.sleep(500);
    expect(await announced(page)).toEqual([]);
    expect(await toast(page, 'Price Drop: Espresso Machine').count()).toBe(0);

    // A new page load does not make it news either.
    await page.reload();
    await bellNamed(page, 'Notifications, 2 unread');
    await Bun.sleep(500);
    expect(await announced(page)).toEqual([]);

    // A price drop found now is news: toast and browser notification.
    espressoPrice = '104.99';
    const res = await page.request.post(`${product.url}/api/products/${await productId(page)}/check-price`, { headers: { Origin: product.url } });
    expect((await res.json()).success).toBe(true);
    await alertsListed(page, ALERTS + 1);
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));
    await toast(page, 'Price Drop: Espresso Machine').waitFor();
    await toast(page, 'Price dropped 6.3% from £111.99 to £104.99').waitFor();
    expect((await announced(page)).map((n) => n.body)).toEqual(['Price dropped 6.3% from £111.99 to £104.99\nWas £111.99 · Now £104.99']);
    espressoPrice = '111.99';
    await ctx.close();
  }, 60_000);

  test('the Alerts screen shows a page at a time, searches and filters all of them, and marks all of them read in one call', async () => {
    const { ctx, page } = await signedIn(OWNERS[2]!);
    const requests: string[] = [];
    page.on('request', (r) => {
      if (r.method() !== 'GET') requests.push(`${r.method()} ${new URL(r.url()).pathname}`);
    });
    await page.goto(`${product.url}/alerts`);
    await cards(page).first().waitFor();
    expect(await cards(page).count()).toBe(25);
    const more = page.getByRole('button', { name: `Show more alerts (${ALERTS - 25} left)` });
    expect(await more.isVisible()).toBe(true);
    // A screen or two of cards, not 13,000 px of them.
    expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThan(4_000);

    // Scrolling to the end brings the next page.
    await more.scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.querySelectorAll('[aria-label="Alerts"] > li').length >= 50);
    await page.getByRole('button', { name: /^Show more alerts/ }).click();
    await page.waitForFunction(() => document.querySelectorAll('[aria-label="Alerts"] > li').length >= 75);

    // The search reaches the oldest alert, which no page loaded yet.
    const search = page.getByRole('searchbox', { name: 'Search alerts' });
    await search.fill('from £140.49 TO £137.99');
    await listed(page);
    expect(await cards(page).count()).toBe(1);
    expect(await cards(page).first().innerText()).toContain('Price dropped 1.8% from £140.49 to £137.99');
    expect(await page.getByRole('button', { name: /^Show more alerts/ }).count()).toBe(0);
    await search.fill('');
    await listed(page);
    expect(await cards(page).count()).toBe(25);

    await choose(page, 'Filter by type', 'Price Increase');
    expect(await cards(page).count()).toBe(25);
    await page.getByRole('button', { name: `Show more alerts (${RISES - 25} left)` }).click();
    await page.waitForFunction((n) => document.querySelectorAll('[aria-label="Alerts"] > li').length === n, RISES);
    expect(await cards(page).filter({ hasText: 'Price Drop' }).count()).toBe(0);
    await choose(page, 'Filter by type', 'All Types');

    await cards(page).first().click(); // an unread card is read by a click
    await page.getByRole('button', { name: `Mark all as read (${ALERTS - 1})` }).waitFor();
    await choose(page, 'Filter by status', 'Read');
    expect(await cards(page).count()).toBe(1);
    await choose(page, 'Filter by status', 'Unread');
    expect(await page.getByRole('button', { name: `Show more alerts (${ALERTS - 1 - 25} left)` }).isVisible()).toBe(true);
    await choose(page, 'Filter by status', 'All');

    // Mark all: every unread alert, on pages never loaded too, in one call. The notice is not an alert.
    await page.getByRole('button', { name: `Mark all as read (${ALERTS - 1})` }).click();
    await toast(page, 'All alerts marked as read').waitFor();
    await page.getByRole('button', { name: /^Mark all as read/ }).waitFor({ state: 'detached' });
    expect(await page.getByText('Unread', { exact: true }).count()).toBe(0);
    expect((await alertsListed(page, ALERTS)).filter((a) => !a.isRead)).toEqual([]);
    await bellNamed(page, 'Notifications, 1 unread');
    expect(requests.filter((r) => r.endsWith('read'))).toEqual([expect.stringMatching(/^PATCH \/api\/alerts\/.+\/read$/), 'POST /api/alerts/mark-all-read']);
    await page.goto(`${product.url}/dashboard`);
    await page.locator('[data-card="alerts"]').getByText('0', { exact: true }).waitFor();
    await ctx.close();
  }, 90_000);

  for (const mobile of [false, true]) {
    for (const theme of ['light', 'dark'] as const) {
      const size = mobile ? '390' : '1280';
      test(`the Alerts screen and the popover at ${size} px, ${theme}: readable, no serious accessibility violation`, async () => {
        const { ctx, page } = await signedIn(OWNERS[3]!, { mobile, theme });
        await page.goto(`${product.url}/alerts`);
        await cards(page).first().waitFor();
        await bellNamed(page, `Notifications, ${ALERTS + 1} unread`);
        expect(await page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(theme === 'dark');
        const failures: string[] = [];
        const check = async (what: string) => {
          const violations = await axeViolations(page);
          if (violations.length) failures.push(`${what}:\n${describeViolations(violations)}`);
        };
        await page.screenshot({ path: join(SHOTS, `alerts-${size}-${theme}.png`) });
        await check('Alerts screen');
        const more = page.getByRole('button', { name: /^Show more alerts/ });
        await more.scrollIntoViewIfNeeded();
        await page.screenshot({ path: join(SHOTS, `alerts-show-more-${size}-${theme}.png`) });
        await page.evaluate(() => window.scrollTo(0, 0));

        await bell(page).click();
        const summary = page.getByRole('dialog', { name: 'Notifications' }).getByText(`${ALERTS} unread alerts · 1 unread notice`, { exact: true });
        await summary.waitFor();
        expect(await contrastOf(summary)).toBeGreaterThanOrEqual(4.5);
        // The summary fits beside the buttons, even on a phone.
        const box = (await summary.boundingBox())!;
        expect(box.x + box.width).toBeLessThanOrEqual(mobile ? 390 : 1280);
        await page.screenshot({ path: join(SHOTS, `notifications-${size}-${theme}.png`) });
        await check('Notifications popover');
        await ctx.close();
        expect(failures).toEqual([]);
      }, 60_000);
    }
  }
});

async function productId(page: Page): Promise<string> {
  const [first] = (await (await page.request.get(`${product.url}/api/products`)).json()) as { id: string }[];
  return first!.id;
}
