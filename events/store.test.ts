import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { transaction } from '../db/index.ts';
import { SETUP_TIMEOUT, testDatabase, usingPostgresServer } from '../db/testing.ts';
import postgres from 'postgres';
import { appendingTransaction, ConcurrencyError, createEventStore, EVENT_STORE_DDL, START, type EventStore, type NewEvent } from './store.ts';
import { EventValidationError, DEFAULT_SETTINGS } from './catalogue.ts';

const changed = (userId: string, currency: 'GBP' | 'EUR' = 'GBP'): NewEvent => ({
  type: 'SettingsChanged',
  data: { userId, settings: { ...DEFAULT_SETTINGS, currency } },
});

let db: Awaited<ReturnType<typeof testDatabase>>;
let store: EventStore;

beforeAll(async () => {
  db = await testDatabase();
  await db.sql.unsafe(EVENT_STORE_DDL);
  store = createEventStore(db.sql);
}, SETUP_TIMEOUT);
afterAll(() => db.close(), SETUP_TIMEOUT);

describe('append and read a stream', () => {
  test('versions count from 1 and positions grow', async () => {
    const a = await store.append('user-a', 'no_stream', [changed('a'), changed('a', 'EUR')]);
    expect(a.nextVersion).toBe(2);
    const b = await store.append('user-a', 2, [changed('a')]);
    expect(b.nextVersion).toBe(3);
    expect(b.lastPosition).toBeGreaterThan(a.lastPosition);
    const { version, events } = await store.readStream('user-a');
    expect(version).toBe(3);
    expect(events.map((e) => e.streamVersion)).toEqual([1, 2, 3]);
    expect(events[1]!.data).toEqual({ userId: 'a', settings: { ...DEFAULT_SETTINGS, currency: 'EUR' } });
    expect(events[0]!.schemaVersion).toBe(1);
    expect(events[0]!.recordedAt).toBeInstanceOf(Date);
  });

  test('a missing stream reads as version 0 with no events', async () => {
    expect(await store.readStream('user-nobody')).toEqual({ version: 0, events: [] });
  });

  test('a stale expected version is a ConcurrencyError and writes nothing', async () => {
    await store.append('user-b', 'no_stream', [changed('b')]);
    const err = await store.append('user-b', 0, [changed('b')]).catch((e) => e);
    expect(err).toBeInstanceOf(ConcurrencyError);
    expect(err.actual).toBe(1);
    expect(await store.append('user-b', 5, [changed('b')]).catch((e) => e)).toBeInstanceOf(ConcurrencyError);
    expect(await store.append('user-missing', 3, [changed('b')]).catch((e) => e)).toBeInstanceOf(ConcurrencyError);
    expect((await store.readStream('user-b')).version).toBe(1);
    expect((await store.readStream('user-missing')).version).toBe(0);
  });

  test('appendToStreams: new and existing streams in one statement, in the order given', async () => {
    await store.append('user-m1', 'no_stream', [changed('m1')]);
    const checkpoint = await appendingTransaction(db.sql, (tx) =>
      store.appendToStreams(
        [
          { streamId: 'user-m2', expected: 'no_stream', events: [changed('m2'), changed('m2', 'EUR')] },
          { streamId: 'user-m1', expected: 1, events: [changed('m1', 'EUR')] },
        ],
        tx,
      ),
    );
    const m1 = await store.readStream('user-m1');
    const m2 = await store.readStream('user-m2');
    expect(m1.events.map((e) => e.streamVersion)).toEqual([1, 2]);
    expect(m2.events.map((e) => e.streamVersion)).toEqual([1, 2]);
    expect(m2.events[1]!.position).toBeLessThan(m1.events[1]!.position);
    expect(checkpoint.position).toBe(m1.events[1]!.position);
  });

  test('appendToStreams: one stale stream is a ConcurrencyError and the transaction writes nothing', async () => {
    await store.append('user-s1', 'no_stream', [changed('s1')]);
    const err = await appendingTransaction(db.sql, (tx) =>
      store.appendToStreams(
        [
          { streamId: 'user-s2', expected: 'no_stream', events: [changed('s2')] },
          { streamId: 'user-s1', expected: 'no_stream', events: [changed('s1')] },
        ],
        tx,
      ),
    ).catch((e) => e);
    expect(err).toBeInstanceOf(ConcurrencyError);
    expect(err.streamId).toBe('user-s1');
    expect((await store.readStream('user-s2')).version).toBe(0);
    expect((await store.readStream('user-s1')).version).toBe(1);
  });

  test("'any' appends whatever the version", async () => {
    await store.append('user-c', 'any', [changed('c')]);
    const r = await store.append('user-c', 'any', [changed('c'), changed('c')]);
    expect(r.nextVersion).toBe(3);
  });
});

