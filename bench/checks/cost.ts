/**
 * What a price check costs the product, in CPU, beside the floor: one pass of Bun's native
 * streaming HTMLRewriter over the same pages, with handlers on the price selector, the JSON-LD
 * scripts and the price meta tags, measured in the same run.
 *
 *   bun bench/checks/cost.ts [--copies 4] [--concurrency 16]
 *
 * The pages are the real pages of bench/corpus, each tracked with the selector AI Detect suggests
 * (`--copies` products per page, each at its own address), served from a loopback shop in a
 * process of its own, with new per-request tokens on every load (bench/checks/per-request.ts).
 * One worker process checks them through the queue and PostgreSQL, as in production; its CPU is
 * read from /proc, less what it spends idle. Rows:
 *
 * - unchanged, the same bytes: the last reading is reused on the bytes' hash alone;
 * - unchanged, new tokens on every load: the last reading is reused on the page's version;
 * - read again (DOM), same price: the page changed elsewhere (a "3 people are looking" line);
 * - changed price: the price as written on the page changed (a full event is appended).
 *
 * Needs a PostgreSQL server (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres);
 * a scratch database is created and dropped.
 */
import postgres from 'postgres';
import { loadConfig } from '../../api/config.ts';
import { createContext } from '../../api/create-context.ts';
import { openDatabase } from '../../db/index.ts';
import { enqueueDueChecks } from '../../api/checks/queue.ts';
import { detectPriceSelectors } from '../../api/ai/detect.ts';
import { extractPrice } from '../../api/reading/extract.ts';
import { parsePage } from '../../api/reading/page.ts';
import { loadCorpus } from '../corpus/corpus.ts';
import { processCpuMs } from '../cpu.ts';
import { servedAgain } from './per-request.ts';
import { floorPass, seedProducts, spawnReady, workerProcess } from './setup.ts';

/** How the shop serves its pages: the same bytes every time, new tokens on every load, a change elsewhere, a new price. */
type Mode = 'same' | 'tokens' | 'elsewhere' | 'price';
type Page = { html: string; url: string; selector: string; priceChanged: string | null };

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;
const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);

