import { Elysia } from 'elysia';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { AppContext } from './context.ts';
import { SESSION_COOKIE } from './auth/sessions.ts';
import { acceptedEncodings, type Encoding } from './http/compression.ts';
import { BUILD_ORIGIN } from '../site/build-origin.ts';

/** Signed-in screens: served to signed-in users, the sign-in-required page otherwise. */
export const APP_PAGES = new Set(['dashboard', 'products', 'catalogue', 'price-history', 'alerts', 'billing', 'settings', 'subscribe']);

const SUFFIX = { br: '.br', gzip: '.gz' } as const;

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

type Page = { stamp: number; body: Promise<Record<'identity' | Encoding, Blob>> };

/**
 * The built pages with the running origin in their absolute links (canonical, og:url, og:image;
 * see site/build-origin.ts), compressed once per page and kept in memory: each request then costs
 * a stat, to notice a rebuild. A public page for a signed-in visitor has `data-signed-in` on its
 * <html>, so its own CSS shows what a signed-in visitor needs (the header's "Open dashboard")
 * without a script or a flash of the signed-out links.
 */
function pageCache(dir: string, origin: string) {
  const pages = new Map<string, Page>();
  return (path: string, signedIn = false) => {
    const source = Bun.file(join(dir, path));
    const stamp = source.lastModified;
    const key = signedIn ? `${path} signed-in` : path;
    let page = pages.get(key);
    if (!page || page.stamp !== stamp) {
      const body = source.text().then(async (html) => {
        const marked = signedIn ? html.replace('<html', '<html data-signed-in') : html;
        const identity = Buffer.from(marked.replaceAll(BUILD_ORIGIN, origin));
        const [br, gzipped] = await Promise.all([
          brotli(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } }),
          gz(identity, { level: 9 }),
        ]);
        return { identity: new Blob([identity]), br: new Blob([br]), gzip: new Blob([gzipped]) };
      });
      page = { stamp, body };
      pages.set(key, page);
      body.catch(() => pages.delete(key)); // read again next time
    }
    return page.body;
  };
}

function listFiles(dir: string): Set<string> {
  const files = new Set<string>();
  const walk = (d: string) => {
    let entries: string[] = [];
    try {
      entries = readdirSync(d);
    } catch {
      return;
    }
    for (const name of entries) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else files.add('/' + relative(dir, full).split('\\').join('/'));
    }
  };
  walk(dir);
  return files;
}

/**
 * Serves the prerendered site. Which page a path gets can depend on the session: `/` is the
 * dashboard when signed in and the landing page otherwise; app pages need a session; /login and
 * /unauthorized send signed-in users home; other public pages are marked for them (see pageCache).
 * Unknown paths get the 404 page with status 404.
 */
export function siteRoutes(ctx: AppContext) {
  const dir = ctx.config.siteDir;
  const rendered = pageCache(dir, new URL(ctx.config.publicUrl).origin);
  let files = listFiles(dir);
  let listedAt = Date.now();
  // A rebuild while the server runs brings new hashed assets: look again, at most once a second.
  const has = (path: string) => {
    if (files.has(path)) return true;
    if (Date.now() - listedAt < 1000) return false;
    files = listFiles(dir);
    listedAt = Date.now();
    return files.has(path);
  };
  // Compressed copies are sent only in place of their file, never by their own name.
  const servable = (path: string) => !/\.(br|gz)$/.test(path) && has(path);
  // The build writes .br and .gz copies beside text assets (scripts/precompress.ts): send the best one the browser takes.
  const file = (request: Request, path: string, status = 200, headers: Record<string, string> = {}) => {
    const source = Bun.file(join(dir, path));
    const precompressed = files.has(path + SUFFIX.br) || files.has(path + SUFFIX.gzip);
    const encoding = precompressed ? acceptedEncodings(request.headers.get('accept-encoding')).find((e) => files.has(path + SUFFIX[e])) : undefined;
    return new Response(encoding ? Bun.file(join(dir, path + SUFFIX[encoding])) : source, {
      status,
      headers: {
        'cache-control': 'no-cache',
        'content-type': source.type,
        ...(precompressed ? { vary: 'Accept-Encoding' } : {}),
        ...(encoding ? { 'content-encoding': encoding } : {}),
        ...headers,
      },
    });
  };
  // A page: its links name the running origin (compressed here, not at build time). One marked for a
  // signed-in visitor is theirs alone: no shared cache keeps it for others.
  const page = async (request: Request, path: string, status = 200, signedInVisitor = false) => {
    const bodies = await rendered(path, signedInVisitor);
    const encoding = acceptedEncodings(request.headers.get('accept-encoding'))[0];
    return new Response(bodies[encoding ?? 'identity'], {
      status,
      headers: {
        'cache-control': signedInVisitor ? 'private, no-cache' : 'no-cache',
        'content-type': 'text/html;charset=utf-8',
        vary: 'Accept-Encoding',
        ...(encoding ? { 'content-encoding': encoding } : {}),
      },
    });
  };
  const signedIn = async (cookie: Record<string, { value?: unknown }>) => !!(await ctx.sessions.validate(cookie[SESSION_COOKIE]?.value));

  return new Elysia({ name: 'site' }).get('/*', async ({ request, path, cookie, redirect }) => {
    if (path.startsWith('/_astro/') && servable(path)) {
      return file(request, path, 200, { 'cache-control': 'public, max-age=31536000, immutable' });
    }
    const name = path === '/' ? 'index' : path.replace(/^\/+|\/+$/g, '').replace(/\.html$/, '');
    if (name === 'index') return page(request, (await signedIn(cookie)) ? '/dashboard.html' : '/index.html');
    if (APP_PAGES.has(name)) return page(request, (await signedIn(cookie)) ? `/${name}.html` : '/unauthorized.html');
    // Signing in, or being told to, is done: a signed-in visitor goes on to the dashboard.
    if ((name === 'login' || name === 'unauthorized') && (await signedIn(cookie))) return redirect('/', 302);
    if (files.has(`/${name}.html`) && name !== '404') return page(request, `/${name}.html`, 200, await signedIn(cookie));
    if (servable(path)) return file(request, path, 200, { 'cache-control': 'public, max-age=3600' });
    return files.has('/404.html') ? page(request, '/404.html', 404, await signedIn(cookie)) : new Response('404 Page Not Found', { status: 404 });
  });
}
