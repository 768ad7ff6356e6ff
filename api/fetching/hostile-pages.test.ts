import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import dgram from 'node:dgram';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { loadConfig } from '../config.ts';
import { createFetcher, type ResolvedAddress } from './fetcher.ts';
import { WEB_PORTS } from './address-guard.ts';
import { chromiumPath, createRenderer, type Renderer } from './browser.ts';
import { checkPage, type CheckTarget } from '../checks/check.ts';

/**
 * Shop pages that attack the browser rather than the address guard: popups, dialogs, WebRTC's UDP,
 * hops to the browser's own pages, one user's renders crowding out another's, and errors that
 * escape Playwright's handlers. No database: these run once, not again on the embedded one.
 */

setDefaultTimeout(60_000);

const browserAvailable = existsSync(chromiumPath());
if (!browserAvailable && process.env.REQUIRE_BROWSER === '1') throw new Error(`Chromium not found at ${chromiumPath()}`);
const skip = !browserAvailable;

const requests: string[] = [];
const requested = (path: string) => requests.filter((r) => r.startsWith(path)).length;
/** A UDP listener on a loopback address no page may reach: every datagram it receives is a leak. */
let canary: dgram.Socket;
let datagrams = 0;
let shop: ReturnType<typeof Bun.serve>;
let shopUrl: string;

const html = (body: string, status = 200, headers: Record<string, string> = {}) =>
  new Response(`<!doctype html><html><head><title>Shop</title></head><body>${body}</body></html>`, {
    status,
    headers: { 'content-type': 'text/html; charset=utf-8', ...headers },
  });
const hop = (location: string) => new Response(null, { status: 302, headers: { location } });

/** A page trying WebRTC (STUN and TURN over UDP) at the canary, from itself and from a fresh frame, and WebTransport. */
function webRtcPage(port: number): string {
  return `<span class="p"></span><script>
    const servers = [{ urls: 'stun:127.0.0.2:${port}' }, { urls: 'turn:127.0.0.2:${port}?transport=udp', username: 'u', credential: 'p' }];
    async function peer(Pc) {
      if (typeof Pc !== 'function') return 'absent';
      const pc = new Pc({ iceServers: servers });
      pc.createDataChannel('x');
      await pc.setLocalDescription(await pc.createOffer());
      await new Promise((done) => {
        if (pc.iceGatheringState === 'complete') return done();
        pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && done();
        setTimeout(done, 4000);
      });
      pc.close();
      return 'gathered';
    }
    async function transport(Wt) {
      if (typeof Wt !== 'function') return 'absent';
      try { const t = new Wt('https://127.0.0.2:${port}/'); await t.ready; return 'open'; } catch { return 'failed'; }
    }
    const frame = document.createElement('iframe');
    document.body.append(frame);
    const inFrame = frame.contentWindow;
    Promise.all([peer(window.RTCPeerConnection), peer(inFrame.RTCPeerConnection), peer(window.webkitRTCPeerConnection), transport(window.WebTransport)].map((p) => p.catch((e) => 'error ' + e)))
      .then((results) => { document.querySelector('.p').textContent = '£1.00 [' + results.join(',') + ']'; });
  </script>`;
}

function startServers() {
  canary = dgram.createSocket('udp4');
  canary.on('message', () => {
    datagrams++;
  });
  shop = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(req) {
      const { pathname, search } = new URL(req.url);
      requests.push(pathname + search);
      switch (pathname) {
        // The page that used to end the process: a popup opened while the price is still coming.
        case '/popup':
          return html(`<div id=root></div><script>window.open('/child'); setTimeout(()=>root.innerHTML='<div class=p>£12.34</div>',1500)</script>`);
        case '/popups':
          return html(`<span class="p"></span><a id="away" href="/child-link" target="_blank">x</a><script>
          window.open('/child-a', '_blank', 'popup'); window.open('about:blank');
          setTimeout(() => { document.getElementById('away').click(); window.open('/child-b'); }, 100);
          setTimeout(() => { document.querySelector('.p').textContent = '£7.00'; }, 600);</script>`);
        case '/dialogs':
          return html(`<span class="p"></span><script>
          alert('Welcome'); confirm('Cookies?'); prompt('Your name');
          addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = 'stay'; });
          setTimeout(() => { document.querySelector('.p').textContent = '£8.50'; }, 300);</script>`);
        case '/webrtc':
          return html(webRtcPage(canary.address().port));
        case '/to-chrome':
          return hop('chrome://version');
        case '/to-chrome-settings':
          return hop('chrome://settings');
        case '/to-devtools':
          return hop('devtools://devtools/bundled/inspector.html');
        case '/to-data':
          return hop('data:text/html,<span class=p>£1.00</span>');
        case '/to-about':
          return hop('about:blank');
        case '/to-file':
          return hop('file:///etc/passwd');
        case '/moves-on':
          return html(`<span class="p"></span><script>setTimeout(() => { location.href = '/landing'; }, 50);</script>`);
        case '/landing':
          return html(`<span class="p"></span><script>setTimeout(() => { document.querySelector('.p').textContent = '£4.20'; }, 200);</script>`);
        case '/goes-blank':
          return html(`<span class="p"></span><script>setTimeout(() => { location.href = 'about:blank'; }, 100);</script>`);
        // A page that never goes quiet: it holds its render slot until the render's time is up.
        case '/busy':
          return html(`<span class="p"></span><script>setInterval(() => fetch('/tick').catch(() => {}), 100);</script>`);
        case '/tick':
          return new Response('ok');
        // A price that shows after 1.5 s: long enough for an error to escape while it renders.
        case '/slow':
          return html(`<span class="p"></span><script>setTimeout(() => fetch('/tick').catch(() => {}), 300);
          setTimeout(() => { document.querySelector('.p').textContent = '£3.00'; }, 1500);</script>`);
        default:
          return html('<p>child</p>');
      }
    },
  });
  shopUrl = `http://shop.test:${shop.port}`;
}

