import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { SETUP_TIMEOUT, testContext } from '../testing/database.ts';
import { handleCommand } from '../../events/decider.ts';
import { checkpointOf } from '../../events/store.ts';
import { productDecider, productStream } from '../../events/product.ts';
import { createFetcher, type ResolvedAddress } from './fetcher.ts';
import { WEB_PORTS } from './address-guard.ts';
import { chromiumPath, createRenderer, NEEDS_BROWSER_REASON, type Renderer } from './browser.ts';
import { checkPage, recordOutcomes, STATIC_RETRY_RENDERS, type CheckOutcome, type CheckTarget } from '../checks/check.ts';
import { claimJobs, enqueueCheck } from '../checks/queue.ts';
import { readPage } from '../checks/read-page.ts';
import { parsePage } from '../reading/page.ts';
import { hasScripts, looksScriptRendered } from '../reading/script-rendered.ts';
import { detectPriceSelectors } from '../ai/detect.ts';

setDefaultTimeout(60_000);

/** Browser tests need Chromium; without it they are skipped unless REQUIRE_BROWSER=1. */
const browserAvailable = existsSync(chromiumPath());
if (!browserAvailable && process.env.REQUIRE_BROWSER === '1') throw new Error(`Chromium not found at ${chromiumPath()}`);
if (!browserAvailable) console.warn(`Skipping browser check tests: no Chromium at ${chromiumPath()} (apt-get install -y chromium).`);

// ---------------------------------------------------------------------------------------------
// A "public" shop (shop.test, served on 127.0.0.1) and a "private" service on 127.0.0.2 that
// stands in for an intranet or metadata endpoint: it counts every request that reaches it.

const requests = new Map<string, number>();
const requestsFor = (path: string) => requests.get(path) ?? 0;
let privateHits: string[] = [];
let shop: ReturnType<typeof Bun.serve>;
let internal: ReturnType<typeof Bun.serve>;
let shopUrl: string;
let internalOrigin: string;
let lateIsStatic = false;

const html = (body: string, status = 200, headers: Record<string, string> = {}) =>
  new Response(body, { status, headers: { 'content-type': 'text/html; charset=utf-8', ...headers } });
const page = (title: string, body: string) => `<!doctype html><html><head><title>${title}</title></head><body>${body}</body></html>`;

