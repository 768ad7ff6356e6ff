/**
 * GET /api/products with 1,000 products (imported from a CSV file, a fifth with a price change in
 * the last day) on the configured database (DATABASE_URL, else embedded PGlite): the median and
 * p95 of the list query itself (what a changed list costs) and of the route (cached answers).
 * Prints figures; it is not a test. Usage: bun bench/products/list.ts [--products N] [--runs N]
 */
import { createApp } from '../../api/server.ts';
import { testContext } from '../../api/testing/database.ts';
import { signInDemo } from '../../api/testing/sign-in.ts';
import { startTrial } from '../../api/testing/plans.ts';
import { readProducts } from '../../api/products/read-model.ts';
import { handleProductCommand } from '../../events/product.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const PRODUCTS = arg('products', 1_000);
const RUNS = arg('runs', 50);
const ORIGIN = 'http://localhost:3000';

const ctx = await testContext({ PUBLIC_URL: ORIGIN });
const app = createApp(ctx);
const user = await signInDemo(app, ORIGIN);
await startTrial(ctx, user.userId, 'pro');
const csv = ['name,url,selector,threshold', ...Array.from({ length: PRODUCTS }, (_, i) => `Product ${i},https://shop${i % 50}.example/p/${i},.price,-10`)].join('\n');
const imported = await app.handle(new Request(`${ORIGIN}/api/products/import`, { method: 'POST', body: csv, headers: { cookie: user.cookie, origin: ORIGIN, 'content-type': 'text/csv' } }));
if (imported.status !== 201) throw new Error(`import answered ${imported.status}`);
const products = await readProducts(ctx.sql, user.userId);
for (const p of products.filter((_, i) => i % 5 === 0)) {
  for (const price of [10, 9]) await handleProductCommand(ctx.store, { type: 'SetPriceManually', productId: p.id, userId: user.userId, price, currency: 'GBP' });
}
await ctx.projections.catchUp();

async function time(fn: () => Promise<unknown>): Promise<number[]> {
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) { const t = performance.now(); await fn(); ms.push(performance.now() - t); }
  return ms.sort((a, b) => a - b);
}
const figure = (ms: number[]) => `median ${ms[Math.floor(ms.length / 2)]!.toFixed(1)} ms, p95 ${ms[Math.floor(ms.length * 0.95)]!.toFixed(1)} ms`;

const query = await time(() => readProducts(ctx.sql, user.userId));
const route = await time(async () => (await app.handle(new Request(`${ORIGIN}/api/products`, { headers: { cookie: user.cookie } }))).arrayBuffer());
console.log(`${PRODUCTS} products, ${RUNS} runs, ${process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded PGlite'}`);
console.log(`list query (uncached):   ${figure(query)}`);
console.log(`GET /api/products:       ${figure(route)}`);
await ctx.close();
