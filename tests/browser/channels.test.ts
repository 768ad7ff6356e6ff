import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { axeViolations, browserAvailable, describeViolations, launchBrowser, newContext, SETUP_TIMEOUT, startProduct, type RunningProduct } from './harness.ts';

// Settings > Alert channels: why a Free user cannot add one; a paid user adds signed webhooks, sees the
// secret once, tests them against a real receiver (one that accepts, one that fails), switches one
// off and on, changes its alerts, reads its deliveries, rotates the secret and removes a channel.

type Received = { path: string; headers: Record<string, string>; body: string };

let product: RunningProduct;
let browser: Browser;
let receiver: ReturnType<typeof Bun.serve>;
const received: Received[] = [];
/** Screenshots of the section, to look at: both themes, phone and desktop. */
const SHOTS = join(tmpdir(), 'pricewatch-screenshots');

beforeAll(async () => {
  if (!browserAvailable) return;
  // A webhook receiver on loopback: /hook accepts, /fail answers 500 with a reason.
  receiver = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      received.push({ path, headers: Object.fromEntries(request.headers), body: await request.text() });
      return path === '/fail' ? new Response('database down', { status: 500 }) : new Response('ok');
    },
  });
  product = await startProduct({ CHECK_ALLOW_PRIVATE: 'true', CHECK_WORKER: 'off' });
  browser = await launchBrowser();
  mkdirSync(SHOTS, { recursive: true });
}, SETUP_TIMEOUT);
afterAll(async () => {
  await browser?.close();
  await product?.stop();
  receiver?.stop(true);
}, SETUP_TIMEOUT);

const signIn = async (page: Page, email: string) => {
  await page.goto(`${product.url}/api/auth/demo?email=${encodeURIComponent(email)}`);
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
};

/** A trial through the demo billing API, as the Subscribe page starts it. */
async function startTrial(page: Page) {
  const status = await page.evaluate(async () => {
    await fetch('/api/billing/create-trial-setup', { method: 'POST' });
    const res = await fetch('/api/billing/create-subscription', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ plan: 'starter', paymentMethodId: 'pm_demo_visa4242' }),
    });
    return res.status;
  });
  expect(status).toBe(200);
}

/** Adds a webhook channel through the form; answers the signing secret the dialog shows once. */
async function addWebhook(page: Page, url: string, name: string): Promise<string> {
  await page.locator('#notifications').getByRole('button', { name: 'Add channel' }).click();
  const dialog = page.getByRole('dialog', { name: 'Add alert channel' });
  await dialog.getByLabel('Endpoint URL').fill(url);
  await dialog.getByLabel('Name (optional)').fill(name);
  await dialog.getByRole('button', { name: 'Add channel' }).click();
  const shown = page.getByRole('dialog', { name: 'Signing secret' });
  await shown.getByText(/it will not be shown again/).waitFor();
  const secret = await shown.getByRole('textbox', { name: 'Signing secret' }).inputValue();
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]{20,}$/);
  await shown.getByRole('button', { name: 'Done' }).click();
  await shown.waitFor({ state: 'detached' });
  return secret;
}

const channel = (page: Page, name: string) => page.getByRole('article', { name });

/** Sends a test from the channel's card and answers the outcome the card shows. */
async function sendTest(page: Page, name: string): Promise<string> {
  const card = channel(page, name);
  await card.getByRole('button', { name: 'Send test' }).click();
  const outcome = card.getByRole('status').filter({ hasText: /^Test (delivered|failed)/ });
  await outcome.waitFor();
  return (await outcome.textContent())!;
}

/** Checks the signature of the last request the receiver got on `path` with `secret`, as a receiver would. */
function verifyLast(path: string, secret: string) {
  const last = received.filter((r) => r.path === path).at(-1)!;
  expect(last.headers['webhook-id']).toMatch(/^msg_/);
  expect(last.headers['webhook-timestamp']).toMatch(/^\d+$/);
  expect(last.headers['webhook-signature']).toMatch(/^v1,/);
  expect(() => new Webhook(secret).verify(last.body, last.headers)).not.toThrow();
  return last;
}

const channelsOf = (page: Page) =>
  page.evaluate(async () => (await (await fetch('/api/channels')).json()) as { name: string; enabled: boolean; alertTypes: string[] }[]);

