import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subprocess } from 'bun';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Browser tests need Debian's Chromium; without it they are skipped unless REQUIRE_BROWSER=1. */
export const browserAvailable = existsSync(CHROMIUM);
if (!browserAvailable && process.env.REQUIRE_BROWSER === '1') throw new Error(`Chromium not found at ${CHROMIUM}`);
if (!browserAvailable) console.warn(`Skipping browser tests: no Chromium at ${CHROMIUM} (apt-get install -y chromium).`);

export async function freePort(): Promise<number> {
  const s = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

export type RunningProduct = { url: string; dataDir: string; stop(): Promise<void> };

/**
 * Starts the product the way `npm start` does (one process, embedded database in a fresh data
 * directory, demo mode) on a free port, and waits until it answers. The site must be built.
 * A `dataDir` filled beforehand (see `freePort` for its address) starts the product on that data.
 */
export async function startProduct(env: Record<string, string> = {}, opts: { dataDir?: string; port?: number } = {}): Promise<RunningProduct> {
  const port = opts.port ?? (await freePort());
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'pricewatch-browser-'));
  const url = `http://localhost:${port}`;
  const proc: Subprocess = Bun.spawn([process.execPath, 'api/main.ts'], {
    cwd: join(import.meta.dir, '../..'),
    env: { ...process.env, DATABASE_URL: '', NODE_ENV: 'development', PORT: String(port), PUBLIC_URL: url, DATA_DIR: dataDir, HOST: '127.0.0.1', ...env },
    stdout: 'pipe',
    stderr: 'inherit',
  });
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/api/auth/user`)).status === 401) break;
    } catch {}
    if (proc.exitCode !== null || proc.signalCode !== null) throw new Error(`The product exited (${proc.exitCode ?? proc.signalCode})`);
    if (Date.now() > deadline) {
      proc.kill();
      throw new Error('The product did not start within 60 s');
    }
    await Bun.sleep(200);
  }
  return {
    url,
    dataDir,
    async stop() {
      proc.kill('SIGTERM');
      await proc.exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/**
 * A new browser profile, optionally at a phone's size. Every page in it must keep to the product's
 * Content-Security-Policy: each violation the browser reports is recorded, and closing the context
 * fails with the list, so every browser test also proves the policy fits the pages.
 */
export async function newContext(browser: Browser, opts: { mobile?: boolean; javaScript?: boolean; timezoneId?: string } = {}): Promise<BrowserContext> {
  const context = await browser.newContext({
    viewport: opts.mobile ? { width: 390, height: 844 } : { width: 1280, height: 900 },
    javaScriptEnabled: opts.javaScript ?? true,
    timezoneId: opts.timezoneId,
  });
  const violations: string[] = [];
  await context.exposeBinding('__cspViolation', ({ frame }, text: string) => {
    violations.push(`${frame.url()}: ${text}`);
  });
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) => {
      const report = (window as unknown as { __cspViolation: (text: string) => void }).__cspViolation;
      report(`${e.effectiveDirective} refused ${e.blockedURI || 'inline'} (${e.sourceFile || 'page'}:${e.lineNumber})`);
    });
  });
  const close = context.close.bind(context);
  context.close = async (options) => {
    await close(options);
    if (violations.length) throw new Error(`Content-Security-Policy violations:\n${violations.join('\n')}`);
  };
  return context;
}

export const SETUP_TIMEOUT = 90_000;

/**
 * Waits until focus lands where `landed` says. Dialogs move focus in an animation frame, which a
 * page behind the windows of concurrent tests does not get, so the page is brought to the front first.
 */
export async function waitForFocus(page: Page, landed: () => boolean): Promise<void> {
  await page.bringToFront();
  await page.waitForFunction(landed);
}

/**
 * WCAG contrast of an element's text against what shows behind it: the backgrounds of it and its
 * ancestors, composited up to the first opaque one. Colours go through a canvas, so any CSS colour works.
 */
export function contrastOf(locator: Locator): Promise<number> {
  return locator.evaluate((el) => {
    const c = document.createElement('canvas').getContext('2d', { willReadFrequently: true })!;
    const rgba = (color: string): number[] => {
      c.clearRect(0, 0, 1, 1);
      c.fillStyle = color;
      c.fillRect(0, 0, 1, 1);
      const [r, g, b, a] = c.getImageData(0, 0, 1, 1).data;
      return [r!, g!, b!, a! / 255];
    };
    const over = (top: number[], below: number[]) => [0, 1, 2].map((i) => top[i]! * top[3]! + below[i]! * (1 - top[3]!)).concat(1);
    const layers: number[][] = [];
    for (let node: Element | null = el; node; node = node.parentElement) {
      const bg = rgba(getComputedStyle(node).backgroundColor);
      if (bg[3]! > 0) layers.push(bg);
      if (bg[3] === 1) break;
    }
    const background = layers.reduceRight((below, top) => over(top, below), [255, 255, 255, 1]);
    const text = over(rgba(getComputedStyle(el).color), background);
    const luminance = (rgb: number[]) => {
      const [r, g, b] = rgb.slice(0, 3).map((v) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    const [hi, lo] = [luminance(text), luminance(background)].sort((a, b) => b - a);
    return (hi! + 0.05) / (lo! + 0.05);
  });
}

/** axe-core's rule engine, read once; injected into pages by `axeViolations`. */
let axeSource: string | undefined;

export type AxeViolation = { id: string; impact: string | null; help: string; nodes: { target: string[]; failureSummary: string }[] };

/**
 * The serious and critical accessibility violations axe-core finds on the page as it is now (WCAG 2.2
 * A and AA rules and axe's best practices). axe is evaluated in the page's main world: a script tag
 * would be refused by the Content-Security-Policy, an evaluation is not subject to it.
 */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  axeSource ??= await Bun.file(Bun.resolveSync('axe-core/axe.min.js', import.meta.dir)).text();
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    const { violations } = await axe.run(document, { resultTypes: ['violations'] });
    return violations.map(({ id, impact, help, nodes }) => ({
      id,
      impact,
      help,
      nodes: nodes.map(({ target, failureSummary }) => ({ target: target.map(String), failureSummary: failureSummary ?? '' })),
    }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Violations as lines a person can act on: rule, impact, summary, and each element with what is wrong. */
export function describeViolations(violations: AxeViolation[]): string {
  return violations
    .map(
      (v) => `${v.id} (${v.impact}): ${v.help}\n${v.nodes.map((n) => `  ${n.target.join(' ')}\n    ${n.failureSummary.replace(/\n/g, '\n    ')}`).join('\n')}`,
    )
    .join('\n');
}

export type TrackedHistory = { product: RunningProduct; browser: Browser; stop(): Promise<void> };

/**
 * The product running with one demo user (`email`) who tracks `name` on a small local shop, checked
 * once per price in `prices`: a price history with its alerts and unread notifications.
 */
export async function productWithHistory(opts: { email: string; name: string; prices: readonly string[] }): Promise<TrackedHistory> {
  let shopPrice = opts.prices[0]!;
  const shop = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch: () =>
      new Response(`<!doctype html><title>Grinder</title><h1>Grinder</h1><p class="price">£${shopPrice}</p>`, {
        headers: { 'content-type': 'text/html; charset=utf-8' },
      }),
  });
  const product = await startProduct({ CHECK_ALLOW_PRIVATE: 'true', CHECK_WORKER: 'off' });
  const browser = await launchBrowser();
  const ctx = await newContext(browser);
  const page = await ctx.newPage();
  await page.goto(`${product.url}/api/auth/demo?email=${encodeURIComponent(opts.email)}`);
  const post = async (path: string, data?: unknown) => {
    const res = await page.request.post(product.url + path, { data, headers: { origin: product.url } });
    if (!res.ok()) throw new Error(`${path}: ${res.status()} ${await res.text()}`);
    return res.json();
  };
  const { id } = await post('/api/products', { name: opts.name, url: `http://127.0.0.1:${shop.port}/grinder`, selector: '.price', threshold: 'any' });
  for (const price of opts.prices) {
    shopPrice = price;
    const checked = await post(`/api/products/${id}/check-price`);
    if (!checked.success) throw new Error(`check at ${price}: ${JSON.stringify(checked)}`);
  }
  await ctx.close();
  return {
    product,
    browser,
    async stop() {
      await browser.close();
      await product.stop();
      shop.stop(true);
    },
  };
}

/** A fresh browser context signed in as demo user `email`, on the Products screen; in a theme when given. */
export async function openProducts(
  browser: Browser,
  product: RunningProduct,
  email: string,
  opts: { mobile?: boolean; theme?: 'light' | 'dark' } = {},
): Promise<{ ctx: BrowserContext; page: Page }> {
  const ctx = await newContext(browser, { mobile: opts.mobile });
  if (opts.theme) await ctx.addInitScript(`localStorage.setItem('vite-ui-theme', '${opts.theme}')`);
  const page = await ctx.newPage();
  await page.goto(`${product.url}/api/auth/demo?email=${encodeURIComponent(email)}`);
  await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
  await page.goto(`${product.url}/products`);
  await page.getByRole('heading', { name: 'Products', level: 1 }).waitFor();
  return { ctx, page };
}
