import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import type { Server } from 'bun';
import { browserAvailable, contrastOf, launchBrowser, SETUP_TIMEOUT, startProduct, type RunningProduct, openProducts } from './harness.ts';

let product: RunningProduct;
let browser: Browser;
let shop: Server;

beforeAll(async () => {
  if (!browserAvailable) return;
  // One competitor on loopback: a normal product page, and one its bot protection guards.
  shop = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      const { pathname } = new URL(request.url);
      if (pathname === '/kettle') {
        return new Response('<!doctype html><html><head><title>Kettle</title></head><body><h1>Kettle</h1><span class="price">£24.99</span></body></html>', {
          headers: { 'content-type': 'text/html; charset=utf-8' },
        });
      }
      if (pathname === '/toaster') {
        return new Response(
          '<!DOCTYPE html><html><head><title>Just a moment...</title></head><body><div id="challenge-stage"></div><script src="/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1"></script></body></html>',
          { status: 403, headers: { 'content-type': 'text/html; charset=utf-8', 'cf-mitigated': 'challenge', server: 'cloudflare' } },
        );
      }
      return new Response('Not found', { status: 404 });
    },
  });
  product = await startProduct({ CHECK_ALLOW_PRIVATE: 'true', CHECK_WORKER: 'off' });
  browser = await launchBrowser();
}, SETUP_TIMEOUT);
afterAll(async () => {
  await browser?.close();
  await product?.stop();
  shop?.stop(true);
}, SETUP_TIMEOUT);

const shopHost = () => `127.0.0.1:${shop.port}`;

async function addThroughApi(page: Page, name: string, path: string) {
  const res = await page.request.post(`${product.url}/api/products`, {
    data: { name, url: `http://127.0.0.1:${shop.port}/${path}`, selector: '.price', threshold: 'none' },
    headers: { Origin: product.url },
  });
  expect(res.status()).toBe(201);
}

const card = (page: Page, name: string) =>
  page
    .getByRole('list', { name: 'Products' })
    .getByRole('listitem')
    .filter({ has: page.getByRole('heading', { name, exact: true }) });
const toast = (page: Page, text: string | RegExp) => page.getByRole('region', { name: /notifications/i, includeHidden: true }).getByText(text);

describe.skipIf(!browserAvailable)('check health on the Products screen', () => {
  test('no checks yet: the panel says so', async () => {
    const { ctx, page } = await openProducts(browser, product, 'health-empty@example.com');
    await addThroughApi(page, 'Kettle', 'kettle');
    await page.reload();
    const panel = page.getByTestId('check-health');
    await panel.getByRole('button', { name: /Check health/ }).click();
    await panel.getByText('No checks yet', { exact: true }).first().waitFor();
    await ctx.close();
  });

  test('Check Now on a normal page and on a bot wall: the blocked host shows with its reason, paused', async () => {
    const email = 'health@example.com';
    const { ctx, page } = await openProducts(browser, product, email);
    await addThroughApi(page, 'Kettle', 'kettle');
    await addThroughApi(page, 'Toaster', 'toaster');
    await page.reload();

    await card(page, 'Kettle').getByRole('button', { name: 'Check Now' }).click();
    await toast(page, 'Price checked').waitFor();
    await card(page, 'Toaster').getByRole('button', { name: 'Check Now' }).click();
    await toast(page, /bot protection \(Cloudflare\) turned the check away/)
      .first()
      .waitFor();

    const panel = page.getByTestId('check-health');
    // A shop with trouble opens the panel by itself.
    await panel.locator('button[aria-expanded="true"]').waitFor();
    const row = panel.locator(`li[data-host="${shopHost()}"]`);
    await row.waitFor();
    await row.getByText('50%', { exact: true }).waitFor();
    await row.getByText('1 turned away by bot protection or a rate limit').waitFor();
    await row.getByText(/The shop's bot protection \(Cloudflare\) turned the check away/).waitFor();
    await row.getByText('(Just now)').waitFor();
    await row.getByText(/^Paused until \d\d:\d\d$/).waitFor();

    // While the shop rests, Check Now does not knock: it says why and when.
    await card(page, 'Kettle').getByRole('button', { name: 'Check Now' }).click();
    await toast(page, /Checks of 127\.0\.0\.1:\d+ are paused for another 1[45] minutes/)
      .first()
      .waitFor();
    const api = await (await page.request.get(`${product.url}/api/check-health`)).json();
    expect(api.hosts).toHaveLength(1);
    expect(api.hosts[0]).toMatchObject({ host: shopHost(), checks: 2, successes: 1, failures: { blocked: 1 }, browserNeeded: false });
    await ctx.close();

    // Both themes, phone and desktop: laid out within the screen, and readable.
    for (const mobile of [false, true])
      for (const theme of ['light', 'dark'] as const) {
        const view = await openProducts(browser, product, email, { mobile, theme });
        const panelView = view.page.getByTestId('check-health');
        const hostRow = panelView.locator(`li[data-host="${shopHost()}"]`);
        await hostRow.waitFor();
        expect(await view.page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(theme === 'dark');
        const paused = hostRow.getByText(/^Paused until/);
        const reason = hostRow.getByText(/turned the check away/);
        const rate = hostRow.getByText('50%', { exact: true });
        for (const text of [paused, reason, rate, hostRow.getByText(shopHost())]) {
          expect(await contrastOf(text)).toBeGreaterThanOrEqual(4.5);
        }
        const box = (await panelView.boundingBox())!;
        const width = mobile ? 390 : 1280;
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(width);
        expect(await view.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        await view.ctx.close();
      }
  }, 120_000);
});
