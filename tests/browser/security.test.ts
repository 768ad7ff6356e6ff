import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { browserAvailable, launchBrowser, newContext, SETUP_TIMEOUT, startProduct, type RunningProduct } from './harness.ts';

let product: RunningProduct;
let browser: Browser;

beforeAll(async () => {
  if (!browserAvailable) return;
  product = await startProduct();
  browser = await launchBrowser();
}, SETUP_TIMEOUT);
afterAll(async () => {
  await browser?.close();
  await product?.stop();
}, SETUP_TIMEOUT);

describe.skipIf(!browserAvailable)('Content-Security-Policy in the browser', () => {
  test('a script the policy does not name is refused, and the test context reports it', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await page.goto(product.url + '/');
    const ran = await page.evaluate(async () => {
      const script = document.createElement('script');
      script.textContent = 'window.injected = true';
      document.body.append(script);
      await new Promise((resolve) => setTimeout(resolve, 100));
      return (window as unknown as { injected?: boolean }).injected === true;
    });
    expect(ran).toBe(false);
    await expect(ctx.close()).rejects.toThrow(/script-src-elem refused inline/);
  });

  test('no other site can show the product in a frame', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    const refused = page.waitForEvent('console', (m) => m.text().includes("frame-ancestors 'none'"));
    await page.setContent(`<iframe src="${product.url}/"></iframe>`);
    await refused;
    // Chromium puts its error page in place of ours.
    expect(page.frames()[1]!.url()).not.toStartWith(product.url);
    await ctx.close();
  });

  test('the API reference works offline: Swagger UI from the product, no other origin asked', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    const origins = new Set<string>();
    page.on('request', (req) => {
      if (!req.url().startsWith('data:')) origins.add(new URL(req.url()).origin);
    });
    await page.goto(product.url + '/api/docs');
    await page.getByRole('heading', { name: /Pricewatch API/ }).waitFor();
    await page.getByText('/api/v1/products', { exact: true }).first().waitFor();
    expect([...origins]).toEqual([product.url]);
    await ctx.close();
  });
});
