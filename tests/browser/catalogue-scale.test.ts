import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { createContext } from '../../api/create-context.ts';
import { loadConfig } from '../../api/config.ts';
import { createApp } from '../../api/server.ts';
import { signInDemo } from '../../api/testing/sign-in.ts';
import { startTrial } from '../../api/testing/plans.ts';
import { catalogueProductName as productName, seedCatalogue } from '../../api/testing/catalogue.ts';
import {
  axeViolations,
  browserAvailable,
  describeViolations,
  freePort,
  launchBrowser,
  newContext,
  openProducts,
  startProduct,
  type RunningProduct,
} from './harness.ts';

/**
 * The signed-in screens with a real catalogue: 1,000 products with a year of daily checks each
 * (365,000 observations), written to the product's data directory before it starts, beside a
 * user with 3. Prints how long each screen takes from navigation to usable for both; the figures
 * are for reading, not pass/fail. What must hold: a page of cards renders, not the catalogue.
 */

const PRODUCTS = 1_000;
const DAYS = 365;
/** Two shop owners on one product: a big catalogue, and the few products a trial starts with. */
const BIG = 'catalogue-scale@example.com';
const SMALL = 'three-products@example.com';
/** Seeding a year of checks for 1,000 products takes a minute or two in the embedded database. */
const SEED_TIMEOUT = 600_000;

const SHOTS = join(import.meta.dir, '../../test-results/catalogue');
let product: RunningProduct;
let browser: Browser;

beforeAll(async () => {
  if (!browserAvailable) return;
  mkdirSync(SHOTS, { recursive: true });
  const dataDir = mkdtempSync(join(tmpdir(), 'pricewatch-scale-'));
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const ctx = await createContext(loadConfig({ NODE_ENV: 'development', PORT: String(port), PUBLIC_URL: url, DATA_DIR: dataDir }));
  const app = createApp(ctx);
  for (const [email, products] of [
    [BIG, PRODUCTS],
    [SMALL, 3],
  ] as const) {
    const user = await signInDemo(app, url, email);
    await startTrial(ctx, user.userId, 'pro');
    await seedCatalogue(ctx, user.userId, { products, days: DAYS });
  }
  await ctx.close();
  product = await startProduct({ CHECK_WORKER: 'off' }, { dataDir, port });
  browser = await launchBrowser();
}, SEED_TIMEOUT);
afterAll(async () => {
  await browser?.close();
  await product?.stop();
}, 60_000);

/**
 * Milliseconds from the start of this page's navigation until `count(selector)` satisfies `ready`,
 * checked every frame (functions, not strings: the pages' policy forbids evaluating strings).
 */
async function msUntil(page: Page, selector: string, ready: 'some' | 'one' = 'some'): Promise<number> {
  await page.waitForFunction(
    ([sel, want]) => {
      const n = document.querySelectorAll(sel!).length;
      return want === 'one' ? n === 1 : n > 0;
    },
    [selector, ready],
    { polling: 'raf', timeout: 30_000 },
  );
  return page.evaluate(() => Math.round(performance.now()));
}

const cards = '[aria-label="Products"] > li';

type Figures = { dashboard: number; products: number; cards: number; search: number; history: number; chart: number };

/** Signs in as `email` (who tracks `count` products) and times each screen from navigation to usable. */
async function timeScreens(email: string, count: number): Promise<Figures> {
  const ctx = await newContext(browser);
  const page = await ctx.newPage();
  await page.goto(`${product.url}/api/auth/demo?email=${encodeURIComponent(email)}`);
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();

  await page.goto(`${product.url}/dashboard`);
  const dashboard = await msUntil(page, '[data-card="products"]');
  expect(await page.locator('[data-card="products"]').textContent()).toContain(String(count));

  await page.goto(`${product.url}/products`);
  const products = await msUntil(page, cards);
  const shown = await page.locator(cards).count();
  if (shown < count) {
    // The rest come a page at a time as the list scrolls (or with the button).
    await page.getByRole('button', { name: /^Show more products/ }).scrollIntoViewIfNeeded();
    await page.waitForFunction(([sel, n]) => document.querySelectorAll(sel as string).length > (n as number), [cards, shown] as const);
  }

  // Typing a search narrows the list on the next frames, not after a pause.
  const last = productName(count - 1);
  const typed = await page.evaluate(() => performance.now());
  await page.getByRole('searchbox', { name: 'Search products' }).fill(last.toLowerCase());
  const search = Math.round((await msUntil(page, cards, 'one')) - typed);
  await page.locator(cards).getByRole('heading', { name: last }).waitFor();

  await page.goto(`${product.url}/price-history`);
  const history = await msUntil(page, '[data-sparkline]');
  await page.getByRole('searchbox', { name: 'Search products' }).fill(productName(0));
  const opened = await page.evaluate(() => performance.now());
  await page.getByRole('button', { name: productName(0), exact: true }).click();
  await page.getByRole('dialog', { name: productName(0) }).waitFor();
  const chart = Math.round((await msUntil(page, '[role="dialog"] canvas')) - opened);
  await ctx.close();
  return { dashboard, products, cards: shown, search, history, chart };
}

const describeFigures = (count: number, f: Figures) =>
  `${String(count).padStart(5)} products: dashboard ${f.dashboard} ms, Products ${f.products} ms (${f.cards} cards rendered), ` +
  `search ${f.search} ms, Price History ${f.history} ms, history dialog chart ${f.chart} ms`;

describe.skipIf(!browserAvailable)(`screens with ${PRODUCTS.toLocaleString('en-GB')} products and a year of history`, () => {
  test('Products, search, Price History and the dashboard are as quick as with 3 products', async () => {
    const big = await timeScreens(BIG, PRODUCTS);
    const small = await timeScreens(SMALL, 3);
    console.log(
      `Each product checked daily for ${DAYS} days; from navigation start, Chromium headless:\n${describeFigures(PRODUCTS, big)}\n${describeFigures(3, small)}`,
    );
    // A page of cards, not the whole catalogue, is rendered at first.
    expect(big.cards).toBeLessThan(PRODUCTS);
    expect(small.cards).toBe(3);
  }, 120_000);

  for (const mobile of [false, true]) {
    for (const theme of ['light', 'dark'] as const) {
      const size = mobile ? '390' : '1280';
      test(`Show more at the end of Products and Price History at ${size} px, ${theme}: no serious accessibility violation`, async () => {
        const { ctx, page } = await openProducts(browser, product, BIG, { mobile, theme });
        const failures: string[] = [];
        for (const path of ['/products', '/price-history']) {
          if (path !== '/products') await page.goto(product.url + path);
          const more = page.getByRole('button', { name: /^Show more products/ });
          await more.scrollIntoViewIfNeeded();
          await page.screenshot({ path: join(SHOTS, `show-more${path.replace('/', '-')}-${size}-${theme}.png`) });
          const violations = await axeViolations(page);
          if (violations.length) failures.push(`${path}:\n${describeViolations(violations)}`);
        }
        await ctx.close();
        expect(failures).toEqual([]);
      }, 60_000);
    }
  }
});
