import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Locator, Page } from 'playwright-core';
import type { Server } from 'bun';
import { browserAvailable, launchBrowser, newContext, SETUP_TIMEOUT, startProduct, type RunningProduct } from './harness.ts';

let product: RunningProduct;
let browser: Browser;
let shop: Server;
let kettlePrice = '100.00';

beforeAll(async () => {
  if (!browserAvailable) return;
  shop = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: () =>
      new Response(`<!doctype html><html><body><h1>Kettle</h1><span class="price">£${kettlePrice}</span></body></html>`, {
        headers: { 'content-type': 'text/html; charset=utf-8' },
      }),
  });
  // Only Check Now checks: the figures cannot move behind the test's back.
  product = await startProduct({ CHECK_ALLOW_PRIVATE: 'true', CHECK_WORKER: 'off' });
  browser = await launchBrowser();
}, SETUP_TIMEOUT);
afterAll(async () => {
  await browser?.close();
  await product?.stop();
  shop?.stop(true);
}, SETUP_TIMEOUT);

async function signIn(email?: string): Promise<{ page: Page; close: () => Promise<void> }> {
  const ctx = await newContext(browser);
  const page = await ctx.newPage();
  await page.goto(`${product.url}/api/auth/demo${email ? `?email=${encodeURIComponent(email)}` : ''}`);
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  return { page, close: () => ctx.close() };
}

const summary = (page: Page, id: string): Locator => page.locator(`[data-card="${id}"]`);
const figure = async (page: Page, id: string) => Number(await summary(page, id).locator('p').first().textContent());

describe.skipIf(!browserAvailable)('dashboard figures that agree', () => {
  test('the demo account: the drops its week of history shows come with the alerts its rules raised', async () => {
    const { page, close } = await signIn();
    await summary(page, 'drops').locator('p').first().waitFor();
    const drops = await figure(page, 'drops');
    const active = await figure(page, 'alerts');
    expect(drops).toBeGreaterThan(0);
    expect(active).toBeGreaterThan(0);
    const alerts: { isRead: boolean }[] = await (await page.request.get(`${product.url}/api/alerts`)).json();
    expect(active).toBe(alerts.filter((a) => !a.isRead).length);
    // New today are some of the active ones, never more.
    const newToday = (await summary(page, 'alerts').innerText()).match(/\+(\d+)\s*new today/);
    if (newToday) expect(Number(newToday[1])).toBeLessThanOrEqual(active);

    await page.goto(`${product.url}/alerts`);
    await page.getByRole('list', { name: 'Alerts' }).waitFor();
    expect(await page.getByText('No alerts found').count()).toBe(0);

    // Everything read: nothing active, and nothing "new" beside the zero.
    const res = await page.request.post(`${product.url}/api/notifications/mark-all-read`, { headers: { Origin: product.url } });
    expect(res.status()).toBe(200);
    await page.goto(`${product.url}/dashboard`);
    await summary(page, 'alerts').getByText('all read').waitFor();
    expect(await figure(page, 'alerts')).toBe(0);
    expect(
      await summary(page, 'alerts')
        .getByText(/new today/)
        .count(),
    ).toBe(0);
    await close();
  }, 60_000);

  test('a price typed in by hand is not a detected drop; the next check measured from it is', async () => {
    const { page, close } = await signIn('manual-drops@example.com');
    const send = (path: string, data: unknown) => page.request.post(`${product.url}${path}`, { data, headers: { Origin: product.url } });
    const { id } = await (
      await send('/api/products', { name: 'Kettle', url: `http://127.0.0.1:${shop.port}/kettle`, selector: '.price', threshold: 'any' })
    ).json();
    await send(`/api/products/${id}/check-price`, {});
    expect((await send(`/api/products/${id}/update-price`, { price: '50' })).status()).toBe(200);
    await page.reload();
    await summary(page, 'drops').locator('p').first().waitFor();
    expect(await figure(page, 'drops')).toBe(0);
    // The typed price is still history: the change shows in the table.
    await page.getByRole('cell', { name: '£50.00' }).first().waitFor();

    kettlePrice = '45.00';
    await send(`/api/products/${id}/check-price`, {});
    await page.reload();
    await page.getByRole('cell', { name: '£45.00' }).first().waitFor();
    expect(await figure(page, 'drops')).toBe(1);
    // The alert is raised from the check by the alert reactor, a moment later.
    for (let i = 0; i < 40 && (await figure(page, 'alerts')) !== 1; i++) {
      await Bun.sleep(250);
      await page.reload();
      await summary(page, 'alerts').locator('p').first().waitFor();
    }
    expect(await figure(page, 'alerts')).toBe(1);
    await close();
  }, 60_000);
});
