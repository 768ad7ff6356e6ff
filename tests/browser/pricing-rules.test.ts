import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Server } from 'bun';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axeViolations, browserAvailable, describeViolations, launchBrowser, newContext, SETUP_TIMEOUT, startProduct, type RunningProduct } from './harness.ts';
import { backtestSummary } from '../../site/src/lib/pricing.ts';

/**
 * Pricing rules and recommendations: the owner's cost and a rule set in a product's dialog, with a
 * refusal shown at its field, the live preview (the recommendation, its reasons, evidence and
 * bounds) and the backtest's summary and chart; the dashboard's count of waiting recommendations;
 * the Recommendations view (empty, waiting, apply, undo, apply all); and axe-core on the dialog and
 * the view in both themes at 390 and 1280 px.
 */

let product: RunningProduct;
let browser: Browser;
let shop: Server<undefined>;

/** Sets the rule in the browser, from an empty start. */
const OWNER = 'rules-owner@example.com';
/** Rules set beforehand: one waiting, one held, one applied; for the accessibility checks, which change nothing. */
const AXE_OWNER = 'rules-axe@example.com';

/** Competitor pages: the price as their structured data states it, in pounds. */
const PAGES: Record<string, string> = {
  'a/kettle': '105.00',
  'b/kettle': '112.00',
  'a/grinder': '89.00',
  'a/toaster': '44.00',
  'b/toaster': '46.00',
};

const KETTLE = 'Kettle 1.7L Brushed Steel';
/** Beat the cheapest (£105.00) by 1%, never under cost + 10%, ending in .99: £110.00 → £102.99. */
const BEAT = { strategy: 'beat-cheapest', offsetPercent: 1, floor: { costMarginPercent: 10 }, rounding: '.99' };
/** The preview's reasons; the competitor is named by its host, the shop's address. */
const explanation = () => [
  `Cheapest counted competitor: 127.0.0.1:${shop.port} at £105.00 (checked just now).`,
  'Beat by 1% → £103.95.',
  'Rounded down .99 → £102.99.',
  'Within your floor of £88.00 (cost £80.00 + 10%) and step limit of 10%.',
];

beforeAll(async () => {
  if (!browserAvailable) return;
  shop = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname.slice(1);
      const price = PAGES[path];
      if (!price) return new Response('Not found', { status: 404 });
      const offer = { '@type': 'Offer', price, priceCurrency: 'GBP', availability: 'https://schema.org/InStock' };
      const ld = JSON.stringify({ '@context': 'https://schema.org', '@type': 'Product', name: path, offers: offer });
      const html = `<!doctype html><html><head><title>${path}</title><script type="application/ld+json">${ld}</script></head>
        <body><h1>${path}</h1><p class="price">£${price}</p></body></html>`;
      return new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8' } });
    },
  });
  // Only the test's own checks: no scheduled check moves a price behind its back.
  product = await startProduct({ CHECK_ALLOW_PRIVATE: 'true', CHECK_WORKER: 'off' });
  browser = await launchBrowser();
  await seed(OWNER, { rules: false });
  await seed(AXE_OWNER, { rules: true });
}, SETUP_TIMEOUT);
afterAll(async () => {
  await browser?.close();
  await product?.stop();
  shop?.stop(true);
}, SETUP_TIMEOUT);

const shopUrl = (path: string) => `http://127.0.0.1:${shop.port}/${path}`;

async function call(page: Page, method: 'GET' | 'POST' | 'PUT' | 'PATCH', path: string, data?: unknown, headers: Record<string, string> = {}) {
  const res = await page.request.fetch(product.url + path, { method, data, headers: { origin: product.url, ...headers } });
  if (!res.ok()) throw new Error(`${method} ${path}: ${res.status()} ${await res.text()}`);
  return res.json();
}

/**
 * An owner on Starter with three own products from a CSV file (the kettle without a cost, which
 * the browser sets), each linked to competitor products checked once: the kettle to two, the
 * grinder to one, the toaster to two. With `rules`, the kettle costs £80 and has the beat rule
 * (waiting), the grinder a rule it cannot follow with one competitor (held), and the toaster's
 * recommendation is applied.
 */