/** The corpus pages AI Detect finds a price on, each with its selector and a version with the price as written changed. */
function pages(): Page[] {
  return loadCorpus().flatMap((page) => {
    const selector = detectPriceSelectors(parsePage(page.html), { url: page.url })[0]?.selector;
    if (!selector) return [];
    const read = extractPrice(page.html, { selector, url: page.url });
    if (!read.ok) return [];
    // The number as written in the selector's text, its first digit changed: "39.99" -> "49.99".
    const written = read.matchedText.match(/\d[\d.,\s\u00a0\u202f']*\d|\d/)?.[0];
    let priceChanged: string | null = null;
    if (written) {
      const other = `${(Number(written[0]) % 9) + 1}${written.slice(1)}`;
      const html = page.html.replaceAll(written, other);
      const again = extractPrice(html, { selector, url: page.url });
      if (again.ok && again.price !== read.price) priceChanged = html;
    }
    return [{ html: page.html, url: page.url, selector, priceChanged }];
  });
}

/** The floor's ms per page: the median of 7 passes over each page, as the mean and the median over the pages. */
function floorMs(served: string[], selectors: string[]): { mean: number; median: number } {
  const perPage = served.map((html, i) => {
    const times: number[] = [];
    for (let pass = 0; pass < 8; pass++) {
      const started = performance.now();
      floorPass(html, selectors[i]!);
      if (pass > 0) times.push(performance.now() - started);
    }
    return median(times);
  });
  return { mean: mean(perPage), median: median(perPage) };
}

function servePage(page: Page, mode: Mode, load: number): string {
  if (mode === 'same') return servedAgain(page.html, 0);
  if (mode === 'price' && page.priceChanged) return servedAgain(page.priceChanged, load);
  const html = servedAgain(page.html, load);
  return mode === 'elsewhere' ? html.replace(/<\/body>/i, `<p>${load} people are looking at this now</p></body>`) : html;
}

/** The shop, in a process of its own so its CPU is nobody's: pages by index, the mode set by POST /mode/<mode>. */
async function shopProcess() {
  const all = pages();
  let mode: Mode = 'same';
  let load = 0;
  const server = Bun.serve({
    port: 0,
    hostname: '0.0.0.0',
    fetch(req) {
      const path = new URL(req.url).pathname.split('/');
      if (path[1] === 'mode') {
        mode = path[2] as Mode;
        return new Response('ok');
      }
      const page = all[Number(path[2])];
      if (!page) return new Response('no such page', { status: 404 });
      return new Response(servePage(page, mode, ++load), { headers: { 'content-type': 'text/html; charset=utf-8' } });
    },
  });
  console.log(`ready ${server.port}`);
}

async function main() {
  const copies = arg('copies', 4);
  const concurrency = arg('concurrency', 16);
  const all = pages();
  const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `pricewatch_bench_cost_${Date.now().toString(36)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const dbUrl = url.toString();
  const shop = await spawnReady(import.meta.path, ['--shop']);
  const port = Number(shop.said.match(/ready (\d+)/)![1]);
  const ctx = await createContext(loadConfig({ DATABASE_URL: dbUrl, CHECK_ALLOW_PRIVATE: 'true' }), { database: await openDatabase({ url: dbUrl, max: 8 }) });
  const products = all.length * copies;
  try {
    const sizes = all.map((p) => p.html.length).sort((a, b) => a - b);
    console.log(
      `${all.length} corpus pages with AI Detect's selector (median ${Math.round(median(sizes) / 1024)} KB), ${copies} products each: ${products} checks a round, one worker process`,
    );
    await seedProducts(
      ctx,
      Array.from({ length: products }, (_, i) => ({
        url: `http://127.0.0.${1 + (i % 250)}:${port}/p/${i % all.length}/${i}`,
        selector: all[i % all.length]!.selector,
      })),
      'cost',
    );
    ctx.projections.start();
    const worker = await spawnReady(import.meta.path, ['--worker', dbUrl, String(concurrency)]);
    const pid = worker.proc.pid;
    const backends = async () => (await ctx.sql<{ pid: number }[]>`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`).map((r) => r.pid);
    const postgresCpu = async () => (await backends()).reduce((sum, p) => sum + processCpuMs(p), 0);
    // What the worker spends idle (polling an empty queue), to leave out of each round.
    const idleStart = processCpuMs(pid);
    await Bun.sleep(2000);
    const idlePerMs = (processCpuMs(pid) - idleStart) / 2000;

    let day = 0;
    const round = async (mode: Mode) => {
      await fetch(`http://127.0.0.1:${port}/mode/${mode}`, { method: 'POST' });
      const [worker0, pg0, started] = [processCpuMs(pid), await postgresCpu(), performance.now()];
      await enqueueDueChecks(ctx, new Date(Date.now() + ++day * 2 * 86_400_000));
      while ((await ctx.sql`SELECT 1 FROM check_jobs LIMIT 1`).length) await Bun.sleep(10);
      const ms = performance.now() - started;
      const workerMs = processCpuMs(pid) - worker0 - idlePerMs * ms;
      return { workerMs: workerMs / products, postgresMs: ((await postgresCpu()) - pg0) / products, perSecond: (products / ms) * 1000 };
    };

    console.log('\nfirst readings, then a round to warm up ...');
    await round('same');
    await round('same');
    const floor = floorMs(
      all.map((p, i) => servePage(p, 'tokens', i)),
      all.map((p) => p.selector),
    );
    console.log(`floor, one HTMLRewriter pass: ${floor.mean.toFixed(2)} ms a page (mean), ${floor.median.toFixed(2)} ms (median)`);
    console.log('\nrow                                | worker CPU ms/check | worker / floor (mean) | postgres CPU ms/check | checks/s');
    const rows: [string, Mode][] = [
      ['unchanged, same bytes (reused)', 'same'],
      ['unchanged, new tokens (reused)', 'tokens'],
      ['changed elsewhere (read), same price', 'elsewhere'],
      ['changed price (read, new event)', 'price'],
    ];
    for (const [label, mode] of rows) {
      const figures = await round(mode);
      console.log(
        `${label.padEnd(36)} | ${figures.workerMs.toFixed(2).padStart(19)} | ${`${(figures.workerMs / floor.mean).toFixed(1)}x`.padStart(21)} | ${figures.postgresMs.toFixed(2).padStart(21)} | ${figures.perSecond.toFixed(0).padStart(8)}`,
      );
    }
    const [{ repeats }] = await ctx.sql<{ repeats: number }[]>`SELECT count(*)::int AS repeats FROM price_checks`;
    const [{ events }] = await ctx.sql<{ events: number }[]>`SELECT count(*)::int AS events FROM events WHERE type = 'PriceObserved'`;
    const withChange = all.filter((p) => p.priceChanged).length;
    console.log(
      `\n${events} observations recorded whole, ${repeats} as repeats; the price as written could be changed on ${withChange} of ${all.length} pages`,
    );
    console.log('goal: an unchanged check at most 3x the floor');
    worker.proc.kill('SIGTERM');
    await worker.proc.exited;
  } finally {
    shop.proc.kill('SIGTERM');
    await ctx.close();
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

if (process.argv[2] === '--worker') await workerProcess(process.argv[3]!, Number(process.argv[4]));
else if (process.argv[2] === '--shop') await shopProcess();
else await main();
