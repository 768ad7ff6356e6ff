/**
 * The own catalogue at the size of a real shop, through the app as the server runs it:
 *
 * - importing 1,000 own products from a Shopify store on loopback (600 products, a third with
 *   three variants), and a 10,000-item Google Merchant feed, each one POST /api/catalogue/sources;
 * - GET /api/catalogue and GET /api/position at 1,000 own products with 5 competitors each:
 *   the whole judgement (readCatalogue, uncached) and the answer as served (cached per user);
 * - from a competitor's price change committed to the log to the `undercut` alert raised, with
 *   the read models and reactors polling as in the server;
 * - pricing rules on all 1,000: a competitor's price change to its product's new recommendation,
 *   every recommendation at once, and a backtest of one product over a year of history.
 *
 *   bun bench/catalogue/run.ts
 *
 * Uses DATABASE_URL (a scratch database is created and dropped), else the embedded PGlite.
 */
import postgres from 'postgres';
import { loadConfig } from '../../api/config.ts';
import { createContext } from '../../api/create-context.ts';
import { createApp } from '../../api/server.ts';
import { openDatabase, type Database } from '../../db/index.ts';
import { signInDemo } from '../../api/testing/sign-in.ts';
import { startTrial } from '../../api/testing/plans.ts';
import { FEED_PATHS, startFakeStores } from '../../api/catalogue/sources/fake-stores.ts';
import { readCatalogue } from '../../api/catalogue/read-model.ts';
import { runOwnCommands } from '../../api/testing/own-catalogue.ts';
import { observed } from '../../api/testing/prices.ts';
import type { NewEvent } from '../../events/store.ts';
import type { OwnProductRow } from '../../projections/catalogue.ts';
import type { PricingRule } from '../../domain/pricing.ts';
import { readRecommendations } from '../../api/pricing/read-model.ts';
import { runBacktest } from '../../api/pricing/backtest.ts';

const ORIGIN = 'http://localhost:3000';
const COMPETITORS_PER_PRODUCT = 5;
/** Competitor price drops timed to their undercut alert. */
const UNDERCUTS = 20;

