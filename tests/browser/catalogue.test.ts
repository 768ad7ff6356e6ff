import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import {
  axeViolations,
  browserAvailable,
  describeViolations,
  launchBrowser,
  SETUP_TIMEOUT,
  startProduct,
  type RunningProduct,
  openProducts,
} from './harness.ts';

/**
 * The Products screen's catalogue tools: Import CSV (file picker, preview, errors, confirm),
 * selection with the bulk bar (delete two), and the Export CSV download. Also axe-core on the
 * import dialog and the bulk bar in both themes at 390 and 1280 px, with screenshots in
 * test-results/catalogue for a look.
 */

let product: RunningProduct;
let browser: Browser;
const SHOTS = join(import.meta.dir, '../../test-results/catalogue');

beforeAll(async () => {
  if (!browserAvailable) return;
  mkdirSync(SHOTS, { recursive: true });
  product = await startProduct({ CHECK_WORKER: 'off' });
  browser = await launchBrowser();
}, SETUP_TIMEOUT);
afterAll(async () => {
  await browser?.close();
  await product?.stop();
}, SETUP_TIMEOUT);

const card = (page: Page, name: string) =>
  page
    .getByRole('list', { name: 'Products' })
    .getByRole('listitem')
    .filter({ has: page.getByRole('heading', { name, exact: true }) });
const toast = (page: Page, text: string) => page.getByRole('region', { name: /notifications/i, includeHidden: true }).getByText(text, { exact: true });

const csvFile = (name: string, text: string) => ({ name, mimeType: 'text/csv', buffer: Buffer.from(text) });
const GOOD =
  'name,url,selector,threshold,notes\n' +
  '"Kettle, steel",https://shop.example.com/kettle,.price,-10,first\n' +
  'Toaster,https://shop.example.com/toaster,.price,any,\n' +
  'Blender,https://shop.example.com/blender,.price,,\n' +
  'Blender again,https://shop.example.com/blender#top,.price,none,\n';
const BAD = 'name,url,selector,threshold\nKettle,not a url,.price,-10\n,https://shop.example.com/x,,none\n';