function startServers() {
  internal = Bun.serve({
    port: 0,
    hostname: '127.0.0.2',
    fetch(req) {
      privateHits.push(new URL(req.url).pathname);
      return new Response('{"secret":"instance credentials"}', { headers: { 'content-type': 'application/json', 'access-control-allow-origin': '*' } });
    },
  });
  internalOrigin = `http://127.0.0.2:${internal.port}`;
  shop = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      const { pathname } = new URL(req.url);
      requests.set(pathname, (requests.get(pathname) ?? 0) + 1);
      switch (pathname) {
        // A price written by a script once the page has loaded.
        case '/late':
          return html(
            lateIsStatic
              ? page('Kettle', '<h1>Kettle</h1><span class="price">£12.34</span><script>var x = 1;</script>')
              : page(
                  'Kettle',
                  `<h1>Kettle</h1><span class="price"></span>
            <script>addEventListener('load', () => setTimeout(() => { document.querySelector('.price').textContent = '£12.34'; }, 100));</script>`,
                ),
          );
        // An app shell whose whole page is built after 500 ms.
        case '/shell':
          return html(
            page(
              'Toaster',
              `<div id="root"></div><noscript>Please enable JavaScript to use this shop.</noscript>
            <script>setTimeout(() => { document.getElementById('root').innerHTML = '<h1>Toaster</h1><div class="buy"><span class="price">£45.00</span></div>'; }, 500);</script>`,
            ),
          );
        // A price fetched by XHR after 1 s.
        case '/xhr':
          return html(
            page(
              'Blender',
              `<h1>Blender</h1><span class="price">Loading…</span>
            <script>setTimeout(() => { const r = new XMLHttpRequest(); r.open('GET', '/api/price/blender');
              r.onload = () => { document.querySelector('.price').textContent = JSON.parse(r.responseText).price; }; r.send(); }, 1000);</script>`,
            ),
          );
        case '/api/price/blender':
          return Response.json({ price: '£78.50' });
        // A page that shows its price after 1.5 s: long enough to crash the browser under it.
        case '/slow':
          return html(
            page(
              'Mixer',
              `<h1>Mixer</h1><span class="price"></span>
            <script>setTimeout(() => { document.querySelector('.price').textContent = '£99.00'; }, 1500);</script>`,
            ),
          );
        // A price block as served, and the price a script writes where the user's selector looks.
        case '/late-block':
          return html(
            page(
              'Scales',
              `<h1>Scales</h1><div class="buy"><span class="amount">£30.00</span></div>
            <script>addEventListener('load', () => setTimeout(() => { document.querySelector('.buy').insertAdjacentHTML('beforeend', '<span class="live-price">£27.50</span>'); }, 100));</script>`,
            ),
          );
        // Static pages: one with a script that changes nothing, one without any script.
        case '/static':
          return html(page('Grill', '<h1>Grill</h1><span class="price">£20.00</span><script>window.analytics = [];</script>'));
        case '/plain':
          return html(page('Pan', '<h1>Pan</h1><span class="price">£5.00</span>'));
        // A page whose scripts reach for everything private they can think of.
        case '/ssrf':
          return html(
            page(
              'Fan',
              `<h1>Fan</h1><span class="price"></span>
            <script src="${internalOrigin}/script.js"></script>
            <iframe src="${internalOrigin}/iframe"></iframe>
            <img src="${internalOrigin}/img.png">
            <link rel="stylesheet" href="http://internal.test:${internal.port}/style.css">
            <script>
              const tries = [
                fetch('${internalOrigin}/fetch'),
                fetch('http://internal.test:${internal.port}/by-name'),
                fetch('http://169.254.169.254/latest/meta-data/'),
                fetch('http://metadata.google.internal/computeMetadata/v1/'),
                fetch('/to-private'),
                fetch('${internalOrigin}/post', { method: 'POST', body: 'x' }),
                new Promise((done) => { const x = new XMLHttpRequest(); x.open('GET', '${internalOrigin}/xhr'); x.onloadend = done; x.send(); }),
                new Promise((done) => { try { const w = new WebSocket('ws://127.0.0.2:${internal.port}/ws'); w.onerror = w.onclose = done; } catch { done(); } }),
                new Promise((done) => { try { const w = new Worker('${internalOrigin}/worker.js'); w.onerror = done; setTimeout(done, 300); } catch { done(); } }),
                new Promise((done) => { navigator.sendBeacon('${internalOrigin}/beacon', 'x'); setTimeout(done, 100); }),
              ];
              Promise.allSettled(tries).then(() => fetch('/api/price/fan')).then((r) => r.json())
                .then((j) => { document.querySelector('.price').textContent = j.price; });
            </script>`,
            ),
          );
        case '/api/price/fan':
          return Response.json({ price: '£33.00' });
        case '/to-private':
          return new Response(null, { status: 302, headers: { location: `${internalOrigin}/redirected` } });
        // The page itself moves to a private address.
        case '/moved-inside':
          return new Response(null, { status: 302, headers: { location: `http://internal.test:${internal.port}/landing` } });
        case '/moved':
          return new Response(null, { status: 301, headers: { location: '/late' } });
        default:
          return html('<h1>Not found</h1>', 404);
      }
    },
  });
  shopUrl = `http://shop.test:${shop.port}`;
}

// shop.test is "public" (it is the only name the guard lets through); internal.test is a name
// whose address is private, as a rebinding or intranet name would be.
async function resolveNames(host: string): Promise<ResolvedAddress[]> {
  if (host === 'shop.test') return [{ address: '127.0.0.1', family: 4 }];
  if (host === 'internal.test') return [{ address: '127.0.0.2', family: 4 }];
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
}
// The shop's random port stands in for a web port (pages' documents keep to those).
let fetcher: ReturnType<typeof createFetcher>;

type Ctx = Awaited<ReturnType<typeof testContext>>;
let ctx: Ctx;
let renderer: Renderer;

