/**
 * Bytes a browser transfers to show each page on a first visit: the HTML and the CSS and JavaScript
 * it loads (stylesheets, scripts, the islands' modules and everything they import), fetched the way
 * a browser asks for them (`Accept-Encoding: br, gzip`) and counted as sent, before decompression.
 * Modules imported with import() are counted apart ("on demand"): they load only when the page
 * reaches them. Signed-in pages are fetched with a demo session.
 * Starts the product (built site, demo mode, embedded database in a temporary folder) on a free
 * port, or measures a running one given with --url. Prints figures; it is not a test.
 * Usage: bun bench/site/run.ts [--url http://localhost:3000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

const PUBLIC_PAGES = ['/', '/how-it-works', '/login', '/terms', '/privacy', '/unauthorized'];
const APP_PAGES = ['/dashboard', '/products', '/catalogue', '/price-history', '/alerts', '/billing', '/settings', '/subscribe'];

const urlArg = process.argv.indexOf('--url');
let base = urlArg > 0 ? process.argv[urlArg + 1]!.replace(/\/$/, '') : '';
let stop = async () => {};
if (!base) {
  const dataDir = mkdtempSync(join(tmpdir(), 'pricewatch-bench-site-'));
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  base = `http://127.0.0.1:${port}`;
  const proc = Bun.spawn([process.execPath, 'api/main.ts'], {
    cwd: join(import.meta.dir, '../..'),
    env: {
      ...process.env,
      DATABASE_URL: '',
      NODE_ENV: 'development',
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: base,
      DATA_DIR: dataDir,
      CHECK_WORKER: 'off',
    },
    stdout: 'ignore',
    stderr: 'inherit',
  });
  stop = async () => {
    proc.kill('SIGTERM');
    await proc.exited;
    rmSync(dataDir, { recursive: true, force: true });
  };
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/api/auth/user`)).status === 401) break;
    } catch {}
    if (i > 300) throw new Error('The product did not start within 60 s');
    await Bun.sleep(200);
  }
}

// The demo sign-in answers with the session cookie.
const signIn = await fetch(`${base}/api/auth/demo?email=bench-site@example.com`, { redirect: 'manual' });
const cookie = signIn.headers
  .getSetCookie()
  .map((c) => c.split(';')[0])
  .join('; ');
if (!cookie) throw new Error('The demo sign-in gave no session (is the product in demo mode?)');

type Fetched = { sent: number; text: string; encoding: string };

/** One resource as sent (compressed bytes) and as text. */
async function get(url: string, withCookie: boolean): Promise<Fetched> {
  const res = await fetch(url, {
    headers: { 'accept-encoding': 'br, gzip', ...(withCookie ? { cookie } : {}) },
    decompress: false,
  } as RequestInit);
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  const body = Buffer.from(await res.arrayBuffer());
  const encoding = res.headers.get('content-encoding') ?? 'identity';
  const plain = encoding === 'br' ? brotliDecompressSync(body) : encoding === 'gzip' ? gunzipSync(body) : body;
  return { sent: body.length, text: plain.toString('utf8'), encoding };
}

const attr = (tag: string, name: string) => tag.match(new RegExp(`\\s${name}="([^"]*)"`))?.[1];
const transpiler = new Bun.Transpiler({ loader: 'js' });

/** The CSS and module scripts an HTML page loads by itself, and the modules its islands hydrate with. */
function references(html: string): { css: string[]; js: string[] } {
  const css: string[] = [];
  const js: string[] = [];
  for (const [tag] of html.matchAll(/<link\b[^>]*>/g)) {
    const rel = attr(tag, 'rel');
    const href = attr(tag, 'href');
    if (href && rel === 'stylesheet') css.push(href);
    if (href && rel === 'modulepreload') js.push(href);
  }
  for (const [tag] of html.matchAll(/<script\b[^>]*>/g)) {
    const src = attr(tag, 'src');
    if (src) js.push(src);
  }
  for (const [tag] of html.matchAll(/<astro-island\b[^>]*>/g)) {
    for (const name of ['component-url', 'renderer-url', 'before-hydration-url']) {
      const u = attr(tag, name);
      if (u) js.push(u);
    }
  }
  return { css, js };
}

type PageFigures = { page: string; html: number; css: number; js: number; lazy: number; total: number; encodings: Set<string> };

async function measure(path: string, signedIn: boolean): Promise<PageFigures> {
  const page = await get(base + path, signedIn);
  const figures: PageFigures = { page: path, html: page.sent, css: 0, js: 0, lazy: 0, total: 0, encodings: new Set([page.encoding]) };
  const refs = references(page.text);
  const seen = new Set<string>();
  for (const href of refs.css) {
    const url = new URL(href, base + path).href;
    if (seen.has(url)) continue;
    seen.add(url);
    const css = await get(url, signedIn);
    figures.css += css.sent;
    figures.encodings.add(css.encoding);
  }
  // Modules: static imports load with the page; import() targets load when the code gets there.
  const queue = refs.js.map((href) => ({ url: new URL(href, base + path).href, lazy: false }));
  const lazySeen = new Set<string>();
  while (queue.length) {
    const { url, lazy } = queue.shift()!;
    if (seen.has(url) || (lazy && lazySeen.has(url))) continue;
    (lazy ? lazySeen : seen).add(url);
    const js = await get(url, signedIn);
    if (lazy) figures.lazy += js.sent;
    else figures.js += js.sent;
    figures.encodings.add(js.encoding);
    for (const imp of transpiler.scan(js.text).imports) {
      if (!imp.path.startsWith('/') && !imp.path.startsWith('.')) continue;
      queue.push({ url: new URL(imp.path, url).href, lazy: lazy || imp.kind === 'dynamic-import' });
    }
  }
  for (const url of lazySeen) if (seen.has(url)) lazySeen.delete(url);
  figures.total = figures.html + figures.css + figures.js;
  return figures;
}

const kb = (n: number) => (n / 1000).toFixed(1).padStart(7);
try {
  const rows: PageFigures[] = [];
  for (const path of PUBLIC_PAGES) rows.push(await measure(path, false));
  for (const path of APP_PAGES) rows.push(await measure(path, true));
  console.log(`Transferred per page on a first visit, KB (1 KB = 1000 bytes), from ${base}`);
  console.log(
    `${'page'.padEnd(16)}${'HTML'.padStart(7)}${'CSS'.padStart(7)}${'JS'.padStart(7)}${'total'.padStart(7)}   ${'+ on demand'.padStart(11)}  encodings`,
  );
  for (const r of rows) {
    console.log(`${r.page.padEnd(16)}${kb(r.html)}${kb(r.css)}${kb(r.js)}${kb(r.total)}   ${kb(r.lazy).padStart(11)}  ${[...r.encodings].join(', ')}`);
  }
} finally {
  await stop();
}
