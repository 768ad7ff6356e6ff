import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import {
  createFetcher,
  fetchPage,
  isBlockedAddress,
  isCloudMetadataAddress,
  uncheckableUrlReason,
  validateTargetUrl,
  WEB_PORTS,
  type FetcherSettings,
  type FetchResult,
  type ResourceResult,
} from './fetcher';

describe('isBlockedAddress', () => {
  const blocked = {
    loopback: ['127.0.0.1', '127.255.255.254', '::1'],
    private: ['10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1'],
    'link-local': ['169.254.1.1', 'fe80::1', 'fe80::1%eth0'],
    'cloud metadata': ['169.254.169.254', 'fd00:ec2::254', '168.63.129.16', '::ffff:168.63.129.16', '64:ff9b::a83f:8110'],
    'unique-local': ['fc00::1', 'fd12:3456::1'],
    multicast: ['224.0.0.1', '239.255.255.250', 'ff02::1', 'ff05::2'],
    unspecified: ['0.0.0.0', '0.1.2.3', '::'],
    broadcast: ['255.255.255.255'],
    CGNAT: ['100.64.0.1', '100.127.255.254', '100.100.100.200'],
    reserved: ['240.0.0.1', '192.0.0.8', '192.0.2.1', '198.51.100.1', '203.0.113.1', '198.18.0.1', '2001:db8::1'],
    'IPv4-mapped': ['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '[::ffff:192.168.0.1]'],
    'IPv4-translated and IPv4-compatible': ['::ffff:0:127.0.0.1', '::127.0.0.1'],
    NAT64: ['64:ff9b::127.0.0.1', '64:ff9b::a00:1', '64:ff9b::169.254.169.254', '64:ff9b:1::1'],
    'other special IPv6': ['fec0::1', '2002:7f00:1::1', '2001::1', '100::1'],
    'not an address': ['', 'localhost', '1.2.3.4.5', 'shop.example'],
  };
  for (const [range, addresses] of Object.entries(blocked)) {
    test(`refuses ${range}`, () => {
      for (const ip of addresses) expect({ ip, blocked: isBlockedAddress(ip) }).toEqual({ ip, blocked: true });
    });
  }

  test('allows public addresses', () => {
    const open = [
      '8.8.8.8',
      '1.1.1.1',
      '93.184.216.34',
      '172.32.0.1',
      '172.15.255.255',
      '100.128.0.1',
      '2606:4700:4700::1111',
      '2a00:1450:4009:81f::200e',
      '::ffff:8.8.8.8',
      '64:ff9b::8.8.8.8',
    ];
    for (const ip of open) expect({ ip, blocked: isBlockedAddress(ip) }).toEqual({ ip, blocked: false });
  });

  test('knows the cloud metadata addresses in every form', () => {
    for (const ip of ['169.254.169.254', '::ffff:169.254.169.254', 'fd00:ec2::254', '64:ff9b::a9fe:a9fe'])
      expect(isCloudMetadataAddress(ip)).toBe(true);
    expect(isCloudMetadataAddress('127.0.0.1')).toBe(false);
  });

  test('finds metadata services in all of link-local and inside every IPv6 form that carries an IPv4 address', () => {
    const metadata = [
      // Azure WireServer; AWS ECS credentials, time and DNS: all of 169.254.0.0/16.
      '168.63.129.16', '169.254.170.2', '169.254.169.123', '169.254.169.253', '169.254.0.1',
      '::ffff:168.63.129.16', '64:ff9b::a83f:8110',
      // IPv4-compatible, local-use NAT64, 6to4, and Teredo (client address inverted).
      '::a9fe:a9fe', '::169.254.170.2', '64:ff9b:1::a9fe:a9fe', '2002:a9fe:a9fe::', '2002:a9fe:a9fe:1::1',
      '2001:0:4136:e378:8000:63bf:5601:5601', '[2002:a83f:8110::]',
      // AWS instance services over IPv6: metadata, pod credentials, time.
      'fd00:ec2::254', 'fd00:ec2::23', 'fd00:ec2::123',
    ];
    for (const ip of metadata) expect({ ip, metadata: isCloudMetadataAddress(ip) }).toEqual({ ip, metadata: true });
    const other = [
      '127.0.0.1', '10.0.0.1', '8.8.8.8', '168.63.129.17', '::1', '::', '::ffff:8.8.8.8', '2002:808:808::',
      '2001:0:4136:e378:8000:63bf:f7f7:f7f7', '64:ff9b::808:808', '64:ff9b:1::808:808', 'fe80::1', 'fd00::254', 'not an address',
    ];
    for (const ip of other) expect({ ip, metadata: isCloudMetadataAddress(ip) }).toEqual({ ip, metadata: false });
  });
});

describe('validateTargetUrl', () => {
  test('accepts http and https pages', () => {
    for (const url of ['https://shop.example/p/1?x=2', 'http://shop.example:8080/', 'https://[2606:4700::1]/'])
      expect(validateTargetUrl(url).ok).toBe(true);
  });

  test('refuses other schemes, credentials, mail and shell ports, and garbage', () => {
    for (const url of [
      'ftp://shop.example/file',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'gopher://shop.example/',
      'https://user:secret@shop.example/',
      'http://shop.example:25/',
      'http://shop.example:22/',
      'not a url',
      '',
    ]) {
      const result = validateTargetUrl(url);
      expect(result.ok ? 'accepted' : result.code).toBe('bad-url');
    }
  });

  test('refuses metadata host names', () => {
    const result = validateTargetUrl('http://metadata.google.internal/computeMetadata/v1/');
    expect(result.ok ? 'accepted' : result.code).toBe('blocked-address');
  });
});

describe('uncheckableUrlReason (an address as the user gives it, before any fetch)', () => {
  const refusedWith = (url: string, allowPrivate = false) => uncheckableUrlReason(url, { allowPrivate });

  test('accepts public shop addresses on the ports shops use', () => {
    for (const url of [
      'https://shop.example/p/1?x=2', 'http://shop.example/', 'http://shop.example:80/', 'https://shop.example:443/',
      'http://shop.example:8080/', 'https://shop.example:8443/', 'https://93.184.216.34/p', 'https://[2606:4700::1]/',
      'http://[::ffff:8.8.8.8]/', 'https://xn--bcher-kva.example/', 'http://shop.internal.example/',
    ]) expect({ url, reason: refusedWith(url) }).toEqual({ url, reason: null });
  });

  test('does not resolve names: a name is vetted when its page is fetched', () => {
    expect(refusedWith('https://127.0.0.1.nip.io/')).toBeNull();
  });

  test('refuses what validateTargetUrl refuses, with its reason', () => {
    expect(refusedWith('ftp://shop.example/file')).toBe('Only web pages can be checked: the link must start with http:// or https://.');
    expect(refusedWith('not a url')).toBe('This is not a valid web address. Copy the full link of the product page, starting with https://.');
  });

  test('refuses credentials in the address, even on loopback test servers', () => {
    for (const url of ['https://user:secret@shop.example/', 'https://user@shop.example/', 'http://:pw@127.0.0.1:4000/'])
      for (const allowPrivate of [false, true])
        expect(refusedWith(url, allowPrivate)).toBe('Links that contain a user name or password cannot be checked.');
  });

  const literal: Record<string, string[]> = {
    loopback: ['http://127.0.0.1/', 'http://127.1/', 'http://0x7f.1/', 'http://0x7f000001/', 'http://2130706433/', 'http://017700000001/', 'http://127.0.0.1./', 'http://[::1]/'],
    private: ['http://10.0.0.1/', 'http://10.1/', 'http://0xa000001/', 'http://172.16.0.1/', 'http://192.168.1.1/', 'http://[fc00::1]/', 'http://[fd12:3456::1]/'],
    'link-local': ['http://169.254.1.1/', 'http://[fe80::1]/', 'http://[febf::1]/'],
    unspecified: ['http://0.0.0.0/', 'http://0/', 'http://[::]/'],
    'IPv4-mapped and NAT64': ['http://[::ffff:127.0.0.1]/', 'http://[::ffff:7f00:1]/', 'http://[::ffff:10.0.0.1]/', 'http://[64:ff9b::7f00:1]/'],
    'other non-public': ['http://224.0.0.1/', 'http://255.255.255.255/', 'http://100.64.0.1/', 'http://[ff02::1]/'],
  };
  for (const [range, urls] of Object.entries(literal)) test(`refuses ${range} addresses in every written form`, () => {
    for (const url of urls) {
      const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
      expect({ url, reason: refusedWith(url) }).toEqual({ url, reason: `${host} leads to a private or internal network address, which Pricewatch does not visit for safety reasons.` });
    }
  });

  test('refuses the loopback name localhost', () => {
    for (const url of ['http://localhost/', 'http://LOCALHOST./p', 'http://shop.localhost/']) expect(refusedWith(url)).toBeString();
  });

  test('refuses cloud metadata addresses, even on loopback test servers', () => {
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://[::ffff:169.254.169.254]/', 'http://[fd00:ec2::254]/', 'http://metadata.google.internal/', 'http://100.100.100.200/'])
      for (const allowPrivate of [false, true]) expect({ url, allowPrivate, refused: typeof refusedWith(url, allowPrivate) }).toEqual({ url, allowPrivate, refused: 'string' });
  });

  test('refuses every form of a metadata address, even on loopback test servers', () => {
    for (const url of [
      'http://168.63.129.16/machine?comp=goalstate', 'http://169.254.170.2/v2/credentials/x', 'http://169.254.169.123/',
      'http://[::a9fe:a9fe]/', 'http://[::169.254.169.254]/', 'http://[64:ff9b:1::a9fe:a9fe]/', 'http://[2002:a9fe:a9fe::]/',
      'http://[2001:0:4136:e378:8000:63bf:5601:5601]/', 'http://[::ffff:168.63.129.16]/', 'http://[fd00:ec2::23]/',
    ]) {
      const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
      for (const allowPrivate of [false, true])
        expect({ url, allowPrivate, reason: refusedWith(url, allowPrivate) }).toEqual({
          url, allowPrivate, reason: `${host} leads to a private or internal network address, which Pricewatch does not visit for safety reasons.`,
        });
    }
  });

  test('refuses ports other than 80, 443, 8080 and 8443', () => {
    for (const port of [81, 3000, 5432, 6379, 8000, 8081, 9200, 65535]) {
      expect(refusedWith(`https://shop.example:${port}/`)).toBe(`Port ${port} is not a port shops serve pages on (80, 443, 8080 or 8443), so Pricewatch does not open it.`);
    }
    for (const port of [1, 22, 25]) expect(refusedWith(`https://shop.example:${port}/`)).toBe(`Port ${port} is not used for web pages, so Pricewatch does not open it.`);
    expect(refusedWith('http://shop.example:443/')).toBeNull();
    expect(refusedWith('https://shop.example:80/')).toBeNull();
  });

  test('allowPrivate (tests on loopback servers) lifts the address and port rules only', () => {
    for (const url of ['http://127.0.0.1:40123/kettle', 'http://localhost:3000/demo-shop/', 'http://[::1]:8000/', 'http://10.0.0.1:9999/'])
      expect({ url, reason: refusedWith(url, true) }).toEqual({ url, reason: null });
    // Mail and shell ports stay closed as they are when fetching.
    expect(refusedWith('http://127.0.0.1:25/', true)).toBeString();
  });
});

// ---------------------------------------------------------------------------------------
// A shop on loopback

const hits = new Map<string, number>();
const hitTimes = new Map<string, number[]>();
const seenHeaders: Array<Record<string, string>> = [];
let active = 0;
let maxActive = 0;
let hugeBytesSent = 0;
let hugeCancelled = false;

const html = (body: string, headers: Record<string, string> = {}) =>
  new Response(body, { headers: { 'content-type': 'text/html; charset=utf-8', ...headers } });
const productPage = '<!doctype html><html><head><title>Kettle</title></head><body><p class="price">£1,299.99</p></body></html>';

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
      return count === 1
        ? new Response('slow down', { status: 429, headers: { 'retry-after': '1' } })
        : html(productPage);
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
      return new Response(
        '<html><head><title>shop.example</title></head><body><script src="https://ct.captcha-delivery.com/c.js"></script></body></html>',
        { status: 503, headers: { 'content-type': 'text/html', 'x-datadome': 'protected' } },
      );
    case '/challenge-ok-status':
      return html('<html><head><title>Just a moment...</title></head><body>Checking your browser</body></html>');
    case '/page-with-protection-scripts':
      return html(
        `${productPage}<script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js"></script><form><div class="g-recaptcha"></div></form>`,
      );
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

let server: ReturnType<typeof Bun.serve>;
let origin: string;

beforeAll(() => {
  server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: route });
  origin = `http://127.0.0.1:${server.port}`;
});
afterAll(() => server.stop(true));

