import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser } from 'playwright-core';
import { browserAvailable, launchBrowser, newContext, SETUP_TIMEOUT, startProduct, type RunningProduct } from './harness.ts';

// Settings > API Access: why a free user has no key; a Pro user creates, sees once, rotates and revokes it.
let product: RunningProduct;
let browser: Browser;

beforeAll(async () => {
  if (!browserAvailable) return;
  product = await startProduct({ CHECK_WORKER: 'off' });
  browser = await launchBrowser();
}, SETUP_TIMEOUT);
afterAll(async () => {
  await browser?.close();
  await product?.stop();
}, SETUP_TIMEOUT);

describe.skipIf(!browserAvailable)('API access', () => {
  test('free users see why and where to upgrade; Pro users create a key, see it once, rotate and revoke it', async () => {
    const ctx = await newContext(browser);
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: product.url });
    const page = await ctx.newPage();
    await page.goto(`${product.url}/api/auth/demo?email=${encodeURIComponent('api@example.com')}`);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await page.goto(`${product.url}/settings`);
    await page.getByText(/API access comes with the Pro plan; your plan is Free/).waitFor();
    // The check frequency, API access and alert channels each say where to upgrade.
    const plans = await page.getByRole('link', { name: 'See plans' }).all();
    expect(plans).toHaveLength(3);
    for (const link of plans) expect(await link.getAttribute('href')).toBe('/billing');
    expect(await page.getByRole('button', { name: 'Create API Key' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Show API key' }).isDisabled()).toBe(true);
    // No key is shown as none, not as a mask.
    expect(await page.getByLabel('API Key', { exact: true }).inputValue()).toBe('API access is on Pro');

    // A Pro trial through the demo billing API, as the Subscribe page makes it.
    const status = await page.evaluate(async () => {
      await fetch('/api/billing/create-trial-setup', { method: 'POST' });
      const res = await fetch('/api/billing/create-subscription', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ plan: 'pro', paymentMethodId: 'pm_demo_visa4242' }),
      });
      return res.status;
    });
    expect(status).toBe(200);
    await page.reload();
    const field = page.getByLabel('API Key', { exact: true });
    await page.getByRole('button', { name: 'Create API Key' }).waitFor();
    expect(await field.inputValue()).toBe('No key yet');
    await page.getByRole('button', { name: 'Create API Key' }).click();
    await page.getByText(/Copy this key now/).waitFor();
    const key = await field.inputValue();
    expect(key).toMatch(/^pw_live_[A-Za-z0-9_-]{43}$/);

    // The key works on the public API; hidden, it shows the mask; after a reload only the mask remains.
    const answer = await page.evaluate(async (k) => (await fetch('/api/v1/products', { headers: { authorization: `Bearer ${k}` } })).status, key);
    expect(answer).toBe(200);
    await page.getByRole('button', { name: 'Copy API key' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    await page.getByRole('button', { name: 'Hide API key' }).click();
    expect(await field.inputValue()).toBe(`pw_live_••••••••${key.slice(-4)}`);
    await page.reload();
    await page.getByText(/^Created .* rotate it if it is lost\.$/).waitFor();
    expect(await field.inputValue()).toBe(`pw_live_••••••••${key.slice(-4)}`);
    expect(await page.getByRole('button', { name: 'Show API key' }).isDisabled()).toBe(true);

    await page.getByRole('button', { name: 'Rotate Key' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Rotate Key' }).click();
    await page.getByText(/Copy this key now/).waitFor();
    const rotated = await field.inputValue();
    expect(rotated).not.toBe(key);
    const old = await page.evaluate(async (k) => (await fetch('/api/v1/products', { headers: { authorization: `Bearer ${k}` } })).status, key);
    expect(old).toBe(401);

    await page.getByRole('button', { name: 'Revoke Key' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke Key' }).click();
    await page.getByRole('button', { name: 'Create API Key' }).waitFor();
    expect(await field.inputValue()).toBe('No key yet');
    const revoked = await page.evaluate(async (k) => (await fetch('/api/v1/products', { headers: { authorization: `Bearer ${k}` } })).status, rotated);
    expect(revoked).toBe(401);
    await ctx.close();
  }, 60_000);

  test("the footer's API and Documentation links lead to the API reference", async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await page.goto(product.url);
    for (const name of ['API', 'Documentation']) {
      expect(await page.getByRole('contentinfo').getByRole('link', { name, exact: true }).getAttribute('href')).toBe('/api/docs');
    }
    const spec = await page.evaluate(async () => (await fetch('/api/docs/json')).json());
    expect(Object.keys(spec.paths)).toContain('/api/v1/products');
    await ctx.close();
  });
});
