// Renders pages that show their price only after scripts run, in Debian's Chromium driven by
// playwright-core.
//
// Safety: Chromium itself reaches nothing. Every request a page makes (document, redirect hop,
// script, XHR, fetch, iframe, worker) is paused by `context.route('**/*')` and performed by the
// product's own fetcher, which resolves, checks and pins the address exactly as for a static
// fetch; the answer is handed back with `route.fulfill`, a refusal aborts the request. WebSockets
// are answered by a stub and never connect, service workers and downloads are off, WebRTC is taken
// from pages and may send no UDP past the proxy, and Chromium's own resolver and proxy point
// nowhere, so anything that slipped past the route would fail. Only http(s) documents are loaded.
//
// Robustness: a page may open popups, raise dialogs, crash its renderer or make Playwright throw.
// Popups are blocked and closed, dialogs dismissed, every handler Playwright calls catches its own
// errors, and a stray error of the browser layer fails the renders in flight instead of the process
// (`containBrowserErrors`).

import { existsSync } from 'node:fs';
import type { Browser, BrowserContext, Dialog, Frame, Page, Request, Route, WebSocketRoute } from 'playwright-core';
import { createFetcher, isWebAddress, type Fetcher, type FetchOptions, type ResourceRequest } from './fetcher.ts';
import { detectBotChallenge } from './fetch-errors.ts';
import { failures, type FetchFailure } from '../../domain/check-failures.ts';

export const NEEDS_BROWSER_REASON = 'This page needs JavaScript to show its price; install Chromium on the server (apt-get install chromium).';

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
  /** Whose render this is: a user holds at most one render slot while others wait. */
  owner?: string;
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

/**
 * Errors that mean the browser (or the page under it) died rather than the page failing. A closing
 * browser can fail a navigation with "frame was detached" before it says it is disconnected: only
 * the page's own frame going away does that to the main frame.
 */
const BROWSER_GONE = /crash|has been closed|disconnected|frame was detached/i; // not net::ERR_CONNECTION_CLOSED: a shop hung up
const BLOCKED_TYPES = new Set(['image', 'media', 'font']);
const POLL_MS = 150;
const MAX_RESOURCE_BYTES = 5 * 1024 * 1024;
/**
 * Chromium's own caches grow slowly over many pages (about 70 KB a render, measured over 1,000):
 * the browser is retired after this many renders, once the pages on it are done.
 */
const RENDERS_PER_BROWSER = 200;

const LAUNCH_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-extensions',
  '--mute-audio',
  '--dns-prefetch-disable',
  // Every request is fulfilled by the route; Chromium's own network is a dead end by design.
  '--host-resolver-rules=MAP * ~NOTFOUND',
  '--proxy-server=http://127.0.0.1:9',
  '--proxy-bypass-list=<-loopback>',
  // WebRTC and QUIC speak UDP, which neither the route nor the proxy sees: WebRTC may only go
  // through the proxy (which carries no UDP, so nowhere), and QUIC is off.
  '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  '--disable-quic',
  '--disable-features=NetworkPrediction,InterestFeedContentSuggestions,Translate,MediaRouter',
];
/** Playwright turns Chromium's popup blocker off; a shop page has no business opening windows. */
const IGNORED_DEFAULT_ARGS = ['--disable-popup-blocking'];

/**
 * Runs before any script of every document: the page loses the interfaces that open peer-to-peer
 * or UDP connections (the launch flags already keep their packets from leaving).
 */
