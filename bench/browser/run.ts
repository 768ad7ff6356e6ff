/**
 * What the browser costs: rendered checks per second and peak memory (this process plus
 * Chromium's processes) at BROWSER_CONCURRENCY 1 and 2 over script-rendered loopback pages;
 * static checks per second when 10% of products need the browser against none; and memory after
 * 50 and after --leak renders (a leak would grow between them). Prints figures; no pass or fail.
 *
 *   bun bench/browser/run.ts [--pages 60] [--static 400] [--leak 300]
 *
 * Needs Chromium (CHROMIUM_PATH, default /usr/bin/chromium). No database: checks are run and not
 * recorded, so only fetching, rendering and reading are measured.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadConfig } from '../../api/config.ts';
import { createRenderer, type Renderer } from '../../api/fetching/browser.ts';
import { checkPage, type CheckTarget } from '../../api/checks/check.ts';
import { createFetcher } from '../../api/fetching/fetcher.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};

const filler = Array.from({ length: 200 }, (_, i) => `<li class="spec">Feature ${i}: stainless steel, 1.7 litres, 3000 W</li>`).join('');
const scripted = (n: number) => `<!doctype html><html><head><title>Kettle ${n}</title></head><body>
  <h1>Kettle ${n}</h1><div class="buy"><span class="price"></span><button>Add to basket</button></div><ul>${filler}</ul>
  <script>setTimeout(() => fetch('/api/${n}').then((r) => r.json()).then((j) => { document.querySelector('.price').textContent = j.price; }), 50);</script>
  </body></html>`;
const stat = (n: number) => `<!doctype html><html><head><title>Kettle ${n}</title></head><body>
  <h1>Kettle ${n}</h1><div class="buy"><span class="price">£${(10 + n / 100).toFixed(2)}</span><button>Add to basket</button></div><ul>${filler}</ul>
  <script>window.dataLayer = [];</script></body></html>`;

const shop = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  fetch(req) {
    const [, kind, n] = new URL(req.url).pathname.split('/');
    if (kind === 'api') return Response.json({ price: `£${(10 + Number(n) / 100).toFixed(2)}` });
    return new Response(kind === 'js' ? scripted(Number(n)) : stat(Number(n)), { headers: { 'content-type': 'text/html; charset=utf-8' } });
  },
});
const base = `http://127.0.0.1:${shop.port}`;
const config = loadConfig({ NODE_ENV: 'test', PORT: '3000', DATA_DIR: '/tmp/pricewatch-bench', CHECK_ALLOW_PRIVATE: 'true' });
const fetcher = createFetcher({ hostSpacingMs: 0, maxConcurrentPerHost: 64, retryBaseDelayMs: 5 });

const target = (kind: 'js' | 'static', n: number, remembered: boolean): CheckTarget => ({
  productId: `${kind}-${n}`,
  userId: 'bench',
  url: `${base}/${kind}/${n}`,
  selector: '.buy .price',
  lease: null,
  render: remembered ? { rendersSinceStatic: 0, staticCheckedAt: new Date() } : null,
});

// ---------------------------------------------------------------------------------------------
// Memory of this process and every process under it (Chromium's browser, renderers, GPU, ...).

function treeRssMb(): number {
  const children = new Map<number, number[]>();
  const rss = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, 'utf8');
      const ppid = Number(status.match(/^PPid:\s+(\d+)/m)?.[1]);
      const kb = Number(status.match(/^VmRSS:\s+(\d+)/m)?.[1] ?? 0);
      rss.set(Number(entry), kb);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid)!.push(Number(entry));
    } catch {
      /* gone meanwhile */
    }
  }
  let total = 0;
  const visit = (pid: number) => {
    total += rss.get(pid) ?? 0;
    for (const child of children.get(pid) ?? []) visit(child);
  };
  visit(process.pid);
  return total / 1024;
}

function peakSampler() {
  let peak = treeRssMb();
  const timer = setInterval(() => {
    peak = Math.max(peak, treeRssMb());
  }, 100);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, treeRssMb());
    },
  };
}

async function pool<T>(items: T[], width: number, work: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

/** As the worker runs checks: `width` slots, and a check that turns to the browser gives its slot up (a lane of its own). */
async function laned<T>(items: T[], width: number, work: (item: T, onRender: () => void) => Promise<void>) {
  let next = 0;
  const running: Promise<void>[] = [];
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) {
        const item = items[next++]!;
        await new Promise<void>((slotFree) => running.push(work(item, slotFree).finally(slotFree)));
      }
    }),
  );
  await Promise.all(running);
}

