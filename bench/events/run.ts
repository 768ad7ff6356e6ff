/**
 * Event store throughput on the configured database (DATABASE_URL, else embedded PGlite):
 * batched append, single-event append with concurrent writers, read-all, projection rebuild.
 * On a PostgreSQL server the appends are also measured on a second database whose append lock
 * is a no-op (the store as it was before readers were bounded by the appends in flight), in
 * alternating rounds, so both figures come from one run under the same load.
 * Prints figures; it is not a test. Usage: bun run bench:events [--events N]
 */
import postgres from 'postgres';
import { openDatabase, type Database } from '../../db/index.ts';
import { createEventStore, EVENT_STORE_DDL, START, type NewEvent } from '../../events/store.ts';
import { ensurePartitions } from '../../events/partitions.ts';
import { DEFAULT_SETTINGS } from '../../events/catalogue.ts';
import { createProjectionRunner } from '../../projections/runner.ts';
import { allProjections as projections } from '../../api/modules.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const serverUrl = process.env.DATABASE_URL;
const TOTAL = arg('events', serverUrl ? 200_000 : 20_000);
const BATCH = 100;
const WRITERS = 8;

async function freshDatabase(): Promise<Database> {
  if (!serverUrl) return openDatabase({ dataDir: null });
  const name = `pricewatch_bench_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = await openDatabase({ url: url.toString(), max: WRITERS + 2 });
  return {
    ...db,
    async close() {
      await db.close();
      await admin.unsafe(`DROP DATABASE ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

const signUp = (id: string): NewEvent => ({
  type: 'UserSignedUp',
  data: { userId: id, provider: 'demo', subject: id, email: `${id}@bench.io`, firstName: 'Bench', lastName: null, profileImageUrl: null },
});
const settings = (id: string, i: number): NewEvent => ({
  type: 'SettingsChanged',
  data: { userId: id, settings: { ...DEFAULT_SETTINGS, weeklyReports: i % 2 === 0, currency: i % 3 ? 'GBP' : 'EUR' } },
});
const rate = (n: number, ms: number) => `${Math.round(n / (ms / 1000)).toLocaleString('en-GB')} events/s`;

async function parallel(workers: number, work: (w: number) => Promise<void>) {
  await Promise.all(Array.from({ length: workers }, (_, w) => work(w)));
}

/** Appends `total` events in batches and a fifth as single events; answers both rates (events/s). */
async function appendPhases(db: Database, round: number, total: number): Promise<{ batched: number; single: number }> {
  const store = createEventStore(db.sql);
  const writers = db.embedded ? 1 : WRITERS;
  const perSecond = (n: number, t: number) => n / ((performance.now() - t) / 1000);
  // 1. Batched append: streams of 100 events (a sign-up and 99 settings changes), concurrent writers.
  const streams = total / BATCH;
  let next = 0;
  let t = performance.now();
  await parallel(Math.min(writers, 4), async () => {
    for (let s = next++; s < streams; s = next++) {
      const id = `r${round}b${s}`;
      await store.append(`user-${id}`, 'no_stream', [signUp(id), ...Array.from({ length: BATCH - 1 }, (_, i) => settings(id, i))]);
    }
  });
  const batched = perSecond(total, t);
  // 2. Single-event appends, each its own transaction, from concurrent writers.
  const n = Math.min(total / 5, 40_000);
  next = 0;
  t = performance.now();
  await parallel(writers, async (w) => {
    let version = 0;
    const id = `r${round}s${w}`;
    for (let i = next++; i < n; i = next++) {
      await store.append(`user-${id}`, version === 0 ? 'no_stream' : version, [version === 0 ? signUp(id) : settings(id, i)]);
      version++;
    }
  });
  return { batched, single: perSecond(n, t) };
}

const db = await freshDatabase();
await db.sql.unsafe(EVENT_STORE_DDL);
await ensurePartitions(db.sql); // appends go to this month's partition, as in the product
const store = createEventStore(db.sql);
const writers = db.embedded ? 1 : WRITERS;
console.log(`database: ${db.embedded ? 'embedded PGlite (one connection)' : 'PostgreSQL server'}; ${TOTAL.toLocaleString('en-GB')} events`);
const report = (label: string, r: { batched: number; single: number }) => {
  console.log(`${label}append, batches of ${BATCH}:        ${rate(r.batched, 1000)}`);
  console.log(`${label}append, single events, ${writers} writer${writers > 1 ? 's' : ''}: ${rate(r.single, 1000)}`);
};
if (db.embedded) report('', await appendPhases(db, 0, TOTAL));
else {
  // Three rounds in alternating order, so both stores meet the same machine load; medians are printed.
  const unlocked = await freshDatabase();
  await unlocked.sql.unsafe(`${EVENT_STORE_DDL}; CREATE OR REPLACE FUNCTION events_take_append_lock() RETURNS void LANGUAGE sql AS $$ SELECT NULL::void $$`);
  await ensurePartitions(unlocked.sql);
  const rounds: Record<'locked' | 'unlocked', { batched: number; single: number }[]> = { locked: [], unlocked: [] };
  for (let round = 0; round < 3; round++) {
    const order = round % 2 ? (['locked', 'unlocked'] as const) : (['unlocked', 'locked'] as const);
    for (const which of order) rounds[which].push(await appendPhases(which === 'locked' ? db : unlocked, round, TOTAL / 2));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1]!;
  const medians = (rs: { batched: number; single: number }[]) => ({ batched: median(rs.map((r) => r.batched)), single: median(rs.map((r) => r.single)) });
  const each = (rs: { batched: number; single: number }[]) =>
    rs.map((r) => `${Math.round(r.batched / 1000)}k/${Math.round(r.single).toLocaleString('en-GB')}`).join(', ');
  console.log(`rounds (batched/single events per second): no append lock ${each(rounds.unlocked)}; append lock ${each(rounds.locked)}`);
  report('[no append lock, median of 3] ', medians(rounds.unlocked));
  report('[median of 3]                 ', medians(rounds.locked));
  await unlocked.close();
}

// 3. Read the whole log in commit-safe order.
{
  const [{ total }] = await db.sql<{ total: number }[]>`SELECT count(*)::int AS total FROM events`;
  const t = performance.now();
  let cp = START,
    n = 0;
  while (n < total) {
    const batch = await store.readAll(cp, 5000);
    // A reader waits only for appends still in flight (commit-safe order).
    if (!batch.length) {
      await Bun.sleep(5);
      continue;
    }
    n += batch.length;
    const last = batch[batch.length - 1]!;
    cp = { transactionId: last.transactionId, position: last.position };
  }
  console.log(`read all (validated):            ${rate(n, performance.now() - t)} (${n.toLocaleString('en-GB')} events)`);
}

// 4. Rebuild every projection from zero.
{
  const runner = createProjectionRunner(store, projections);
  await runner.setup();
  const t = performance.now();
  const n = await runner.rebuild();
  console.log(`projection rebuild:              ${rate(n, performance.now() - t)} (${n.toLocaleString('en-GB')} events)`);
}

await db.close();