async function scratchDatabase(): Promise<{ database: Database; label: string; drop(): Promise<void> }> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) return { database: await openDatabase({ dataDir: null }), label: 'embedded PGlite', drop: async () => {} };
  const name = `pricewatch_bench_catalogue_${Date.now().toString(36)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    database: await openDatabase({ url: url.toString(), max: 10 }),
    label: `PostgreSQL (${url.host})`,
    async drop() {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil(xs.length * 0.95) - 1)]!;
const ms = (n: number) => `${n.toFixed(1)} ms`;

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await fn();
  return { ms: performance.now() - start, value };
}

async function main() {
  const stores = startFakeStores({ products: 600, feedItems: 10_000, hugeFeedItems: 10 });
  const scratch = await scratchDatabase();
  const ctx = await createContext(loadConfig({ PUBLIC_URL: ORIGIN, DATA_DIR: '/tmp/pricewatch-bench-catalogue', CHECK_ALLOW_PRIVATE: 'true' }), {
    database: scratch.database,
  });
  const app = createApp(ctx);
  const call = (cookie: string, method: string, path: string, body?: unknown) =>
    app.handle(
      new Request(new URL(path, ORIGIN), {
        method,
        headers: { cookie, origin: ORIGIN, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      }),
    );
  try {
    console.log(`Own catalogue on ${scratch.label}\n`);
    const owner = await signInDemo(app, ORIGIN);
    await startTrial(ctx, owner.userId, 'pro');

    const shopify = await timed(() => call(owner.cookie, 'POST', '/api/catalogue/sources', { kind: 'shopify', url: `${stores.origin}/` }));
    const shopifyAnswer = (await shopify.value.json()) as { imported: number };
    console.log(`Import from a Shopify store (products.json, 3 pages): ${shopifyAnswer.imported} own products in ${ms(shopify.ms)}`);

    const feedOwner = await signInDemo(app, ORIGIN);
    await startTrial(ctx, feedOwner.userId, 'pro');
    const feed = await timed(() =>
      call(feedOwner.cookie, 'POST', '/api/catalogue/sources', { kind: 'merchant-feed', url: `${stores.origin}${FEED_PATHS.rss}` }),
    );
    const feedAnswer = (await feed.value.json()) as { imported: number };
    console.log(`Import from a Merchant feed (RSS): ${feedAnswer.imported} own products in ${ms(feed.ms)}`);

    // 5 competitor products per own product, each with a price, linked.
    const own = await ctx.sql<{ id: string; price: number }[]>`SELECT id, price FROM own_products WHERE user_id = ${owner.userId} ORDER BY id`;
    const competitors: { id: string; ownId: string; price: number }[] = [];
    const batch: { streamId: string; expected: 'no_stream'; events: NewEvent[] }[] = [];
    const now = Date.now();
    for (const [i, o] of own.entries()) {
      for (let k = 0; k < COMPETITORS_PER_PRODUCT; k++) {
        const id = crypto.randomUUID();
        // Around the owner's price; the first products' competitors are all dearer, so a drop below is an undercut.
        const factor = i < UNDERCUTS ? 1.01 + k * 0.02 : 0.9 + ((i * 7 + k * 13) % 21) / 100;
        const price = Math.round(o.price * factor * 100) / 100;
        competitors.push({ id, ownId: o.id, price });
        const url = `https://rival-${k}.example/p/${i}`;
        const observation = observed(id, owner.userId, price, new Date(now - (k + 1) * 600_000));
        batch.push({
          streamId: `product-${id}`,
          expected: 'no_stream',
          events: [
            {
              type: 'ProductAdded',
              data: {
                productId: id,
                userId: owner.userId,
                name: `Rival ${k} product ${i}`,
                url,
                selector: '.price',
                alertRule: { kind: 'none' },
                imageUrl: null,
              },
            },
            { ...observation, data: { ...observation.data, url } } as NewEvent,
          ],
        });
      }
    }
    for (let i = 0; i < batch.length; i += 500) await ctx.sql.begin((tx) => ctx.store.appendToStreams(batch.slice(i, i + 500), tx as never));
    await ctx.projections.catchUp();
    await runOwnCommands(
      ctx,
      competitors.map((c) => ({ type: 'Link', ownProductId: c.ownId, userId: owner.userId, productId: c.id, via: 'hand' })),
    );
    await ctx.reactors.catchUp();
    console.log(`\n${own.length} own products with ${COMPETITORS_PER_PRODUCT} linked competitors each (${competitors.length} competitor products)`);

    const judge: number[] = [];
    for (let i = 0; i < 20; i++) judge.push((await timed(() => readCatalogue(ctx.sql, ctx.config, owner.userId))).ms);
    const served: Record<string, number[]> = { '/api/catalogue': [], '/api/position': [] };
    let bytes = 0;
    for (const path of Object.keys(served)) {
      for (let i = 0; i < 20; i++) {
        const answer = await timed(async () => {
          const res = await call(owner.cookie, 'GET', path);
          const text = await res.text();
          if (res.status !== 200) throw new Error(`${path}: ${res.status} ${text}`);
          return text.length;
        });
        served[path]!.push(answer.ms);
        if (path === '/api/catalogue') bytes = answer.value;
      }
    }
    console.log(`  judging the whole catalogue (readCatalogue, uncached): median ${ms(median(judge))}, p95 ${ms(p95(judge))}`);
    for (const [path, times] of Object.entries(served)) {
      console.log(`  GET ${path}: first ${ms(times[0]!)} (computed), then median ${ms(median(times.slice(1)))} (cached until the next event)`);
    }
    console.log(`  GET /api/catalogue answers ${(bytes / 1024).toFixed(0)} KB of JSON`);

    // Undercut latency: a competitor drops below the owner, as a check records it.
    ctx.projections.start();
    ctx.reactors.start();
    const latencies: number[] = [];
    for (let i = 0; i < UNDERCUTS; i++) {
      const target = competitors[i * COMPETITORS_PER_PRODUCT]!;
      const ownPrice = own.find((o) => o.id === target.ownId)!.price;
      const drop = observed(target.id, owner.userId, Math.round(ownPrice * 0.5 * 100) / 100, new Date());
      const start = performance.now();
      const appended = await ctx.store.append(`product-${target.id}`, 'any', [drop]);
      for (;;) {
        const [raised] =
          await ctx.sql`SELECT 1 FROM events WHERE type = 'AlertRaised' AND global_position > ${appended.lastPosition} AND data->>'type' = 'undercut'
          AND data->>'productId' = ${target.id} LIMIT 1`;
        if (raised) break;
        await Bun.sleep(2);
      }
      latencies.push(performance.now() - start);
    }
    console.log(`\nCompetitor price change to undercut alert (${latencies.length} changes): median ${ms(median(latencies))}, p95 ${ms(p95(latencies))}`);

    await pricing(ctx, owner, own, competitors, call);
  } finally {
    await ctx.projections.stop();
    await ctx.reactors.stop();
    stores.stop();
    await ctx.close();
    await scratch.drop();
  }
}

/**
 * Pricing rules on all 1,000 own products: the recommendation recomputed after a competitor's
 * price change (it is worked out when read, so: the change committed, the read models caught up,
 * and the affected product's recommendation read again), the whole list, and a year's backtest.
 */
