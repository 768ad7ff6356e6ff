/**
 * The scale simulation: the real server (scheduler, projections) and real worker processes,
 * checking the pages of 250 loopback shops for 100,000 products of 1,000 users on mixed plans,
 * measured in steady state.
 *
 *   bun bench/scale/run.ts [--products 100000] [--users 1000] [--workers 2] [--concurrency 32]
 *                          [--warmup 3] [--minutes 15] [--daily-pro 0.5] [--fast-pro 0.125]
 *
 * Needs a PostgreSQL server on this machine (DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/postgres): a scratch database is created and dropped, and the
 * CPU of every `postgres` process is read from /proc.
 *
 * Steady state from the start: each product was last checked at its slot within its interval
 * (what a running system leaves behind), so checks come due spread over the interval as they do
 * in production. The seeded check is the one the worker would have recorded (the same extraction
 * of the same page), so an unchanged price is a repeat from the first check on.
 *
 * Users: 40% free (3 products, daily), 30% starter (25, daily), 20% growth (100, hourly) and 10%
 * pro, sharing the rest (one pro user has 10,000). Of the pro users, half (the one with 10,000
 * among them) saved daily checks as large catalogues do (--daily-pro), an eighth keep checks
 * every 15 minutes (--fast-pro), the others saved hourly. Each user watches five shops.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { loadConfig } from '../../api/config.ts';
import { createContext } from '../../api/create-context.ts';
import type { AppContext } from '../../api/context.ts';
import { openDatabase } from '../../db/index.ts';
import { checkPage, readingKey, type CheckEvent } from '../../api/checks/check.ts';
import { pageVersion } from '../../api/reading/page-version.ts';
import { nextCheckAt, slotOffsetMs, checkIntervalMinutes, type CheckFrequencySetting, type ProductSchedule } from '../../api/checks/schedule.ts';
import { productStream } from '../../events/product.ts';
import { userStream } from '../../events/user.ts';
import { subscriptionStream } from '../../events/subscription.ts';
import { DEFAULT_SETTINGS } from '../../events/settings.ts';
import type { NewEvent } from '../../events/store.ts';
import { processCpuMs, programCpuMs } from '../cpu.ts';
import { freePort } from '../../tests/browser/harness.ts';
import { corpusPageSizes, pageMaker, pageUrl, priceAt, HOSTS, isFailingHost, isSlowHost, SLOW_MS } from './shops.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const PRODUCTS = arg('products', 100_000);
const USERS = arg('users', 1000);
const WORKERS = arg('workers', 2);
const CONCURRENCY = arg('concurrency', 32);
const WARMUP_MIN = arg('warmup', 3);
const MINUTES = arg('minutes', 15);
const DAILY_PRO = arg('daily-pro', 0.5);
const FAST_PRO = arg('fast-pro', 0.125);

const MINUTE = 60_000;
const SELECTOR = '#price-template--product .price';
const RULES = { demoCheckMinutes: 3 };

type Plan = 'free' | 'starter' | 'growth' | 'pro';
/** `frequency`: the check frequency the user saved, null for the plan's. */
type User = { id: string; n: number; plan: Plan; frequency: CheckFrequencySetting | null; products: number };
/** `seededCheck`: the check the seed gave it, at its last slot. */
type Product = { id: string; n: number; user: User; url: string; seededCheck: Date };

/** The users and how many products each has: the mix in the header, scaled to --products. */
function population(): User[] {
  const users: User[] = Array.from({ length: USERS }, (_, n) => {
    const plan: Plan = n % 10 < 4 ? 'free' : n % 10 < 7 ? 'starter' : n % 10 < 9 ? 'growth' : 'pro';
    return { id: `scale-user-${String(n).padStart(4, '0')}`, n, plan, frequency: null, products: { free: 3, starter: 25, growth: 100, pro: 0 }[plan] };
  });
  const pro = users.filter((u) => u.plan === 'pro');
  // The first (with 10,000 products) and the next pro users save daily, the next hourly, the rest keep 15 minutes.
  for (const [k, u] of pro.entries()) u.frequency = k < DAILY_PRO * pro.length ? 'daily' : k < (1 - FAST_PRO) * pro.length ? 'hourly' : null;
  const rest = Math.max(0, PRODUCTS - users.reduce((sum, u) => sum + u.products, 0));
  const heavy = Math.min(10_000, Math.floor(rest / 3));
  pro[0]!.products = heavy;
  for (const [i, u] of pro.slice(1).entries()) u.products = Math.floor((rest - heavy) / (pro.length - 1)) + (i < (rest - heavy) % (pro.length - 1) ? 1 : 0);
  return users;
}

