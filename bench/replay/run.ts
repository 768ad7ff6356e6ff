/**
 * Replay throughput on a generated log (default 1,000,000 events): export to /dev/null through
 * the real export code, and rebuild of every read model from zero. Needs PostgreSQL (DATABASE_URL);
 * builds a fresh database and drops it afterwards (--keep keeps it and prints its address).
 * Prints figures; it is not a test.
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bun bench/replay/run.ts [--events N] [--keep]
 *
 * The log looks like an installation's: users with settings and some subscriptions, ten products
 * each, checked on their plan's schedule (a tenth of the users on Pro every 15 minutes, three
 * tenths hourly, the rest daily), mostly finding the same price, sometimes a change, a failure,
 * a manual price or an edit, and the alerts the changes raised.
 */
import postgres from 'postgres';
import { createWriteStream } from 'node:fs';
import { openDatabase } from '../../db/index.ts';
import { loadConfig } from '../../api/config.ts';
import { createContext } from '../../api/create-context.ts';
import { transaction } from '../../db/index.ts';
import { DEFAULT_SETTINGS } from '../../events/catalogue.ts';
import { continuePositions, exportEvents, insertExported, streamSink, type ExportedEvent } from '../../events/ndjson.ts';
import { rebuildInto } from '../../projections/replay.ts';
import { ensurePartitions } from '../../events/partitions.ts';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const TOTAL = Number(arg('events') ?? 1_000_000);
const KEEP = process.argv.includes('--keep');
const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) {
  console.error('bench/replay needs a PostgreSQL server: DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres');
  process.exit(2);
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-GB');
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

// A small deterministic generator, so runs are comparable.
let seed = 42;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
  return seed / 0x7fffffff;
};

const PRODUCTS_PER_USER = 10;
const USERS = Math.max(10, Math.round(TOTAL / 5000));
const PRODUCTS = USERS * PRODUCTS_PER_USER;
const TICK = 15 * 60_000;
/** Minutes between checks by plan: users 0 (mod 10) are on Pro, 1-3 on Growth, the rest on daily plans. */
const intervalOf = (user: number) => (user % 10 === 0 ? 15 : user % 10 <= 3 ? 60 : 1440);
const TICKS_PER_RUN = Math.ceil(TOTAL / (USERS * PRODUCTS_PER_USER * (0.1 + 0.3 / 4 + 0.6 / 96)));
const START_AT = Date.now() - TICKS_PER_RUN * TICK;

type Product = { id: string; userId: string; price: number; rule: 'any' | 'drop'; everyTicks: number; offset: number };
const versions = new Map<string, number>();
let position = 0;
let now = START_AT;

function event(stream: string, type: string, data: Record<string, unknown>): ExportedEvent {
  const version = (versions.get(stream) ?? 0) + 1;
  versions.set(stream, version);
  position++;
  // Events of one tick are a few milliseconds apart, as a worker records them.
  now += 5;
  return { position, stream, version, type, schemaVersion: 1, data, metadata: {}, recordedAt: new Date(now).toISOString() };
}

