import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { browserAvailable, launchBrowser, newContext, SETUP_TIMEOUT, startProduct, type RunningProduct } from './harness.ts';

// Billing with the demo provider (no Stripe keys): the same screens and calls, no Stripe.js.
let product: RunningProduct;
let browser: Browser;

beforeAll(async () => {
  if (!browserAvailable) return;
  product = await startProduct({ CHECK_WORKER: 'off' });
  browser = await launchBrowser();
}, SETUP_TIMEOUT);
afterAll(async () => { await browser?.close(); await product?.stop(); }, SETUP_TIMEOUT);

async function openBilling(email: string): Promise<{ ctx: BrowserContext; page: Page; stripeRequests: string[] }> {
  const ctx = await newContext(browser);
  const page = await ctx.newPage();
  const stripeRequests: string[] = [];
  page.on('request', (request) => { if (/stripe\.(com|network)/.test(request.url())) stripeRequests.push(request.url()); });
  await page.goto(`${product.url}/api/auth/demo?email=${encodeURIComponent(email)}`);
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  await page.goto(`${product.url}/billing`);
  await page.getByRole('heading', { name: 'Current Plan' }).waitFor();
  return { ctx, page, stripeRequests };
}

/** The value shown next to a label of the current plan. */
const fact = (page: Page, label: string) => page.locator(`xpath=//dt[normalize-space()="${label}"]/following-sibling::dd[1]`);

describe.skipIf(!browserAvailable)('billing', () => {
  test('start a trial from the billing page, see the trial and its limits, cancel and keep access until the period ends', async () => {
    const { ctx, page, stripeRequests } = await openBilling('trial@example.com');
    expect(await fact(page, 'Products').textContent()).toBe('3');
    expect(await fact(page, 'AI Detection').textContent()).toBe('No');
    expect(await fact(page, 'Check Frequency').textContent()).toBe('Daily');

    await page.getByRole('link', { name: 'Start Free Trial', exact: true }).click();
    await page.waitForURL((url) => url.pathname === '/subscribe' && url.searchParams.get('plan') === 'starter');
    await page.getByRole('heading', { name: '14-Day Free Trial' }).waitFor();
    await page.getByRole('group', { name: 'Demo payment method' }).waitFor();
    expect(await page.locator('script[src*="stripe"]').count()).toBe(0);

    await page.getByRole('button', { name: 'Start Free Trial' }).click();
    await page.getByText('Free Trial Started!').first().waitFor();
    await page.waitForURL((url) => url.pathname === '/billing');

    const banner = page.getByText(/^Your trial ends on \d{1,2} \w+ \d{4}\. No charges until then\.$/);
    await banner.waitFor();
    expect(await page.getByText('Free Trial', { exact: true }).first().isVisible()).toBe(true);
    expect(await fact(page, 'Products').textContent()).toBe('25');
    expect(await fact(page, 'AI Detection').textContent()).toBe('Yes');
    expect(await page.getByText('Starter Plan', { exact: true }).filter({ visible: true }).count()).toBeGreaterThan(0);
    // success=true is handled once, then dropped from the address.
    expect(new URL(page.url()).search).toBe('');

    await page.getByRole('button', { name: 'Cancel Subscription' }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.getByText("Are you sure you want to cancel your subscription? You'll lose access to premium features at the end of your billing period.").waitFor();
    await dialog.getByRole('button', { name: 'Cancel Subscription' }).click();
    await page.getByText('Subscription Cancelled').first().waitFor();
    await page.getByText('Access until', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Cancel Subscription' }).count()).toBe(0);
    // Access stays until the end of the period.
    expect(await fact(page, 'Products').textContent()).toBe('25');

    await page.reload();
    await page.getByText('Access until', { exact: true }).waitFor();
    expect(stripeRequests).toEqual([]);
    await ctx.close();
  });

  test('the plan grid: Growth is the most popular, the current plan is disabled, paid plans lead to the subscribe page', async () => {
    const { ctx, page } = await openBilling('plans@example.com');
    const plans = page.getByRole('region', { name: 'Plans' });
    const plan = (name: string) => plans.getByRole('listitem', { name: `${name} plan` });
    expect(await plan('Growth').getByText('Most Popular').isVisible()).toBe(true);
    expect(await plan('Free').getByRole('button', { name: 'Current Plan' }).isDisabled()).toBe(true);
    expect(await plan('Pro').getByText('14-Day Free Trial').isVisible()).toBe(true);
    expect(await plan('Growth').getByRole('link', { name: /Start Free Trial/ }).getAttribute('href')).toBe('/subscribe?plan=growth');
    expect(await page.getByText('Demo billing: no real payments').isVisible()).toBe(true);

    await plan('Pro').getByRole('link', { name: /Start Free Trial/ }).click();
    await page.getByRole('heading', { name: '14-Day Free Trial' }).waitFor();
    expect(await page.getByText('Pro plan', { exact: true }).first().isVisible()).toBe(true);
    await ctx.close();
  });

  test('an unknown plan on the subscribe page means Starter', async () => {
    const { ctx, page } = await openBilling('unknown-plan@example.com');
    await page.goto(`${product.url}/subscribe?plan=platinum`);
    await page.getByRole('heading', { name: '14-Day Free Trial' }).waitFor();
    expect(await page.getByText('Starter plan', { exact: true }).first().isVisible()).toBe(true);
    await ctx.close();
  });
});