const schedule = (p: Product, lastCheckAt: Date, consecutiveFailures = 0): ProductSchedule => ({
  productId: p.id,
  plan: p.user.plan,
  checkFrequency: p.user.frequency,
  demoShop: false,
  lastCheckAt,
  consecutiveFailures,
  editedAt: null,
});

/** The product's latest slot at or before `now`: its last check in a system that keeps up. */
function lastSlot(p: Product, now: number): Date {
  const interval = checkIntervalMinutes(schedule(p, new Date(now)), RULES) * MINUTE;
  const offset = slotOffsetMs(p.id, interval);
  return new Date(Math.floor((now - offset) / interval) * interval + offset);
}

async function main() {
  const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `pricewatch_bench_scale_${Date.now().toString(36)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const dbUrl = url.toString();
  const dataDir = mkdtempSync(join(tmpdir(), 'pricewatch-scale-'));
  const children: ReturnType<typeof Bun.spawn>[] = [];
  const ctx = await createContext(loadConfig({ DATABASE_URL: dbUrl, CHECK_ALLOW_PRIVATE: 'true' }), { database: await openDatabase({ url: dbUrl, max: 4 }) });
  try {
    const shop = await spawn(['bench/scale/shops.ts'], {}, /^port (\d+)/m);
    children.push(shop.proc);
    const port = Number(shop.match[1]);
    const users = population();
    const sizes = corpusPageSizes();
    console.log(`${PRODUCTS} products of ${USERS} users (${plans(users)}) on ${HOSTS} shops at 127.0.0.1-${HOSTS}:${port}`);
    const hosts = Array.from({ length: HOSTS }, (_, h) => h + 1);
    console.log(
      `pages ${Math.round(percentile(sizes, 0.5) / 1024)} KB median, ${Math.round(Math.max(...sizes) / 1024)} KB largest (the sizes of bench/corpus); shops ${hosts.filter(isSlowHost).join(', ')} take ${SLOW_MS / 1000} s a page, ${hosts.filter(isFailingHost).join(', ')} answer 503`,
    );

    const seedStarted = performance.now();
    const products = await seed(ctx, users, port, sizes);
    const due = expectedChecksPerHour(products);
    console.log(
      `seeded in ${((performance.now() - seedStarted) / 1000).toFixed(0)} s; the schedule asks ${Math.round(due).toLocaleString('en')} checks an hour (${(due / 3600).toFixed(1)}/s)`,
    );

    const env = { DATABASE_URL: dbUrl, CHECK_ALLOW_PRIVATE: 'true', DATA_DIR: dataDir };
    const api = await spawn(['api/main.ts'], { ...env, PORT: String(await freePort()), CHECK_WORKER: 'off' }, /Pricewatch is running/);
    children.push(api.proc);
    const workers = await Promise.all(
      Array.from({ length: WORKERS }, () => spawn(['scripts/worker.ts', '--concurrency', String(CONCURRENCY)], env, /started/)),
    );
    children.push(...workers.map((w) => w.proc));
    const cpu = () => ({
      workers: workers.reduce((sum, w) => sum + processCpuMs(w.proc.pid), 0),
      api: processCpuMs(api.proc.pid),
      postgres: programCpuMs('postgres'),
      shop: processCpuMs(shop.proc.pid),
    });

    console.log(
      `\n${WORKERS} worker processes (${CONCURRENCY} checks at a time each), the server enqueueing due checks every minute; ${WARMUP_MIN} min warm-up, then ${MINUTES} min measured`,
    );
    await Bun.sleep(WARMUP_MIN * MINUTE);
    const a = { at: Date.now(), cpu: cpu(), ...(await logState(ctx)) };
    console.log('minute | checks/s | queued (due now) | read models behind (events)');
    for (let m = 1; m <= MINUTES; m++) {
      await Bun.sleep(MINUTE);
      const done = await checksSince(ctx, new Date(Date.now() - MINUTE));
      const [q] = await ctx.sql<
        { queued: number; due: number }[]
      >`SELECT count(*)::int AS queued, count(*) FILTER (WHERE run_at <= now())::int AS due FROM check_jobs`;
      console.log(
        `${String(m).padStart(6)} | ${(done / 60).toFixed(1).padStart(8)} | ${String(q!.queued).padStart(6)} (${q!.due}) | ${await readModelsBehind(ctx)}`,
      );
    }
    const b = { at: Date.now(), cpu: cpu(), ...(await logState(ctx)) };
    const shopStats = (await (await fetch(`http://127.0.0.1:${port}/stats`)).json()) as {
      requests: number;
      bytes: number;
      maxPerHost: number;
      maxPerHostAt: string;
    };

    const checks = await checksOfRun(ctx);
    const window = checks.filter((c) => c.at >= a.at && c.at < b.at);
    const lags = dueToDone(products, checks, a.at, b.at);
    const seconds = (b.at - a.at) / 1000;
    const used = (key: keyof typeof a.cpu) => (b.cpu[key] - a.cpu[key]) / 1000;
    const productCpu = used('workers') + used('api') + used('postgres');
    const perSecond = window.length / seconds;
    const repeats = b.repeats - a.repeats;
    const whole = b.events - a.events;
    console.log(`\nmeasured over ${(seconds / 60).toFixed(1)} min:`);
    console.log(
      `checks: ${window.length.toLocaleString('en')} (${perSecond.toFixed(1)}/s; the schedule asked ${(due / 3600).toFixed(1)}/s), ${window.filter((c) => c.failed).length} failed, ${window.filter((c) => c.changed).length} with a new price`,
    );
    console.log(
      `due-to-done lag: p50 ${fmt(percentile(lags.done, 0.5))}, p99 ${fmt(percentile(lags.done, 0.99))}, max ${fmt(Math.max(...lags.done))} over ${lags.done.length} checks due in the window; ${lags.waiting.length} still waiting at its end${lags.waiting.length ? ` (longest ${fmt(Math.max(...lags.waiting))})` : ''}`,
    );
    console.log(`checks/s per worker process: ${(perSecond / WORKERS).toFixed(1)}`);
    console.log(
      `CPU seconds per 1,000 checks: workers ${((used('workers') / window.length) * 1000).toFixed(1)}, server ${((used('api') / window.length) * 1000).toFixed(1)}, PostgreSQL ${((used('postgres') / window.length) * 1000).toFixed(1)} (shops ${((used('shop') / window.length) * 1000).toFixed(1)}, not counted)`,
    );
    console.log(`checks/s per core: workers alone ${(window.length / used('workers')).toFixed(0)}, whole product ${(window.length / productCpu).toFixed(0)}`);
    console.log(
      `PostgreSQL CPU share: ${((used('postgres') / productCpu) * 100).toFixed(0)}% of the product's CPU (${((used('postgres') / seconds) * 100).toFixed(0)}% of a core)`,
    );
    console.log(
      `log bytes per check: ${((b.bytes - a.bytes) / window.length).toFixed(0)} (events and price_checks, tables and indexes: +${mb(b.bytes - a.bytes)} for ${window.length} checks; the whole log is ${mb(b.bytes)})`,
    );
    console.log(
      `PostgreSQL writes per check: ${((b.wal - a.wal) / window.length / 1024).toFixed(1)} KB of WAL, ${((b.written - a.written) / window.length).toFixed(2)} data pages of 8 KB (${((b.written - a.written) / seconds).toFixed(1)} pages/s)`,
    );
    console.log(
      `events/s: ${((whole + repeats) / seconds).toFixed(1)} (${(whole / seconds).toFixed(1)} whole events, ${(repeats / seconds).toFixed(1)} repeats)`,
    );
    console.log(
      `largest per-host concurrency seen: ${shopStats.maxPerHost} (at ${shopStats.maxPerHostAt}); the shops served ${shopStats.requests.toLocaleString('en')} pages, ${mb(shopStats.bytes)}`,
    );
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(children.map((c) => c.exited));
    await ctx.close();
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Users (with their plans and settings) and products, each product with the check it had at its last slot. */
async function seed(ctx: AppContext, users: User[], port: number, sizes: number[]): Promise<Product[]> {
  const now = Date.now();
  const observation = await observations(ctx, sizes);
  const products: Product[] = [];
  const batch: { streamId: string; expected: 'no_stream'; events: NewEvent[] }[] = [];
  // What a running system's checks remember of each page's last reading (check_reading).
  const readings: { stream: string; key: string; bytesKey: string; pageHash: string }[] = [];
  const flush = async () => {
    if (batch.length) await ctx.store.appendToStreams(batch.splice(0), ctx.sql);
  };
  let n = 0;
  for (const user of users) {
    const userId = user.id;
    const userEvents: NewEvent[] = [
      {
        type: 'UserSignedUp',
        data: {
          userId,
          provider: 'demo',
          subject: `${userId}@example.com`,
          email: `${userId}@example.com`,
          firstName: null,
          lastName: null,
          profileImageUrl: null,
        },
      },
    ];
    if (user.frequency) userEvents.push({ type: 'SettingsChanged', data: { userId, settings: { ...DEFAULT_SETTINGS, checkFrequency: user.frequency } } });
    batch.push({ streamId: userStream(userId), expected: 'no_stream', events: userEvents });
    if (user.plan !== 'free') {
      const at = Math.floor(now / 1000);
      batch.push({
        streamId: subscriptionStream(userId),
        expected: 'no_stream',
        events: [
          {
            type: 'TrialStarted',
            data: {
              userId,
              subscriptionId: `sub_${userId}`,
              provider: 'demo',
              plan: user.plan,
              amount: { starter: 1800, growth: 4900, pro: 9900 }[user.plan],
              trialEnd: at + 14 * 86_400,
              currentPeriodEnd: at + 14 * 86_400,
              created: at,
              at,
            },
          },
        ],
      });
    }
    for (let j = 0; j < user.products; j++, n++) {
      const product: Product = { id: `scale-product-${String(n).padStart(6, '0')}`, n, user, url: pageUrl(port, user.n, j, n), seededCheck: new Date(0) };
      const checkedAt = (product.seededCheck = lastSlot(product, now));
      products.push(product);
      const seen = observation(n, priceAt(n, checkedAt.getTime()));
      const data = { ...seen.data, productId: product.id, userId, url: product.url, observedAt: checkedAt.toISOString() };
      batch.push({
        streamId: productStream(product.id),
        expected: 'no_stream',
        events: [
          {
            type: 'ProductAdded',
            data: { productId: product.id, userId, name: `Product ${n}`, url: product.url, selector: SELECTOR, alertRule: { kind: 'none' }, imageUrl: null },
          },
          { type: 'PriceObserved', data },
        ],
      });
      const target = { url: product.url, selector: SELECTOR };
      const served = { url: product.url, status: 200, contentType: 'text/html; charset=utf-8' };
      readings.push({
        stream: productStream(product.id),
        key: readingKey(target, served, seen.pageHash),
        bytesKey: readingKey(target, served, `bytes:${seen.bytesHash}`),
        pageHash: seen.pageHash,
      });
      if (batch.length >= 500) await flush();
    }
  }
  await flush();
  // Each reading is remembered as the seeded observation it reads as.
  for (let i = 0; i < readings.length; i += 10_000) {
    const chunk = readings.slice(i, i + 10_000);
    await ctx.sql`
      INSERT INTO check_reading (product_id, reading_key, bytes_key, page_hash, observation)
      SELECT e.data->>'productId', r.reading_key, r.bytes_key, r.page_hash, e.global_position
      FROM unnest(${chunk.map((r) => r.stream)}::text[], ${chunk.map((r) => r.key)}::text[], ${chunk.map((r) => r.bytesKey)}::text[],
                  ${chunk.map((r) => r.pageHash)}::text[]) AS r(stream_id, reading_key, bytes_key, page_hash)
      JOIN events e ON e.stream_id = r.stream_id AND e.type = 'PriceObserved'`;
  }
  // Added two days ago, before the checks: a product edited after its last check is due at once.
  await ctx.sql`UPDATE events SET recorded_at = recorded_at - interval '2 days' WHERE type = 'ProductAdded'`;
  await ctx.projections.catchUp();
  return products;
}