describe('schema validation', () => {
  test('an event that breaks its schema is refused and nothing is written', async () => {
    const bad = { type: 'SettingsChanged', data: { userId: 'd', settings: { ...DEFAULT_SETTINGS, currency: 'JPY' } } } as unknown as NewEvent;
    const err = await store.append('user-d', 'no_stream', [changed('d'), bad]).catch((e) => e);
    expect(err).toBeInstanceOf(EventValidationError);
    expect(err.message).toContain('settings.currency');
    expect((await store.readStream('user-d')).version).toBe(0);
  });

  test('an unknown event type is refused', async () => {
    const err = await store.append('user-d', 'any', [{ type: 'Nonsense', data: {} } as unknown as NewEvent]).catch((e) => e);
    expect(err).toBeInstanceOf(EventValidationError);
  });

  test('a stored event that no longer matches its schema fails loudly on read', async () => {
    await db.sql`INSERT INTO streams (stream_id, version) VALUES ('user-e', 1)`;
    await db.sql`INSERT INTO events (stream_id, stream_version, type, schema_version, data)
                 VALUES ('user-e', 1, 'SettingsChanged', 1, ${db.sql.json({ userId: 'e' })})`;
    expect(await store.readStream('user-e').catch((e) => e)).toBeInstanceOf(EventValidationError);
    await db.sql`DELETE FROM events WHERE stream_id = 'user-e'`;
  });
});

describe('concurrent writers', () => {
  test('exactly one of many concurrent appenders wins each version', async () => {
    const attempts = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => store.append('user-race', 'no_stream', [changed(`race-${i}`)])));
    expect(attempts.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
    for (const a of attempts) if (a.status === 'rejected') expect(a.reason).toBeInstanceOf(ConcurrencyError);
    const second = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => store.append('user-race', 1, [changed(`race-${i}`)])));
    expect(second.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
    expect((await store.readStream('user-race')).events.map((e) => e.streamVersion)).toEqual([1, 2]);
  });
});

describe.skipIf(!usingPostgresServer())('commit-safe global order (real PostgreSQL)', () => {
  test('an event committed after a later-numbered one is not skipped by a reader', async () => {
    const head = await store.head();
    // Transaction A takes a position first but commits last.
    let releaseA!: () => void;
    const aHolds = new Promise<void>((r) => (releaseA = r));
    let aAppended!: () => void;
    const aDidAppend = new Promise<void>((r) => (aAppended = r));
    const txA = transaction(db.sql, async (tx) => {
      await store.append('user-slow', 'no_stream', [changed('slow')], tx);
      aAppended();
      await aHolds;
    });
    await aDidAppend;
    const b = await store.append('user-fast', 'no_stream', [changed('fast')]);

    // B is committed with a higher position, yet a reader must not see it before A is done.
    const whileAOpen = await store.readAll(head, 100);
    expect(whileAOpen.map((e) => e.streamId)).not.toContain('user-fast');

    releaseA();
    await txA;
    const after = await store.readAll(head, 100);
    expect(after.map((e) => e.streamId)).toEqual(['user-slow', 'user-fast']);
    expect(after[0]!.position).toBeLessThan(b.lastPosition);
  });

  test('many overlapping writers: a reader polling meanwhile sees every event exactly once', async () => {
    const from = await store.head();
    const seen: number[] = [];
    let done = false;
    const reader = (async () => {
      let cp = from;
      while (true) {
        const writersDone = done; // known before the read: then nothing is in flight during it
        const batch = await store.readAll(cp, 50);
        for (const e of batch) seen.push(e.position);
        if (batch.length) cp = { transactionId: batch.at(-1)!.transactionId, position: batch.at(-1)!.position };
        else if (writersDone) return;
        await Bun.sleep(1);
      }
    })();
    const writers = Array.from({ length: 8 }, (_, w) =>
      (async () => {
        for (let i = 0; i < 25; i++) {
          if (i % 4 === 1) {
            // Another write first, then the append, holding the transaction open a while.
            await appendingTransaction(db.sql, async (tx) => {
              await tx`UPDATE streams SET version = version WHERE stream_id = 'none'`;
              await Bun.sleep(Math.random() * 5);
              await store.append(`user-w${w}-${i}`, 'no_stream', [changed('w')], tx);
            });
            continue;
          }
          await transaction(db.sql, async (tx) => {
            await store.append(`user-w${w}-${i}`, 'no_stream', [changed('w')], tx);
            if (i % 3 === 0) await Bun.sleep(Math.random() * 5); // hold some transactions open
          });
        }
      })(),
    );
    await Promise.all(writers);
    done = true;
    await reader;
    const written = await db.sql<{ p: string }[]>`SELECT global_position AS p FROM events WHERE stream_id LIKE 'user-w%' ORDER BY 1`;
    expect(new Set(seen).size).toBe(seen.length);
    expect([...seen].sort((x, y) => x - y)).toEqual(written.map((r) => Number(r.p)));
  });
});