/** A fetcher for the loopback shop: private addresses allowed, short limits, no spacing. */
function testFetcher(settings: FetcherSettings = {}) {
  return createFetcher({
    hostSpacingMs: 0,
    retryBaseDelayMs: 10,
    ...settings,
    defaults: { allowPrivate: true, timeoutMs: 1_000, connectTimeoutMs: 500, ...settings.defaults },
  });
}

function expectFailure(result: FetchResult | ResourceResult, code: string) {
  expect(result.ok ? `ok (${result.status})` : result.code).toBe(code);
  if (!result.ok) expect(result.reason.length).toBeGreaterThan(20);
}

describe('fetchPage on a loopback shop', () => {
  test('fetches a normal page with polite headers', async () => {
    const result = await testFetcher().fetchPage(`${origin}/page`);
    if (!result.ok) throw new Error(result.reason);
    expect(result.status).toBe(200);
    expect(result.url).toBe(`${origin}/page`);
    expect(result.body).toContain('£1,299.99');
    expect(result.contentType).toBe('text/html; charset=utf-8');
    expect(result.bytes).toBe(Buffer.byteLength(productPage));
    const headers = seenHeaders.at(-1)!;
    expect(headers['user-agent']).toContain('Pricewatch');
    expect(headers['accept-language']).toContain('en');
    expect(headers['accept-encoding']).toContain('br');
  });

  test('decodes gzip, brotli and deflate bodies', async () => {
    const fetcher = testFetcher();
    for (const path of ['/gzip', '/br', '/deflate']) {
      const result = await fetcher.fetchPage(`${origin}${path}`);
      expect(result.ok && result.body).toBe(productPage);
    }
  });

  test('decodes the charset named by Content-Type or by a meta tag', async () => {
    const fetcher = testFetcher();
    for (const path of ['/latin1-header', '/latin1-meta']) {
      const result = await fetcher.fetchPage(`${origin}${path}`);
      expect(result.ok && result.body).toContain('£12');
    }
  });

  test('gives up on a shop that does not answer in time', async () => {
    const started = performance.now();
    const result = await testFetcher().fetchPage(`${origin}/slow`, { timeoutMs: 200 });
    expectFailure(result, 'timeout');
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(!result.ok && result.reason).toBe('The shop did not answer within 0.2 seconds.');
  });

  test('the connect limit does not cut a slow answer short', async () => {
    const result = await testFetcher().fetchPage(`${origin}/slow?ms=300`, { connectTimeoutMs: 100, timeoutMs: 2_000 });
    expect(result.ok).toBe(true);
  });

  test('the time limit also covers a body that trickles in', async () => {
    const result = await testFetcher().fetchPage(`${origin}/slow-body`, { timeoutMs: 300 });
    expectFailure(result, 'timeout');
  });

  test('stops reading a body larger than the limit', async () => {
    const started = performance.now();
    const result = await testFetcher().fetchPage(`${origin}/huge`, { maxBytes: 256 * 1024, timeoutMs: 5_000 });
    expectFailure(result, 'too-large');
    expect(performance.now() - started).toBeLessThan(2_000);
    for (let i = 0; i < 50 && !hugeCancelled; i++) await Bun.sleep(20);
    expect(hugeCancelled).toBe(true);
    expect(hugeBytesSent).toBeLessThan(16 * 1024 * 1024);
  });

  test('limits the decompressed size, not the compressed one', async () => {
    const result = await testFetcher().fetchPage(`${origin}/gzip-bomb`, { maxBytes: 1024 * 1024 });
    expectFailure(result, 'too-large');
  });

  test('refuses files that are not web pages', async () => {
    expectFailure(await testFetcher().fetchPage(`${origin}/image`), 'not-html');
  });

  test('refuses a compression it did not ask for', async () => {
    expectFailure(await testFetcher().fetchPage(`${origin}/zstd`), 'network');
  });

  test('follows redirects up to the limit', async () => {
    const fetcher = testFetcher();
    const followed = await fetcher.fetchPage(`${origin}/redirect?left=2`, { maxRedirects: 3 });
    expect(followed.ok && followed.url).toBe(`${origin}/page`);
    const looped = await fetcher.fetchPage(`${origin}/redirect?left=9`, { maxRedirects: 3 });
    expectFailure(looped, 'too-many-redirects');
    expect(hits.get('/redirect?left=6')).toBe(1);
    expect(hits.get('/redirect?left=5')).toBeUndefined();
  });

  test('keeps cookies set along a redirect chain', async () => {
    const result = await testFetcher().fetchPage(`${origin}/consent`);
    expect(result.ok).toBe(true);
  });

  test('retries a server error and succeeds', async () => {
    const result = await testFetcher().fetchPage(`${origin}/flaky`);
    expect(result.ok).toBe(true);
    expect(hits.get('/flaky')).toBe(2);
  });

  test('waits as long as Retry-After asks', async () => {
    const result = await testFetcher().fetchPage(`${origin}/rate-limited`);
    expect(result.ok).toBe(true);
    const [first, second] = hitTimes.get('/rate-limited')!;
    expect(second - first).toBeGreaterThanOrEqual(950);
  });

  test('reports the status once retries are used up', async () => {
    const result = await testFetcher().fetchPage(`${origin}/unavailable`, { retries: 2 });
    expectFailure(result, 'http-status');
    expect(!result.ok && result.status).toBe(503);
    expect(hits.get('/unavailable')).toBe(3);
    const missing = await testFetcher().fetchPage(`${origin}/missing`);
    expect(!missing.ok && missing.status).toBe(404);
    expect(hits.get('/missing')).toBe(1);
  });

  test('tells bot protection apart from a plain refusal', async () => {
    const fetcher = testFetcher();
    const challenged = await fetcher.fetchPage(`${origin}/cloudflare-challenge`);
    expectFailure(challenged, 'blocked');
    expect(!challenged.ok && challenged.reason).toContain('Cloudflare');
    const captcha = await fetcher.fetchPage(`${origin}/datadome-captcha`);
    expectFailure(captcha, 'blocked');
    expect(hits.get('/datadome-captcha')).toBe(1);
    const forbidden = await fetcher.fetchPage(`${origin}/forbidden`);
    expectFailure(forbidden, 'http-status');
    expect(!forbidden.ok && forbidden.status).toBe(403);
  });

  test('recognises a challenge served with status 200, but not a page that merely loads protection scripts', async () => {
    const fetcher = testFetcher();
    expectFailure(await fetcher.fetchPage(`${origin}/challenge-ok-status`), 'blocked');
    expect((await fetcher.fetchPage(`${origin}/page-with-protection-scripts`)).ok).toBe(true);
  });

  test('names an unknown host', async () => {
    const result = await createFetcher().fetchPage('http://no-such-shop.invalid/product');
    expectFailure(result, 'dns');
    expect(!result.ok && result.reason).toContain('no-such-shop.invalid');
  });

  test('refuses bad links before touching the network', async () => {
    expectFailure(await testFetcher().fetchPage('ftp://shop.example/price.html'), 'bad-url');
  });

  test('shares one request between concurrent calls for the same page', async () => {
    const fetcher = testFetcher();
    const [first, second] = await Promise.all([
      fetcher.fetchPage(`${origin}/shared?id=1`),
      fetcher.fetchPage(`${origin}/shared?id=1`),
    ]);
    expect(first.ok && second.ok).toBe(true);
    expect(hits.get('/shared?id=1')).toBe(1);
    await fetcher.fetchPage(`${origin}/shared?id=1`);
    expect(hits.get('/shared?id=1')).toBe(2);
  });

  test('never runs more requests on one host than allowed', async () => {
    maxActive = 0;
    const fetcher = testFetcher({ maxConcurrentPerHost: 2 });
    const results = await Promise.all([1, 2, 3, 4, 5].map((i) => fetcher.fetchPage(`${origin}/busy?i=${i}`)));
    expect(results.every((result) => result.ok)).toBe(true);
    expect(maxActive).toBe(2);
  });

  test('spaces out request starts on one host', async () => {
    const fetcher = testFetcher({ hostSpacingMs: 120 });
    await Promise.all([1, 2, 3].map((i) => fetcher.fetchPage(`${origin}/page?spaced=${i}`)));
    const starts = [1, 2, 3].map((i) => hitTimes.get(`/page?spaced=${i}`)![0]).sort((a, b) => a - b);
    expect(starts[1] - starts[0]).toBeGreaterThanOrEqual(100);
    expect(starts[2] - starts[1]).toBeGreaterThanOrEqual(100);
  });
});