beforeAll(async () => {
  startServers();
  fetcher = createFetcher({
    resolve: resolveNames,
    isAllowedAddress: (ip) => ip === '127.0.0.1',
    webPorts: [...WEB_PORTS, shop.port!],
    hostSpacingMs: 0,
    maxConcurrentPerHost: 16,
    retryBaseDelayMs: 5,
  });
  // Private addresses are refused as in production: only the guard's allow-list lets the shop through.
  ctx = await testContext({ PUBLIC_URL: 'http://localhost:3000', CHECK_ALLOW_PRIVATE: 'false' });
  renderer = createRenderer({ fetcher, concurrency: 2, timeoutMs: 10_000 });
}, SETUP_TIMEOUT);
afterAll(async () => {
  await renderer?.close();
  shop.stop(true);
  internal.stop(true);
  await ctx.close();
}, SETUP_TIMEOUT);

async function addProduct(path: string, selector = '.price'): Promise<CheckTarget> {
  const productId = crypto.randomUUID();
  const userId = 'user-browser';
  const url = `${shopUrl}${path}`;
  const { appended } = await handleCommand(ctx.store, productStream(productId), productDecider, {
    type: 'Add',
    productId,
    userId,
    details: { name: 'Product', url, selector, alertRule: { kind: 'none' } },
  });
  await ctx.projections.waitFor(checkpointOf({ transactionId: appended!.transactionId, position: appended!.lastPosition }), 30_000);
  return { productId, userId, url, selector, lease: null };
}

async function check(target: CheckTarget, using: Renderer = renderer): Promise<CheckOutcome> {
  const [outcome] = await checkPage(ctx.config, target.url, [target], fetcher, { sql: ctx.sql, renderer: using });
  await recordOutcomes(ctx, [outcome!]);
  return outcome!;
}

const observed = (outcome: CheckOutcome) => {
  if (outcome.event.type !== 'PriceObserved') throw new Error(`expected a price, got ${JSON.stringify(outcome.event.data)}`);
  return outcome.event.data;
};

const memoryOf = async (productId: string) =>
  (await ctx.sql<{ renders_since_static: number }[]>`SELECT renders_since_static FROM check_render WHERE product_id = ${productId}`)[0] ?? null;

