/**
 * End-to-end price checks per second: enqueue -> fetch from a loopback shop serving ~100 KB pages
 * -> extract -> append -> project, with 1 and then 2 worker processes.
 *
 *   bun bench/checks/run.ts [--products 4000] [--concurrency 32] [--per-url 1]
 *
 * Needs a PostgreSQL server (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres):
 * worker processes share the queue through it. A scratch database is created and dropped.
 * Every product has its own page (or, with --per-url N, N products track each page and one fetch
 * serves them), spread over 250 loopback addresses (127.0.0.1-250), so the
 * fetcher's politeness limits (2 requests at a time and 250 ms apart per host) hold as in
 * production. Workers are separate `bun` processes with the default fetcher; this process serves
 * the shop and runs the projections.
 */
import postgres from 'postgres';
import { loadConfig } from '../../api/config.ts';
import { createContext } from '../../api/create-context.ts';
import { openDatabase } from '../../db/index.ts';
import { enqueueDueChecks } from '../../api/checks/queue.ts';
import { productPage } from '../extract/product-page.ts';
import { processCpuMs } from '../cpu.ts';
import { floorPass, seedProducts, spawnReady, workerProcess } from './setup.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};

async function main() {
  const products = arg('products', 4000);
  const concurrency = arg('concurrency', 32);
  const perUrl = arg('per-url', 1);
  const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `pricewatch_bench_checks_${Date.now().toString(36)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const dbUrl = url.toString();

  const shop = startShop();
  const ctx = await createContext(loadConfig({ DATABASE_URL: dbUrl, CHECK_ALLOW_PRIVATE: 'true' }), { database: await openDatabase({ url: dbUrl, max: 8 }) });
  try {
    console.log(`Seeding ${products} products (${perUrl} per ~${Math.round(shop.pageBytes / 1024)} KB page, 250 loopback hosts)...`);
    await seedProducts(
      ctx,
      Array.from({ length: products }, (_, i) => ({ url: pageUrl(Math.floor(i / perUrl), shop.port), selector: '#price-template--product .price' })),
    );
    ctx.projections.start();

    const floor = floorMs(shop.page(0));
    console.log(`\nfloor: one HTMLRewriter pass over a page (handlers on the price selector, JSON-LD and price meta tags) takes ${floor.toFixed(2)} ms`);
    console.log(`checks per second, end to end (concurrency ${concurrency} per worker, ${products} checks per run)`);
    console.log(
      'workers, prices | wall s | checks/s | checks/s per worker core | CPU ms per check: workers (x floor), shop+projections, postgres | events recorded',
    );
    const figures: number[] = [];
    // Every price moves in the first two runs (each check reads its page); in the third nothing has changed.
    for (const [i, [round, workers]] of (
      [
        [1, 1],
        [2, 2],
        [2, 2],
      ] as const
    ).entries()) {
      shop.round = round;
      shop.requests = 0;
      const procs = await Promise.all(
        Array.from({ length: workers }, async () => (await spawnReady(import.meta.path, ['--worker', dbUrl, String(concurrency)])).proc),
      );
      const cpuBefore = await cpuOf(
        ctx,
        procs.map((p) => p.pid),
      );
      const started = performance.now();
      // Due again: the first run finds never-checked products, each later run finds them a day later.
      await enqueueDueChecks(ctx, new Date(Date.now() + i * 2 * 86_400_000));
      while ((await ctx.sql`SELECT 1 FROM check_jobs LIMIT 1`).length) await Bun.sleep(10);
      // Done when every product's read model shows this round's price.
      const current = await readModelsCurrent(ctx, round, products, perUrl);
      const seconds = (performance.now() - started) / 1000;
      const cpuAfter = await cpuOf(
        ctx,
        procs.map((p) => p.pid),
      );
      const perCheck = (key: keyof typeof cpuAfter) => ((cpuAfter[key] - cpuBefore[key]) / products).toFixed(2);
      const workerMs = (cpuAfter.workers - cpuBefore.workers) / products;
      for (const p of procs) p.kill('SIGTERM');
      await Promise.all(procs.map((p) => p.exited));
      const [{ n }] = await ctx.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM events WHERE type = 'PriceObserved'`;
      console.log(
        `${`${workers}, ${i < 2 ? 'all new' : 'unchanged'}`.padStart(15)} | ${seconds.toFixed(2).padStart(6)} | ${(products / seconds).toFixed(0).padStart(8)} | ${(1000 / workerMs).toFixed(0).padStart(24)} | ${perCheck('workers')} (${(workerMs / floor).toFixed(1)}x), ${perCheck('self')}, ${perCheck('postgres')} | ${n} (${current}/${products} read models show the round's price; the shop served ${shop.requests} pages)`,
      );
      figures.push(products / seconds);
    }
    console.log(`\ntarget >= 400 checks/s: ${figures.some((f) => f >= 400) ? 'met' : 'not met'} (best ${Math.max(...figures).toFixed(0)}/s)`);
  } finally {
    await ctx.close();
    shop.server.stop(true);
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

/**
 * Waits until every product's read model shows the round's price (at most a minute: an append
 * held open holds catch-up readers back) and answers how many do.
 */
async function readModelsCurrent(ctx: Awaited<ReturnType<typeof createContext>>, round: number, products: number, perUrl: number) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const [{ current }] = await ctx.sql<{ current: number }[]>`
      SELECT count(*)::int AS current FROM products
      WHERE abs(current_price - (10 + (split_part(id, '-', 3)::int / ${perUrl}) % 25 + ${round / 100}::float8 + 0.09)) < 0.0001`;
    if (current === products || Date.now() > deadline) return current;
    await ctx.projections.poke();
    await Bun.sleep(5);
  }
}

