import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, Page } from 'playwright-core';
import type { Server } from 'bun';
import { browserAvailable, launchBrowser, newContext, SETUP_TIMEOUT, startProduct, type RunningProduct } from './harness.ts';

let product: RunningProduct;
let browser: Browser;
let shop: Server;
/** The euro price the competitor's page shows; changed between checks. */
let lampPrice = '24.99';

beforeAll(async () => {
  if (!browserAvailable) return;
  shop = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch() {
      const ld = JSON.stringify({
        '@context': 'https://schema.org',
        '@type': 'Product',
        name: 'Lamp',
        offers: { '@type': 'Offer', price: lampPrice, priceCurrency: 'EUR' },
      });
      return new Response(
        `<!doctype html><html><head><title>Lamp</title><script type="application/ld+json">${ld}</script></head><body><h1>Lamp</h1><p class="price">€${lampPrice}</p></body></html>`,
        { headers: { 'content-type': 'text/html; charset=utf-8' } },
      );
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

const ZONE = 'Asia/Tokyo';
/** What the screens should show for an instant: the user's zone, British style. */
const inZone = (iso: string, zone = ZONE) => new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short', timeZone: zone });

async function json(page: Page, path: string) {
  return (await page.request.get(`${product.url}${path}`)).json();
}

describe.skipIf(!browserAvailable)("prices in their currency, times in the user's time zone", () => {
  test("a euro product reads in euros on every screen, and times follow the time zone setting, not the browser's", async () => {
    // The browser is in Los Angeles; the user's setting says Tokyo, their currency US dollars.
    const ctx = await newContext(browser, { timezoneId: 'America/Los_Angeles' });
    const page = await ctx.newPage();
    await page.goto(`${product.url}/api/auth/demo?email=euro-tokyo@example.com`);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    const send = (method: 'post' | 'put', path: string, data: unknown) =>
      page.request[method](`${product.url}${path}`, { data, headers: { Origin: product.url } });
    const settings = { emailNotifications: true, priceDropAlerts: true, weeklyReports: false, checkFrequency: 'daily', currency: 'USD', timezone: ZONE };
    expect((await send('put', '/api/settings', settings)).status()).toBe(200);
    const { id } = await (
      await send('post', '/api/products', { name: 'Desk Lamp', url: `http://127.0.0.1:${shop.port}/lamp`, selector: '.price', threshold: 'any' })
    ).json();
    expect((await (await send('post', `/api/products/${id}/check-price`, {})).json()).currency).toBe('EUR');
    lampPrice = '19.99';
    await send('post', `/api/products/${id}/check-price`, {});

    // Products: the card.
    await page.goto(`${product.url}/products`);
    const main = page.locator('main');
    await main.getByText('€19.99').waitFor();

    // Dashboard: recent changes and the history table, the table's time in Tokyo.
    await page.goto(`${product.url}/dashboard`);
    const recent = page.getByRole('list', { name: 'Recent price changes' });
    await recent.getByText('€19.99').waitFor();
    const [change] = (await json(page, '/api/dashboard/stats')).recentChanges;
    expect(change.currency).toBe('EUR');
    const row = main.locator('tbody tr').first();
    expect(await row.innerText()).toContain('€24.99');
    expect(await row.innerText()).toContain('€19.99');
    expect(await row.getByText(inZone(change.timestamp), { exact: true }).isVisible()).toBe(true);
    expect(inZone(change.timestamp)).not.toBe(inZone(change.timestamp, 'America/Los_Angeles'));
    expect(await main.innerText()).not.toContain('£');

    // The notifications popover: was and now in euros.
    await page.getByRole('button', { name: /^Notifications, 1 unread/ }).click();
    const popover = page.getByRole('dialog', { name: 'Notifications' });
    await popover.getByText('Was €24.99 · Now €19.99').waitFor();
    await page.keyboard.press('Escape');

    // Alerts: the message names euros.
    await page.goto(`${product.url}/alerts`);
    await main.getByText('Price dropped 20.0% from €24.99 to €19.99').waitFor();
    expect(await main.innerText()).not.toContain('£');

    // Price history: the row, its last check in Tokyo, and the dialog's figures and chart.
    await page.goto(`${product.url}/price-history`);
    const [historyRow] = await json(page, '/api/price-history/products?timeFilter=month');
    expect(historyRow.currency).toBe('EUR');
    await main.getByText('€19.99').waitFor();
    await main.getByText(`Last checked ${inZone(historyRow.lastChecked)}`).waitFor();
    await main.getByRole('button', { name: 'Desk Lamp' }).click();
    const dialog = page.getByRole('dialog', { name: 'Desk Lamp' });
    // The axes are drawn on the canvas; the chart's name says its currency.
    const chart = dialog.getByRole('img', { name: 'Price over time (€)' });
    await chart.locator('canvas').first().waitFor();
    expect(await dialog.innerText()).not.toContain('£');
    const plot = chart.locator('.u-over');
    const box = (await plot.boundingBox())!;
    await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2);
    await dialog.getByText('Price: €19.99').waitFor();
    await page.keyboard.press('Escape');

    // Another time zone, saved in Settings, applies on the next screen.
    await page.goto(`${product.url}/settings`);
    await page.getByRole('combobox', { name: 'Timezone' }).click();
    await page.getByRole('option', { name: /Paris/ }).click();
    await page.getByRole('button', { name: 'Save Settings' }).click();
    await page
      .getByRole('region', { name: /notifications/i, includeHidden: true })
      .getByText('Settings saved')
      .waitFor();
    await page.goto(`${product.url}/price-history`);
    await main.getByText(`Last checked ${inZone(historyRow.lastChecked, 'Europe/Paris')}`).waitFor();
    await ctx.close();
  }, 90_000);
});
