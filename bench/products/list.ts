/**
 * The reads behind the signed-in screens for a shop owner with 1,000 products checked daily for a
 * year (seeded as checks would have written them, alerts raised), beside one with 3 products, on
 * the configured database (DATABASE_URL, else embedded PGlite). For each read: the median and p95
 * of the query itself (what a changed list costs) and of the route (cached answers).
 * Prints figures; it is not a test. Usage: bun bench/products/list.ts [--products N] [--days N] [--runs N]
 */
import { createApp } from '../../api/server.ts';
import { testContext } from '../../api/testing/database.ts';
import { signInDemo } from '../../api/testing/sign-in.ts';
import { startTrial } from '../../api/testing/plans.ts';
import { seedCatalogue } from '../../api/testing/catalogue.ts';
import { readProducts } from '../../api/products/read-model.ts';
import { readDashboardStats } from '../../api/dashboard/routes.ts';
import { readDetailedHistory, readHistoryProducts } from '../../api/history/routes.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const PRODUCTS = arg('products', 1_000);
const DAYS = arg('days', 365);
const RUNS = arg('runs', 50);
const ORIGIN = 'http://localhost:3000';

const ctx = await testContext({ PUBLIC_URL: ORIGIN });
const app = createApp(ctx);
const seeded = performance.now();
const owners = [];
for (const products of [PRODUCTS, 3]) {
  const user = await signInDemo(app, ORIGIN);
  await startTrial(ctx, user.userId, 'pro');
  const ids = await seedCatalogue(ctx, user.userId, { products, days: DAYS });
  owners.push({ ...user, products, firstId: ids[0]! });
}
const seedSeconds = (performance.now() - seeded) / 1000;

async function time(fn: () => Promise<unknown>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  return ms.sort((a, b) => a - b);
}
const figure = (ms: number[]) =>
  `median ${ms[Math.floor(ms.length / 2)]!.toFixed(1).padStart(5)} ms, p95 ${ms[Math.floor(ms.length * 0.95)]!.toFixed(1).padStart(5)} ms`;
const get = (path: string, cookie: string) => async () => (await app.handle(new Request(`${ORIGIN}${path}`, { headers: { cookie } }))).arrayBuffer();

console.log(
  `${PRODUCTS} products checked daily for ${DAYS} days (seeded in ${seedSeconds.toFixed(0)} s), ${RUNS} runs, ${process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded PGlite'}`,
);
for (const o of owners) {
  console.log(`\n${o.products} products`);
  const rows: [string, () => Promise<unknown>, () => Promise<unknown>][] = [
    ['Products', () => readProducts(ctx.sql, o.userId), get('/api/products', o.cookie)],
    ['Dashboard', () => readDashboardStats(ctx.sql, o.userId), get('/api/dashboard/stats', o.cookie)],
    ['Price History list', () => readHistoryProducts(ctx.sql, o.userId, 'month'), get('/api/price-history/products?timeFilter=month', o.cookie)],
    [
      'History of one, all time',
      () => readDetailedHistory(ctx.sql, o.userId, o.firstId, 'all'),
      get(`/api/price-history/detailed/${o.firstId}?timeFilter=all`, o.cookie),
    ],
  ];
  for (const [name, query, route] of rows) {
    console.log(`  ${name.padEnd(26)} query ${figure(await time(query))}   route ${figure(await time(route))}`);
  }
}
await ctx.close();