/**
 * CPU milliseconds used so far by the worker processes, this process, and the PostgreSQL backends
 * serving this database: figures that hold even when other work shares the machine.
 */
async function cpuOf(ctx: Awaited<ReturnType<typeof createContext>>, workerPids: number[]) {
  const backends = (await ctx.sql<{ pid: number }[]>`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`).map((r) => r.pid);
  const own = process.cpuUsage();
  return {
    workers: workerPids.reduce((sum, pid) => sum + processCpuMs(pid), 0),
    self: (own.user + own.system) / 1000,
    postgres: backends.reduce((sum, pid) => sum + processCpuMs(pid), 0),
  };
}

/** The median of 20 HTMLRewriter passes over the page, with handlers on what a check reads first. */
function floorMs(html: string): number {
  const times: number[] = [];
  for (let pass = 0; pass < 21; pass++) {
    const started = performance.now();
    floorPass(html, '#price-template--product .price');
    if (pass > 0) times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[times.length >> 1]!;
}

const pageUrl = (page: number, port: number) => `http://127.0.0.${1 + (page % 250)}:${port}/p/${page}`;

/** Below the page's regular price of £39.99, so it always reads as the sale price. */
const priceOf = (i: number, round: number) => 10 + (i % 25) + round / 100 + 0.09;

/**
 * A shop of ~100 KB product pages: the realistic Shopify-style page of the extraction benchmark
 * (sale and regular prices, related products with prices, JSON-LD, inline scripts and styles),
 * each product with its own price, which changes every round.
 */
function startShop() {
  const template = productPage();
  const state = { round: 1, requests: 0 };
  const page = (i: number) => template.replaceAll('29.99', priceOf(i, state.round).toFixed(2));
  const server = Bun.serve({
    port: 0,
    hostname: '0.0.0.0',
    fetch(req) {
      state.requests++;
      const i = Number(new URL(req.url).pathname.split('/')[2]);
      return new Response(page(i), { headers: { 'content-type': 'text/html; charset=utf-8' } });
    },
  });
  return Object.assign(state, { server, page, port: server.port!, pageBytes: template.length });
}

if (process.argv[2] === '--worker') await workerProcess(process.argv[3]!, Number(process.argv[4]));
else await main();