describe.skipIf(!browserAvailable)('pages that show their price with JavaScript', () => {
  test('a price written by a script after load is read from the rendered page, and the page is remembered', async () => {
    const target = await addProduct('/late');
    const outcome = await check(target);
    expect(observed(outcome)).toMatchObject({ price: 12.34, currency: 'GBP', source: 'selector', fetcher: 'browser' });
    expect(outcome.render).toBe('remember');
    expect(await memoryOf(target.productId)).toEqual({ renders_since_static: 0 });
    // The stored event says so too.
    const [stored] = (await ctx.store.readStream(productStream(target.productId))).events.filter((e) => e.type === 'PriceObserved');
    expect((stored!.data as { fetcher: string }).fetcher).toBe('browser');
    // Static fetch, then the browser's own request for the page.
    expect(requestsFor('/late')).toBe(2);
  });

  test('the next check goes straight to the browser; static is tried again every few renders, and forgotten when it works', async () => {
    const target = await addProduct('/late');
    await check(target);
    const before = requestsFor('/late');
    // Through the queue, as the workers claim it: the job carries what was remembered.
    await enqueueCheck(ctx.sql, target.productId, target.url);
    const [job] = await claimJobs(ctx.sql, { workerId: 'test', limit: 10 });
    expect(job!.render).toMatchObject({ rendersSinceStatic: 0 });
    const [outcome] = await checkPage(ctx.config, job!.url, [job!], fetcher, { sql: ctx.sql, renderer });
    await recordOutcomes(ctx, [outcome!]);
    expect(observed(outcome!)).toMatchObject({ price: 12.34, fetcher: 'browser' });
    expect(requestsFor('/late') - before).toBe(1);
    expect(await memoryOf(target.productId)).toEqual({ renders_since_static: 1 });

    // The Nth check fetches statically first, renders again and starts counting anew.
    await ctx.sql`UPDATE check_render SET renders_since_static = ${STATIC_RETRY_RENDERS - 1} WHERE product_id = ${target.productId}`;
    const again = requestsFor('/late');
    expect(observed(await check(target)).fetcher).toBe('browser');
    expect(requestsFor('/late') - again).toBe(2);
    expect(await memoryOf(target.productId)).toEqual({ renders_since_static: 0 });

    // The shop now serves its price in the HTML: the static retry finds it and the memory goes.
    await ctx.sql`UPDATE check_render SET static_checked_at = now() - interval '2 days' WHERE product_id = ${target.productId}`;
    lateIsStatic = true;
    try {
      const outcome = await check(target);
      expect(observed(outcome)).toMatchObject({ price: 12.34, fetcher: 'static' });
      expect(outcome.render).toBe('forget');
      expect(await memoryOf(target.productId)).toBeNull();
    } finally {
      lateIsStatic = false;
    }
  });

  test('a selector that matches only once scripts run is rendered, though the page as served shows a price block', async () => {
    const target = await addProduct('/late-block', '.live-price');
    const outcome = await check(target);
    expect(observed(outcome)).toMatchObject({ price: 27.5, source: 'selector', fetcher: 'browser' });
    expect(outcome.render).toBe('remember');
  });

  test('a selector that matches nothing even rendered: the price block as served stands, and the page is not remembered', async () => {
    const target = await addProduct('/static', '.nothing-here');
    const before = requestsFor('/static');
    const outcome = await check(target);
    expect(observed(outcome)).toMatchObject({ price: 20, source: 'page', fetcher: 'static' });
    expect(outcome.selectorFailure).toBe('selector-no-match');
    expect(outcome.render).toBeUndefined();
    expect(await memoryOf(target.productId)).toBeNull();
    // Rendered once to find out: the static fetch, then the browser's.
    expect(requestsFor('/static') - before).toBe(2);
  });

  test('an app shell built after 500 ms is rendered', async () => {
    const target = await addProduct('/shell', '.buy .price');
    expect(observed(await check(target))).toMatchObject({ price: 45, fetcher: 'browser' });
  });

  test('a price fetched by XHR after 1 s is waited for', async () => {
    const target = await addProduct('/xhr');
    expect(observed(await check(target))).toMatchObject({ price: 78.5, fetcher: 'browser' });
    expect(requestsFor('/api/price/blender')).toBeGreaterThanOrEqual(1);
  });

  test('a page that redirects is rendered at its final address', async () => {
    const target = await addProduct('/moved');
    expect(observed(await check(target))).toMatchObject({ price: 12.34, fetcher: 'browser' });
  });

  test('a check says when it turns to the browser (the worker then gives its slot to static checks), and a static one never does', async () => {
    const turned: string[] = [];
    for (const path of ['/late', '/static']) {
      const target = await addProduct(path);
      await checkPage(ctx.config, target.url, [target], fetcher, { sql: ctx.sql, renderer, onRender: () => turned.push(path) });
    }
    expect(turned).toEqual(['/late']);
  });

  test('static pages never launch the browser', async () => {
    const untouched = createRenderer({ fetcher });
    try {
      for (const path of ['/static', '/plain']) {
        const outcome = await check(await addProduct(path), untouched);
        expect(observed(outcome).fetcher).toBe('static');
        expect(outcome.render).toBeUndefined();
      }
      // A wrong selector on a page without scripts is a wrong selector: the price block stands in, no browser either.
      const wrong = await check(await addProduct('/plain', '.nothing-here'), untouched);
      expect(observed(wrong)).toMatchObject({ price: 5, source: 'page', fetcher: 'static' });
      expect(untouched.launches).toBe(0);
      expect(untouched.currentBrowser()).toBeNull();
    } finally {
      await untouched.close();
    }
  });

  test('a browser is retired for a fresh one after its share of renders, and closed once its pages are done', async () => {
    const recycling = createRenderer({ fetcher, rendersPerBrowser: 2 });
    try {
      const first = await check(await addProduct('/late'), recycling);
      const old = recycling.currentBrowser()!;
      await check(await addProduct('/late'), recycling);
      expect(recycling.currentBrowser()).toBeNull();
      const third = await check(await addProduct('/late'), recycling);
      expect([observed(first).price, observed(third).price]).toEqual([12.34, 12.34]);
      expect(recycling.launches).toBe(2);
      while (old.isConnected()) await Bun.sleep(20);
    } finally {
      await recycling.close();
    }
  });

  test('a browser that crashes mid-check is launched again and the check tried once more', async () => {
    const crashing = createRenderer({ fetcher, timeoutMs: 10_000 });
    try {
      const target = await addProduct('/slow');
      const before = requestsFor('/slow');
      const running = check(target, crashing);
      // Wait until the browser has the page, then take the browser away under it.
      while (requestsFor('/slow') - before < 2) await Bun.sleep(20);
      await Bun.sleep(200);
      await crashing.currentBrowser()!.close();
      const outcome = await running;
      expect(observed(outcome)).toMatchObject({ price: 99, fetcher: 'browser' });
      expect(crashing.launches).toBe(2);
    } finally {
      await crashing.close();
    }
  });

  test('AI Detect reads a script-rendered page on its rendered HTML, and a static page as served', async () => {
    const detect = (path: string, using: Renderer) =>
      readPage(`${shopUrl}${path}`, {
        fetcher,
        renderer: using,
        satisfied: (document) => detectPriceSelectors(document, { url: `${shopUrl}${path}` }).length > 0,
      });
    const shell = await detect('/shell', renderer);
    if (!shell.ok) throw new Error(shell.reason);
    expect(shell.fetcher).toBe('browser');
    expect(detectPriceSelectors(shell.document, { url: `${shopUrl}/shell` })[0]).toMatchObject({ price: 45 });
    const untouched = createRenderer({ fetcher });
    const plain = await detect('/static', untouched);
    expect(plain).toMatchObject({ ok: true, fetcher: 'static' });
    expect(untouched.launches).toBe(0);
  });

  test('contexts are not kept: no cookie or storage passes from one check to the next', async () => {
    const renders = await Promise.all([1, 2].map(() => renderer.render({ url: `${shopUrl}/late`, fetcher })));
    for (const r of renders) expect(r.ok).toBe(true);
    const b = renderer.currentBrowser()!;
    expect(b.contexts()).toHaveLength(0);
  });
});

