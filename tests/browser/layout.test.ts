import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { browserAvailable, contrastOf, newContext, SETUP_TIMEOUT, productWithHistory, type RunningProduct, type TrackedHistory } from './harness.ts';

/** Screens at a phone's and a desktop's width, in both themes: nothing cut off, covered, out of reach or too faint. */

let product: RunningProduct;
let browser: Browser;

const EMAIL = 'layout@example.com';
const NAME = 'Precision Conical Burr Coffee Grinder with 40 Grind Settings and Timer';
/** The shop's prices, one check each: enough changes (and alerts) for the dashboard's history table to scroll inside its card. */
const PRICES = ['149.00', '139.00', '155.00', '150.00', '145.00', '160.00', '158.00', '140.00', '142.00', '151.00', '155.00'];

let tracked: TrackedHistory;

beforeAll(async () => {
  if (!browserAvailable) return;
  tracked = await productWithHistory({ email: EMAIL, name: NAME, prices: PRICES });
  ({ product, browser } = tracked);
}, SETUP_TIMEOUT);
afterAll(() => tracked?.stop(), SETUP_TIMEOUT);

async function signedIn(opts: { mobile?: boolean; theme?: 'light' | 'dark' } = {}): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await newContext(browser, { mobile: opts.mobile });
  if (opts.theme) await ctx.addInitScript((t) => localStorage.setItem('vite-ui-theme', t), opts.theme);
  const page = await ctx.newPage();
  await page.goto(`${product.url}/api/auth/demo?email=${encodeURIComponent(EMAIL)}`);
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  return { ctx, page };
}

const box = async (locator: Locator) => (await locator.boundingBox())!;
/** Rendered lines of a block of text. */
const lines = (locator: Locator) => locator.evaluate((el) => Math.round(el.clientHeight / parseFloat(getComputedStyle(el).lineHeight)));