/**
 * What a check of product `n`'s page at a price reads: the real check of that page (the same
 * extraction), once per price, with the version and the bytes' hash of the product's own page.
 */
async function observations(ctx: AppContext, sizes: number[]) {
  const page = pageMaker(sizes);
  const byPrice = new Map<number, Extract<CheckEvent, { type: 'PriceObserved' }>['data']>();
  const hashes = new Map<string, { pageHash: string; bytesHash: string }>();
  for (let i = 0; i < 25 * 3; i++) {
    const price = 10 + (i % 25) + Math.floor(i / 25) * 2 + 0.99;
    const body = page(0, price);
    const [outcome] = await checkPage(
      ctx.config,
      'http://127.0.0.1/products/0',
      [{ productId: 'p', userId: 'u', url: 'http://127.0.0.1/products/0', selector: SELECTOR, lease: null, render: null }],
      {
        fetchPage: async (url) => ({ ok: true, url, status: 200, contentType: 'text/html', headers: {}, body, bytes: body.length, elapsedMs: 1 }),
      },
    );
    if (outcome?.event.type !== 'PriceObserved' || outcome.event.data.price !== price) throw new Error(`the page at ${price} does not read as that price`);
    byPrice.set(price, outcome.event.data);
  }
  return (n: number, price: number) => {
    const key = `${sizes[n % sizes.length]}:${price}`;
    let hashed = hashes.get(key);
    if (!hashed) {
      const bytes = Buffer.from(page(n, price));
      hashes.set(key, (hashed = { pageHash: pageVersion(bytes), bytesHash: new Bun.CryptoHasher('sha256').update(bytes).digest('hex') }));
    }
    return { data: { ...byPrice.get(price)!, pageHash: hashed.pageHash }, ...hashed };
  };
}

