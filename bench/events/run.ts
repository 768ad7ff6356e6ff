/**
 * Event store throughput on the configured database (DATABASE_URL, else embedded PGlite):
 * batched append, single-event append with concurrent writers, read-all, projection rebuild.
 * On a PostgreSQL server the appends are also measured on a second database whose append-lock
 * triggers are dropped (the store as it was before readers were bounded by the appends in
 * flight), alternating, so both figures come from one run on one machine state.
 * Prints figures; it is not a test. Usage: bun run bench:events [--events N]
 */
import postgres from 'postgres';
import { openDatabase, type Database } from '../../api/db.ts';
import { createEventStore, EVENT_STORE_DDL, START, type NewEvent } from '../../events/store.ts';
import { DEFAULT_SETTINGS } from '../../events/catalogue.ts';
import { createProjectionRunner } from '../../projections/runner.ts';
import { projections } from '../../projections/index.ts';

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
  const url = new URL(serverUrl); url.pathname = `/${name}`;
  const db = await openDatabase({ url: url.toString(), max: WRITERS + 2 });
  return { ...db, async close() { await db.close(); await admin.unsafe(`DROP DATABASE ${name} WITH (FORCE)`); await admin.end(); } };
}

const signUp = (id: string): NewEvent => ({ type: 'UserSignedUp', data: { userId: id, provider: 'demo', subject: id, email: `${id}@bench.io`, firstName: 'Bench', lastName: null, profileImageUrl: null } });
const settings = (id: string, i: number): NewEvent => ({ type: 'SettingsChanged', data: { userId: id, settings: { ...DEFAULT_SETTINGS, weeklyReports: i % 2 === 0, currency: i % 3 ? 'GBP' : 'EUR' } } });
const rate = (n: number, ms: number) => `${Math.round(n / (ms / 1000)).toLocaleString('en-GB')} events/s`;

async function parallel(workers: number, work: (w: number) => Promise<void>) {
  await Promise.all(Array.from({ length: workers }, (_, w) => work(w)));
}

async function appendPhases(db: Database, label: string) {
  const store = createEventStore(db.sql);
  const writers = db.embedded ? 1 : WRITERS;
  // 1. Batched append: streams of 100 events (a sign-up and 99 settings changes), concurrent writers.
  {
    const streams = TOTAL / BATCH;
    let next = 0;
    const t = performance.now();
    await parallel(Math.min(writers, 4), async () => {
      for (let s = next++; s < streams; s = next++) {
        const id = `b${s}`;
        await store.append(`user-${id}`, 'no_stream', [signUp(id), ...Array.from({ length: BATCH - 1 }, (_, i) => settings(id, i))]);
      }
    });
    console.log(`${label}append, batches of ${BATCH}:        ${rate(TOTAL, performance.now() - t)}`);
  }
  // 2. Single-event appends, each its own transaction, from concurrent writers.
  {
    const n = Math.min(TOTAL / 5, 40_000);
    let next = 0;
    const t = performance.now();
    await parallel(writers, async (w) => {
      let version = 0;
      for (let i = next++; i < n; i = next++) {
        await store.append(`user-s${w}`, version === 0 ? 'no_stream' : version, [version === 0 ? signUp(`s${w}`) : settings(`s${w}`, i)]);
        version++;
      }
    });
    console.log(`${label}append, single events, ${writers} writer${writers > 1 ? 's' : ''}: ${rate(n, performance.now() - t)}`);
  }
}

const db = await freshDatabase();
await db.sql.unsafe(EVENT_STORE_DDL);
const store = createEventStore(db.sql);
console.log(`database: ${db.embedded ? 'embedded PGlite (one connection)' : 'PostgreSQL server'}; ${TOTAL.toLocaleString('en-GB')} events`);
if (db.embedded) await appendPhases(db, '');
else {
  const unlocked = await freshDatabase();
  await unlocked.sql.unsafe(`${EVENT_STORE_DDL}; DROP TRIGGER streams_append_lock ON streams; DROP TRIGGER events_append_lock ON events`);
  await appendPhases(unlocked, '[no append lock] ');
  await appendPhases(db, '');
  await unlocked.close();
}

// 3. Read the whole log in commit-safe order.
{
  const [{ total }] = await db.sql<{ total: number }[]>`SELECT count(*)::int AS total FROM events`;
  const t = performance.now();
  let cp = START, n = 0;
  while (n < total) {
    const batch = await store.readAll(cp, 5000);
    // A reader waits only for appends still in flight (commit-safe order).
    if (!batch.length) { await Bun.sleep(5); continue; }
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
