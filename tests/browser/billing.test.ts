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
afterAll(async () => {
  await browser?.close();
  await product?.stop();
}, SETUP_TIMEOUT);

async function openBilling(email: string): Promise<{ ctx: BrowserContext; page: Page; stripeRequests: string[] }> {
  const ctx = await newContext(browser);
  const page = await ctx.newPage();
  const stripeRequests: string[] = [];
  page.on('request', (request) => {
    if (/stripe\.(com|network)/.test(request.url())) stripeRequests.push(request.url());
  });
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
    // The Subscribe page said it; the Billing page does not say it again.
    expect(await page.getByText('Free Trial Started!').count()).toBe(0);
    const trialEnds = (await banner.textContent())!.match(/on (.+)\. No/)![1]!;
    expect(await page.getByText('Free Trial', { exact: true }).first().isVisible()).toBe(true);
    expect(await fact(page, 'Products').textContent()).toBe('25');
    expect(await fact(page, 'AI Detection').textContent()).toBe('Yes');
    expect(await page.getByText('Starter Plan', { exact: true }).filter({ visible: true }).count()).toBeGreaterThan(0);
    // success=true is handled once, then dropped from the address.
    expect(new URL(page.url()).search).toBe('');

    await page.getByRole('button', { name: 'Cancel Subscription' }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog
      .getByText("Are you sure you want to cancel your subscription? You'll lose access to premium features at the end of your billing period.")
      .waitFor();
    await dialog.getByRole('button', { name: 'Cancel Subscription' }).click();
    await page.getByText('Subscription Cancelled').first().waitFor();
    await page.getByText('Access until', { exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Cancel Subscription' }).count()).toBe(0);
    // Access stays until the end of the period.
    expect(await fact(page, 'Products').textContent()).toBe('25');
    // What will happen, without contradiction: access until the trial ends, then Free, no charge.
    await page
      .getByText(`Your trial is cancelled: you keep Starter until ${trialEnds}, then your account moves to the Free plan. Nothing more will be charged.`)
      .waitFor();
    expect(await page.getByText('No charges until then').count()).toBe(0);
    expect(await fact(page, 'Amount').textContent()).toBe('Nothing more');
    expect(await fact(page, 'Access until').textContent()).toBe(trialEnds);
    expect(await page.getByRole('link', { name: 'Resume Starter' }).getAttribute('href')).toBe('/subscribe?plan=starter');

    // The subscribe page says what subscribing again means.
    await page.goto(`${product.url}/subscribe?plan=growth`);
    await page.getByText(`This takes back your cancellation. Your free trial continues until ${trialEnds}, then Growth is £49/month.`).waitFor();
    await page.getByRole('button', { name: 'Switch to Growth' }).waitFor();
    await page.goto(`${product.url}/subscribe?plan=starter`);
    await page.getByRole('heading', { name: 'Resume Starter' }).waitFor();
    expect(await page.getByRole('button', { name: /^Switch to (Starter|Growth|Pro)/ }).count()).toBe(0);
    for (const plan of ['free', 'platinum']) {
      await page.goto(`${product.url}/subscribe?plan=${plan}`);
      await page.getByRole('link', { name: 'Back to Billing' }).last().waitFor();
      expect(await page.getByRole('button', { name: /^(Switch to (Starter|Growth|Pro)|Resume|Start Free Trial|Subscribe)/ }).count()).toBe(0);
      expect(await page.getByRole('group', { name: 'Demo payment method' }).count()).toBe(0);
    }
    await page.getByText('There is no “platinum” plan').waitFor();
    await page.goto(`${product.url}/subscribe?plan=free`);
    await page
      .getByText(`Your Starter subscription is cancelled: your account moves to the Free plan on ${trialEnds}, and nothing more will be charged.`)
      .waitFor();
    await page.goto(`${product.url}/billing`);

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
    expect(
      await plan('Growth')
        .getByRole('link', { name: /Start Free Trial/ })
        .getAttribute('href'),
    ).toBe('/subscribe?plan=growth');
    expect(await page.getByText('Demo billing: no real payments').isVisible()).toBe(true);

    await plan('Pro')
      .getByRole('link', { name: /Start Free Trial/ })
      .click();
    await page.getByRole('heading', { name: '14-Day Free Trial' }).waitFor();
    expect(await page.getByText('Pro plan', { exact: true }).first().isVisible()).toBe(true);
    await ctx.close();
  });

  test('no plan named on the subscribe page means Starter; an unknown one is said, not taken for Starter', async () => {
    const { ctx, page } = await openBilling('unknown-plan@example.com');
    await page.goto(`${product.url}/subscribe`);
    await page.getByRole('heading', { name: '14-Day Free Trial' }).waitFor();
    expect(await page.getByText('Starter plan', { exact: true }).first().isVisible()).toBe(true);
    await page.goto(`${product.url}/subscribe?plan=platinum`);
    await page.getByRole('heading', { name: 'There is no “platinum” plan' }).waitFor();
    expect(await page.getByRole('button', { name: 'Start Free Trial' }).count()).toBe(0);
    await ctx.close();
  });

  test('a Pro user sees Downgrade on the lower plans, never Upgrade', async () => {
    const { ctx, page } = await openBilling('pro-user@example.com');
    const post = (path: string, data: unknown) => page.request.post(`${product.url}${path}`, { data, headers: { Origin: product.url } });
    expect((await post('/api/billing/create-trial-setup', {})).status()).toBe(200);
    expect((await post('/api/billing/create-subscription', { plan: 'pro', paymentMethodId: 'pm_demo_pro1' })).status()).toBe(200);
    await page.reload();
    const plans = page.getByRole('region', { name: 'Plans' });
    const plan = (name: string) => plans.getByRole('listitem', { name: `${name} plan` });
    await plan('Pro').getByRole('button', { name: 'Current Plan' }).waitFor();
    for (const lower of ['Starter', 'Growth']) {
      expect(
        await plan(lower)
          .getByRole('link', { name: `Downgrade to the ${lower} plan` })
          .isVisible(),
      ).toBe(true);
    }
    expect(await plan('Free').getByRole('button', { name: 'Downgrade' }).isEnabled()).toBe(true);
    expect(await plans.getByText(/Upgrade/).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Upgrade Plan' }).count()).toBe(0);
    await ctx.close();
  });
});