/** The log, a batch at a time: sign-ups and products first, then every 15 minutes the checks that are due. */
function* generate(batchSize: number): Generator<ExportedEvent[]> {
  let batch: ExportedEvent[] = [];
  const push = (e: ExportedEvent) => {
    batch.push(e);
  };
  const products: Product[] = [];
  for (let u = 0; u < USERS; u++) {
    const userId = `bench-user-${u}`;
    push(
      event(`user-${userId}`, 'UserSignedUp', {
        userId,
        email: `${userId}@bench.example`,
        firstName: 'Bench',
        lastName: `No ${u}`,
        profileImageUrl: null,
        provider: 'demo',
        subject: userId,
      }),
    );
    push(event(`user-${userId}`, 'SettingsChanged', { userId, settings: { ...DEFAULT_SETTINGS, weeklyReports: u % 2 === 0 } }));
    if (intervalOf(u) < 1440) {
      const at = Math.floor(START_AT / 1000);
      push(
        event(`subscription-${userId}`, 'TrialStarted', {
          userId,
          subscriptionId: `sub_${u}`,
          provider: 'demo',
          plan: intervalOf(u) === 15 ? 'pro' : 'growth',
          amount: intervalOf(u) === 15 ? 9900 : 4900,
          trialEnd: at + 14 * 86_400,
          currentPeriodEnd: at + 14 * 86_400,
          created: at,
          at,
        }),
      );
    }
    for (let p = 0; p < PRODUCTS_PER_USER; p++) {
      const everyTicks = intervalOf(u) / 15;
      const product: Product = {
        id: `bench-product-${u}-${p}`,
        userId,
        price: 10 + Math.round(random() * 50_000) / 100,
        rule: p % 2 ? 'any' : 'drop',
        everyTicks,
        offset: Math.floor(random() * everyTicks),
      };
      products.push(product);
      push(
        event(`product-${product.id}`, 'ProductAdded', {
          productId: product.id,
          userId,
          name: `Product ${p} of user ${u}`,
          url: `https://shop${u % 50}.example/p/${p}`,
          selector: '.price',
          alertRule: product.rule === 'any' ? { kind: 'any' } : { kind: 'drop', percent: 5 },
          imageUrl: null,
        }),
      );
    }
  }
  for (let tick = 0; position < TOTAL; tick++) {
    now = Math.max(now, START_AT + tick * TICK);
    for (const product of products) {
      if (position >= TOTAL) break;
      if ((tick + product.offset) % product.everyTicks !== 0) continue;
      const stream = `product-${product.id}`;
      const { id: productId, userId } = product;
      const at = new Date(now).toISOString();
      const roll = random();
      if (roll < 0.03) {
        push(
          event(stream, 'PriceCheckFailed', {
            productId,
            userId,
            code: 'timeout',
            reason: 'The page did not answer in time.',
            httpStatus: null,
            url: `https://shop.example/p/${productId}`,
            attemptedAt: at,
          }),
        );
      } else if (roll < 0.032) {
        push(
          event(stream, 'ProductEdited', {
            productId,
            userId,
            name: `Renamed ${productId}`,
            url: `https://shop.example/p/${productId}`,
            selector: '.price .amount',
            alertRule: { kind: 'any' },
          }),
        );
      } else if (roll < 0.034) {
        product.price = Math.round(product.price * 95) / 100;
        push(event(stream, 'PriceManuallySet', { productId, userId, price: product.price, currency: 'GBP' }));
      } else {
        const previous = product.price;
        if (random() < 0.05) product.price = Math.max(1, Math.round(product.price * (0.9 + random() * 0.2) * 100) / 100);
        const observed = event(stream, 'PriceObserved', {
          productId,
          userId,
          price: product.price,
          currency: 'GBP',
          source: 'selector',
          selector: '.price',
          matchedText: `£${product.price.toFixed(2)}`,
          url: `https://shop.example/p/${productId}`,
          httpStatus: 200,
          pageHash: `h${position}`,
          observedAt: at,
        });
        push(observed);
        if (product.price !== previous && product.rule === 'any' && position < TOTAL) {
          const changePercent = Math.round(((product.price - previous) / previous) * 1_000_000) / 10_000;
          push(
            event(`alerts-${userId}`, 'AlertRaised', {
              alertId: `alert-${observed.position}`,
              userId,
              productId,
              type: product.price < previous ? 'price_drop' : 'price_increase',
              productName: `Product of ${userId}`,
              productUrl: `https://shop.example/p/${productId}`,
              productImage: null,
              previousPrice: previous,
              currentPrice: product.price,
              currency: 'GBP',
              changePercent,
              thresholdPercent: null,
              message: `Price changed ${changePercent}%`,
              trigger: { eventType: 'PriceObserved', position: observed.position, at },
            }),
          );
        }
      }
      if (batch.length >= batchSize) {
        yield batch;
        batch = [];
      }
    }
  }
  if (batch.length) yield batch;
}

// A fresh database with every table and index the product creates.
const name = `pricewatch_replay_${Date.now().toString(36)}`;
const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
await admin.unsafe(`CREATE DATABASE ${name}`);
const url = new URL(serverUrl);
url.pathname = `/${name}`;
const database = await openDatabase({ url: url.toString(), max: 4 });
const ctx = await createContext(loadConfig({ NODE_ENV: 'test', DATABASE_URL: url.toString(), DATA_DIR: '/tmp/pricewatch-bench' }), { database });
const sql = ctx.sql;

