import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gunzipSync, gzipSync } from 'node:zlib';
import { createApp } from '../api/server.ts';
import { testContext, usingPostgresServer, SETUP_TIMEOUT } from '../api/testing/database.ts';
import { client, observe, settle } from '../api/testing/alerts.ts';
import { failCheck } from '../api/testing/prices.ts';
import { startTrial } from '../api/testing/plans.ts';
import { readModelSnapshot } from '../api/testing/read-models.ts';
import type { Sql } from '../db/index.ts';
import { DEFAULT_SETTINGS } from '../events/catalogue.ts';
import { ARCHIVED_TYPES, archivePartitions, digestOfFile, type ArchivedPartition } from '../events/archive.ts';
import { exportEvents, importEvents, linesOfFiles } from '../events/ndjson.ts';
import { appendingTransaction } from '../events/store.ts';
import { transaction } from '../db/index.ts';
import { addMonths, ensurePartitions, listPartitions, monthStart, partitionName } from '../events/partitions.ts';

type Ctx = Awaited<ReturnType<typeof testContext>>;

async function exported(ctx: Ctx) {
  let text = '';
  const n = await exportEvents(ctx.sql, (chunk) => {
    text += chunk;
  });
  const raw = text.split('\n').filter(Boolean);
  return { n, text, raw, lines: raw.map((l) => JSON.parse(l)) };
}

/**
 * Moves the log's entries (events and repeated checks) up to the `count`-th in commit order into
 * the two months before the current one (a second apart, in commit order), as if they had been
 * recorded then, and settles them into their months' partitions. Events are never changed in
 * production: this only ages a test log.
 */
async function age(sql: Sql, count: number) {
  const now = new Date();
  await transaction(sql, async (tx) => {
    await tx`
      CREATE TEMP TABLE aged ON COMMIT DROP AS
      SELECT global_position, CASE WHEN n <= ${Math.floor(count / 2)} THEN ${addMonths(now, -2)}::timestamptz ELSE ${addMonths(now, -1)}::timestamptz END
        + n * interval '1 second' AS at
      FROM (SELECT global_position, row_number() OVER (ORDER BY transaction_id, global_position) AS n
            FROM (SELECT transaction_id, global_position FROM events UNION ALL SELECT transaction_id, global_position FROM price_checks) AS log) AS log
      WHERE n <= ${count}`;
    await tx`UPDATE events e SET recorded_at = aged.at FROM aged WHERE aged.global_position = e.global_position`;
    await tx`UPDATE price_checks c SET observed_at = aged.at FROM aged WHERE aged.global_position = c.global_position`;
  });
  await ensurePartitions(sql);
}

/** Checks that repeat the product's last observation, kept as repeats (price_checks) as the worker keeps them. */
async function repeatLast(ctx: Ctx, productId: string) {
  const [last] = await ctx.sql<{ position: string }[]>`
    SELECT global_position AS position FROM events WHERE stream_id = ${`product-${productId}`} ORDER BY stream_version DESC LIMIT 1`;
  await appendingTransaction(ctx.sql, (tx) =>
    ctx.store.appendRepeats([{ repeats: Number(last!.position), observedAt: new Date().toISOString(), pageHash: 'ab'.repeat(32) }], tx),
  );
}

const logSize = async (sql: Sql) => (await sql<{ n: number }[]>`SELECT ((SELECT count(*) FROM events) + (SELECT count(*) FROM price_checks))::int AS n`)[0]!.n;

const months = () => [-2, -1].map((n) => partitionName('events', addMonths(new Date(), n), addMonths(new Date(), n + 1)));

let source: Ctx;
let api: ReturnType<typeof client>;
let alice: { userId: string; email: string; cookie: string };
let kettle: string;
let original: Awaited<ReturnType<typeof exported>>;
let liveModels: Record<string, string[]>;
let dir: string;
let archived: ArchivedPartition[] = [];