describe.skipIf(!browserAvailable)('catalogue tools on the products screen', () => {
  test('import a CSV with preview and errors, select two products and delete them, export downloads', async () => {
    const { ctx, page } = await openProducts(browser, product, 'catalogue@example.com');
    await page.getByText('No products yet').waitFor();

    // A file with errors: every error is shown and nothing can be imported.
    await page.getByRole('button', { name: 'Import CSV' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import CSV' });
    await dialog.waitFor();
    await dialog.getByLabel('CSV file').setInputFiles(csvFile('bad.csv', BAD));
    await dialog.getByText('2 rows have errors. Fix them and choose the file again.').waitFor();
    await dialog.getByText('Line 2, url: Please enter a valid URL').waitFor();
    await dialog.getByText('Line 3, name: Product name is required').waitFor();
    await dialog.getByText('Line 3, selector: CSS selector is required').waitFor();
    expect(await dialog.getByRole('button', { name: 'Import', exact: true }).isDisabled()).toBe(true);

    // The template downloads with the header and an example row.
    const [template] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('link', { name: 'Download template' }).click()]);
    expect(template.suggestedFilename()).toBe('pricewatch-products-template.csv');
    expect(readFileSync((await template.path())!, 'utf8')).toStartWith('name,url,selector,threshold,notes\r\n');

    // A good file: a preview of its rows and of the duplicate, then the import.
    await dialog.getByLabel('CSV file').setInputFiles(csvFile('products.csv', GOOD));
    await dialog.getByRole('cell', { name: 'Kettle, steel' }).waitFor();
    await dialog.getByText('3 products will be added. 1 row will be skipped: already tracked or repeated in the file.').waitFor();
    await dialog.getByText('Line 5: https://shop.example.com/blender#top (repeated in the file)').waitFor();
    await dialog.getByRole('button', { name: 'Import 3 products' }).click();
    await dialog.waitFor({ state: 'detached' });
    await toast(page, '3 products added. 1 duplicate skipped.').waitFor();
    for (const name of ['Kettle, steel', 'Toaster', 'Blender']) await card(page, name).waitFor();

    // Select two and delete them through the bulk bar.
    await page.getByRole('checkbox', { name: 'Select Kettle, steel' }).check();
    await page.getByRole('checkbox', { name: 'Select Toaster' }).check();
    const bar = page.getByRole('region', { name: 'Bulk actions' });
    await bar.getByText('2 selected').waitFor();
    await bar.getByRole('button', { name: 'Delete' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Delete 2 products?' });
    await confirm.getByText('Are you sure you want to delete these 2 products? This action cannot be undone.').waitFor();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await toast(page, '2 products no longer monitored.').waitFor();
    await card(page, 'Kettle, steel').waitFor({ state: 'detached' });
    await card(page, 'Toaster').waitFor({ state: 'detached' });
    await card(page, 'Blender').waitFor();
    await bar.waitFor({ state: 'detached' });

    // Select all matching the search, then set the alert threshold of them.
    await page.getByRole('searchbox', { name: 'Search products' }).fill('blend');
    await page.getByRole('button', { name: 'Select all matching (1)' }).click();
    await bar.getByRole('button', { name: 'Set alert threshold' }).click();
    const threshold = page.getByRole('dialog', { name: 'Set alert threshold' });
    await threshold.getByRole('button', { name: 'Apply' }).click();
    await toast(page, '1 product updated.').waitFor();
    await card(page, 'Blender').getByText('10% drop').waitFor();

    // Export: a CSV download of what is left.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^pricewatch-products-\d{4}-\d{2}-\d{2}\.csv$/);
    const exported = readFileSync((await download.path())!, 'utf8')
      .trimEnd()
      .split('\r\n');
    expect(exported[0]).toBe('name,url,selector,threshold,currentPrice,currency,lastChecked,checkStatus');
    expect(exported.slice(1)).toEqual(['Blender,https://shop.example.com/blender,.price,-10,,GBP,,pending']);
    await ctx.close();
  }, 60_000);

  for (const mobile of [false, true]) {
    for (const theme of ['light', 'dark'] as const) {
      const size = mobile ? '390' : '1280';
      test(`import dialog and bulk bar at ${size} px, ${theme}: no serious accessibility violation`, async () => {
        const { ctx, page } = await openProducts(browser, product, `look-${size}-${theme}@example.com`, { mobile, theme });
        const failures: string[] = [];
        const check = async (what: string) => {
          const violations = await axeViolations(page);
          if (violations.length) failures.push(`${what}:\n${describeViolations(violations)}`);
        };
        await page.request.post(`${product.url}/api/products/import`, {
          headers: { Origin: product.url, 'content-type': 'text/csv' },
          data: GOOD.split('\n').slice(0, 3).join('\n'),
        });
        await page.reload();
        await card(page, 'Toaster').waitFor();

        await page.getByRole('button', { name: 'Import CSV' }).click();
        const dialog = page.getByRole('dialog', { name: 'Import CSV' });
        await dialog.getByLabel('CSV file').setInputFiles(csvFile('mixed.csv', `${GOOD}Lamp,nope,.p,-10\n`));
        await dialog.getByText('Line 6, url: Please enter a valid URL').waitFor();
        await page.screenshot({ path: join(SHOTS, `import-errors-${size}-${theme}.png`) });
        await check('import dialog with errors');
        await dialog
          .getByLabel('CSV file')
          .setInputFiles(
            csvFile('more.csv', 'name,url,selector,threshold\nLamp,https://shop.example.com/lamp,.p,-10\nKettle,https://shop.example.com/kettle,.p,none\n'),
          );
        await dialog.getByText('1 product will be added. 1 row will be skipped: already tracked or repeated in the file.').waitFor();
        await page.screenshot({ path: join(SHOTS, `import-preview-${size}-${theme}.png`) });
        await check('import dialog with a preview');
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });

        await page.getByRole('button', { name: 'Select all (2)' }).click();
        await page.getByRole('region', { name: 'Bulk actions' }).getByText('2 selected').waitFor();
        await page.screenshot({ path: join(SHOTS, `bulk-bar-${size}-${theme}.png`), fullPage: true });
        await check('bulk bar');
        expect(failures).toEqual([]);
        await ctx.close();
      }, 60_000);
    }
  }
});