async function seed(email: string, { rules }: { rules: boolean }) {
  const ctx = await newContext(browser);
  const page = await ctx.newPage();
  await page.goto(`${product.url}/api/auth/demo?email=${email}`);
  await call(page, 'POST', '/api/billing/create-trial-setup');
  await call(page, 'POST', '/api/billing/create-subscription', { plan: 'starter', paymentMethodId: 'pm_demo_visa4242' });
  const csv =
    'sku,title,price,currency,cost\n' +
    `K-1,${KETTLE},110.00,GBP,\n` +
    'G-2,Burr Coffee Grinder,90.00,GBP,60.00\n' +
    'T-4,4 Slice Toaster Black,50.00,GBP,30.00\n';
  expect((await call(page, 'POST', '/api/catalogue/import', csv, { 'content-type': 'text/csv' })).created).toBe(3);
  const own = new Map<string, string>((await call(page, 'GET', '/api/catalogue')).map((e: { sku: string; id: string }) => [e.sku, e.id]));
  const add = async (name: string, path: string) => {
    const { id } = await call(page, 'POST', '/api/products', { name, url: shopUrl(path), selector: '.price', threshold: 'none' });
    expect((await call(page, 'POST', `/api/products/${id}/check-price`)).success).toBe(true);
    return id as string;
  };
  const links: [string, string, string][] = [
    ['K-1', 'Acme Kettle', 'a/kettle'],
    ['K-1', 'Bravo Kettle', 'b/kettle'],
    ['G-2', 'Acme Grinder', 'a/grinder'],
    ['T-4', 'Acme Toaster', 'a/toaster'],
    ['T-4', 'Bravo Toaster', 'b/toaster'],
  ];
  for (const [sku, name, path] of links) await call(page, 'PUT', `/api/catalogue/${own.get(sku)}/competitors/${await add(name, path)}`);
  if (rules) {
    await call(page, 'PATCH', `/api/catalogue/${own.get('K-1')}`, { cost: 80 });
    await call(page, 'PUT', `/api/catalogue/${own.get('K-1')}/rule`, BEAT);
    await call(page, 'PUT', `/api/catalogue/${own.get('G-2')}/rule`, { strategy: 'match-cheapest', floor: { costMarginPercent: 5 } });
    await call(page, 'PUT', `/api/catalogue/${own.get('T-4')}/rule`, { strategy: 'match-cheapest', floor: { amount: 35 }, maxStepPercent: 20 });
    expect((await call(page, 'POST', `/api/catalogue/${own.get('T-4')}/recommendation/apply`, { price: 44 })).decision.kind).toBe('applied');
  }
  await ctx.close();
}

async function signedIn(email: string, opts: { mobile?: boolean; theme?: 'light' | 'dark' } = {}): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await newContext(browser, { mobile: opts.mobile });
  if (opts.theme) await ctx.addInitScript(`localStorage.setItem('vite-ui-theme', '${opts.theme}')`);
  const page = await ctx.newPage();
  await page.goto(`${product.url}/api/auth/demo?email=${encodeURIComponent(email)}`);
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  return { ctx, page };
}

const toast = (page: Page, text: string) => page.getByRole('region', { name: /notifications/i, includeHidden: true }).getByText(text, { exact: true });
/** The waiting new prices: a table on wide screens, cards on phones; only one of them shows. */
const waitingList = (page: Page) => page.getByRole('table', { name: 'New prices waiting' }).or(page.getByRole('list', { name: 'New prices waiting' }));
const otherList = (page: Page) => page.getByRole('list', { name: 'Other products with a rule' });

async function openKettle(page: Page) {
  await page.goto(`${product.url}/catalogue`);
  await page.getByRole('button', { name: KETTLE, exact: true }).click();
  return page.getByRole('dialog', { name: KETTLE });
}

