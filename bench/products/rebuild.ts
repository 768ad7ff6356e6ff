/**
 * Rebuild speed of the products read models (products, price_points, price_changes) on the
 * configured database (DATABASE_URL, else embedded PGlite), for a log shaped like real use:
 * products with many checks, price changes, failed checks, edits, manual prices and removals.
 * Prints figures; it is not a test. Usage: bun bench/products/rebuild.ts [--products N] [--checks N]
 */
import postgres from 'postgres';
import { openDatabase, type Database } from '../../db/index.ts';
import { createEventStore, EVENT_STORE_DDL, type NewEvent } from '../../events/store.ts';
import { createProjectionRunner } from '../../projections/runner.ts';
import { productsProjection } from '../../projections/products.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const serverUrl = process.env.DATABASE_URL;
const PRODUCTS = arg('products', serverUrl ? 2_000 : 500);
const CHECKS = arg('checks', 100);

async function freshDatabase(): Promise<Database> {
  if (!serverUrl) return openDatabase({ dataDir: null });
  const name = `pricewatch_bench_${Date.now().toString(36)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = await openDatabase({ url: url.toString(), max: 4 });
  return {
    ...db,
    async close() {
      await db.close();
      await admin.unsafe(`DROP DATABASE ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/** One product's life: added, checked CHECKS times (every 7th fails), a manual price, an edit, and every 10th removed. */
function productLog(p: number): NewEvent[] {
  const productId = `bench-${p}`,
    userId = `user-${p % 50}`,
    url = `https://shop.example/p/${p}`;
  const start = Date.UTC(2026, 0, 1);
  const events: NewEvent[] = [
    {
      type: 'ProductAdded',
      data: { productId, userId, name: `Product ${p}`, url, selector: '.price', alertRule: { kind: 'drop', percent: 10 }, imageUrl: null },
    },
  ];
  for (let c = 0; c < CHECKS; c++) {
    const at = new Date(start + c * 3_600_000).toISOString();
    events.push(
      c % 7 === 6
        ? {
            type: 'PriceCheckFailed',
            data: { productId, userId, code: 'timeout', reason: 'The shop took too long to answer.', httpStatus: null, url, attemptedAt: at },
          }
        : {
            type: 'PriceObserved',
            data: {
              productId,
              userId,
              price: 20 + ((p + Math.floor(c / 3)) % 9),
              currency: 'GBP',
              source: 'selector',
              selector: '.price',
              matchedText: '£20.00',
              url,
              httpStatus: 200,
              pageHash: 'h',
              observedAt: at,
            },
          },
    );
  }
  events.push({ type: 'PriceManuallySet', data: { productId, userId, price: 19.99, currency: 'GBP' } });
  events.push({ type: 'ProductEdited', data: { productId, userId, name: `Product ${p} (edited)`, url, selector: '.price', alertRule: { kind: 'any' } } });
  if (p % 10 === 9) events.push({ type: 'ProductRemoved', data: { productId, userId } });
  return events;
}

const db = await freshDatabase();
await db.sql.unsafe(EVENT_STORE_DDL);
const store = createEventStore(db.sql);
const runner = createProjectionRunner(store, [productsProjection]);
await runner.setup();
for (let p = 0; p < PRODUCTS; p++) await store.append(`product-bench-${p}`, 'no_stream', productLog(p));
// A freshly filled table has no statistics yet; without them the planner reads each batch of the
// log with a bitmap scan and a sort over everything after it. Autovacuum does this on a live database.
await db.sql`ANALYZE events`;

const [{ n: total }] = await db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM events`;
console.log(
  `database: ${db.embedded ? 'embedded PGlite' : 'PostgreSQL server'}; ${PRODUCTS.toLocaleString('en-GB')} products, ${total.toLocaleString('en-GB')} events`,
);
for (let round = 1; round <= 3; round++) {
  const t = performance.now();
  const n = await runner.rebuild(['products']);
  const ms = performance.now() - t;
  console.log(
    `rebuild ${round}: ${Math.round(n / (ms / 1000)).toLocaleString('en-GB')} events/s (${n.toLocaleString('en-GB')} events in ${Math.round(ms)} ms)`,
  );
}
const counts =
  await db.sql`SELECT (SELECT count(*)::int FROM products) AS products, (SELECT count(*)::int FROM price_points) AS points, (SELECT count(*)::int FROM price_changes) AS changes`;
console.log(`tables: ${JSON.stringify(counts[0])}`);
await db.close();
