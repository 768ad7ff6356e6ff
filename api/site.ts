import { Elysia } from 'elysia';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { AppContext } from './context.ts';
import { SESSION_COOKIE } from './auth/sessions.ts';
import { acceptedEncodings } from './http/compression.ts';

/** Signed-in screens: served to signed-in users, the sign-in-required page otherwise. */
export const APP_PAGES = new Set(['dashboard', 'products', 'price-history', 'alerts', 'billing', 'settings', 'subscribe']);

const SUFFIX = { br: '.br', gzip: '.gz' } as const;

function listFiles(dir: string): Set<string> {
  const files = new Set<string>();
  const walk = (d: string) => {
    let entries: string[] = [];
    try { entries = readdirSync(d); } catch { return; }
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
 * dashboard when signed in and the landing page otherwise; app pages need a session; /login
 * sends signed-in users home. Unknown paths get the 404 page with status 404.
 */
export function siteRoutes(ctx: AppContext) {
  const dir = ctx.config.siteDir;
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
  // The build writes .br and .gz copies beside text files (scripts/precompress.ts): send the best one the browser takes.
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
  const signedIn = async (cookie: Record<string, { value?: unknown }>) =>
    !!(await ctx.sessions.validate(cookie[SESSION_COOKIE]?.value));

  return new Elysia({ name: 'site' }).get('/*', async ({ request, path, cookie, redirect }) => {
    if (path.startsWith('/_astro/') && servable(path)) {
      return file(request, path, 200, { 'cache-control': 'public, max-age=31536000, immutable' });
    }
    const page = path === '/' ? 'index' : path.replace(/^\/+|\/+$/g, '').replace(/\.html$/, '');
    if (page === 'index') return file(request, (await signedIn(cookie)) ? '/dashboard.html' : '/index.html');
    if (APP_PAGES.has(page)) return file(request, (await signedIn(cookie)) ? `/${page}.html` : '/unauthorized.html');
    if (page === 'login' && (await signedIn(cookie))) return redirect('/', 302);
    if (files.has(`/${page}.html`) && page !== '404') return file(request, `/${page}.html`);
    if (servable(path)) return file(request, path, 200, { 'cache-control': 'public, max-age=3600' });
    return files.has('/404.html') ? file(request, '/404.html', 404) : new Response('404 Page Not Found', { status: 404 });
  });
}