async function resolveNames(host: string): Promise<ResolvedAddress[]> {
  if (host === 'shop.test') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
}

let fetcher: ReturnType<typeof createFetcher>;
let renderer: Renderer;
const config = loadConfig({ NODE_ENV: 'test', PORT: '3000', DATA_DIR: '/tmp/pricewatch-test' });

beforeAll(async () => {
  if (skip) return;
  startServers();
  await new Promise<void>((bound) => canary.bind(0, '127.0.0.2', bound));
  fetcher = createFetcher({
    resolve: resolveNames,
    isAllowedAddress: (ip) => ip === '127.0.0.1',
    webPorts: [...WEB_PORTS, shop.port!],
    hostSpacingMs: 0,
    maxConcurrentPerHost: 16,
  });
  renderer = createRenderer({ fetcher, concurrency: 2, timeoutMs: 10_000 });
});
afterAll(async () => {
  if (skip) return;
  await renderer.close();
  shop.stop(true);
  canary.close();
});

const priceOf = (html: string) => html.match(/class="p">([^<]*)</)?.[1] ?? null;
const render = (path: string, isReady = (h: string) => /£\d/.test(priceOf(h) ?? '')) => renderer.render({ url: `${shopUrl}${path}`, fetcher, isReady });

describe.skipIf(skip)('popups and dialogs', () => {
  test('a page that opens a popup is checked like any other, and the popup is never loaded', async () => {
    const target: CheckTarget = { productId: 'p-popup', userId: 'u-popup', url: `${shopUrl}/popup`, selector: '.p', lease: null, render: null };
    const [outcome] = await checkPage(config, target.url, [target], fetcher, { renderer });
    expect(outcome!.event.type).toBe('PriceObserved');
    expect(outcome!.event.data).toMatchObject({ price: 12.34, fetcher: 'browser' });
    expect(requested('/child')).toBe(0);
  });

  test('windows opened every way are refused or closed, and leave no page behind', async () => {
    const rendered = await render('/popups');
    expect(rendered.ok && priceOf(rendered.html)).toBe('£7.00');
    expect(requested('/child-')).toBe(0);
    expect(renderer.currentBrowser()!.contexts()).toHaveLength(0);
  });

  test('alerts, confirms, prompts and beforeunload are dismissed and the page goes on', async () => {
    const rendered = await render('/dialogs');
    expect(rendered.ok && priceOf(rendered.html)).toBe('£8.50');
  });
});