describe.skipIf(!browserAvailable)('pricing rules', () => {
  test('a rule set in the dialog with its live preview, then applied from the Recommendations view', async () => {
    const { ctx, page } = await signedIn(OWNER);

    // No rule yet: the Recommendations view says how to get one.
    await page.goto(`${product.url}/catalogue?view=recommendations`);
    await page.getByRole('heading', { name: 'No recommendations yet' }).waitFor();
    await page.getByText('Set a pricing rule on a product to get recommendations', { exact: false }).waitFor();
    expect(await page.getByRole('group', { name: 'Catalogue view' }).getByRole('button', { name: 'Recommendations' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    await page.getByRole('group', { name: 'Catalogue view' }).getByRole('button', { name: 'Products' }).click();
    await page.waitForURL(`${product.url}/catalogue`);

    const dialog = await openKettle(page);
    const rule = dialog.getByRole('region', { name: 'Pricing rule' });
    await rule.getByText('No rule', { exact: true }).waitFor();
    await rule.getByRole('button', { name: 'Set a pricing rule' }).click();

    // Without a cost or an amount the rule has no floor: the preview's refusal stands at the floor.
    const margin = rule.getByLabel('Margin over cost');
    await rule.getByText('A rule needs a floor: a margin over cost, an amount, or both').waitFor();
    await rule.getByText('The preview waits for a rule it can use: see the marked field.').waitFor();

    // A margin without a cost: the server names the floor amount, and the message stands under it.
    await margin.fill('10');
    const amount = rule.getByLabel('Lowest price');
    await rule.getByText('This product has no cost, so the floor needs an amount (or set the cost first)').waitFor();
    expect(await amount.getAttribute('aria-invalid')).toBe('true');

    // The cost, saved with the product: the floor is now cost + 10%.
    await rule.getByLabel('Your cost').fill('80');
    await rule.getByRole('button', { name: 'Save cost' }).click();
    await toast(page, 'Cost saved').waitFor();

    // Beat the cheapest by 1%, ending in .99.
    await rule.getByRole('combobox', { name: 'Strategy' }).click();
    await page.getByRole('option', { name: 'Beat the cheapest competitor' }).click();
    await rule.getByLabel('Under the cheapest by (%)').fill('1');
    await rule.getByRole('combobox', { name: 'Rounding' }).click();
    await page.getByRole('option', { name: 'End in .99' }).click();

    // The live preview: the recommendation, its reasons, the bounds and the observations it used.
    const preview = rule.getByTestId('recommendation');
    await preview.getByText('£102.99', { exact: true }).waitFor();
    await preview.getByText('New price', { exact: true }).waitFor();
    expect(await preview.getByRole('list', { name: 'Why' }).getByRole('listitem').allInnerTexts()).toEqual(explanation());
    expect((await preview.getByRole('definition').allInnerTexts()).map((t) => t.trim())).toEqual(['£88.00', 'none', 'rounding']);
    const evidence = (await preview.getByRole('list', { name: 'Competitor prices used' }).getByRole('listitem').allInnerTexts()).map((t) =>
      t.replace(/\s+/g, ' ').trim(),
    );
    expect(evidence.sort()).toEqual(['Acme Kettle £105.00 checked just now', 'Bravo Kettle £112.00 checked just now']);
    expect(await amount.getAttribute('aria-invalid')).toBeNull();

    // The backtest of the rule as typed: its summary as the API's answer reads, and its chart.
    const own: { id: string }[] = await call(page, 'GET', '/api/catalogue');
    const kettleId = (own as { id: string; sku: string }[]).find((e) => e.sku === 'K-1')!.id;
    const body = {
      ...BEAT,
      offsetAmount: null,
      ceiling: { amount: null, regular: false },
      maxStepPercent: 10,
      minCompetitors: 2,
      spikePercent: 40,
      competitors: null,
    };
    const answer = await call(page, 'POST', `/api/catalogue/${kettleId}/rule/backtest`, { rule: body, timeFilter: 'month' });
    expect(answer.recommendation.price).toBe(102.99);
    await rule.getByTestId('backtest-summary').getByText(backtestSummary(answer), { exact: true }).waitFor();
    await rule
      .getByRole('img', { name: /The rule's price, your actual price and the cheapest competitor/ })
      .locator('canvas')
      .waitFor();
    // Another range asks again.
    await rule.getByRole('combobox', { name: 'Time range' }).click();
    await page.getByRole('option', { name: 'Last 90 days' }).click();
    const quarter = await call(page, 'POST', `/api/catalogue/${kettleId}/rule/backtest`, { rule: body, timeFilter: 'quarter' });
    expect(quarter.days.length).toBeGreaterThan(answer.days.length);
    await rule.getByTestId('backtest-summary').getByText(backtestSummary(quarter), { exact: true }).waitFor();

    await rule.getByRole('button', { name: 'Save rule' }).click();
    await toast(page, 'Pricing rule saved').waitFor();
    await rule.getByText('Rule on', { exact: true }).waitFor();
    expect(await rule.getByRole('button', { name: 'Save rule' }).isDisabled()).toBe(true);
    expect((await call(page, 'GET', `/api/catalogue/${kettleId}/rule`)).offsetPercent).toBe(1);
    // (Escape would close the toasts first.)
    await dialog.getByRole('button', { name: 'Close', exact: true }).click();
    await dialog.waitFor({ state: 'detached' });

    // The dashboard counts it, and links to the Recommendations view.
    await page.goto(`${product.url}/dashboard`);
    await page.getByRole('link', { name: '1 recommendation waiting' }).click();
    await page.waitForURL(`${product.url}/catalogue?view=recommendations`);

    // Waiting: the product, current → recommended and the reason after the first sentence, all of them on request.
    await page.getByRole('heading', { name: '1 new price waiting' }).waitFor();
    const waiting = waitingList(page);
    await waiting.getByText(KETTLE, { exact: true }).waitFor();
    expect(await waiting.innerText()).toMatch(/£110\.00\s*(to\s*)?£102\.99/);
    await waiting.getByText(explanation().slice(1).join(' ').slice(0, 60), { exact: false }).waitFor();
    await waiting.getByRole('button', { name: `Show all reasons for ${KETTLE}` }).click();
    expect(
      await waiting
        .getByRole('list', { name: `Why: ${KETTLE}` })
        .getByRole('listitem')
        .allInnerTexts(),
    ).toEqual(explanation());
    expect(await page.getByRole('link', { name: 'Export new prices (CSV)' }).getAttribute('href')).toBe('/api/catalogue/recommendations/export.csv');

    // Applied: it leaves the waiting list, and says what the store must do; Undo brings it back.
    await waiting.getByRole('button', { name: `Apply £102.99 to ${KETTLE}` }).click();
    await toast(page, 'New price applied').waitFor();
    await page.getByRole('heading', { name: 'No new prices waiting' }).waitFor();
    expect(await waitingList(page).count()).toBe(0);
    const applied = otherList(page).getByRole('listitem').filter({ hasText: KETTLE });
    await applied.getByText('Applied', { exact: true }).waitFor();
    await applied.getByText('Applied: export the new prices and upload them to your store.').waitFor();
    await applied.getByRole('button', { name: `Undo the new price of ${KETTLE}` }).click();
    await toast(page, 'Price set back').waitFor();
    await page.getByRole('heading', { name: '1 new price waiting' }).waitFor();

    // Apply all.
    await page.getByRole('button', { name: 'Apply all (1)' }).click();
    await toast(page, '1 new price applied').waitFor();
    await page.getByRole('heading', { name: 'No new prices waiting' }).waitFor();
    expect(await call(page, 'GET', '/api/catalogue/recommendations')).toEqual([]);

    // The dashboard hides the line with nothing waiting.
    await page.goto(`${product.url}/dashboard`);
    await page.getByRole('heading', { name: 'Price position' }).waitFor();
    await page.getByText(/undercut today/).waitFor();
    expect(await page.getByRole('link', { name: /recommendations? waiting/ }).count()).toBe(0);
    await ctx.close();
  }, 120_000);

  test('the Recommendations view lists held, kept and applied products below the waiting ones', async () => {
    const { ctx, page } = await signedIn(AXE_OWNER);
    await page.getByRole('link', { name: '1 recommendation waiting' }).waitFor();
    await page.goto(`${product.url}/catalogue?view=recommendations`);
    await page.getByRole('heading', { name: '1 new price waiting' }).waitFor();
    const others = otherList(page).getByRole('listitem');
    const grinder = others.filter({ hasText: 'Burr Coffee Grinder' });
    await grinder.getByText('On hold', { exact: true }).waitFor();
    await grinder.getByText('Only 1 of 1 chosen competitors counted, and the rule needs 2', { exact: false }).waitFor();
    const toaster = others.filter({ hasText: '4 Slice Toaster Black' });
    await toaster.getByText('Applied', { exact: true }).waitFor();
    await toaster.getByRole('button', { name: 'Undo the new price of 4 Slice Toaster Black' }).waitFor();
    await ctx.close();
  }, 60_000);

  for (const theme of ['light', 'dark'] as const) {
    for (const mobile of [false, true]) {
      const width = mobile ? 390 : 1280;
      test.concurrent(`${theme} theme at ${width} px: no serious accessibility violation`, async () => {
        const { ctx, page } = await signedIn(AXE_OWNER, { mobile, theme });
        const failures: string[] = [];
        const check = async (what: string) => {
          await page.waitForFunction(() => !document.querySelector('[aria-busy="true"]'));
          const violations = await axeViolations(page);
          if (violations.length) failures.push(`${what}:\n${describeViolations(violations)}`);
        };
        await page.getByRole('link', { name: '1 recommendation waiting' }).waitFor();
        await check('dashboard with the waiting count');

        const dialog = await openKettle(page);
        const rule = dialog.getByRole('region', { name: 'Pricing rule' });
        await rule.getByTestId('recommendation').getByText('£102.99', { exact: true }).waitFor();
        await rule
          .getByRole('img', { name: /The rule's price/ })
          .locator('canvas')
          .waitFor();
        await dialog
          .getByRole('img', { name: /Your price, the cheapest competitor/ })
          .locator('canvas')
          .waitFor();
        await check('product dialog with its pricing rule');
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });

        await page.goto(`${product.url}/catalogue?view=recommendations`);
        await waitingList(page).getByText(KETTLE, { exact: true }).waitFor();
        await otherList(page).waitFor();
        await check('Recommendations view');
        await page.getByRole('button', { name: `Show all reasons for ${KETTLE}` }).click();
        await check('Recommendations view with all reasons shown');
        await ctx.close();
        if (failures.length) throw new Error(failures.join('\n\n'));
      }, 90_000);
    }
  }
});
