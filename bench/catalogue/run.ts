/**
 * The own catalogue at the size of a real shop, through the app as the server runs it:
 *
 * - importing 1,000 own products from a Shopify store on loopback (600 products, a third with
 *   three variants), and a 10,000-item Google Merchant feed, each one POST /api/catalogue/sources;
 * - GET /api/catalogue and GET /api/position at 1,000 own products with 5 competitors each:
 *   the whole judgement (readCatalogue, uncached) and the answer as served (cached per user);
 * - from a competitor's price change committed to the log to the `undercut` alert raised, with
 *   the read models and reactors polling as in the server.
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
  } finally {
    await ctx.projections.stop();
    await ctx.reactors.stop();
    stores.stop();
    await ctx.close();
    await scratch.drop();
  }
}

await main();
