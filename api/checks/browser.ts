// Renders pages that show their price only after scripts run, in Debian's Chromium driven by
// playwright-core.
//
// Safety: Chromium itself reaches nothing. Every request a page makes (document, redirect hop,
// script, XHR, fetch, iframe, worker) is paused by `context.route('**/*')` and performed by the
// product's own fetcher, which resolves, checks and pins the address exactly as for a static
// fetch; the answer is handed back with `route.fulfill`, a refusal aborts the request. WebSockets
// are answered by a stub and never connect, service workers and downloads are off, and Chromium's
// own resolver and proxy point nowhere, so anything that slipped past the route would fail.

import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Route } from 'playwright-core';
import { createFetcher, type Fetcher, type FetchOptions, type ResourceRequest } from './fetcher.ts';
import { detectBotChallenge, failures, type FetchFailure } from './fetch-errors.ts';

export const NEEDS_BROWSER_REASON =
  'This page needs JavaScript to show its price; install Chromium on the server (apt-get install chromium).';

export type RenderedPage = { ok: true; url: string; status: number; html: string; elapsedMs: number };
export type RenderFailure = { ok: false; code: string; reason: string; status?: number };
export type RenderResult = RenderedPage | RenderFailure;

export type RenderRequest = {
  url: string;
  fetchOptions?: FetchOptions;
  /** True once the page shows what the caller needs (e.g. the selector holds a price). */
  isReady?: (html: string) => boolean;
  /** Performs the page's requests; must guard addresses (default: the renderer's own fetcher). */
  fetcher?: Fetcher;
};

export type RendererSettings = {
  executablePath?: string;
  /** Pages rendered at once; more wait in a queue (BROWSER_CONCURRENCY, default 2). */
  concurrency?: number;
  /** Cap for one render, from navigation to the last wait (BROWSER_TIMEOUT_MS, default 15 s). */
  timeoutMs?: number;
  /** The network counts as quiet after this long without a request in flight. */
  quietMs?: number;
  /** The same, while a selector is still waited for: prices often arrive from a timer, then a call. */
  quietForSelectorMs?: number;
  /** Renders after which a browser is retired for a fresh one (memory). */
  rendersPerBrowser?: number;
  fetcher?: Fetcher;
};

export type Renderer = {
  render(request: RenderRequest): Promise<RenderResult>;
  /** Whether Chromium is installed where the renderer looks for it. */
  available(): boolean;
  /** How many times a browser was launched (1 unless it crashed). */
  readonly launches: number;
  /** The running browser, if any (tests close it to prove a crash is survived). */
  currentBrowser(): Browser | null;
  close(): Promise<void>;
};

export function chromiumPath(): string {
  return process.env.CHROMIUM_PATH || '/usr/bin/chromium';
}

/** Errors that mean the browser (or the page under it) died rather than the page failing. */
const BROWSER_GONE = /crash|has been closed|disconnected/i; // not net::ERR_CONNECTION_CLOSED: a shop hung up
const BLOCKED_TYPES = new Set(['image', 'media', 'font']);
const POLL_MS = 150;
const MAX_RESOURCE_BYTES = 5 * 1024 * 1024;
/**
 * Chromium's own caches grow slowly over many pages (about 70 KB a render, measured over 1,000):
 * the browser is retired after this many renders, once the pages on it are done.
 */
const RENDERS_PER_BROWSER = 200;

const LAUNCH_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage',
  '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run',
  '--disable-extensions', '--mute-audio', '--dns-prefetch-disable',
  // Every request is fulfilled by the route; Chromium's own network is a dead end by design.
  '--host-resolver-rules=MAP * ~NOTFOUND', '--proxy-server=http://127.0.0.1:9', '--proxy-bypass-list=<-loopback>',
  '--disable-features=NetworkPrediction,InterestFeedContentSuggestions,Translate,MediaRouter',
];