function expectedChecksPerHour(products: Product[]): number {
  return products.reduce((sum, p) => sum + 60 / checkIntervalMinutes(schedule(p, new Date()), RULES), 0);
}

/**
 * The log's size (every partition of events, and price_checks, with their indexes) and its rows;
 * and the server's WAL and the data pages it has written (the whole server: it serves nothing else).
 */
async function logState(ctx: AppContext) {
  const [row] = await ctx.sql<{ bytes: string; events: string; repeats: string; wal: string; written: string }[]>`
    SELECT (SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('events') WHERE isleaf) + pg_total_relation_size('price_checks') AS bytes,
      (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM price_checks) AS repeats,
      (SELECT wal_bytes FROM pg_stat_wal) AS wal,
      (SELECT buffers_checkpoint + buffers_clean + buffers_backend FROM pg_stat_bgwriter) AS written`;
  return { bytes: Number(row!.bytes), events: Number(row!.events), repeats: Number(row!.repeats), wal: Number(row!.wal), written: Number(row!.written) };
}

async function checksSince(ctx: AppContext, since: Date): Promise<number> {
  const [row] = await ctx.sql<{ n: number }[]>`
    SELECT (SELECT count(*) FROM events WHERE recorded_at >= ${since} AND type IN ('PriceObserved', 'PriceCheckFailed'))
      + (SELECT count(*) FROM price_checks WHERE observed_at >= ${since}) AS n`;
  return Number(row!.n);
}