try {
  console.log(
    `database: PostgreSQL server, ${fmt(TOTAL)} events (${fmt(USERS)} users, ${fmt(PRODUCTS)} products, about ${Math.round((TICKS_PER_RUN * TICK) / 86_400_000)} days of checks)`,
  );
  {
    const t = performance.now();
    // The months of the generated history get their partitions first, as an import makes them.
    await ensurePartitions(sql, new Date(), { from: new Date(START_AT) });
    for (const batch of generate(10_000)) {
      await transaction(sql, (tx) => insertExported(tx, batch));
      process.stderr.write(`\rgenerating: ${fmt(position)} events`);
    }
    await continuePositions(sql);
    await sql`ANALYZE events`;
    process.stderr.write('\n');
    console.log(`generate (multi-row inserts of 10,000): ${seconds(performance.now() - t)}, ${fmt(TOTAL / ((performance.now() - t) / 1000))} events/s`);
  }
  const [{ size }] = await sql<{ size: string }[]>`SELECT pg_size_pretty(sum(pg_total_relation_size(relid))) AS size FROM pg_partition_tree('events')`;
  const types = await sql<{ type: string; n: number }[]>`SELECT type, count(*)::int AS n FROM events GROUP BY type ORDER BY n DESC`;
  console.log(`log: ${size}; ${types.map((t) => `${t.type} ${fmt(t.n)}`).join(', ')}`);

  // Export: the real export code, to /dev/null; a warm-up pass first so both runs read from memory.
  {
    const run = async () => {
      const out = createWriteStream('/dev/null');
      const t = performance.now();
      const n = await exportEvents(sql, streamSink(out));
      const ms = performance.now() - t;
      await new Promise((resolve) => out.end(resolve));
      return { n, ms };
    };
    await run();
    const { n, ms } = await run();
    console.log(`export to /dev/null:  ${fmt(n)} events in ${seconds(ms)}: ${fmt(n / (ms / 1000))} events/s  (target >= 100,000)`);
    const cli = performance.now();
    const proc = Bun.spawnSync([process.execPath, 'scripts/events.ts', 'export'], {
      env: { ...process.env, DATABASE_URL: url.toString() },
      stdout: Bun.file('/dev/null'),
      cwd: `${import.meta.dir}/../..`,
    });
    if (proc.exitCode !== 0) throw new Error(proc.stderr.toString());
    const cliMs = performance.now() - cli;
    console.log(
      `bun run events export > /dev/null (whole command, start-up included): ${seconds(cliMs)}: ${fmt(TOTAL / (cliMs / 1000))} events/s, ` +
        `peak memory ${fmt(proc.resourceUsage.maxRSS / 1_048_576)} MB`,
    );
  }

  // Rebuild: every live read model from zero (the runner: one read per read model), then the
  // same into a separate schema (one read of the log for all of them).
  {
    const t = performance.now();
    const read = await ctx.projections.rebuild();
    const ms = performance.now() - t;
    console.log(
      `rebuild (live, ${ctx.projections.projections.length} read models): ${fmt(read)} events in ${seconds(ms)}: ${fmt(read / (ms / 1000))} events/s  (target >= 30,000)`,
    );
    const t2 = performance.now();
    await rebuildInto(ctx.store, ctx.projections.projections, { schema: 'replay_copy' });
    const ms2 = performance.now() - t2;
    console.log(`rebuild --into replay_copy:  ${seconds(ms2)}: ${fmt(TOTAL / (ms2 / 1000))} log events/s`);
    const [counts] = await sql`SELECT (SELECT count(*) FROM products)::int AS products, (SELECT count(*) FROM price_points)::int AS points,
                                      (SELECT count(*) FROM price_changes)::int AS changes, (SELECT count(*) FROM alerts)::int AS alerts`;
    console.log(
      `read models: ${fmt(counts!.products)} products, ${fmt(counts!.points)} price points, ${fmt(counts!.changes)} price changes, ${fmt(counts!.alerts)} alerts`,
    );
  }
} finally {
  await ctx.close();
  if (KEEP) console.log(`kept: ${url}`);
  else await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}
