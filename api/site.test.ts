import { afterAll, describe, expect, test } from 'bun:test';
import { Elysia } from 'elysia';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { AppContext } from './context.ts';
import { compression } from './http/compression.ts';
import { siteRoutes } from './site.ts';
import { precompress } from '../scripts/precompress.ts';
import { BUILD_ORIGIN } from '../site/build-origin.ts';

const body = async (res: Response) => {
  const bytes = Buffer.from(await res.arrayBuffer());
  const encoding = res.headers.get('content-encoding');
  return (encoding === 'br' ? brotliDecompressSync(bytes) : encoding === 'gzip' ? gunzipSync(bytes) : bytes).toString('utf8');
};

describe('the built site', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pricewatch-site-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const page = (origin: string) =>
    `<!doctype html><title>Pricewatch</title><link rel="canonical" href="${origin}/">` +
    `<meta property="og:image" content="${origin}/og-image.png"><p>${'Never miss a price drop. '.repeat(100)}</p>`;
  const html = page('https://pricewatch.example');
  const script = `export const x = "${'a'.repeat(3000)}";`;
  mkdirSync(join(dir, '_astro'));
  writeFileSync(join(dir, 'index.html'), page(BUILD_ORIGIN));
  writeFileSync(join(dir, '_astro', 'app.B1x2.js'), script);
  writeFileSync(join(dir, 'robots.txt'), 'User-agent: *');
  const ctx = { config: { siteDir: dir, publicUrl: 'https://pricewatch.example' }, sessions: { validate: async () => null } } as unknown as AppContext;
  const site = () => new Elysia().use(compression).use(siteRoutes(ctx));
  const fetchSite = (path: string, acceptEncoding?: string) =>
    site().handle(new Request(`http://localhost${path}`, { headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} }));

  test('the build writes a brotli and a gzip copy beside each text asset of 1 KB or more; pages are left to the server', async () => {
    const totals = await precompress(dir);
    expect(totals.files).toBe(1);
    expect(readdirSync(dir).sort()).toEqual(['_astro', 'index.html', 'robots.txt']);
    expect(readdirSync(join(dir, '_astro')).sort()).toEqual(['app.B1x2.js', 'app.B1x2.js.br', 'app.B1x2.js.gz']);
  });

  test('pages name the running origin in their absolute links, compressed once, and follow a rebuild', async () => {
    for (const encoding of ['br', 'gzip', undefined]) {
      const res = await fetchSite('/', encoding);
      expect(res.headers.get('content-encoding')).toBe(encoding ?? null);
      expect(await body(res)).toBe(html);
    }
    // A rebuild: new contents, a later modification time.
    const rebuild = (contents: string, seconds: number) => {
      writeFileSync(join(dir, 'index.html'), contents);
      utimesSync(join(dir, 'index.html'), new Date(), new Date(Date.now() + seconds * 1000));
    };
    rebuild(page(BUILD_ORIGIN).replace('Pricewatch', 'Pricewatch 2'), 5);
    const rebuilt = await body(await fetchSite('/', 'br'));
    expect(rebuilt).toContain('<title>Pricewatch 2</title>');
    expect(rebuilt).toContain('href="https://pricewatch.example/"');
    rebuild(page(BUILD_ORIGIN), 10);
  });

  test('pages and hashed assets are sent compressed, assets still cached for a year', async () => {
    const page = await fetchSite('/', 'gzip, deflate, br');
    expect(page.headers.get('content-encoding')).toBe('br');
    expect(page.headers.get('content-type')).toStartWith('text/html');
    expect(page.headers.get('vary')).toBe('Accept-Encoding');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(await body(page)).toBe(html);

    const asset = await fetchSite('/_astro/app.B1x2.js', 'gzip');
    expect(asset.headers.get('content-encoding')).toBe('gzip');
    expect(asset.headers.get('content-type')).toStartWith('text/javascript');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await body(asset)).toBe(script);

    const identity = await fetchSite('/_astro/app.B1x2.js');
    expect(identity.headers.get('content-encoding')).toBeNull();
    expect(identity.headers.get('vary')).toBe('Accept-Encoding');
    expect(await identity.text()).toBe(script);
  });

  test('a small file goes as it is, and a compressed copy is never sent by its own name', async () => {
    const robots = await fetchSite('/robots.txt', 'br');
    expect(robots.headers.get('content-encoding')).toBeNull();
    expect(await robots.text()).toBe('User-agent: *');
    expect((await fetchSite('/index.html.br', 'br')).status).toBe(404);
  });
});

describe('public pages know who is signed in', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pricewatch-site-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const html = (name: string) => `<!doctype html><html lang="en-GB"><title>${name}</title><a href="/login" data-show="signed-out">Sign In</a></html>`;
  for (const name of ['index', 'dashboard', 'how-it-works', 'unauthorized', 'login', '404']) writeFileSync(join(dir, `${name}.html`), html(name));
  const ctx = {
    config: { siteDir: dir, publicUrl: 'https://pricewatch.example' },
    sessions: { validate: async (token?: string) => (token === 'signed-in' ? { userId: 'u1', expiresAt: new Date(Date.now() + 60_000) } : null) },
  } as unknown as AppContext;
  const site = new Elysia().use(siteRoutes(ctx));
  const get = (path: string, signedIn: boolean) =>
    site.handle(new Request(`http://localhost${path}`, { headers: signedIn ? { cookie: 'pw_session=signed-in' } : {} }));

  test('a signed-in visitor gets the page marked, so its header offers the dashboard; never shared with other visitors', async () => {
    for (const path of ['/how-it-works', '/no-such-page']) {
      const signedIn = await get(path, true);
      expect(await signedIn.text()).toStartWith('<!doctype html><html data-signed-in lang="en-GB">');
      expect(signedIn.headers.get('cache-control')).toBe('private, no-cache');
      const signedOut = await get(path, false);
      expect(await signedOut.text()).toStartWith('<!doctype html><html lang="en-GB">');
      expect(signedOut.headers.get('cache-control')).toBe('no-cache');
    }
  });

  test('the sign-in-required page sends a signed-in visitor on to the dashboard, as the sign-in page does', async () => {
    for (const path of ['/unauthorized', '/login']) {
      const res = await get(path, true);
      expect(res.status).toBe(302);
      expect(res.headers.get('location')).toBe('/');
    }
    expect(await (await get('/unauthorized', false)).text()).toContain('<title>unauthorized</title>');
  });
});
