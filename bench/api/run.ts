/**
 * Read API throughput: requests/s and latency of the signed-in screens' main reads for a user
 * with 100 products and 100,000 observations. Seeds a fresh database (DATABASE_URL's server, else
 * an embedded PGlite), starts the API in its own process on a random port, signs in with the demo
 * sign-in and drives each endpoint with N concurrent keep-alive connections.
 * Prints figures; it is not a test.
 * Usage: bun bench/api/run.ts [--connections 10] [--seconds 5] [--products 100] [--observations 100000]
 */
import postgres from 'postgres';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../api/config.ts';
import { createContext } from '../../api/create-context.ts';
import { userIdFor } from '../../api/auth/sign-in.ts';
import { observed } from '../../api/testing/prices.ts';
import { readDashboardStats } from '../../api/dashboard/routes.ts';
import { readHistoryProducts } from '../../api/history/routes.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const CONNECTIONS = arg('connections', 10);
const SECONDS = arg('seconds', 5);
const PRODUCTS = arg('products', 100);
const OBSERVATIONS = arg('observations', 100_000);
const ENDPOINTS = ['/api/products', '/api/dashboard/stats', '/api/price-history/products'];
const EMAIL = 'bench@pricewatch.local';
const HOUR = 3_600_000;

// A fresh database: a new one on the server of DATABASE_URL, or an embedded one in a temporary folder.
const serverUrl = process.env.DATABASE_URL;
const dataDir = mkdtempSync(join(tmpdir(), 'pricewatch-bench-'));
let databaseUrl = '';
let dropDatabase = async () => {};
if (serverUrl) {
  const name = `pricewatch_bench_api_${Date.now().toString(36)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  databaseUrl = url.toString();
  dropDatabase = async () => {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  };
}
const env = { ...process.env, NODE_ENV: 'development', DATABASE_URL: databaseUrl, DATA_DIR: dataDir, PORT: '0' } as Record<string, string>;

/** A small deterministic generator, so every run seeds the same prices. */
function random(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t ^= t + Math.imul(t ^ (t >>> 7), 61 | t);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Seed: products checked hourly up to now; about 3% of checks find a new price, up or down by up to 15%.
{
  const t = performance.now();
  const ctx = await createContext(loadConfig(env));
  const userId = await userIdFor('demo', EMAIL);
  const rand = random(42);
  const perProduct = Math.ceil(OBSERVATIONS / PRODUCTS);
  const now = Date.now();
  for (let p = 0; p < PRODUCTS; p++) {
    const productId = `bench-${p}`;
    await ctx.store.append(`product-${productId}`, 'no_stream', [
      {
        type: 'ProductAdded',
        data: {
          productId,
          userId,
          name: `Competitor product ${p + 1}`,
          url: `https://shop${p % 7}.example.com/products/${p + 1}`,
          selector: '.price',
          alertRule: { kind: 'drop', percent: 10 },
          imageUrl: null,
        },
      },
    ]);
    let price = Math.round((10 + rand() * 490) * 100) / 100;
    const events = [];
    for (let i = 0; i < perProduct; i++) {
      if (rand() < 0.03) price = Math.max(0.5, Math.round(price * (1 + (rand() - 0.5) * 0.3) * 100) / 100);
      events.push(observed(productId, userId, price, new Date(now - (perProduct - i) * HOUR - p * 1000)));
    }
    for (let i = 0; i < events.length; i += 1000) await ctx.store.append(`product-${productId}`, 'any', events.slice(i, i + 1000));
  }
  await ctx.projections.catchUp();
  await ctx.sql`VACUUM ANALYZE`; // as autovacuum would have by then: planner statistics, index-only scans
  const [counts] = await ctx.sql<{ points: number; changes: number }[]>`
    SELECT (SELECT count(*)::int FROM price_points) AS points, (SELECT count(*)::int FROM price_changes) AS changes`;
  console.log(`database: ${serverUrl ? 'PostgreSQL server' : 'embedded PGlite (one connection)'}`);
  console.log(
    `seeded ${PRODUCTS} products, ${counts!.points.toLocaleString('en-GB')} observations, ${counts!.changes.toLocaleString('en-GB')} price changes in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );

  // What a request costs when its answer is not cached (the first one after a change): reads alone, one at a time.
  console.log('\nuncached reads, one at a time        median ms   p99 ms');
  const reads: [string, () => Promise<unknown>][] = [
    ['dashboard stats', () => readDashboardStats(ctx.sql, userId)],
    ['price history, month', () => readHistoryProducts(ctx.sql, userId, 'month')],
    ['price history, year', () => readHistoryProducts(ctx.sql, userId, 'year')],
  ];
  for (const [name, read] of reads) {
    for (let i = 0; i < 10; i++) await read();
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      const s = performance.now();
      await read();
      times.push(performance.now() - s);
    }
    times.sort((a, b) => a - b);
    console.log(`${name.padEnd(34)} ${times[25]!.toFixed(2).padStart(10)} ${times[49]!.toFixed(2).padStart(8)}`);
  }
  await ctx.close();
}

// The API in its own process, as it runs in production.
const server = Bun.spawn([process.execPath, join(import.meta.dir, 'serve.ts')], { env, stdout: 'pipe', stderr: 'inherit' });
const reader = server.stdout.getReader();
let line = '';
while (!line.includes('\n')) {
  const { value, done } = await reader.read();
  if (done) throw new Error('the API process ended before it listened');
  line += new TextDecoder().decode(value);
}
reader.releaseLock();
const base = `http://127.0.0.1:${JSON.parse(line).port}`;

const signIn = await fetch(`${base}/api/auth/demo?email=${EMAIL}`, { redirect: 'manual' });
const cookie = `pw_session=${signIn.headers.get('set-cookie')?.match(/pw_session=([^;]*)/)?.[1]}`;

async function load(url: string, seconds: number) {
  const latencies: number[] = [];
  let errors = 0,
    bytes = 0,
    wire = 0;
  const end = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        const res = await fetch(url, { headers: { cookie } });
        const body = await res.arrayBuffer();
        if (res.status !== 200) {
          errors++;
          continue;
        }
        latencies.push(performance.now() - t);
        bytes = body.byteLength;
        wire = Number(res.headers.get('content-length') ?? body.byteLength);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? NaN;
  return { rate: latencies.length / seconds, p50: at(0.5), p99: at(0.99), errors, bytes, wire };
}

console.log(`\nHTTP, ${CONNECTIONS} connections, ${SECONDS} s per endpoint after 1 s of warm-up`);
console.log('endpoint                       req/s    p50 ms   p99 ms    bytes (sent)     errors');
try {
  for (const path of ENDPOINTS) {
    const probe = await fetch(base + path, { headers: { cookie } });
    await probe.arrayBuffer();
    if (probe.status !== 200) {
      console.log(`${path.padEnd(28)} not available (HTTP ${probe.status})`);
      continue;
    }
    await load(base + path, 1);
    const r = await load(base + path, SECONDS);
    console.log(
      `${path.padEnd(28)} ${Math.round(r.rate).toString().padStart(7)} ${r.p50.toFixed(2).padStart(9)} ${r.p99.toFixed(2).padStart(8)} ${r.bytes.toString().padStart(8)} (${r.wire.toString().padStart(6)}) ${r.errors.toString().padStart(6)}`,
    );
  }
} finally {
  server.kill('SIGTERM');
  await server.exited;
  await dropDatabase();
  rmSync(dataDir, { recursive: true, force: true });
}