async function renderedChecks(renderer: Renderer, pages: number, offset: number) {
  let observed = 0;
  await pool(
    Array.from({ length: pages }, (_, i) => target('js', offset + i, true)),
    8,
    async (t) => {
      const [outcome] = await checkPage(config, t.url, [t], fetcher, { renderer });
      if (outcome!.event.type === 'PriceObserved' && outcome!.event.data.fetcher === 'browser') observed++;
    },
  );
  return observed;
}

async function main() {
  const pages = arg('pages', 60);
  const staticChecks = arg('static', 400);
  const leakRenders = Math.max(100, arg('leak', 300));
  const fmt = (n: number, d = 1) => n.toFixed(d);

  console.log(`Rendered checks (${pages} script-rendered loopback pages, price from a call after 50 ms):`);
  for (const concurrency of [1, 2]) {
    const renderer = createRenderer({ concurrency, fetcher });
    await renderedChecks(renderer, 2, 10_000); // launch and warm up
    const sampler = peakSampler();
    const started = performance.now();
    const observed = await renderedChecks(renderer, pages, concurrency * 1000);
    const seconds = (performance.now() - started) / 1000;
    const peak = sampler.stop();
    console.log(
      `  BROWSER_CONCURRENCY=${concurrency}: ${fmt(pages / seconds, 2)} checks/s, ${fmt((seconds * 1000) / pages, 0)} ms each on average, ${observed}/${pages} priced, peak RSS ${fmt(peak, 0)} MB (this process + Chromium)`,
    );
    await renderer.close();
  }

  console.log(`\nStatic checks (${staticChecks} products, 32 at a time; a check that turns to the browser leaves its slot, as the worker does):`);
  for (const share of [0, 0.1]) {
    const renderer = createRenderer({ concurrency: 2, fetcher });
    const every = share ? Math.round(1 / share) : 0;
    const targets = Array.from({ length: staticChecks }, (_, i) => (every && i % every === 0 ? target('js', 20_000 + i, true) : target('static', i, false)));
    const sampler = peakSampler();
    const started = performance.now();
    let browserChecks = 0;
    let lastStaticAt = started;
    await laned(targets, 32, async (t, onRender) => {
      const [outcome] = await checkPage(config, t.url, [t], fetcher, { renderer, onRender });
      if (outcome!.event.type === 'PriceObserved' && outcome!.event.data.fetcher === 'browser') browserChecks++;
      else lastStaticAt = performance.now();
    });
    const seconds = (performance.now() - started) / 1000;
    const staticSeconds = (lastStaticAt - started) / 1000;
    const peak = sampler.stop();
    const statics = targets.length - browserChecks;
    // Rendered checks leave their slot to static checks while they wait for the browser (the worker's browser lane).
    console.log(
      `  ${share * 100}% needing the browser: all ${fmt(staticChecks / seconds, 0)} checks/s; the ${statics} static ones ${fmt(statics / staticSeconds, 0)} checks/s (${browserChecks} rendered, ${renderer.launches} browser launch${renderer.launches === 1 ? '' : 'es'}), peak RSS ${fmt(peak, 0)} MB`,
    );
    await renderer.close();
  }

  console.log('\nLeak check (BROWSER_CONCURRENCY=2, one shared renderer; its browser is retired every 200 renders):');
  const renderer = createRenderer({ concurrency: 2, fetcher });
  await renderedChecks(renderer, 50, 30_000);
  Bun.gc(true);
  await Bun.sleep(500);
  const after50 = treeRssMb();
  await renderedChecks(renderer, leakRenders - 50, 31_000);
  Bun.gc(true);
  await Bun.sleep(500);
  const afterAll = treeRssMb();
  console.log(
    `  RSS after 50 renders: ${fmt(after50, 0)} MB; after ${leakRenders}: ${fmt(afterAll, 0)} MB (${afterAll >= after50 ? '+' : ''}${fmt(afterAll - after50, 0)} MB); open contexts: ${renderer.currentBrowser()?.contexts().length ?? 0}`,
  );
  await renderer.close();
  shop.stop(true);
}

await main();
process.exit(0);