describe.skipIf(!browserAvailable)('requests of a rendered page go through the address guard', () => {
  test('the private service is reachable from here (so zero hits below means refused)', async () => {
    privateHits = [];
    expect((await fetch(`${internalOrigin}/probe`)).ok).toBe(true);
    expect(privateHits).toEqual(['/probe']);
    privateHits = [];
  });

  test("a page's scripts, frames, workers, sockets, beacons and redirects never reach a private or metadata address", async () => {
    privateHits = [];
    const target = await addProduct('/ssrf');
    // The page's own data call is answered: the scripts ran to the end.
    expect(observed(await check(target))).toMatchObject({ price: 33, fetcher: 'browser' });
    expect(requestsFor('/to-private')).toBe(1);
    await Bun.sleep(300);
    expect(privateHits).toEqual([]);
  });

  test('control: with a guard that let private addresses through, the same page reaches the service through the route', async () => {
    privateHits = [];
    const open = createFetcher({ resolve: resolveNames, isAllowedAddress: () => true, webPorts: [...WEB_PORTS, shop.port!, internal.port!], hostSpacingMs: 0 });
    const rendered = await renderer.render({ url: `${shopUrl}/ssrf`, fetcher: open, isReady: (h) => h.includes('£33.00') });
    expect(rendered.ok).toBe(true);
    expect(privateHits).toEqual(expect.arrayContaining(['/fetch', '/by-name', '/redirected', '/xhr', '/script.js', '/iframe']));
    // Images, fonts and media are never fetched, sockets never open, whatever the guard says.
    expect(privateHits).not.toContain('/img.png');
    expect(privateHits).not.toContain('/ws');
    privateHits = [];
  });

  test('a page that moves to a private address is refused, like a static fetch', async () => {
    privateHits = [];
    const rendered = await renderer.render({ url: `${shopUrl}/moved-inside`, fetcher });
    expect(rendered).toMatchObject({ ok: false, code: 'blocked-address' });
    const direct = await renderer.render({ url: `${internalOrigin}/landing`, fetcher });
    expect(direct).toMatchObject({ ok: false, code: 'blocked-address' });
    expect(privateHits).toEqual([]);
  });
});