/** Two months of history (sign-ups, settings, a plan, products, prices, failures, alerts and reads), then this month's checks. */
beforeAll(async () => {
  source = await testContext();
  api = client(createApp(source));
  alice = await api.signIn('alice@example.com');
  const bob = await api.signIn('bob@example.com');
  await api.request('/api/settings', { method: 'PUT', cookie: alice.cookie, body: JSON.stringify({ ...DEFAULT_SETTINGS, currency: 'EUR' }) });
  await startTrial(source, alice.userId, 'pro');
  kettle = await api.addProduct(alice.cookie, { name: 'Kettle', threshold: 'any' });
  const toaster = await api.addProduct(alice.cookie, { name: 'Toaster', threshold: '-10', url: 'https://shop.example.com/toaster-1' });
  const gone = await api.addProduct(bob.cookie, { name: 'Gone', url: 'https://shop.example.com/gone' });
  const t0 = Date.parse('2025-02-01T08:00:00Z');
  for (const [i, price] of [20, 18, 18, 21, 17].entries()) await observe(source, kettle, alice.userId, price, new Date(t0 + i * 3_600_000));
  await observe(source, toaster, alice.userId, 50, new Date(t0));
  await failCheck(source, toaster, alice.userId, new Date(t0 + 7_200_000));
  await observe(source, gone, bob.userId, 7, new Date(t0));
  await api.request(`/api/products/${gone}`, { method: 'DELETE', cookie: bob.cookie });
  await repeatLast(source, kettle); // a check that found the kettle unchanged
  await settle(source);
  const [alert] = await source.sql<{ id: string }[]>`SELECT id FROM alerts WHERE user_id = ${alice.userId} ORDER BY created_at LIMIT 1`;
  await api.request(`/api/alerts/${alert!.id}/read`, { method: 'PATCH', cookie: alice.cookie });
  await settle(source);
  const old = await logSize(source.sql);
  // This month: the kettle unchanged once more, then more checks and an edit.
  await repeatLast(source, kettle);
  for (const [i, price] of [16, 19].entries()) await observe(source, kettle, alice.userId, price, new Date(t0 + (10 + i) * 3_600_000));
  await observe(source, toaster, alice.userId, 44, new Date(t0 + 12 * 3_600_000));
  await api.request(`/api/products/${toaster}`, {
    method: 'PUT',
    cookie: alice.cookie,
    body: JSON.stringify({ name: 'Toaster 2', url: 'https://shop.example.com/toaster', selector: '.price', threshold: 5 }),
  });
  await settle(source);
  await age(source.sql, old);
  // The read models as the aged log builds them.
  await source.projections.rebuild();
  await settle(source);
  original = await exported(source);
  liveModels = await readModelSnapshot(source.sql, source.projections.projections);
  dir = mkdtempSync(join(tmpdir(), 'pricewatch-archive-'));
}, SETUP_TIMEOUT);
afterAll(() => source.close());