describe.skipIf(!browserAvailable)('Alert channels', () => {
  test('a Free user sees why there is no add form and where to upgrade', async () => {
    const ctx = await newContext(browser);
    const page = await ctx.newPage();
    await signIn(page, 'free-channels@example.com');
    await page.goto(`${product.url}/settings#notifications`);
    const section = page.locator('#notifications');
    await section.getByText('No channels yet').waitFor();
    await section.getByText('Alert channels (webhooks, Slack, Discord and Telegram) come with paid plans; your plan is Free.').waitFor();
    expect(await section.getByRole('link', { name: 'See plans' }).getAttribute('href')).toBe('/billing');
    expect(await section.getByRole('button', { name: 'Add channel' }).count()).toBe(0);
    // The deep link lands on the section.
    expect(await section.evaluate((el) => el.getBoundingClientRect().top < innerHeight)).toBe(true);
    await ctx.close();
  }, 60_000);

  test('a paid user adds webhooks, tests them for real, switches, edits, reads deliveries, rotates and removes', async () => {
    const ctx = await newContext(browser);
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: product.url });
    const page = await ctx.newPage();
    await signIn(page, 'channels@example.com');
    await startTrial(page);
    await page.goto(`${product.url}/settings#notifications`);
    const section = page.locator('#notifications');
    await section.getByText('No channels yet').waitFor();
    expect(await section.getByText(/come with paid plans/).count()).toBe(0);

    // Bad input: the form's own check, then the server's, each on the URL field.
    await section.getByRole('button', { name: 'Add channel' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add alert channel' });
    const url = dialog.getByLabel('Endpoint URL');
    await url.fill('not a url');
    await dialog.getByRole('button', { name: 'Add channel' }).click();
    await dialog.getByText(/^Enter a full http\(s\) URL/).waitFor();
    expect(await url.getAttribute('aria-invalid')).toBe('true');
    expect(await url.evaluate((el) => el === document.activeElement)).toBe(true);
    const describedBy = (await url.getAttribute('aria-describedby'))!.split(' ');
    expect(await page.locator(`[id="${describedBy[0]}"]`).textContent()).toMatch(/^Enter a full http\(s\) URL/);
    await url.fill('http://169.254.169.254/latest/meta-data');
    await dialog.getByRole('button', { name: 'Add channel' }).click();
    await page.waitForFunction(() => document.querySelector('[role="dialog"] input[aria-invalid="true"]'));
    const serverError = await page.locator(`[id="${(await url.getAttribute('aria-describedby'))!.split(' ')[0]}"]`).textContent();
    expect(serverError).not.toMatch(/^url:/);
    expect(serverError!.length).toBeGreaterThan(5);
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    // A receiver that accepts: the secret is shown once, copies, and signs what the receiver gets.
    const hook = `http://127.0.0.1:${receiver.port}/hook`;
    const secret = await addWebhook(page, hook, 'Shop backend');
    await channel(page, 'Shop backend').waitFor();
    expect(await page.content()).not.toContain(secret);
    expect(await sendTest(page, 'Shop backend')).toBe('Test delivered (200)');
    verifyLast('/hook', secret);

    // A receiver that fails: the card says so, with the status, and never claims success.
    const failing = await addWebhook(page, `http://127.0.0.1:${receiver.port}/fail`, 'Failing receiver');
    expect(await sendTest(page, 'Failing receiver')).toBe('Test failed: 500 Internal Server Error: database down');
    verifyLast('/fail', failing);

    // Recent deliveries, newest first, with the outcome and the attempt.
    const failingCard = channel(page, 'Failing receiver');
    await failingCard.getByRole('button', { name: 'Recent deliveries' }).click();
    const row = failingCard.getByRole('table').getByRole('row').nth(1);
    await row.waitFor();
    expect(await row.getByRole('cell').allTextContents()).toEqual([expect.stringMatching(/^\d\d:\d\d$/), 'Test', 'Failed · 500', '1']);
    await channel(page, 'Shop backend').getByRole('button', { name: 'Recent deliveries' }).click();
    await channel(page, 'Shop backend').getByRole('cell', { name: 'Delivered · 200' }).waitFor();
    await failingCard.getByText(/^Failed · 500 · /).waitFor(); // the last delivery, on the card

    // Switched off and on again, saved at once.
    const enabled = failingCard.getByRole('switch', { name: 'Enabled' });
    await enabled.click();
    await failingCard.getByText('Off', { exact: true }).waitFor();
    expect(await enabled.getAttribute('aria-checked')).toBe('false');
    expect((await channelsOf(page)).find((c) => c.name === 'Failing receiver')!.enabled).toBe(false);
    await enabled.click();
    await failingCard.getByText('Off', { exact: true }).waitFor({ state: 'detached' });
    expect(await enabled.getAttribute('aria-checked')).toBe('true');
    expect((await channelsOf(page)).find((c) => c.name === 'Failing receiver')!.enabled).toBe(true);

    // Only price alerts to the shop backend; at least one type must stay.
    await channel(page, 'Shop backend').getByRole('button', { name: 'Edit' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit Shop backend' });
    for (const type of ['Price Drop', 'Price Increase', 'Threshold Met', 'Out of Stock', 'Back in Stock', 'Undercut', "You're cheapest"]) {
      await edit.getByLabel(type).uncheck();
    }
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.getByText('Choose at least one alert type.').waitFor();
    for (const type of ['Price Drop', 'Price Increase', 'Threshold Met']) await edit.getByLabel(type).check();
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'detached' });
    await channel(page, 'Shop backend').getByText('Price Drop, Price Increase, Threshold Met').waitFor();
    expect((await channelsOf(page)).find((c) => c.name === 'Shop backend')!.alertTypes).toEqual(['price_drop', 'price_increase', 'threshold_met']);

    // A new secret after a confirmation, copied; the next message is signed with it.
    await channel(page, 'Shop backend').getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('alertdialog').getByRole('button', { name: 'Rotate secret' }).click();
    const shown = page.getByRole('dialog', { name: 'New signing secret' });
    const rotated = await shown.getByRole('textbox', { name: 'Signing secret' }).inputValue();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(secret);
    await shown.getByRole('button', { name: 'Copy signing secret' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(rotated);
    await shown.getByRole('button', { name: 'Done' }).click();
    expect(await sendTest(page, 'Shop backend')).toBe('Test delivered (200)');
    verifyLast('/hook', rotated);
    expect(() => new Webhook(secret).verify(received.at(-1)!.body, received.at(-1)!.headers)).toThrow();

    // Both themes, phone and desktop: what it looks like, and no serious accessibility violation.
    const failures: string[] = [];
    for (const theme of ['light', 'dark'] as const) {
      for (const mobile of [true, false]) {
        const view = await newContext(browser, { mobile });
        await view.addInitScript((t) => localStorage.setItem('vite-ui-theme', t), theme);
        const viewPage = await view.newPage();
        await signIn(viewPage, 'channels@example.com');
        await viewPage.goto(`${product.url}/settings#notifications`);
        await channel(viewPage, 'Failing receiver').getByRole('button', { name: 'Recent deliveries' }).click();
        await channel(viewPage, 'Failing receiver').getByRole('table').waitFor();
        await viewPage.waitForLoadState('networkidle');
        const tag = `${theme}, ${mobile ? 390 : 1280} px`;
        await viewPage.locator('#notifications').screenshot({ path: join(SHOTS, `channels-${theme}-${mobile ? 390 : 1280}.png`) });
        let violations = await axeViolations(viewPage);
        if (violations.length) failures.push(`settings with channels, ${tag}:\n${describeViolations(violations)}`);
        await viewPage.locator('#notifications').getByRole('button', { name: 'Add channel' }).click();
        await viewPage.getByRole('dialog', { name: 'Add alert channel' }).waitFor();
        await viewPage.screenshot({ path: join(SHOTS, `channels-add-${theme}-${mobile ? 390 : 1280}.png`) });
        violations = await axeViolations(viewPage);
        if (violations.length) failures.push(`add channel dialog, ${tag}:\n${describeViolations(violations)}`);
        await view.close();
      }
    }
    expect(failures).toEqual([]);

    // Removed through the confirmation.
    await failingCard.getByRole('button', { name: 'Remove' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Remove Failing receiver?' });
    await confirm.getByRole('button', { name: 'Remove' }).click();
    // While the dialog is open the page behind it is hidden from the accessibility tree, so wait for it to close first.
    await confirm.waitFor({ state: 'detached' });
    await page.locator('#notifications h3', { hasText: 'Failing receiver' }).waitFor({ state: 'detached' });
    await channel(page, 'Shop backend').waitFor();
    expect((await channelsOf(page)).map((c) => c.name)).toEqual(['Shop backend']);
    await ctx.close();
  }, 180_000);
});
