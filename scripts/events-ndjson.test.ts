import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createApp } from '../api/server.ts';
import { testContext, usingPostgresServer, SETUP_TIMEOUT } from '../api/testing/database.ts';
import { client, observe, settle } from '../api/testing/alerts.ts';
import { failCheck } from '../api/testing/prices.ts';
import { startTrial } from '../api/testing/plans.ts';
import { readModelSnapshot } from '../api/testing/read-models.ts';
import { reparsePrices } from '../api/checks/reparse.ts';
import { DEFAULT_SETTINGS } from '../events/catalogue.ts';
import { appendingTransaction } from '../events/store.ts';
import { exportEvents, importEvents, linesOf, linesOfFiles, type ExportFilter } from '../events/ndjson.ts';
import { gzipSync } from 'node:zlib';

type Ctx = Awaited<ReturnType<typeof testContext>>;
let source: Ctx;
let alice: { userId: string; email: string; cookie: string };

async function exported(ctx: Ctx, filter: ExportFilter = {}, pageSize?: number) {
  let text = '';
  const n = await exportEvents(
    ctx.sql,
    (chunk) => {
      text += chunk;
    },
    filter,
    { pageSize },
  );
  return {
    n,
    text,
    lines: text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l)),
  };
}

async function* from(text: string) {
  yield text;
}

/** A log with every kind of event: sign-ups, settings, products and their prices, a plan, alerts and their reads, a correction. */
beforeAll(async () => {
  source = await testContext();
  const { request, signIn, addProduct } = client(createApp(source));
  alice = await signIn('alice@example.com');
  const bob = await signIn('bob@example.com');
  await request('/api/settings', { method: 'PUT', cookie: alice.cookie, body: JSON.stringify({ ...DEFAULT_SETTINGS, currency: 'EUR' }) });
  await startTrial(source, alice.userId, 'pro');
  const kettle = await addProduct(alice.cookie, { name: 'Kettle', threshold: 'any' });
  const toaster = await addProduct(alice.cookie, { name: 'Toaster', threshold: '-10', url: 'https://shop.example.com/toaster-1' });
  const gone = await addProduct(bob.cookie, { name: 'Gone' });
  const t0 = Date.parse('2025-02-01T08:00:00Z');
  for (const [i, price] of [20, 18, 18, 21].entries()) await observe(source, kettle, alice.userId, price, new Date(t0 + i * 3_600_000));
  await observe(source, toaster, alice.userId, 50, new Date(t0));
  await observe(source, toaster, alice.userId, 40, new Date(t0 + 3_600_000));
  await failCheck(source, toaster, alice.userId, new Date(t0 + 7_200_000));
  await request(`/api/products/${kettle}/update-price`, { method: 'POST', cookie: alice.cookie, body: JSON.stringify({ price: '19.50' }) });
  await request(`/api/products/${toaster}`, {
    method: 'PUT',
    cookie: alice.cookie,
    body: JSON.stringify({ name: 'Toaster 2', url: 'https://shop.example.com/toaster', selector: '.price', threshold: 5 }),
  });
  await observe(source, gone, bob.userId, 7, new Date(t0));
  await request(`/api/products/${gone}`, { method: 'DELETE', cookie: bob.cookie });
  // An observation whose text today's parser reads differently from the price recorded then.
  await source.store.append(`product-${kettle}`, 'any', [
    {
      type: 'PriceObserved',
      data: {
        productId: kettle,
        userId: alice.userId,
        price: 1.299,
        currency: 'EUR',
        source: 'selector',
        selector: '.price',
        matchedText: '1.299,00 €',
        url: 'https://shop.example.com/kettle',
        httpStatus: 200,
        pageHash: 'x',
        observedAt: new Date(t0 + 5 * 3_600_000).toISOString(),
      },
    },
  ]);
  await settle(source);
  const [alert] = await source.sql<{ id: string }[]>`SELECT id FROM alerts WHERE user_id = ${alice.userId} LIMIT 1`;
  await request(`/api/alerts/${alert!.id}/read`, { method: 'PATCH', cookie: alice.cookie });
  await reparsePrices(source.store);
  await settle(source);
}, SETUP_TIMEOUT);
afterAll(() => source.close());