async function pricing(
  ctx: Awaited<ReturnType<typeof createContext>>,
  owner: { userId: string; cookie: string },
  own: { id: string; price: number }[],
  competitors: { id: string; ownId: string; price: number }[],
  call: (cookie: string, method: string, path: string, body?: unknown) => Promise<Response>,
) {
  const at = new Date().toISOString();
  await runOwnCommands(
    ctx,
    own.map((o) => ({
      type: 'SetRule',
      ownProductId: o.id,
      userId: owner.userId,
      at,
      rule: {
        strategy: 'beat-cheapest',
        offsetPercent: 1,
        offsetAmount: null,
        floor: { costMarginPercent: null, amount: Math.round(o.price * 70) / 100 },
        ceiling: { amount: null, regular: false },
        rounding: '.99',
        maxStepPercent: 10,
        minCompetitors: 2,
        spikePercent: 40,
        competitors: null,
      },
    })),
  );
  console.log(`\nPricing rules on all ${own.length} own products (beat the cheapest by 1%, .99, floor, 10% step)`);

  // A year of daily closes for every competitor, and of the owner's prices, written straight into
  // the read models the backtest reads (as many rows as a year of checks leaves there).
  const days = 365;
  const start = performance.now();
  await ctx.sql`
    INSERT INTO competitor_days (product_id, day, price, currency, availability, last_at, event_position)
    SELECT c.id, d::date, round((c.price * (1 + 0.15 * sin(extract(doy FROM d)::float8 / 9 + c.k)))::numeric, 2), 'GBP', 'InStock', d + interval '23 hours', 1
    FROM unnest(${competitors.map((c) => c.id)}::text[], ${competitors.map((c) => c.price)}::float8[], ${competitors.map((_, k) => k % 7)}::int[]) AS c(id, price, k),
      generate_series(now()::date - ${days}::int, now()::date - 1, interval '1 day') AS d
    ON CONFLICT DO NOTHING`;
  await ctx.sql`
    INSERT INTO own_price_points (event_position, own_product_id, user_id, price, currency, at)
    SELECT -row_number() OVER (), o.id, ${owner.userId}, o.price, 'GBP', now() - make_interval(days => ${days + 1}::int)
    FROM unnest(${own.map((o) => o.id)}::text[], ${own.map((o) => o.price)}::float8[]) AS o(id, price)`;
  const [{ n }] = await ctx.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM competitor_days`;
  console.log(`  a year of history: ${n.toLocaleString('en-GB')} daily closes written in ${ms(performance.now() - start)}`);

  const recompute: number[] = [];
  for (let i = 0; i < 20; i++) {
    const target = competitors[(UNDERCUTS + i) * COMPETITORS_PER_PRODUCT]!;
    const price = Math.round(target.price * 0.8 * 100) / 100;
    const begin = performance.now();
    const appended = await ctx.store.append(`product-${target.id}`, 'any', [observed(target.id, owner.userId, price, new Date())]);
    await ctx.projections.waitFor({ transactionId: appended.transactionId, position: appended.lastPosition });
    const [entry] = await readRecommendations(ctx.sql, ctx.config, owner.userId, { ids: [target.ownId] });
    if (!entry?.recommendation.evidence.some((e) => e.price === price)) throw new Error('the recommendation did not read the new price');
    recompute.push(performance.now() - begin);
  }
  console.log(
    `  competitor price change to its product's new recommendation (committed, projected, read): median ${ms(median(recompute))}, p95 ${ms(p95(recompute))}`,
  );
  const one: number[] = [];
  const all: number[] = [];
  for (let i = 0; i < 20; i++) {
    one.push((await timed(() => readRecommendations(ctx.sql, ctx.config, owner.userId, { ids: [own[i]!.id] }))).ms);
    all.push((await timed(() => readRecommendations(ctx.sql, ctx.config, owner.userId))).ms);
  }
  console.log(`  one product's recommendation: median ${ms(median(one))}; all ${own.length}: median ${ms(median(all))}, p95 ${ms(p95(all))}`);

  const served: number[] = [];
  const computed: number[] = [];
  for (let i = 0; i < 20; i++) {
    const id = own[UNDERCUTS + i]!.id;
    const answer = await timed(async () => {
      const res = await call(owner.cookie, 'POST', `/api/catalogue/${id}/rule/backtest`, { timeFilter: 'year' });
      if (res.status !== 200) throw new Error(`backtest: ${res.status} ${await res.text()}`);
      return (await res.json()) as { days: unknown[]; changes: number };
    });
    if (answer.value.days.length < days) throw new Error(`a backtest of ${answer.value.days.length} days`);
    served.push(answer.ms);
    const [row] = await ctx.sql<OwnProductRow[]>`SELECT * FROM own_products WHERE id = ${id}`;
    const [{ rule }] = await ctx.sql<{ rule: PricingRule }[]>`SELECT rule FROM pricing_rules WHERE own_product_id = ${id}`;
    computed.push((await timed(() => runBacktest(ctx.sql, ctx.config, row!, rule, 'year'))).ms);
  }
  console.log(`  backtest of one product over 365 days (${COMPETITORS_PER_PRODUCT} competitors): median ${ms(median(computed))}, p95 ${ms(p95(computed))};`);
  console.log(`    POST /api/catalogue/{id}/rule/backtest as served (with the live recommendation): median ${ms(median(served))}, p95 ${ms(p95(served))}`);
}

await main();
