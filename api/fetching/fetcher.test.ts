import { describe, expect, test } from 'bun:test';
import { createFetcher } from './fetcher.ts';
import {
  expectFailure,
  hits,
  hitTimes,
  hugeBytesSent,
  hugeCancelled,
  maxActive,
  origin,
  productPage,
  resetMaxActive,
  seenHeaders,
  serveLoopbackShop,
  testFetcher,
} from './loopback-shop.ts';

serveLoopbackShop();

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
    const [first, second] = await Promise.all([fetcher.fetchPage(`${origin}/shared?id=1`), fetcher.fetchPage(`${origin}/shared?id=1`)]);
    expect(first.ok && second.ok).toBe(true);
    expect(hits.get('/shared?id=1')).toBe(1);
    await fetcher.fetchPage(`${origin}/shared?id=1`);
    expect(hits.get('/shared?id=1')).toBe(2);
  });

  test('never runs more requests on one host than allowed', async () => {
    resetMaxActive();
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