/** Events and repeats committed after the checkpoint of the read model furthest behind. */
async function readModelsBehind(ctx: AppContext): Promise<number> {
  const [row] = await ctx.sql<{ n: string }[]>`
    WITH slowest AS (SELECT min(transaction_id) AS xid FROM projection_checkpoints)
    SELECT (SELECT count(*) FROM events, slowest WHERE transaction_id > slowest.xid)
      + (SELECT count(*) FROM price_checks, slowest WHERE transaction_id > slowest.xid) AS n`;
  return Number(row?.n ?? 0);
}

type Check = { productId: string; at: number; failed: boolean; changed: boolean };

/** Every check recorded since the seed, in time order: whole events and repeats. */
async function checksOfRun(ctx: AppContext): Promise<Check[]> {
  const rows = await ctx.sql<{ productId: string; at: Date; type: string; repeat: boolean }[]>`
    SELECT data->>'productId' AS "productId", coalesce(data->>'observedAt', data->>'attemptedAt')::timestamptz AS at, type, false AS repeat
    FROM events WHERE type IN ('PriceObserved', 'PriceCheckFailed') AND stream_version > 2
    UNION ALL
    SELECT e.data->>'productId', c.observed_at, 'PriceObserved', true FROM price_checks c JOIN events e ON e.global_position = c.repeats
    ORDER BY at`;
  return rows.map((r) => ({
    productId: r.productId,
    at: new Date(r.at).getTime(),
    failed: r.type === 'PriceCheckFailed',
    changed: r.type === 'PriceObserved' && !r.repeat,
  }));
}

