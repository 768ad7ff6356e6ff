// A shop on loopback for the fetcher's tests: pages, redirects, slow, huge, compressed and
// protected answers, and what it saw of each request (hits, their times, headers, concurrency).
// A test file calls serveLoopbackShop() to have it served while its tests run.

import { afterAll, beforeAll, expect } from 'bun:test';
import zlib from 'node:zlib';
import { createFetcher, type FetcherSettings, type FetchResult, type ResourceResult } from './fetcher.ts';

export const hits = new Map<string, number>();
export const hitTimes = new Map<string, number[]>();
export const seenHeaders: Array<Record<string, string>> = [];
let active = 0;
export let maxActive = 0;
export let hugeBytesSent = 0;
export let hugeCancelled = false;

const html = (body: string, headers: Record<string, string> = {}) =>
  new Response(body, { headers: { 'content-type': 'text/html; charset=utf-8', ...headers } });
export const productPage = '<!doctype html><html><head><title>Kettle</title></head><body><p class="price">£1,299.99</p></body></html>';

function countHit(url: URL): number {
  const key = url.pathname + url.search;
  const count = (hits.get(key) ?? 0) + 1;
  hits.set(key, count);
  hitTimes.set(key, [...(hitTimes.get(key) ?? []), performance.now()]);
  return count;
}

async function route(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const count = countHit(url);
  seenHeaders.push(Object.fromEntries(request.headers));
  switch (url.pathname) {
    case '/page':
      return html(productPage);
    case '/to-browser-page':
      return new Response(null, { status: 302, headers: { location: url.searchParams.get('to')! } });
    case '/latin1-header':
      return new Response(Buffer.from('<p>£12</p>', 'latin1'), {
        headers: { 'content-type': 'text/html; charset=windows-1252' },
      });
    case '/latin1-meta':
      return new Response(Buffer.from('<html><head><meta charset="iso-8859-1"></head><p>£12</p>', 'latin1'), {
        headers: { 'content-type': 'text/html' },
      });
    case '/gzip':
      return new Response(zlib.gzipSync(productPage), {
        headers: { 'content-type': 'text/html', 'content-encoding': 'gzip' },
      });
    case '/br':
      return new Response(zlib.brotliCompressSync(productPage), {
        headers: { 'content-type': 'text/html', 'content-encoding': 'br' },
      });
    case '/deflate':
      return new Response(zlib.deflateSync(productPage), {
        headers: { 'content-type': 'text/html', 'content-encoding': 'deflate' },
      });
    case '/gzip-bomb':
      return new Response(zlib.gzipSync(Buffer.alloc(20 * 1024 * 1024, 'a')), {
        headers: { 'content-type': 'text/html', 'content-encoding': 'gzip' },
      });
    case '/slow':
      await Bun.sleep(Number(url.searchParams.get('ms') ?? 2_000));
      return html(productPage);
    case '/slow-body':
      return new Response(
        new ReadableStream({
          async pull(controller) {
            await Bun.sleep(100);
            controller.enqueue(new TextEncoder().encode('<p>still loading</p>'));
          },
        }),
        { headers: { 'content-type': 'text/html' } },
      );
    case '/huge':
      return new Response(
        new ReadableStream({
          async pull(controller) {
            await Bun.sleep(1);
            hugeBytesSent += 64 * 1024;
            controller.enqueue(new Uint8Array(64 * 1024).fill(97));
          },
          cancel() {
            hugeCancelled = true;
          },
        }),
        { headers: { 'content-type': 'text/html' } },
      );
    case '/zstd':
      return new Response(productPage, { headers: { 'content-type': 'text/html', 'content-encoding': 'zstd' } });
    case '/image':
      return new Response(new Uint8Array([0x89, 0x50, 0x4e, 0x47]), { headers: { 'content-type': 'image/png' } });
    case '/redirect': {
      const left = Number(url.searchParams.get('left'));
      const next = left > 0 ? `/redirect?left=${left - 1}` : '/page';
      return new Response(null, { status: 302, headers: { location: next } });
    }
    case '/redirect-to':
      return new Response(null, { status: 301, headers: { location: url.searchParams.get('target')! } });
    case '/consent':
      if (request.headers.get('cookie')?.includes('consent=yes')) return html(productPage);
      return new Response(null, { status: 302, headers: { location: '/consent', 'set-cookie': 'consent=yes; Path=/' } });
    case '/flaky':
      return count === 1 ? new Response('oops', { status: 500 }) : html(productPage);
    case '/rate-limited':
      return count === 1 ? new Response('slow down', { status: 429, headers: { 'retry-after': '1' } }) : html(productPage);
    case '/unavailable':
      return new Response('down for maintenance', { status: 503 });
    case '/missing':
      return new Response('not here', { status: 404 });
    case '/cloudflare-challenge':
      return new Response(
        '<!DOCTYPE html><html><head><title>Just a moment...</title></head><body><div id="challenge-body-text">Checking your browser</div><script src="/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1"></script></body></html>',
        { status: 403, headers: { 'content-type': 'text/html', 'cf-mitigated': 'challenge', server: 'cloudflare' } },
      );
    case '/datadome-captcha':
      return new Response('<html><head><title>shop.example</title></head><body><script src="https://ct.captcha-delivery.com/c.js"></script></body></html>', {
        status: 503,
        headers: { 'content-type': 'text/html', 'x-datadome': 'protected' },
      });
    case '/challenge-ok-status':
      return html('<html><head><title>Just a moment...</title></head><body>Checking your browser</body></html>');
    case '/page-with-protection-scripts':
      return html(`${productPage}<script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js"></script><form><div class="g-recaptcha"></div></form>`);
    case '/forbidden':
      return new Response('<html><body><h1>Forbidden</h1><p>You may not see this.</p></body></html>', {
        status: 403,
        headers: { 'content-type': 'text/html' },
      });
    case '/shared':
    case '/busy': {
      active++;
      maxActive = Math.max(maxActive, active);
      await Bun.sleep(100);
      active--;
      return html(productPage);
    }
    default:
      return new Response('no such page', { status: 404 });
  }
}

export let server: ReturnType<typeof Bun.serve>;
export let origin: string;

/** Serves the shop while the calling file's tests run: started before them, stopped after. */
export function serveLoopbackShop(): void {
  beforeAll(() => {
    server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: route });
    origin = `http://127.0.0.1:${server.port}`;
  });
  afterAll(() => server.stop(true));
}

/** Forgets the most requests the shop has served at once. */
export function resetMaxActive(): void {
  maxActive = 0;
}

/** A fetcher for the loopback shop: private addresses allowed, short limits, no spacing. */
export function testFetcher(settings: FetcherSettings = {}) {
  return createFetcher({
    hostSpacingMs: 0,
    retryBaseDelayMs: 10,
    ...settings,
    defaults: { allowPrivate: true, timeoutMs: 1_000, connectTimeoutMs: 500, ...settings.defaults },
  });
}

export function expectFailure(result: FetchResult | ResourceResult, code: string) {
  expect(result.ok ? `ok (${result.status})` : result.code).toBe(code);
  if (!result.ok) expect(result.reason.length).toBeGreaterThan(20);
}