describe.skipIf(skip)('WebRTC and other UDP', () => {
  test('a page sends no datagram past the browser (canary on 127.0.0.2)', async () => {
    datagrams = 0;
    const rendered = await render('/webrtc');
    if (!rendered.ok) throw new Error(rendered.reason);
    // The page took its tries to the end: peers gathered (or absent), WebTransport failed or absent.
    expect(priceOf(rendered.html)).toMatch(/^£1\.00 \[/);
    expect(priceOf(rendered.html)).not.toContain('open');
    expect(datagrams).toBe(0);
  });

  test('control: a browser without these settings does send the canary datagrams', async () => {
    datagrams = 0;
    const plain = await chromium.launch({ executablePath: chromiumPath(), args: ['--headless', '--no-sandbox'] });
    try {
      const page = await plain.newPage();
      await page.goto(`http://127.0.0.1:${shop.port}/webrtc`);
      await page.waitForFunction(() => /^£1\.00/.test(document.querySelector('.p')?.textContent ?? ''), null, { timeout: 15_000 });
      expect(datagrams).toBeGreaterThan(0);
    } finally {
      await plain.close();
    }
  });
});

describe.skipIf(skip)("the browser's own pages are never read as the shop's", () => {
  for (const path of ['/to-chrome', '/to-chrome-settings', '/to-devtools', '/to-data', '/to-about', '/to-file']) {
    test(`a document redirected ${path.slice(1)} is refused`, async () => {
      const rendered = await render(path);
      expect(rendered).toMatchObject({ ok: false, code: 'bad-url' });
      expect(!rendered.ok && rendered.reason).toContain('which is not a web page');
    });
  }

  test("a page whose script moves it to another of the shop's pages is read there", async () => {
    const rendered = await render('/moves-on');
    expect(rendered.ok && [rendered.url, priceOf(rendered.html)]).toEqual([`${shopUrl}/landing`, '£4.20']);
  });

  test('a page whose script moves it to about:blank is refused', async () => {
    const rendered = await render('/goes-blank');
    expect(rendered).toMatchObject({ ok: false, code: 'bad-url' });
  });
});

describe.skipIf(skip)('render slots are shared fairly between users', () => {
  test("one user's many renders of a page that never settles do not keep another user's waiting behind them", async () => {
    // One slot, so renders run one after another and the shop sees them in the order they started.
    // Each render gives up after its timeout, long enough for a busy machine to send the request.
    const shared = createRenderer({ fetcher, concurrency: 1, timeoutMs: 1500 });
    try {
      const started = () => requests.filter((r) => r.startsWith('/busy?'));
      const before = started().length;
      const renderAs = (owner: string, n: number) => shared.render({ url: `${shopUrl}/busy?${owner}=${n}`, fetcher, owner });
      const heavy = [1, 2, 3, 4].map((n) => renderAs('heavy', n));
      const light = [1, 2].map((n) => renderAs('light', n));
      await Promise.all([...heavy, ...light]);
      expect(started().slice(before)).toEqual(['/busy?heavy=1', '/busy?light=1', '/busy?heavy=2', '/busy?light=2', '/busy?heavy=3', '/busy?heavy=4']);
    } finally {
      await shared.close();
    }
  });
});

describe.skipIf(skip)('an error that escapes the browser layer', () => {
  /**
   * A process rendering /slow, in which a route handler throws inside Playwright's dispatch (where
   * an error escaped before); with `guard`, the process installs containBrowserErrors.
   */
  async function runProcess(guard: boolean): Promise<{ code: number; out: string }> {
    const dir = mkdtempSync(join(tmpdir(), 'pricewatch-stray-'));
    const script = join(dir, 'stray.ts');
    writeFileSync(
      script,
      `
      import { containBrowserErrors, createRenderer } from ${JSON.stringify(join(import.meta.dir, 'browser.ts'))};
      import { createFetcher } from ${JSON.stringify(join(import.meta.dir, 'fetcher.ts'))};
      if (${guard}) containBrowserErrors();
      const fetcher = createFetcher({ hostSpacingMs: 0 });
      const renderer = createRenderer({ fetcher, timeoutMs: 10_000 });
      const url = 'http://127.0.0.1:${shop.port}/slow';
      const options = { url, fetcher, fetchOptions: { allowPrivate: true }, isReady: (h) => h.includes('class="p">£3.00') };
      const first = renderer.render(options);
      let page;
      while (!(page = renderer.currentBrowser()?.contexts()[0]?.pages()[0])) await Bun.sleep(20);
      await page.route('**/tick', () => { throw new Error('a handler failed'); });
      console.log(JSON.stringify(await first));
      console.log(JSON.stringify(await renderer.render(options)));
      await renderer.close();
    `,
    );
    const child = Bun.spawn([process.execPath, script], { stdout: 'pipe', stderr: 'pipe' });
    const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    return { code, out };
  }

  test('fails the renders in flight, not the process, which renders the next page', async () => {
    const { code, out } = await runProcess(true);
    expect(code).toBe(0);
    const [first, second] = out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(first).toMatchObject({ ok: false, code: 'browser-failed' });
    expect(first.reason).toContain('a handler failed');
    expect(second).toMatchObject({ ok: true });
  });

  test('control: without the guard the same error fails the process', async () => {
    const { code } = await runProcess(false);
    expect(code).not.toBe(0);
  });
});