/**
 * How late each check came after it was due (as the schedule says, from the product's previous
 * check and its failures), for checks due within [from, to); and how long those due in the window
 * but not done by its end had waited.
 */
function dueToDone(products: Product[], checks: Check[], from: number, to: number) {
  const state = new Map(products.map((p) => [p.id, { product: p, last: p.seededCheck, failures: 0 }]));
  const done: number[] = [];
  for (const c of checks) {
    const s = state.get(c.productId);
    if (!s) continue;
    const due = nextCheckAt(schedule(s.product, s.last, s.failures), RULES).getTime();
    if (due >= from && due < to) done.push(c.at - due);
    s.last = new Date(c.at);
    s.failures = c.failed ? s.failures + 1 : 0;
  }
  const waiting: number[] = [];
  for (const s of state.values()) {
    const due = nextCheckAt(schedule(s.product, s.last, s.failures), RULES).getTime();
    if (due >= from && due < to) waiting.push(to - due);
  }
  return { done, waiting };
}

/** Starts a bun process and waits for the line that says it is ready. */
async function spawn(args: string[], env: Record<string, string>, ready: RegExp) {
  const proc = Bun.spawn([process.execPath, ...args], { env: { ...process.env, ...env }, stdout: 'pipe', stderr: 'inherit' });
  const reader = proc.stdout.getReader();
  let out = '';
  for (;;) {
    const match = out.match(ready);
    if (match) {
      reader.releaseLock();
      void proc.stdout.pipeTo(new WritableStream()).catch(() => {});
      return { proc, match };
    }
    const chunk = await reader.read();
    if (chunk.done) throw new Error(`${args[0]} exited before it was ready:\n${out}`);
    out += new TextDecoder().decode(chunk.value);
  }
}

function plans(users: User[]): string {
  const count = (plan: Plan) => users.filter((u) => u.plan === plan).length;
  return `${count('free')} free, ${count('starter')} starter, ${count('growth')} growth, ${count('pro')} pro`;
}

function percentile(values: number[], q: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

const fmt = (ms: number) => (Math.abs(ms) >= 10_000 ? `${(ms / 1000).toFixed(0)} s` : `${(ms / 1000).toFixed(1)} s`);
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

await main();