describe('events export and import', () => {
  test('round trip: export, import into an empty database, rebuild: every read model is the same', async () => {
    const original = await exported(source);
    const types = new Set(original.lines.map((e) => e.type));
    for (const t of [
      'UserSignedUp',
      'SettingsChanged',
      'TrialStarted',
      'ProductAdded',
      'ProductEdited',
      'ProductRemoved',
      'PriceObserved',
      'PriceManuallySet',
      'PriceCheckFailed',
      'AlertRaised',
      'AlertRead',
      'PriceCorrected',
    ])
      expect(types).toContain(t);
    expect(original.lines[0]).toEqual({
      position: expect.any(Number),
      stream: `user-${alice.userId}`,
      version: 1,
      type: 'UserSignedUp',
      schemaVersion: 1,
      data: expect.objectContaining({ email: 'alice@example.com' }),
      metadata: {},
      recordedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
    });

    const copy = await testContext();
    try {
      expect(await importEvents(copy.sql, linesOf(from(original.text)))).toBe(original.n);
      await copy.projections.rebuild();
      const projections = source.projections.projections;
      const rebuilt = await readModelSnapshot(copy.sql, projections);
      expect(rebuilt).toEqual(await readModelSnapshot(source.sql, projections));
      for (const table of ['users', 'user_settings', 'products', 'price_points', 'price_changes', 'subscriptions', 'alerts']) {
        expect(rebuilt[table]!.length).toBeGreaterThan(0);
      }
      // The copy's log exports to the same bytes, and takes new events after the imported ones.
      expect((await exported(copy)).text).toBe(original.text);
      const { lastPosition } = await copy.store.append('user-new', 'no_stream', [
        {
          type: 'UserSignedUp',
          data: { userId: 'new', email: 'new@example.com', firstName: null, lastName: null, profileImageUrl: null, provider: 'demo', subject: 'new' },
        },
      ]);
      expect(lastPosition).toBeGreaterThan(original.lines[original.lines.length - 1].position);
      expect((await copy.store.readStream(`user-${alice.userId}`)).version).toBe((await source.store.readStream(`user-${alice.userId}`)).version);
    } finally {
      await copy.close();
    }
  });

  test('pages do not change the export', async () => {
    expect((await exported(source, {}, 3)).text).toBe((await exported(source)).text);
  });

  test('filters: type, stream, user, time', async () => {
    const all = (await exported(source)).lines;
    const observed = await exported(source, { types: ['PriceObserved', 'PriceCorrected'] });
    expect(observed.lines.map((e) => e.position)).toEqual(all.filter((e) => e.type === 'PriceObserved' || e.type === 'PriceCorrected').map((e) => e.position));
    const stream = await exported(source, { stream: `user-${alice.userId}` });
    expect(stream.lines.every((e) => e.stream === `user-${alice.userId}`)).toBe(true);
    expect(stream.n).toBeGreaterThan(0);
    const products = await exported(source, { stream: 'product-*' });
    expect(products.lines.map((e) => e.position)).toEqual(all.filter((e) => e.stream.startsWith('product-')).map((e) => e.position));
    const mine = await exported(source, { userId: alice.userId });
    expect(mine.lines.map((e) => e.position)).toEqual(all.filter((e) => e.data.userId === alice.userId).map((e) => e.position));
    const middle = all[Math.floor(all.length / 2)];
    const later = await exported(source, { from: new Date(middle.recordedAt) });
    const earlier = await exported(source, { to: new Date(middle.recordedAt) });
    expect(later.n + earlier.n).toBe(all.length);
    expect(later.lines.every((e) => e.recordedAt >= middle.recordedAt.slice(0, 23))).toBe(true);
  });

  test('import of several files in order, gzip-compressed or plain: an event two files hold is loaded once', async () => {
    const original = await exported(source);
    const lines = original.text.split('\n').filter(Boolean);
    const half = Math.floor(lines.length / 2);
    const dir = mkdtempSync(join(tmpdir(), 'pricewatch-files-'));
    const first = join(dir, 'first.ndjson.gz'),
      second = join(dir, 'second.ndjson');
    writeFileSync(first, gzipSync(lines.slice(0, half + 2).join('\n') + '\n'));
    writeFileSync(second, lines.slice(half).join('\n') + '\n');
    const copy = await testContext();
    try {
      let skipped = 0;
      expect(
        await importEvents(copy.sql, linesOfFiles([first, second]), (_, s) => {
          skipped = s;
        }),
      ).toBe(original.n);
      expect(skipped).toBe(2);
      expect((await exported(copy)).text).toBe(original.text);
    } finally {
      await copy.close();
    }
  });

  test('import refuses a log that is not empty, and names a bad line', async () => {
    const { text } = await exported(source);
    await expect(importEvents(source.sql, linesOf(from(text)))).rejects.toThrow('not empty');
    const copy = await testContext();
    try {
      const lines = text.split('\n');
      lines[2] = lines[2]!.replace(/"type":"/, '"type":"Unknown');
      await expect(importEvents(copy.sql, linesOf(from(lines.join('\n'))))).rejects.toThrow(/^Line 3: .*unknown event type/);
    } finally {
      await copy.close();
    }
  });

  test.skipIf(!usingPostgresServer())('a log committed out of position order is imported in the same commit order', async () => {
    const ctx = await testContext();
    const copy = await testContext();
    try {
      const event = (n: number) => ({
        type: 'UserSignedUp' as const,
        data: {
          userId: `u${n}`,
          email: `u${n}@example.com`,
          firstName: null,
          lastName: null,
          profileImageUrl: null,
          provider: 'demo' as const,
          subject: `u${n}`,
        },
      });
      // The first transaction takes its id (with the append lock), then waits while the second appends and commits; then it appends.
      let release!: () => void;
      const waiting = new Promise<void>((r) => {
        release = r;
      });
      const first = appendingTransaction(ctx.sql, async (tx) => {
        await waiting;
        await ctx.store.append('user-u1', 'no_stream', [event(1)], tx);
      });
      await Bun.sleep(50);
      await ctx.store.append('user-u2', 'no_stream', [event(2)]);
      release();
      await first;
      await ctx.store.append('user-u3', 'no_stream', [event(3)]);
      const original = await exported(ctx);
      expect(original.lines.map((e) => e.stream)).toEqual(['user-u1', 'user-u2', 'user-u3']);
      expect(original.lines[0].position).toBeGreaterThan(original.lines[1].position);
      await importEvents(copy.sql, linesOf(from(original.text)));
      expect((await exported(copy)).text).toBe(original.text);
    } finally {
      await ctx.close();
      await copy.close();
    }
  });

  test.skipIf(!usingPostgresServer())('bun run events export | import, and stats', async () => {
    const copy = await testContext();
    const dir = mkdtempSync(join(tmpdir(), 'pricewatch-export-'));
    const run = (args: string[], url: string, stdin?: string) => {
      const proc = Bun.spawnSync([process.execPath, 'scripts/events.ts', ...args], {
        env: { ...process.env, DATABASE_URL: url },
        stdin: stdin ? Bun.file(stdin) : undefined,
        cwd: join(import.meta.dir, '..'),
      });
      if (proc.exitCode !== 0) throw new Error(proc.stderr.toString());
      return proc.stdout.toString();
    };
    try {
      const file = join(dir, 'log.ndjson');
      writeFileSync(file, run(['export'], (source.database as { url?: string }).url!));
      expect(readFileSync(file, 'utf8')).toBe((await exported(source)).text);
      run(['import'], (copy.database as { url?: string }).url!, file);
      expect((await exported(copy)).text).toBe((await exported(source)).text);
      const mine = run(['export', '--user', 'alice@example.com', '--type', 'PriceObserved'], (copy.database as { url?: string }).url!);
      expect(
        mine
          .trim()
          .split('\n')
          .every((l) => JSON.parse(l).type === 'PriceObserved' && JSON.parse(l).data.userId === alice.userId),
      ).toBe(true);
      const stats = run(['stats'], (copy.database as { url?: string }).url!);
      expect(stats).toMatch(/PriceObserved\s+8\s/);
      expect(stats).toMatch(/day \(UTC\)/);
      // Imported history is not news: the alert reactors start after it.
      await copy.reactors.catchUp();
      const [{ n }] = await copy.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM events WHERE type = 'AlertRaised'`;
      const [{ m }] = await source.sql<{ m: number }[]>`SELECT count(*)::int AS m FROM events WHERE type = 'AlertRaised'`;
      expect(n).toBe(m);
    } finally {
      await copy.close();
    }
  });
});