describe('events archive', () => {
  test('refused while a read model has not read the month yet; nothing is written', async () => {
    const [saved] = await source.sql`SELECT transaction_id::text AS tx, position FROM projection_checkpoints WHERE name = 'products'`;
    await source.sql`UPDATE projection_checkpoints SET transaction_id = '0', position = 0 WHERE name = 'products'`;
    try {
      const refused = await archivePartitions(source.sql, { before: monthStart(new Date()), dir }).catch((e) => e);
      expect(String(refused?.message)).toMatch(/products has not read yet/);
    } finally {
      await source.sql`UPDATE projection_checkpoints SET transaction_id = ${saved!.tx}::xid8, position = ${saved!.position} WHERE name = 'products'`;
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  test('each month ended before the date goes to a gzip file that reads back as its export; what decisions read stays; read models unchanged', async () => {
    archived = await archivePartitions(source.sql, { before: monthStart(new Date()), dir });
    expect(archived.map((a) => a.partition)).toEqual(months());
    const start = monthStart(new Date());
    for (const a of archived) {
      expect(a.file).toBe(join(dir, `${a.partition}.ndjson.gz`));
      const bytes = readFileSync(a.file!);
      expect(bytes.length).toBe(a.bytes);
      expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);
      // The same lines as an export of that month, in the same order.
      const month = original.text.split('\n').filter((l) => l && new Date(JSON.parse(l).recordedAt) >= a.from! && new Date(JSON.parse(l).recordedAt) < a.to);
      expect(gunzipSync(bytes).toString()).toBe(month.join('\n') + '\n');
      expect((await digestOfFile(a.file!)).events).toBe(a.events);
      expect(a.kept).toBeGreaterThan(0);
      expect(a.kept).toBeLessThan(a.events);
      expect(a.to <= start).toBe(true);
    }
    expect(archived.reduce((n, a) => n + a.events, 0)).toBe(original.lines.filter((e) => new Date(e.recordedAt) < start).length);

    // The live log: this month whole; the archived months without the events no decision reads.
    const live = await exported(source);
    // Besides the events no decision reads, the observations a repeated check left in the live log reads
    // through, and each product's last observation of a month (one a new check may repeat), stay.
    type Line = { position: number; stream: string; version: number; type: string; recordedAt: string; repeats?: number };
    const lines = original.lines as Line[];
    const recent = (e: Line) => new Date(e.recordedAt) >= start;
    const lastOfStream = new Map<string, Line>();
    for (const e of lines) {
      const key = `${e.recordedAt.slice(0, 7)} ${e.stream}`;
      if (!recent(e) && e.repeats === undefined && (lastOfStream.get(key)?.version ?? 0) < e.version) lastOfStream.set(key, e);
    }
    const readThrough = new Set(lines.filter((e) => e.repeats !== undefined && recent(e)).map((e) => e.repeats));
    const stays = (e: Line) =>
      recent(e) ||
      (e.repeats === undefined &&
        (!(ARCHIVED_TYPES as readonly string[]).includes(e.type) ||
          readThrough.has(e.position) ||
          (e.type === 'PriceObserved' && lastOfStream.get(`${e.recordedAt.slice(0, 7)} ${e.stream}`) === e)));
    expect(live.text).toBe(original.raw.filter((_, i) => stays(lines[i]!)).join('\n') + '\n');
    // A repeated check went with its month; the one of this month stays, and so does the observation it repeats.
    expect(lines.filter((e) => e.repeats !== undefined).map(recent)).toEqual([false, true]);
    const files = archived.map((a) => gunzipSync(readFileSync(a.file!)).toString()).join('');
    expect(files).toContain('"repeats":');
    expect(live.raw.filter((l) => l.includes('"repeats":'))).toHaveLength(1);
    expect((await listPartitions(source.sql)).map((p) => p.name)).toEqual(expect.arrayContaining(months()));
    // What stays of a month is a partition as any other, its indexes named after the log's.
    const indexesOf = async (table: string) =>
      (
        await source.sql<{ name: string }[]>`
      SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = ${table}::regclass`
      )
        .map((r) => r.name)
        .sort();
    for (const month of months()) expect(await indexesOf(month)).toEqual((await indexesOf('events')).map((n) => `${month}${n.slice('events'.length)}`).sort());
    expect(await readModelSnapshot(source.sql, source.projections.projections)).toEqual(liveModels);

    // Archived once: a second run has nothing to do.
    expect(await archivePartitions(source.sql, { before: monthStart(new Date()), dir })).toEqual([]);
  });

  test('commands on what was recorded in the archived months still work', async () => {
    // Sign-in folds the user's stream, an edit the product's lifecycle, marking read the alert's events.
    expect((await api.signIn('alice@example.com')).userId).toBe(alice.userId);
    const edit = await api.request(`/api/products/${kettle}`, {
      method: 'PUT',
      cookie: alice.cookie,
      body: JSON.stringify({ name: 'Kettle 2', url: 'https://shop.example.com/kettle', selector: '.price', threshold: 'any' }),
    });
    expect(edit.status).toBe(200);
    const [unread] = await source.sql<{ id: string }[]>`SELECT id FROM alerts WHERE user_id = ${alice.userId} AND NOT is_read ORDER BY created_at LIMIT 1`;
    expect((await api.request(`/api/alerts/${unread!.id}/read`, { method: 'PATCH', cookie: alice.cookie })).status).toBeLessThan(300);
    const settings = await api.request('/api/settings', {
      method: 'PUT',
      cookie: alice.cookie,
      body: JSON.stringify({ ...DEFAULT_SETTINGS, currency: 'GBP' }),
    });
    expect(settings.status).toBeLessThan(300);
    await settle(source);
  });

  test('the archives and an export of the live log import into an empty database and rebuild the same read models', async () => {
    const models = await readModelSnapshot(source.sql, source.projections.projections);
    const live = await exported(source);
    const liveFile = join(dir, 'live.ndjson');
    writeFileSync(liveFile, live.text);
    const copy = await testContext();
    try {
      let skipped = 0;
      const files = [...archived.map((a) => a.file!), liveFile];
      const n = await importEvents(copy.sql, linesOfFiles(files), (_, s) => {
        skipped = s;
      });
      expect(skipped).toBe(archived.reduce((k, a) => k + a.kept, 0));
      // The whole log: the original one and what the commands above appended.
      const positions = new Set(original.lines.map((e) => e.position));
      const appended = live.raw.filter((l) => !positions.has(JSON.parse(l).position));
      expect(appended.length).toBeGreaterThan(0);
      expect(n).toBe(original.n + appended.length);
      expect((await exported(copy)).text).toBe(original.text + appended.join('\n') + '\n');
      // Its months got partitions of their own on the way in.
      expect((await listPartitions(copy.sql)).map((p) => p.name)).toEqual(expect.arrayContaining(months()));
      const [{ waiting }] = await copy.sql<{ waiting: number }[]>`SELECT count(*)::int AS waiting FROM events_default`;
      expect(waiting).toBe(0);

      await copy.projections.rebuild();
      const rebuilt = await readModelSnapshot(copy.sql, copy.projections.projections);
      for (const table of ['products', 'price_points', 'price_changes', 'alerts']) {
        expect(rebuilt[table]!.length).toBeGreaterThan(0);
        expect(rebuilt[table]).toEqual(models[table]!);
      }
      expect(rebuilt).toEqual(models);
    } finally {
      await copy.close();
    }
  });

  test('an import refuses two files that give one position to two different events', async () => {
    const copy = await testContext();
    try {
      const file = archived[0]!.file!;
      const lines = gunzipSync(readFileSync(file)).toString().split('\n').filter(Boolean);
      const changed = JSON.parse(lines[0]!);
      changed.metadata = {};
      changed.stream = `${changed.stream}-other`;
      const other = join(dir, 'other.ndjson');
      writeFileSync(other, JSON.stringify(changed) + '\n');
      const refused = await importEvents(copy.sql, linesOfFiles([file, other])).catch((e) => e);
      expect(String(refused?.message)).toContain(`Position ${changed.position} is already in the log as another event`);
    } finally {
      await copy.close();
    }
  });
});

test.skipIf(!usingPostgresServer())('bun run events archive, then projections rebuild and events import of the files', async () => {
  const ctx = await testContext();
  const copy = await testContext();
  const out = mkdtempSync(join(tmpdir(), 'pricewatch-archive-cli-'));
  const run = (script: string, args: string[], url: string) =>
    Bun.spawnSync([process.execPath, script, ...args], {
      env: { ...process.env, DATABASE_URL: url },
      cwd: join(import.meta.dir, '..'),
    });
  try {
    const { signIn, addProduct } = client(createApp(ctx));
    const user = await signIn('carol@example.com');
    const product = await addProduct(user.cookie, { name: 'Lamp' });
    for (const price of [30, 28]) await observe(ctx, product, user.userId, price);
    await settle(ctx);
    await repeatLast(ctx, product);
    const n = await logSize(ctx.sql);
    await age(ctx.sql, n);
    await ctx.projections.rebuild();
    await settle(ctx);
    const url = (ctx.database as { url?: string }).url!;

    const archive = run('scripts/events.ts', ['archive', '--before', monthStart(new Date()).toISOString(), '--dir', out], url);
    expect(archive.exitCode).toBe(0);
    const printed = archive.stdout.toString();
    for (const month of months())
      expect(printed).toMatch(new RegExp(`${month}: \\d+ events to ${out}/${month}\\.ndjson\\.gz \\([\\d,]+ bytes\\); \\d+ stay in the live log`));
    expect(printed).toMatch(/Archived 2 partitions: \d+ events left the live log\./);
    for (const month of months()) expect(existsSync(join(out, `${month}.ndjson.gz`))).toBe(true);

    const refused = run('scripts/projections.ts', ['rebuild'], url);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr.toString()).toContain('is archived');
    expect(refused.stderr.toString()).toContain('--without-archived');

    const live = run('scripts/events.ts', ['export'], url);
    writeFileSync(join(out, 'live.ndjson'), live.stdout);
    const imported = run(
      'scripts/events.ts',
      ['import', ...months().map((m) => join(out, `${m}.ndjson.gz`)), join(out, 'live.ndjson')],
      (copy.database as { url?: string }).url!,
    );
    expect(imported.exitCode).toBe(0);
    expect(imported.stderr.toString()).toMatch(new RegExp(`Imported ${n} events \\(\\d+ held by two files were loaded once\\)`));
    await copy.projections.rebuild();
    const models = ['products', 'price_points'];
    const chosen = ctx.projections.projections.filter((p) => p.tables.some((t) => models.includes(t)));
    expect(await readModelSnapshot(copy.sql, chosen)).toEqual(await readModelSnapshot(ctx.sql, chosen));
  } finally {
    await ctx.close();
    await copy.close();
  }
});

test('an archive cut short does not read back', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pricewatch-archive-bad-'));
  const file = join(dir, 'events_2020_01.ndjson.gz');
  const line = JSON.stringify({
    position: 1,
    stream: 'user-a',
    version: 1,
    type: 'SettingsChanged',
    schemaVersion: 1,
    data: { userId: 'a', settings: DEFAULT_SETTINGS },
    metadata: {},
    recordedAt: '2020-01-01T00:00:00.000000Z',
  });
  const whole = gzipSync(Buffer.from(`${line}\n${line.replace('"position":1', '"position":2')}\n`));
  writeFileSync(file, whole);
  expect((await digestOfFile(file)).events).toBe(2);
  writeFileSync(file, whole.subarray(0, whole.length - 8));
  expect(await digestOfFile(file).catch((e) => e)).toBeInstanceOf(Error);
});