const NO_PEER_CONNECTIONS = `for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCDataChannel', 'RTCIceTransport', 'WebTransport']) {
  try { delete globalThis[name]; } catch {}
}`;

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
  /** Render slots held by each owner, when each owner last started one, and renders waiting for one. */
  const holding = new Map<string, number>();
  const lastStarted = new Map<string, number>();
  let starts = 0;
  const waiting: Array<{ owner: string; start: () => void }> = [];

  function launch(): Promise<Browser> {
    if (browser) return browser;
    launches++;
    // playwright-core is loaded by the first render: its set-up is a good part of a worker's CPU, and most never render.
    const launched = import('playwright-core').then(({ chromium }) =>
      chromium.launch({
        executablePath,
        args: LAUNCH_ARGS,
        ignoreDefaultArgs: IGNORED_DEFAULT_ARGS,
        handleSIGINT: false,
        handleSIGTERM: false,
        handleSIGHUP: false,
      }),
    );
    const current = (browser = launched.then(
      (b) => {
        running = b;
        rendersOnRunning = 0;
        // A crashed or closed browser is launched again by the next render.
        b.on(
          'disconnected',
          contained(() => {
            if (running === b) running = null;
            if (current === browser) browser = null;
          }),
        );
        return b;
      },
      (error) => {
        browser = null;
        throw error;
      },
    ));
    return current;
  }

  /**
   * Runs a render in one of the slots. Users take turns: a freed slot goes to the waiting render
   * whose owner holds the fewest slots and, of those, started one longest ago, so one user's many
   * renders never keep another user's waiting behind them.
   */
  async function slot<T>(owner: string, task: () => Promise<T>): Promise<T> {
    if (active >= concurrency) await new Promise<void>((start) => waiting.push({ owner, start }));
    else active++;
    holding.set(owner, (holding.get(owner) ?? 0) + 1);
    lastStarted.set(owner, ++starts);
    try {
      return await task();
    } finally {
      const left = holding.get(owner)! - 1;
      if (left > 0) holding.set(owner, left);
      else holding.delete(owner);
      const [next] = waiting.splice(nextInTurn(), 1);
      if (next) next.start();
      else if (--active === 0) lastStarted.clear(); // idle: turns start afresh
    }
  }

  /** Where in `waiting` the render whose turn it is stands. */
  function nextInTurn(): number {
    const turn = (owner: string) => [holding.get(owner) ?? 0, lastStarted.get(owner) ?? 0] as const;
    let best = 0;
    for (let i = 1; i < waiting.length; i++) {
      const [held, started] = turn(waiting[i]!.owner);
      const [bestHeld, bestStarted] = turn(waiting[best]!.owner);
      if (held < bestHeld || (held === bestHeld && started < bestStarted)) best = i;
    }
    return best;
  }

  async function render(request: RenderRequest): Promise<RenderResult> {
    if (!existsSync(executablePath)) return { ok: false, code: 'needs-browser', reason: NEEDS_BROWSER_REASON };
    return slot(request.owner ?? '', async () => {
      for (let attempt = 0; ; attempt++) {
        let b: Browser;
        try {
          b = await launch();
        } catch (error) {
          return {
            ok: false,
            code: 'browser-failed',
            reason: `The browser on the server could not start (${firstLine(error)}). The next check will try again.`,
          };
        }
        pagesOn.set(b, (pagesOn.get(b) ?? 0) + 1);
        try {
          return await renderOnce(b, request);
        } catch (error) {
          // A browser that died under the page is launched again and the page tried once more.
          const crashed = !(error instanceof BrokenRender) && (!b.isConnected() || BROWSER_GONE.test(String(error)));
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
    // Ends the render when its page crashes or a browser error escapes (containBrowserErrors).
    let breakRender!: (error: Error) => void;
    const broken = new Promise<never>((_, reject) => {
      breakRender = reject;
    });
    broken.catch(() => {});
    const unlessBroken = <T>(step: Promise<T>): Promise<T> => Promise.race([step, broken]);
    rendersInFlight.add(breakRender);
    let context: BrowserContext | null = null;
    try {
      // A fresh profile per page: no cookies or storage pass between checks or users.
      context = await b.newContext({
        serviceWorkers: 'block',
        acceptDownloads: false,
        permissions: [],
        javaScriptEnabled: true,
        viewport: { width: 1280, height: 900 },
        locale: 'en-GB',
        userAgent: fetchOptions.userAgent,
      });
      await context.addInitScript(NO_PEER_CONNECTIONS);
      await context.routeWebSocket(
        () => true,
        contained((ws: WebSocketRoute) => ws.close({ code: 1008, reason: 'WebSockets are not opened' })),
      );
      let inFlight = 0;
      let lastActivity = Date.now();
      let documentStatus: number | null = null;
      let documentFailure: FetchFailure | null = null;
      let documentRedirect: string | null = null;
      const page = await context.newPage();
      const mainFrame = page.mainFrame();
      // Windows the page opens (a popup the blocker let through) are closed; dialogs dismissed.
      context.on(
        'page',
        contained((opened: Page) => {
          if (opened !== page) void opened.close().catch(() => {});
        }),
      );
      page.on(
        'dialog',
        contained((dialog: Dialog) => void dialog.dismiss().catch(() => {})),
      );
      page.once(
        'crash',
        contained(() => breakRender(new Error('The page crashed'))),
      );

      const answer = async (route: Route) => {
        const req = route.request();
        const navigation = req.isNavigationRequest();
        const frame = navigation ? frameOf(req) : null;
        // A popup's first document belongs to no frame of this page yet: it is not loaded.
        if (navigation && frame?.page() !== page) return route.abort('blockedbyclient');
        if (BLOCKED_TYPES.has(req.resourceType()) || !isWebAddress(req.url())) return route.abort('blockedbyclient');
        const isDocument = frame === mainFrame;
        inFlight++;
        lastActivity = Date.now();
        try {
          const resource: ResourceRequest = {
            url: req.url(),
            method: req.method(),
            headers: await req.allHeaders(),
            body: req.postDataBuffer(),
            // Playwright does not route the hops of a fulfilled redirect: the page's own address
            // moves by navigating again (routed again), the rest are followed by the fetcher.
            followRedirects: !isDocument,
            // Frames' documents keep to the ports pages are served on, as product addresses do.
            document: navigation,
          };
          const result = await fetcher.fetchResource!(resource, fetchOptions);
          if (!result.ok) {
            if (isDocument) documentFailure = result;
            return await route.abort(result.code === 'blocked-address' || result.code === 'bad-url' ? 'blockedbyclient' : 'failed');
          }
          if (isDocument && result.status >= 300 && result.status < 400 && result.headers.location) {
            documentRedirect = new URL(result.headers.location, result.url).href;
            return await route.abort('aborted');
          }
          if (isDocument) documentStatus = result.status;
          await route.fulfill({ status: result.status, headers: result.headers, body: result.body });
        } finally {
          inFlight--;
          lastActivity = Date.now();
        }
      };
      // Whatever goes wrong while answering (the page closed meanwhile, a request Playwright cannot
      // describe) fails that request alone.
      await context.route('**/*', (route: Route) => answer(route).catch(() => route.abort('failed').catch(() => {})));

      const maxRedirects = request.fetchOptions?.maxRedirects ?? 5;
      for (let address = request.url, redirects = 0; ; redirects++) {
        documentRedirect = null;
        try {
          await unlessBroken(page.goto(address, { waitUntil: 'domcontentloaded', timeout: Math.max(1, deadline - Date.now()) }));
        } catch (error) {
          if (documentFailure) return documentFailure;
          // The browser may be gone before it says so (isConnected still true): its error tells.
          if (!b.isConnected() || BROWSER_GONE.test(String(error)) || error instanceof BrokenRender) throw error;
          if (/Timeout/i.test(String(error))) return failures.timeout(timeoutMs);
          if (!documentRedirect) return failures.network(`The page could not be loaded in the browser (${firstLine(error)}).`);
        }
        if (!documentRedirect) break;
        if (!isWebAddress(documentRedirect)) return failures.notAWebPage(documentRedirect);
        if (redirects >= maxRedirects) return failures.tooManyRedirects(maxRedirects);
        address = documentRedirect;
      }
      if (documentFailure) return documentFailure;
      const status = documentStatus ?? 200;
      if (status < 200 || status >= 300) {
        const html = await unlessBroken(page.content()).catch(() => '');
        const vendor = detectBotChallenge(status, {}, html.slice(0, 64 * 1024));
        return vendor !== undefined ? failures.botProtection(vendor, status) : failures.httpStatus(status);
      }

      // The page's HTML now, or null while its scripts are moving it to another address.
      const currentHtml = async (): Promise<string | null> => {
        try {
          return await unlessBroken(page.content());
        } catch (error) {
          if (error instanceof BrokenRender || !/navigating/i.test(String(error))) throw error;
          return null;
        }
      };
      // Wait until the caller sees what it needs, or the network has been quiet a while.
      let html = (await currentHtml()) ?? '';
      for (;;) {
        if (request.isReady?.(html)) break;
        if (inFlight === 0 && Date.now() - lastActivity >= (request.isReady ? quietForSelectorMs : quietMs)) break;
        if (Date.now() >= deadline) break;
        await unlessBroken(page.waitForTimeout(POLL_MS));
        html = (await currentHtml()) ?? html;
      }
      // The page's scripts may have moved it off the web (about:blank): that is not the shop's page.
      if (!isWebAddress(page.url())) return failures.notAWebPage(page.url());
      return { ok: true, url: page.url(), status, html, elapsedMs: Math.round(performance.now() - startedAt) };
    } finally {
      rendersInFlight.delete(breakRender);
      await context?.close().catch(() => {});
    }
  }

  return {
    render,
    available: () => existsSync(executablePath),
    get launches() {
      return launches;
    },
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

/** Playwright's `request.frame()` throws for a popup's first request (its frame does not exist yet). */
function frameOf(req: Request): Frame | null {
  try {
    return req.frame();
  } catch {
    return null;
  }
}

/** A render ended by a stray error of the browser layer rather than by its page. */
class BrokenRender extends Error {}

/** Renders in flight in this process, each with how to end it. */
const rendersInFlight = new Set<(error: Error) => void>();

/** A handler Playwright calls: whatever it throws or rejects with is logged here, never left to escape. */
function contained<A extends unknown[]>(handler: (...args: A) => unknown): (...args: A) => void {
  const report = (error: unknown) => console.error('browser: a page event handler failed:', firstLine(error));
  return (...args: A) => {
    try {
      const result = handler(...args);
      if (result instanceof Promise) result.catch(report);
    } catch (error) {
      report(error);
    }
  };
}

/** Whether an error comes from driving the browser (Playwright, or this file) rather than from elsewhere. */
function isBrowserLayerError(error: unknown): boolean {
  return error instanceof Error && /playwright-core|fetching[\\/]browser\.ts/.test(error.stack ?? '');
}

let containing = false;

/**
 * The process's last line against hostile pages (the server and workers install it): an error of
 * the browser layer that escaped every handler ends the renders in flight, whose checks then record
 * a failure, instead of ending the process. Any other stray error still ends the process.
 */
export function containBrowserErrors(): void {
  if (containing) return;
  containing = true;
  const stray = (error: unknown) => {
    if (!isBrowserLayerError(error)) {
      console.error(error);
      process.exit(1);
    }
    console.error('browser: an error escaped the browser layer and was contained:', firstLine(error));
    endRendersInFlight(error);
  };
  process.on('unhandledRejection', stray);
  process.on('uncaughtException', stray);
}

/** Ends every render in flight in this process with the given error. */
function endRendersInFlight(error: unknown): void {
  for (const end of rendersInFlight) end(new BrokenRender(`a browser error escaped: ${firstLine(error)}`));
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 200);
}

let shared: Renderer | null = null;

/** One browser per process, launched on first use. */
export function sharedRenderer(): Renderer {
  return (shared ??= createRenderer());
}
