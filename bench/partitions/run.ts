/**
 * The time-partitioned log on a generated log of 1,000,000 price observations (2,000 products,
 * 500 each, over the past 12 months), on the PostgreSQL server of DATABASE_URL. Prints figures;
 * it is not a test. Builds its databases and drops them afterwards.
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres bun bench/partitions/run.ts [--events N] [--keep]
 *
 * Three shapes of the same log, read the same way (readAll through the whole log, readAll of the
 * last 1,000 events from a checkpoint as a catch-up reader does, readStream of products, head):
 *   1. the plain table of earlier releases;
 *   2. that table migrated in place by EVENT_STORE_DDL (attached as one partition) and the other
 *      features' indexes (adopted);
 *   3. the alternative migration, copying the rows into monthly partitions.
 * Then the past months of the third are archived (bun run events archive), with the time and the bytes.
 */
import postgres from 'postgres';
import { openDatabase, type Database, type Sql } from '../../db/index.ts';
import { loadConfig } from '../../api/config.ts';
import { createContext } from '../../api/create-context.ts';
import { UNPARTITIONED_LOG_DDL } from '../../api/testing/unpartitioned-log.ts';
import { createEventStore, EVENT_STORE_DDL, START, checkpointOf, type Checkpoint } from '../../events/store.ts';
import { addMonths, createPartition, listPartitions, monthStart } from '../../events/partitions.ts';
import { archivePartitions } from '../../events/archive.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const TOTAL = Number(arg('events') ?? 1_000_000);
const KEEP = process.argv.includes('--keep');
const PRODUCTS = 2000;
const serverUrl = process.env.DATABASE_URL;
if (!serverUrl) {
  console.error('bench/partitions needs a PostgreSQL server: DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres');
  process.exit(2);
}
const fmt = (n: number) => Math.round(n).toLocaleString('en-GB');
const ms = (n: number) => `${n.toFixed(n < 10 ? 2 : 0)} ms`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
const made: string[] = [];
async function database(name: string, template?: string): Promise<Database> {
  await admin.unsafe(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  made.push(name);
  const url = new URL(serverUrl!);
  url.pathname = `/${name}`;
  return openDatabase({ url: url.toString(), max: 4 });
}

/** The old plain table, filled with observations in batches of 10,000 (one transaction each), a year of them. */
async function fill(sql: Sql) {
  await sql.unsafe(UNPARTITIONED_LOG_DDL);
  const perProduct = Math.ceil(TOTAL / PRODUCTS);
  const start = Date.now() - 365 * 86_400_000;
  const step = (365 * 86_400_000) / TOTAL;
  for (let from = 0; from < TOTAL; from += 10_000) {
    await sql.unsafe(
      `
      INSERT INTO events (stream_id, stream_version, type, schema_version, data, recorded_at)
      SELECT 'product-p' || (n % ${PRODUCTS}), n / ${PRODUCTS} + 1, 'PriceObserved', 3,
        jsonb_build_object('productId', 'p' || (n % ${PRODUCTS}), 'userId', 'u' || (n % ${PRODUCTS} / 10), 'price', 10 + n % 997,
          'currency', 'GBP', 'source', 'selector', 'selector', '.price', 'matchedText', '£' || (10 + n % 997) || '.00',
          'url', 'https://shop.example/p/' || (n % ${PRODUCTS}), 'httpStatus', 200, 'pageHash', md5(n::text),
          'observedAt', to_char(to_timestamp(($1::float8 + n * $2::float8) / 1000) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
          'availability', 'InStock', 'fetcher', 'static'),
        to_timestamp(($1::float8 + n * $2::float8) / 1000)
      FROM generate_series(${from}, ${Math.min(from + 10_000, TOTAL) - 1}) AS n`,
      [start, step],
    );
    process.stderr.write(`\rgenerating: ${fmt(Math.min(from + 10_000, TOTAL))} events`);
  }
  await sql`INSERT INTO streams SELECT 'product-p' || n, ${perProduct} FROM generate_series(0, ${PRODUCTS - 1}) n`;
  await sql`ANALYZE events`;
  process.stderr.write('\n');
}

async function time<T>(fn: () => Promise<T>): Promise<[number, T]> {
  const t = performance.now();
  const r = await fn();
  return [performance.now() - t, r];
}

type Reads = { whole: number; tail: number; stream: number; head: number };

/** One round of reads: the whole log (events/s), the last 1,000 from a checkpoint, a product's stream, head (medians, ms). */
async function reads(sql: Sql): Promise<Reads> {
  const store = createEventStore(sql);
  const [whole, n] = await time(async () => {
    let cp: Checkpoint = START,
      count = 0;
    for (;;) {
      const b = await store.readAll(cp, 5000);
      if (!b.length) return count;
      count += b.length;
      cp = checkpointOf(b.at(-1)!);
    }
  });
  const [near] = await sql<{ tx: string; position: string }[]>`
    SELECT transaction_id::text AS tx, global_position AS position FROM events ORDER BY transaction_id DESC, global_position DESC OFFSET 1000 LIMIT 1`;
  const tail: number[] = [];
  for (let i = 0; i < 50; i++) tail.push((await time(() => store.readAll({ transactionId: near!.tx, position: Number(near!.position) }, 1000)))[0]);
  const streams: number[] = [];
  for (let i = 0; i < 200; i++) streams.push((await time(() => store.readStream(`product-p${(i * 7919) % PRODUCTS}`)))[0]);
  const heads: number[] = [];
  for (let i = 0; i < 100; i++) heads.push((await time(() => store.head()))[0]);
  return { whole: n / (whole / 1000), tail: median(tail), stream: median(streams), head: median(heads) };
}

const config = loadConfig({ NODE_ENV: 'test', DATA_DIR: '/tmp/pricewatch-bench' });
const stamp = Date.now().toString(36);
try {
  console.log(`database: PostgreSQL server, ${fmt(TOTAL)} events (${fmt(PRODUCTS)} products, over 12 months)`);
  const plain = await database(`pricewatch_parts_${stamp}`);
  await fill(plain.sql);
  const [{ size }] = await plain.sql<{ size: string }[]>`SELECT pg_size_pretty(pg_total_relation_size('events')) AS size`;
  console.log(`log: ${size} with its indexes`);
  await plain.close();
  const copied = await database(`pricewatch_parts_${stamp}_copy`, `pricewatch_parts_${stamp}`);
  const attached = await openDatabase({ url: Object.assign(new URL(serverUrl), { pathname: `/pricewatch_parts_${stamp}` }).toString(), max: 4 });

  const plainAgain = await database(`pricewatch_parts_${stamp}_plain`, `pricewatch_parts_${stamp}`);

  // 2. The migration as the product runs it at start.
  const [ddl] = await time(() => attached.sql.unsafe(EVENT_STORE_DDL));
  const [all, ctx] = await time(() => createContext(config, { database: { ...attached, close: async () => {} } }));
  await ctx.close();
  console.log(
    `migration by attach: EVENT_STORE_DDL ${(ddl / 1000).toFixed(1)} s; with the other features' DDL and the months ahead ${((ddl + all) / 1000).toFixed(1)} s`,
  );

  // 3. The alternative: copy every row into monthly partitions.
  const [copy] = await time(async () => {
    await copied.sql.begin(async (tx) => {
      await tx.unsafe(`ALTER TABLE events RENAME TO events_plain`);
      await tx.unsafe(`ALTER TABLE price_checks ALTER COLUMN global_position DROP DEFAULT`);
      await tx.unsafe(`ALTER TABLE events_plain ALTER COLUMN global_position DROP IDENTITY`);
      for (const [index] of await tx<
        { name: string }[]
      >`SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indrelid = 'events_plain'::regclass`.values()) {
        await tx.unsafe(`ALTER INDEX ${index} RENAME TO plain_${index}`);
      }
    });
    await copied.sql.unsafe(EVENT_STORE_DDL);
    const now = new Date();
    for (let m = -12; m <= 0; m++) await createPartition(copied.sql, 'events', addMonths(now, m), addMonths(now, m + 1));
    await copied.sql`INSERT INTO events SELECT global_position, transaction_id, stream_id, stream_version, type, schema_version, data, metadata, recorded_at FROM events_plain`;
    await copied.sql`SELECT setval('events_global_position_seq', (SELECT max(global_position) FROM events_plain))`;
    await copied.sql`ALTER TABLE price_checks ALTER COLUMN global_position SET DEFAULT nextval('events_global_position_seq')`;
    await copied.sql`DROP TABLE events_plain`;
    const c = await createContext(config, { database: { ...copied, close: async () => {} } });
    await c.close();
  });
  console.log(`migration by copy into monthly partitions (the alternative): ${(copy / 1000).toFixed(1)} s`);

  // Reads: a warm-up pass each, then three rounds in turn, so all three meet the same machine load; medians.
  const shapes = [
    { label: '1. plain table (before)', sql: plainAgain.sql },
    { label: '2. migrated by attach (one partition for the past)', sql: attached.sql },
    { label: '3. copied into monthly partitions', sql: copied.sql },
  ];
  const rounds = new Map<string, Reads[]>(shapes.map((x) => [x.label, []]));
  for (const x of shapes) {
    await x.sql`VACUUM ANALYZE events`;
    await reads(x.sql);
  }
  for (let round = 0; round < 3; round++) {
    for (const x of round % 2 ? [...shapes].reverse() : shapes) rounds.get(x.label)!.push(await reads(x.sql));
  }
  for (const x of shapes) {
    const rs = rounds.get(x.label)!;
    const partitions = (await listPartitions(x.sql).catch(() => [])).length;
    const m = (k: keyof Reads) => median(rs.map((r) => r[k]));
    console.log(`${x.label}${partitions ? ` (${partitions} partitions)` : ''}, median of 3 rounds:`);
    console.log(`  readAll, whole log in pages of 5,000:   ${fmt(m('whole'))} events/s (rounds: ${rs.map((r) => fmt(r.whole)).join(', ')})`);
    console.log(`  readAll, last 1,000 from a checkpoint: ${ms(m('tail'))}`);
    console.log(`  readStream, a product of ${fmt(TOTAL / PRODUCTS)} events: ${ms(m('stream'))}`);
    console.log(`  head:                                   ${ms(m('head'))}`);
  }
  await plainAgain.close();

  // Archive: every past month of the copied log (price observations only: nothing stays). The read
  // models are not built here, so their checkpoints are moved to the head first.
  await copied.sql`UPDATE projection_checkpoints SET transaction_id = h.transaction_id, position = h.global_position
                   FROM (SELECT transaction_id, global_position FROM events ORDER BY transaction_id DESC, global_position DESC LIMIT 1) h`;
  await copied.sql`UPDATE reactor_checkpoints SET transaction_id = h.transaction_id, position = h.global_position
                   FROM (SELECT transaction_id, global_position FROM events ORDER BY transaction_id DESC, global_position DESC LIMIT 1) h`;
  const dir = mkdtempSync(join(tmpdir(), 'pricewatch-bench-archive-'));
  try {
    const [took, archived] = await time(() => archivePartitions(copied.sql, { before: monthStart(new Date()), dir }));
    const events = archived.reduce((n, a) => n + a.events, 0),
      bytes = archived.reduce((n, a) => n + a.bytes, 0);
    console.log(
      `archive of ${archived.length} months: ${fmt(events)} events in ${(took / 1000).toFixed(1)} s (${fmt(events / (took / 1000))} events/s: export, gzip, read back, swap), ` +
        `${fmt(bytes / 1_048_576)} MB of files (${fmt(bytes / events)} bytes an event)`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  await attached.close();
  await copied.close();
} finally {
  if (KEEP) console.log(`kept: ${made.join(', ')}`);
  else for (const name of made.reverse()) await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}
