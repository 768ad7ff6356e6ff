import { Elysia } from 'elysia';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { AppContext } from './context.ts';
import { SESSION_COOKIE } from './auth/sessions.ts';

/** Signed-in screens: served to signed-in users, the sign-in-required page otherwise. */
export const APP_PAGES = new Set(['dashboard', 'products', 'price-history', 'alerts', 'billing', 'settings', 'subscribe']);

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
  const file = (path: string, status = 200, headers: Record<string, string> = {}) =>
    new Response(Bun.file(join(dir, path)), { status, headers: { 'cache-control': 'no-cache', ...headers } });
  const signedIn = async (cookie: Record<string, { value?: unknown }>) =>
    !!(await ctx.sessions.validate(cookie[SESSION_COOKIE]?.value));

  return new Elysia({ name: 'site' }).get('/*', async ({ path, cookie, redirect }) => {
    if (path.startsWith('/_astro/') && has(path)) {
      return file(path, 200, { 'cache-control': 'public, max-age=31536000, immutable' });
    }
    const page = path === '/' ? 'index' : path.replace(/^\/+|\/+$/g, '').replace(/\.html$/, '');
    if (page === 'index') return file((await signedIn(cookie)) ? '/dashboard.html' : '/index.html');
    if (APP_PAGES.has(page)) return file((await signedIn(cookie)) ? `/${page}.html` : '/unauthorized.html');
    if (page === 'login' && (await signedIn(cookie))) return redirect('/', 302);
    if (files.has(`/${page}.html`) && page !== '404') return file(`/${page}.html`);
    if (has(path)) return file(path, 200, { 'cache-control': 'public, max-age=3600' });
    return files.has('/404.html') ? file('/404.html', 404) : new Response('404 Page Not Found', { status: 404 });
  });
}