describe('without Chromium', () => {
  test('a page that needs the browser fails with a reason the operator can act on', async () => {
    const saved = process.env.CHROMIUM_PATH;
    process.env.CHROMIUM_PATH = '/nonexistent/chromium';
    let missing: Renderer;
    try {
      missing = createRenderer({ fetcher });
    } finally {
      if (saved === undefined) delete process.env.CHROMIUM_PATH;
      else process.env.CHROMIUM_PATH = saved;
    }
    const outcome = await check(await addProduct('/shell', '.buy .price'), missing);
    expect(outcome.event).toMatchObject({ type: 'PriceCheckFailed', data: { code: 'needs-browser', reason: NEEDS_BROWSER_REASON } });
    expect(NEEDS_BROWSER_REASON).toBe('This page needs JavaScript to show its price; install Chromium on the server (apt-get install chromium).');
    // Static pages are read as before.
    expect(observed(await check(await addProduct('/static'), missing)).fetcher).toBe('static');
  });
});

describe('which pages may need the browser (no Chromium needed)', () => {
  const shell = (body: string) =>
    looksScriptRendered(parsePage(`<html><head><title>x</title></head><body>${body}<script src="/app.js"></script></body></html>`));
  test('empty mount points and JavaScript notices are app shells; pages with content are not', () => {
    expect(shell('<div id="root"></div>')).toBe(true);
    expect(shell('<div id="__next"></div>')).toBe(true);
    expect(shell('<div id="app"> </div><footer>© Shop</footer>')).toBe(true);
    expect(shell('<noscript>You need to enable JavaScript to run this app.</noscript><div class="x"></div>')).toBe(true);
    expect(shell(`<div id="root"><h1>Kettle</h1><p>${'A fine kettle. '.repeat(30)}</p></div>`)).toBe(false);
    expect(shell(`<noscript>Please enable JavaScript</noscript><main>${'Long product description. '.repeat(60)}</main>`)).toBe(false);
    expect(shell('<h1>Kettle</h1><span class="price">£5</span>')).toBe(false);
  });
  test('data islands are not scripts that run', () => {
    expect(hasScripts(parsePage('<script type="application/ld+json">{}</script><script type="application/json">{}</script>'))).toBe(false);
    expect(hasScripts(parsePage('<script>1</script>'))).toBe(true);
    expect(hasScripts(parsePage('<script type="module" src="/a.js"></script>'))).toBe(true);
  });
});

describe('the resource fetch the browser uses keeps the address guard (no Chromium needed)', () => {
  test('private targets, private redirect hops and metadata are refused; the shop is served', async () => {
    privateHits = [];
    const get = (url: string) => fetcher.fetchResource!({ url, method: 'GET', headers: { accept: '*/*' } }, { allowPrivate: false });
    expect(await get(`${shopUrl}/api/price/fan`)).toMatchObject({ ok: true, status: 200 });
    expect(await get(`${internalOrigin}/direct`)).toMatchObject({ ok: false, code: 'blocked-address' });
    expect(await get(`http://internal.test:${internal.port}/by-name`)).toMatchObject({ ok: false, code: 'blocked-address' });
    expect(await get(`${shopUrl}/to-private`)).toMatchObject({ ok: false, code: 'blocked-address' });
    expect(await get('http://169.254.169.254/latest/meta-data/')).toMatchObject({ ok: false, code: 'blocked-address' });
    expect(await get('file:///etc/passwd')).toMatchObject({ ok: false, code: 'bad-url' });
    // A page's own navigation gets the redirect back, to follow it itself (through the route again).
    const hop = await fetcher.fetchResource!({ url: `${shopUrl}/to-private`, method: 'GET', headers: {}, followRedirects: false }, { allowPrivate: false });
    expect(hop).toMatchObject({ ok: true, status: 302 });
    expect(privateHits).toEqual([]);
  });
});