export function createRenderer(settings: RendererSettings = {}): Renderer {
  const executablePath = settings.executablePath ?? chromiumPath();
  const concurrency = Math.max(1, settings.concurrency ?? (Number(process.env.BROWSER_CONCURRENCY) || 2));
  const timeoutMs = settings.timeoutMs ?? (Number(process.env.BROWSER_TIMEOUT_MS) || 15_000);
  const quietMs = settings.quietMs ?? 500;
  const quietForSelectorMs = settings.quietForSelectorMs ?? 3000;
  const ownFetcher = settings.fetcher ?? createFetcher({ hostSpacingMs: 0 });
  const rendersPerBrowser = settings.rendersPerBrowser ?? RENDERS_PER_BROWSER;

  let browser: Promise<Browser> | null = null;
  let launches = 0;
  let running: Browser | null = null;
  let rendersOnRunning = 0;
  /** Pages being rendered on each browser, so a retired one is closed only when they are done. */
  const pagesOn = new Map<Browser, number>();
  const retired = new Set<Browser>();
  let active = 0;
  const waiting: Array<() => void> = [];

  function launch(): Promise<Browser> {
    if (browser) return browser;
    launches++;
    const launched = chromium.launch({ executablePath, args: LAUNCH_ARGS, handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false });
    const current = (browser = launched.then((b) => {
      running = b;
      rendersOnRunning = 0;
      // A crashed or closed browser is launched again by the next render.
      b.on('disconnected', () => {
        if (running === b) running = null;
        if (current === browser) browser = null;
      });
      return b;
    }, (error) => {
      browser = null;
      throw error;
    }));
    return current;
  }

  async function slot<T>(task: () => Promise<T>): Promise<T> {
    if (active >= concurrency) await new Promise<void>((start) => waiting.push(start));
    else active++;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else active--;
    }
  }

  async function render(request: RenderRequest): Promise<RenderResult> {
    if (!existsSync(executablePath)) return { ok: false, code: 'needs-browser', reason: NEEDS_BROWSER_REASON };
    return slot(async () => {
      for (let attempt = 0; ; attempt++) {
        let b: Browser;
        try {
          b = await launch();
        } catch (error) {
          return { ok: false, code: 'browser-failed', reason: `The browser on the server could not start (${firstLine(error)}). The next check will try again.` };
        }
        pagesOn.set(b, (pagesOn.get(b) ?? 0) + 1);
        try {
          return await renderOnce(b, request);
        } catch (error) {
          // A browser that died under the page is launched again and the page tried once more.
          const crashed = !b.isConnected() || BROWSER_GONE.test(String(error));
          if (crashed && attempt === 0) {
            if (b.isConnected()) await b.close().catch(() => {});
            continue;
          }
          return { ok: false, code: 'browser-failed', reason: `The page could not be rendered (${firstLine(error)}). The next check will try again.` };
        } finally {
          pageDone(b);
        }
      }
    });
  }

  /** Retires the running browser after its share of renders; a retired one closes when its last page is done. */
  function pageDone(b: Browser) {
    const left = (pagesOn.get(b) ?? 1) - 1;
    if (left > 0) pagesOn.set(b, left);
    else pagesOn.delete(b);
    if (b === running && ++rendersOnRunning >= rendersPerBrowser) {
      retired.add(b);
      running = null;
      browser = null;
    }
    if (left === 0 && retired.delete(b)) void b.close().catch(() => {});
  }

  async function renderOnce(b: Browser, request: RenderRequest): Promise<RenderResult> {
    const startedAt = performance.now();
    const deadline = Date.now() + timeoutMs;
    const fetcher = request.fetcher?.fetchResource ? request.fetcher : ownFetcher;
    const fetchOptions: FetchOptions = { maxBytes: MAX_RESOURCE_BYTES, ...request.fetchOptions, retries: 0 };
    let context: BrowserContext | null = null;
    try {
      // A fresh profile per page: no cookies or storage pass between checks or users.
      context = await b.newContext({
        serviceWorkers: 'block', acceptDownloads: false, permissions: [], javaScriptEnabled: true,
        viewport: { width: 1280, height: 900 }, locale: 'en-GB', userAgent: fetchOptions.userAgent,
      });
      await context.routeWebSocket(() => true, (ws) => ws.close({ code: 1008, reason: 'WebSockets are not opened' }));
      let inFlight = 0;
      let lastActivity = Date.now();
      let documentStatus: number | null = null;
      let documentFailure: FetchFailure | null = null;
      let documentRedirect: string | null = null;
      const page = await context.newPage();
      const mainFrame = page.mainFrame();

      await context.route('**/*', async (route: Route) => {
        const req = route.request();
        const isDocument = req.isNavigationRequest() && req.frame() === mainFrame;
        if (BLOCKED_TYPES.has(req.resourceType()) || !/^https?:/i.test(req.url())) return route.abort('blockedbyclient').catch(() => {});
        inFlight++;
        lastActivity = Date.now();
        try {
          const resource: ResourceRequest = {
            url: req.url(), method: req.method(), headers: await req.allHeaders(), body: req.postDataBuffer(),
            // Playwright does not route the hops of a fulfilled redirect: the page's own address
            // moves by navigating again (routed again), the rest are followed by the fetcher.
            followRedirects: !isDocument,
          };
          const answer = await fetcher.fetchResource!(resource, fetchOptions);
          if (!answer.ok) {
            if (isDocument) documentFailure = answer;
            await route.abort(answer.code === 'blocked-address' || answer.code === 'bad-url' ? 'blockedbyclient' : 'failed');
            return;
          }
          if (isDocument && answer.status >= 300 && answer.status < 400 && answer.headers.location) {
            documentRedirect = new URL(answer.headers.location, answer.url).href;
            await route.abort('aborted');
            return;
          }
          if (isDocument) documentStatus = answer.status;
          await route.fulfill({ status: answer.status, headers: answer.headers, body: answer.body });
        } catch {
          // The page or its context closed while the request was out: nothing to answer.
        } finally {
          inFlight--;
          lastActivity = Date.now();
        }
      });

      const crashed = new Promise<never>((_, reject) => page.once('crash', () => reject(new Error('The page crashed'))));
      crashed.catch(() => {});
      const maxRedirects = request.fetchOptions?.maxRedirects ?? 5;
      for (let address = request.url, redirects = 0; ; redirects++) {
        documentRedirect = null;
        try {
          await Promise.race([page.goto(address, { waitUntil: 'domcontentloaded', timeout: Math.max(1, deadline - Date.now()) }), crashed]);
        } catch (error) {
          if (documentFailure) return documentFailure;
          // The browser may be gone before it says so (isConnected still true): its error tells.
          if (!b.isConnected() || BROWSER_GONE.test(String(error))) throw error;
          if (/Timeout/i.test(String(error))) return failures.timeout(timeoutMs);
          if (!documentRedirect) return failures.network(`The page could not be loaded in the browser (${firstLine(error)}).`);
        }
        if (!documentRedirect) break;
        if (redirects >= maxRedirects) return failures.tooManyRedirects(maxRedirects);
        address = documentRedirect;
      }
      if (documentFailure) return documentFailure;
      const status = documentStatus ?? 200;
      if (status < 200 || status >= 300) {
        const html = await page.content().catch(() => '');
        const vendor = detectBotChallenge(status, {}, html.slice(0, 64 * 1024));
        return vendor !== undefined ? failures.botProtection(vendor, status) : failures.httpStatus(status);
      }

      // Wait until the caller sees what it needs, or the network has been quiet a while.
      let html = await page.content();
      for (;;) {
        if (request.isReady?.(html)) break;
        if (inFlight === 0 && Date.now() - lastActivity >= (request.isReady ? quietForSelectorMs : quietMs)) break;
        if (Date.now() >= deadline) break;
        await Promise.race([page.waitForTimeout(POLL_MS), crashed]);
        html = await page.content();
      }
      return { ok: true, url: page.url(), status, html, elapsedMs: Math.round(performance.now() - startedAt) };
    } finally {
      await context?.close().catch(() => {});
    }
  }

  return {
    render,
    available: () => existsSync(executablePath),
    get launches() { return launches; },
    currentBrowser: () => running,
    async close() {
      const b = browser;
      browser = null;
      running = null;
      const old = [...retired];
      retired.clear();
      await Promise.all(old.map((r) => r.close().catch(() => {})));
      if (b) await (await b.catch(() => null))?.close().catch(() => {});
    },
  };
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 200);
}

let shared: Renderer | null = null;

/** One browser per process, launched on first use. */
export function sharedRenderer(): Renderer {
  return (shared ??= createRenderer());
}