describe('redirects off the web', () => {
  for (const to of ['chrome://version', 'devtools://devtools/bundled/inspector.html', 'data:text/html,<p>£1</p>', 'about:blank', 'file:///etc/passwd']) {
    test(`a redirect to ${to.split(':')[0]}: is refused, saying where it went`, async () => {
      const fetcher = createFetcher({ hostSpacingMs: 0 });
      const address = `${origin}/to-browser-page?to=${encodeURIComponent(to)}`;
      const page = await fetcher.fetchPage(address, { allowPrivate: true });
      expectFailure(page, 'bad-url');
      expect(!page.ok && page.reason).toContain('which is not a web page');
      const resource = await fetcher.fetchResource!({ url: address, method: 'GET', headers: {}, followRedirects: true }, { allowPrivate: true });
      expectFailure(resource, 'bad-url');
    });
  }
});

describe('server-side request forgery', () => {
  const port = () => server.port;
  // The shop answers on 127.0.0.1; this guard treats that one address as public.
  const onlyShopIsPublic = (ip: string) => ip === '127.0.0.1';
  const resolveNames = async (hostname: string) => {
    const names: Record<string, string> = { 'shop.test': '127.0.0.1', 'internal.test': '10.0.0.5' };
    if (!names[hostname]) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return [{ address: names[hostname], family: 4 as const }];
  };

  test('refuses a name that resolves to loopback', async () => {
    const fetcher = createFetcher({ resolve: resolveNames, hostSpacingMs: 0 });
    const result = await fetcher.fetchPage(`http://shop.test:${port()}/page?ssrf=name`);
    expectFailure(result, 'blocked-address');
    expect(hits.get('/page?ssrf=name')).toBeUndefined();
  });

  test('connects to the checked address, not to a later DNS answer', async () => {
    // A rebinding name: public on the first lookup, internal afterwards.
    let lookups = 0;
    const rebinding = async () => [{ address: lookups++ === 0 ? '127.0.0.1' : '10.0.0.5', family: 4 as const }];
    const fetcher = createFetcher({
      resolve: rebinding,
      isAllowedAddress: onlyShopIsPublic,
      hostSpacingMs: 0,
      defaults: { allowPrivate: false, retries: 0 },
    });
    const result = await fetcher.fetchPage(`http://rebinding.test:${port()}/page?ssrf=rebinding`);
    expect(result.ok).toBe(true);
    expect(lookups).toBe(1);
    expect(hits.get('/page?ssrf=rebinding')).toBe(1);
  });

  test('refuses address literals in every spelling', async () => {
    const fetcher = createFetcher({ hostSpacingMs: 0 });
    for (const host of ['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', '0x7f.1', '2130706433', '169.254.169.254'])
      expectFailure(await fetcher.fetchPage(`http://${host}:${port()}/page?ssrf=literal`), 'blocked-address');
    expect(hits.get('/page?ssrf=literal')).toBeUndefined();
  });

  test('checks every redirect hop', async () => {
    const fetcher = createFetcher({
      resolve: resolveNames,
      isAllowedAddress: onlyShopIsPublic,
      hostSpacingMs: 0,
      defaults: { allowPrivate: false, timeoutMs: 1_000 },
    });
    const allowed = await fetcher.fetchPage(`http://shop.test:${port()}/page?ssrf=allowed`);
    expect(allowed.ok).toBe(true);
    for (const target of [`http://127.0.0.2:${port()}/page`, `http://internal.test:${port()}/page`]) {
      const redirected = await fetcher.fetchPage(
        `http://shop.test:${port()}/redirect-to?target=${encodeURIComponent(target)}`,
      );
      expectFailure(redirected, 'blocked-address');
    }
    const toFtp = await fetcher.fetchPage(`${origin}/redirect-to?target=${encodeURIComponent('ftp://shop.test/')}`);
    expectFailure(toFtp, 'bad-url');
  });

  test('keeps metadata addresses closed even when private addresses are allowed', async () => {
    const fetcher = createFetcher({
      resolve: async () => [{ address: '169.254.169.254', family: 4 }],
      defaults: { allowPrivate: true },
    });
    expectFailure(await fetcher.fetchPage('http://instance-data.test/latest/meta-data/'), 'blocked-address');
  });

  // Names that resolve to metadata services, so every path is tried without leaving this machine.
  const metadataNames: Record<string, string> = {
    'wireserver.test': '168.63.129.16',
    'ecs-credentials.test': '169.254.170.2',
    'compatible.test': '::a9fe:a9fe',
    'nat64-local.test': '64:ff9b:1::a9fe:a9fe',
    '6to4.test': '2002:a9fe:a9fe::',
    'teredo.test': '2001:0:4136:e378:8000:63bf:5601:5601',
  };
  const metadataLiterals = ['168.63.129.16', '169.254.170.2', '[::a9fe:a9fe]', '[64:ff9b:1::a9fe:a9fe]', '[2002:a9fe:a9fe::]', '[2001:0:4136:e378:8000:63bf:5601:5601]'];

  test('keeps every metadata service closed in every mode: by name, by literal and on a redirect hop', async () => {
    const resolve = async (hostname: string) => {
      const address = metadataNames[hostname];
      return address ? [{ address, family: address.includes(':') ? (6 as const) : (4 as const) }] : resolveNames(hostname);
    };
    for (const allowPrivate of [true, false]) {
      const fetcher = createFetcher({
        resolve,
        // The production guard, plus the loopback shop.
        isAllowedAddress: (ip) => ip === '127.0.0.1' || !isBlockedAddress(ip),
        hostSpacingMs: 0,
        defaults: { allowPrivate, retries: 0, timeoutMs: 1_000, connectTimeoutMs: 300 },
      });
      const urls = [...Object.keys(metadataNames), ...metadataLiterals].map((host) => `http://${host}/latest/meta-data/`);
      for (const url of urls) {
        const hop = `http://shop.test:${port()}/redirect-to?target=${encodeURIComponent(url)}`;
        for (const [path, result] of [
          ['page', await fetcher.fetchPage(url)],
          ['resource', await fetcher.fetchResource!({ url, method: 'GET', headers: {} })],
          ['page hop', await fetcher.fetchPage(hop)],
          ['resource hop', await fetcher.fetchResource!({ url: hop, method: 'GET', headers: {} })],
        ] as const) expect({ url, allowPrivate, path, code: result.ok ? 'ok' : result.code }).toEqual({ url, allowPrivate, path, code: 'blocked-address' });
      }
    }
  });

  test('redirect hops stay on the ports shops serve pages on, as addresses given by users do', async () => {
    const guarded = createFetcher({
      resolve: resolveNames,
      isAllowedAddress: onlyShopIsPublic,
      hostSpacingMs: 0,
      defaults: { allowPrivate: false, retries: 0, timeoutMs: 1_000 },
    });
    const offPort = (tag: string) => `http://shop.test:${port()}/page?hop=${tag}`;
    const via = (target: string) => `http://shop.test:${port()}/redirect-to?target=${encodeURIComponent(target)}`;
    const refusal = `Port ${port()} is not a port shops serve pages on (80, 443, 8080 or 8443), so Pricewatch does not open it.`;
    expect(uncheckableUrlReason(offPort('x'))).toBe(refusal);

    const page = await guarded.fetchPage(via(offPort('page')));
    expectFailure(page, 'bad-url');
    expect(!page.ok && page.reason).toBe(refusal);
    // A page's document (main page or frame) is held to the same rule, itself and its hops.
    const document = await guarded.fetchResource!({ url: offPort('document'), method: 'GET', headers: {}, document: true });
    expect(document).toMatchObject({ ok: false, code: 'bad-url', reason: refusal });
    const documentHop = await guarded.fetchResource!({ url: via(offPort('document-hop')), method: 'GET', headers: {}, document: true });
    expect(documentHop).toMatchObject({ ok: false, code: 'bad-url', reason: refusal });
    for (const tag of ['page', 'document', 'document-hop']) expect(hits.get(`/page?hop=${tag}`)).toBeUndefined();

    // A subresource keeps the browser's rule only: the page's scripts could ask for that port directly.
    expect(await guarded.fetchResource!({ url: via(offPort('subresource')), method: 'GET', headers: {} })).toMatchObject({ ok: true, status: 200 });
    // A private hop is named as such before its port is looked at, as when an address is given.
    expectFailure(await guarded.fetchPage(via(`http://internal.test:${port()}/page`)), 'blocked-address');
    // The browser's bad ports stay closed on every hop.
    expectFailure(await guarded.fetchResource!({ url: via('http://shop.test:25/'), method: 'GET', headers: {} }), 'bad-url');
  });

  test('allowPrivate (tests on loopback) follows hops to any port but the bad ones; a fetcher may name more web ports', async () => {
    const open = testFetcher();
    const via = (target: string) => `${origin}/redirect-to?target=${encodeURIComponent(target)}`;
    expect((await open.fetchPage(via(`${origin}/page?hop=open-page`))).ok).toBe(true);
    expect(await open.fetchResource!({ url: via(`${origin}/page?hop=open-document`), method: 'GET', headers: {}, document: true })).toMatchObject({ ok: true, status: 200 });
    expectFailure(await open.fetchPage(via('http://127.0.0.1:25/')), 'bad-url');

    const shopPort = createFetcher({
      resolve: resolveNames,
      isAllowedAddress: onlyShopIsPublic,
      webPorts: [...WEB_PORTS, server.port!],
      hostSpacingMs: 0,
      defaults: { allowPrivate: false, retries: 0, timeoutMs: 1_000 },
    });
    const hop = await shopPort.fetchPage(`http://shop.test:${port()}/redirect-to?target=${encodeURIComponent(`http://shop.test:${port()}/page?hop=named-port`)}`);
    expect(hop.ok).toBe(true);
    expect(hits.get('/page?hop=named-port')).toBe(1);
  });

  test('CHECK_ALLOW_PRIVATE opens loopback for the shared fetcher', async () => {
    const before = process.env.CHECK_ALLOW_PRIVATE;
    try {
      delete process.env.CHECK_ALLOW_PRIVATE;
      expectFailure(await fetchPage(`${origin}/page?env=off`), 'blocked-address');
      process.env.CHECK_ALLOW_PRIVATE = 'true';
      expect((await fetchPage(`${origin}/page?env=on`)).ok).toBe(true);
    } finally {
      if (before === undefined) delete process.env.CHECK_ALLOW_PRIVATE;
      else process.env.CHECK_ALLOW_PRIVATE = before;
    }
  });
});

// A self-signed certificate for shop.test (valid 2020-2120), trusted only by these tests.
const SHOP_TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgNG8VfERv+ES+ruro
agmNLdw+QtWzsxGNbCV+IBcrbF+hRANCAASZQCx7dL1z9LVnTpvvF8W+nZVJc2Gu
W2UW7cDRRQslAetME7tPXuVZXjfvSl4080Th2uaiAGKKwn5p8sJ5x5HV
-----END PRIVATE KEY-----`;
const SHOP_TEST_CERTIFICATE = `-----BEGIN CERTIFICATE-----
MIIBYDCCAQegAwIBAgIBATAKBggqhkjOPQQDAjAUMRIwEAYDVQQDDAlzaG9wLnRl
c3QwIBcNMjAwMTAxMDAwMDAwWhgPMjEyMDAxMDEwMDAwMDBaMBQxEjAQBgNVBAMM
CXNob3AudGVzdDBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABJlALHt0vXP0tWdO
m+8Xxb6dlUlzYa5bZRbtwNFFCyUB60wTu09e5VleN+9KXjTzROHa5qIAYorCfmny
wnnHkdWjSDBGMBQGA1UdEQQNMAuCCXNob3AudGVzdDAPBgNVHRMBAf8EBTADAQH/
MB0GA1UdDgQWBBT956Z0ZibiR4Sdcvo95fkq5yxS4jAKBggqhkjOPQQDAgNHADBE
AiBF3g6xEZSC1DXUfZeH/DPygKrNHcJEl2u/g832kCX/dAIgEQ9tNPONNb+cBfCs
PWF4r7UcRZDk+kZCzC6twzJIQrU=
-----END CERTIFICATE-----`;

describe('https with the connection pinned to the checked address', () => {
  let tlsServer: https.Server;
  let tlsPort: number;
  const handshakes: Array<{ servername: unknown; host: string | undefined }> = [];

  beforeAll(async () => {
    tlsServer = https.createServer({ key: SHOP_TEST_KEY, cert: SHOP_TEST_CERTIFICATE }, (request, response) => {
      handshakes.push({ servername: (request.socket as { servername?: unknown }).servername, host: request.headers.host });
      const delay = request.url === '/slow' ? 300 : 0;
      setTimeout(() => response.writeHead(200, { 'content-type': 'text/html' }).end(productPage), delay);
    });
    await new Promise<void>((listening) => tlsServer.listen(0, '127.0.0.1', listening));
    tlsPort = (tlsServer.address() as AddressInfo).port;
  });
  afterAll(() => tlsServer.close());

  const pinnedTo127 = (settings: FetcherSettings = {}) =>
    createFetcher({
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
      hostSpacingMs: 0,
      defaults: { allowPrivate: true, timeoutMs: 2_000, retries: 0 },
      ...settings,
    });

  test('sends SNI and verifies the certificate against the shop name', async () => {
    const fetcher = pinnedTo127({ extraCertificateAuthorities: [SHOP_TEST_CERTIFICATE] });
    const result = await fetcher.fetchPage(`https://shop.test:${tlsPort}/page`);
    if (!result.ok) throw new Error(result.reason);
    expect(result.body).toBe(productPage);
    expect(handshakes.at(-1)).toEqual({ servername: 'shop.test', host: `shop.test:${tlsPort}` });
  });

  test('the connect limit ends once the connection is made', async () => {
    const fetcher = pinnedTo127({ extraCertificateAuthorities: [SHOP_TEST_CERTIFICATE] });
    const result = await fetcher.fetchPage(`https://shop.test:${tlsPort}/slow`, { connectTimeoutMs: 100 });
    expect(result.ok).toBe(true);
  });

  test('refuses a certificate that does not match or is not trusted', async () => {
    const wrongName = await pinnedTo127({ extraCertificateAuthorities: [SHOP_TEST_CERTIFICATE] }).fetchPage(
      `https://other.test:${tlsPort}/page`,
    );
    expectFailure(wrongName, 'network');
    expect(!wrongName.ok && wrongName.reason).toContain('certificate');
    const untrusted = await pinnedTo127().fetchPage(`https://shop.test:${tlsPort}/page`);
    expectFailure(untrusted, 'network');
  });
});