describe.skipIf(!browserAvailable)('layout', () => {
  test('the price history chart follows the dialog as the window narrows and widens', async () => {
    const { ctx, page } = await signedIn();
    await page.goto(product.url + '/price-history');
    await page.getByRole('button', { name: NAME }).click();
    const dialog = page.getByRole('dialog', { name: NAME });
    const chart = dialog.getByRole('img', { name: 'Price over time' });
    const canvas = chart.locator('canvas');
    await canvas.waitFor();
    const wide = (await box(canvas)).width;
    const fits = async () => {
      const [d, area, c] = [await box(dialog), await box(chart), await box(canvas)];
      expect(c.x + c.width).toBeLessThanOrEqual(area.x + area.width + 0.5);
      expect(area.x + area.width).toBeLessThanOrEqual(d.x + d.width);
      for (const title of ['Current Price', 'Price Change', 'Data Points']) {
        const figure = await box(dialog.getByRole('heading', { name: title, level: 3 }).locator('xpath=..'));
        expect(figure.x + figure.width).toBeLessThanOrEqual(d.x + d.width);
      }
      expect(await dialog.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    };
    await fits();

    await page.setViewportSize({ width: 700, height: 900 });
    await page.waitForFunction((w) => document.querySelector('[role="dialog"] canvas')!.getBoundingClientRect().width < w, wide);
    await fits();

    await page.setViewportSize({ width: 1280, height: 900 });
    await page.waitForFunction((w) => Math.abs(document.querySelector('[role="dialog"] canvas')!.getBoundingClientRect().width - w) < 1, wide);
    await fits();
    await ctx.close();
  });

  for (const mobile of [false, true]) {
    test(`a long product name gets two lines of the card's width and its whole text on hover (${mobile ? 390 : 1280} px)`, async () => {
      const { ctx, page } = await signedIn({ mobile });
      await page.goto(product.url + '/products');
      const name = page.getByRole('list', { name: 'Products' }).getByRole('heading', { name: NAME });
      await name.waitFor();
      const card = await box(page.getByRole('list', { name: 'Products' }).getByRole('listitem').first());
      // Only the card's padding, the image and the selection checkbox beside it: the actions sit below.
      expect((await box(name)).width).toBeGreaterThanOrEqual(card.width - 132);
      expect(await lines(name)).toBe(2);
      expect(await name.evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);
      expect(await name.getAttribute('title')).toBe(NAME);
      await ctx.close();
    });
  }

  test('on a phone the notification popover keeps a margin from both edges', async () => {
    const { ctx, page } = await signedIn({ mobile: true });
    await page
      .getByRole('banner')
      .getByRole('button', { name: /^Notifications/ })
      .click();
    const popover = await box(page.getByRole('dialog', { name: 'Notifications' }));
    expect(popover.x).toBeGreaterThanOrEqual(8);
    expect(popover.x + popover.width).toBeLessThanOrEqual(390 - 8);
    await ctx.close();
  });

  test('on a phone the app header is one line; the subtitle and the demo badge open the page', async () => {
    const { ctx, page } = await signedIn({ mobile: true });
    const pages = [
      ['/dashboard', 'Dashboard', 'Monitor your competitor pricing'],
      ['/products', 'Products', 'Manage the competitor products you track'],
      ['/price-history', 'Price History', 'See how competitor prices have moved'],
      ['/alerts', 'Alerts', 'Price drops, increases and threshold hits'],
      ['/billing', 'Billing', 'Manage your plan and subscription'],
      ['/settings', 'Settings', 'Manage your account and preferences'],
    ];
    for (const [path, title, subtitle] of pages) {
      await page.goto(product.url + path);
      const heading = page.getByRole('heading', { name: title, level: 1 });
      await heading.waitFor();
      expect((await box(page.getByRole('banner'))).height).toBeLessThanOrEqual(64);
      expect(await lines(heading)).toBe(1);
      const main = page.getByRole('main');
      expect(await main.getByText(subtitle!, { exact: true }).isVisible()).toBe(true);
      expect(await main.getByText('Demo account', { exact: true }).isVisible()).toBe(true);
    }
    await ctx.close();
  });

  test('on a phone the alerts filters line up with the search box', async () => {
    const { ctx, page } = await signedIn({ mobile: true });
    await page.goto(product.url + '/alerts');
    const search = await box(page.getByRole('searchbox', { name: 'Search alerts' }));
    const type = await box(page.getByRole('combobox', { name: 'Filter by type' }));
    const status = await box(page.getByRole('combobox', { name: 'Filter by status' }));
    expect(Math.abs(type.x - search.x)).toBeLessThan(1);
    expect(Math.abs(status.x + status.width - (search.x + search.width))).toBeLessThan(1);
    expect(Math.abs(type.y - status.y)).toBeLessThan(1);
    await ctx.close();
  });

  test('the landing page menu closes when one of its links is followed', async () => {
    const ctx = await newContext(browser, { mobile: true });
    const page = await ctx.newPage();
    await page.goto(product.url + '/');
    const menu = page.getByRole('navigation', { name: 'Mobile' });
    await page.locator('header details > summary').click();
    await menu.waitFor();
    await menu.getByRole('link', { name: 'Pricing' }).click();
    await page.waitForURL('**/#pricing');
    await menu.waitFor({ state: 'hidden' });
    expect(await page.locator('header details').evaluate((el) => (el as HTMLDetailsElement).open)).toBe(false);
    // It opens again with one tap.
    await page.locator('header details > summary').click();
    await menu.waitFor();
    await ctx.close();
  });

  test('the dashboard history table can be reached and scrolled with the keyboard', async () => {
    const { ctx, page } = await signedIn();
    const region = page.getByRole('region', { name: 'Price change history' });
    await region.getByRole('table').waitFor();
    expect(await region.evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);
    await page.getByRole('link', { name: 'View all history' }).focus();
    await page.keyboard.press('Tab');
    expect(await region.evaluate((el) => el === document.activeElement)).toBe(true);
    await page.keyboard.press('PageDown');
    await page.waitForFunction(() => document.activeElement!.scrollTop > 0);
    await ctx.close();
  });

  for (const theme of ['light', 'dark'] as const) {
    test(`status colours keep AA contrast in the ${theme} theme`, async () => {
      const { ctx, page } = await signedIn({ theme });
      const card = (title: string) => page.locator('[data-card]').filter({ has: page.getByRole('heading', { name: title }) });
      await card('Last Scan').getByText('OK', { exact: true }).waitFor();
      const texts: [string, Locator][] = [
        ['demo badge', page.getByRole('banner').getByText('Demo account')],
        ['green "OK"', card('Last Scan').getByText('OK', { exact: true })],
        ['orange "+N new today"', card('Active Alerts').getByText(/^\+\d+$/)],
        ['red change badge', page.getByRole('list', { name: 'Recent price changes' }).getByLabel(/^Up /).first()],
        [
          'grey change badge',
          page
            .getByRole('list', { name: 'Recent price changes' })
            .getByLabel(/^Down /)
            .first(),
        ],
        [
          'unread count',
          page
            .getByRole('banner')
            .getByRole('button', { name: /^Notifications/ })
            .locator('xpath=following-sibling::span'),
        ],
      ];
      const tooFaint: string[] = [];
      for (const [what, locator] of texts) {
        const ratio = await contrastOf(locator);
        if (ratio < 4.5) tooFaint.push(`${what}: ${ratio.toFixed(2)}:1`);
      }
      expect(tooFaint).toEqual([]);

      await page.goto(product.url + '/products');
      const change = page.getByRole('list', { name: 'Products' }).getByText(/^[+-]\d+\.\d%$/);
      await change.waitFor();
      expect(await contrastOf(change)).toBeGreaterThanOrEqual(4.5);
      await ctx.close();
    });
  }
});