describe('what may hold readers back', () => {
  test('a transaction that wrote something else must take the append lock before it appends', async () => {
    await db.sql`CREATE TABLE IF NOT EXISTS unrelated (n int)`;
    const refused = await transaction(db.sql, async (tx) => {
      await tx`INSERT INTO unrelated VALUES (1)`;
      await store.append('user-late-lock', 'no_stream', [changed('late')], tx);
    }).catch((e) => e);
    expect(String(refused?.message)).toContain('append lock');
    expect((await store.readStream('user-late-lock')).version).toBe(0);
    expect(await db.sql`SELECT 1 FROM unrelated`).toHaveLength(0);

    await appendingTransaction(db.sql, async (tx) => {
      await tx`INSERT INTO unrelated VALUES (1)`;
      await store.append('user-late-lock', 'no_stream', [changed('late')], tx);
    });
    expect((await store.readStream('user-late-lock')).version).toBe(1);
  });

  test.skipIf(!usingPostgresServer())('every append takes the append lock, in its own statement or at the start of its transaction', async () => {
    // A session holding the lock exclusively makes every append wait for it.
    const blocker = await db.sql.reserve();
    try {
      await blocker`BEGIN`;
      await blocker`SELECT pg_advisory_xact_lock(1886546275, 1702260340)`;
      const finished: string[] = [];
      const appends = [
        store.append('user-waits-1', 'no_stream', [changed('w')]).then(() => finished.push('own statement')),
        transaction(db.sql, (tx) => store.append('user-waits-2', 'no_stream', [changed('w')], tx)).then(() => finished.push('in a transaction')),
        appendingTransaction(db.sql, (tx) => store.append('user-waits-3', 'no_stream', [changed('w')], tx)).then(() => finished.push('appending transaction')),
      ];
      await Bun.sleep(300);
      expect(finished).toEqual([]);
      await blocker`COMMIT`;
      await Promise.all(appends);
      expect(finished.sort()).toEqual(['appending transaction', 'in a transaction', 'own statement']);
    } finally {
      blocker.release();
    }
  });

  test.skipIf(!usingPostgresServer())('transactions left open elsewhere on the server hold no reader back', async () => {
    // One in another database, one in this database that writes but does not append.
    const elsewhere = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
    const here = postgres((db as { url?: string }).url!, { max: 1, onnotice: () => {} });
    const open = [await elsewhere.reserve(), await here.reserve()];
    try {
      for (const c of open) {
        await c`BEGIN`;
        await c`SELECT pg_current_xact_id()`;
      }
      await open[1]!`INSERT INTO streams (stream_id, version) VALUES ('user-open-elsewhere', 0)`.catch(() => {});
      const from = await store.head();
      const appended = await store.append('user-while-open', 'no_stream', [changed('open')]);
      const seen = await store.readAll(from, 100);
      expect(seen.map((e) => e.streamId)).toContain('user-while-open');
      expect((await store.head()).position).toBe(appended.lastPosition);
    } finally {
      for (const c of open) {
        await c`ROLLBACK`.catch(() => {});
        c.release();
      }
      await elsewhere.end();
      await here.end();
    }
  });
});

test('readAll from the start pages through everything in order', async () => {
  const all = await store.readAll(START, 10_000);
  const firstPage = await store.readAll(START, 3);
  const next = await store.readAll({ transactionId: firstPage[2]!.transactionId, position: firstPage[2]!.position }, 10_000);
  expect([...firstPage, ...next].map((e) => e.position)).toEqual(all.map((e) => e.position));
});

test('global order follows transaction ids as numbers, also across a digit boundary (999 -> 1000)', async () => {
  const from = await store.head();
  // A repeated check first: the head compares it with the events by transaction id, as numbers.
  const observed = await store.append('product-digits', 'no_stream', [
    {
      type: 'PriceObserved',
      data: {
        productId: 'digits',
        userId: 'digits',
        price: 1,
        currency: 'GBP',
        source: 'selector',
        selector: '.p',
        matchedText: '£1',
        url: 'https://shop.example.com/p',
        httpStatus: 200,
        pageHash: 'ab'.repeat(32),
        observedAt: new Date().toISOString(),
      },
    },
  ]);
  await appendingTransaction(store.sql, (tx) =>
    store.appendRepeats([{ repeats: observed.lastPosition, observedAt: new Date().toISOString(), pageHash: 'cd'.repeat(32) }], tx),
  );
  // Enough single-event transactions that the ids gain a digit on a new database.
  for (let i = 0; i < 400; i++) await store.append(`user-digits-${i}`, 'no_stream', [changed('digits')]);
  const pages: number[] = [];
  let cp = from;
  for (;;) {
    const page = await store.readAll(cp, 37);
    if (!page.length) break;
    pages.push(...page.map((e) => e.position));
    cp = { transactionId: page.at(-1)!.transactionId, position: page.at(-1)!.position };
  }
  expect(pages).toHaveLength(402);
  expect(pages).toEqual([...pages].sort((a, b) => a - b));
  expect((await store.head()).position).toBe(pages.at(-1)!);
});
