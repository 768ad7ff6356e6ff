import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import postgres from 'postgres';
import { transaction, type Sql } from '../db/index.ts';
import { loadConfig } from '../api/config.ts';
import { createContext } from '../api/create-context.ts';
import { SETUP_TIMEOUT, testDatabase, usingPostgresServer } from '../api/testing/database.ts';
import { createUnpartitionedLog } from '../api/testing/unpartitioned-log.ts';
import { DEFAULT_SETTINGS } from '../events/catalogue.ts';
import { observed } from '../api/testing/prices.ts';
import { addMonths, createPartition, ensurePartitions, listPartitions, monthStart, MONTHS_AHEAD, partitionName, uncovered } from '../events/partitions.ts';
import { appendingTransaction, checkpointOf, createEventStore, EVENT_STORE_DDL, START, type Checkpoint, type NewEvent } from '../events/store.ts';

const changed = (userId: string, currency: 'GBP' | 'EUR' = 'GBP'): NewEvent => ({
  type: 'SettingsChanged',
  data: { userId, settings: { ...DEFAULT_SETTINGS, currency } },
});

/** Tables, indexes, constraints, partition bounds, sequences and functions of the log: what the DDL makes. */
async function schemaOf(sql: Sql) {
  return sql`
    SELECT c.relname, c.relkind::text, pg_get_expr(c.relpartbound, c.oid) AS bound,
      (SELECT string_agg(d, '; ' ORDER BY d) FROM (SELECT pg_get_indexdef(i.indexrelid) || ' valid=' || i.indisvalid AS d FROM pg_index i WHERE i.indrelid = c.oid) i) AS indexes,
      (SELECT string_agg(d, '; ' ORDER BY d) FROM (SELECT x.conname || ' ' || pg_get_constraintdef(x.oid) AS d FROM pg_constraint x WHERE x.conrelid = c.oid) x) AS constraints,
      (SELECT string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod) || ' ' || coalesce(pg_get_expr(d.adbin, d.adrelid), ''), ', ' ORDER BY a.attnum)
         FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
         WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped) AS columns
    FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'S') AND (c.relname LIKE 'events%' OR c.relname = 'streams')
    UNION ALL
    SELECT p.proname, 'f', NULL, NULL, NULL, md5(pg_get_functiondef(p.oid)) FROM pg_proc p WHERE p.pronamespace = 'public'::regnamespace
    ORDER BY 1`;
}

/** Every event with every column, as text, in position order. */
const rowsOf = (sql: Sql) => sql`
  SELECT global_position::text, transaction_id::text, stream_id, stream_version::text, type, schema_version, data::text, metadata::text,
         to_char(recorded_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') AS recorded_at
  FROM events ORDER BY global_position`;

/** Reads the whole log from START in pages, as a catch-up reader does. */
async function readEverything(sql: Sql, page = 37) {
  const store = createEventStore(sql);
  const seen: { position: number; transactionId: string; streamId: string; streamVersion: number }[] = [];
  let cp = START;
  for (;;) {
    const batch = await store.readAll(cp, page);
    if (!batch.length) return seen;
    seen.push(...batch.map((e) => ({ position: e.position, transactionId: e.transactionId, streamId: e.streamId, streamVersion: e.streamVersion })));
    cp = checkpointOf(batch[batch.length - 1]!);
  }
}

const config = () => loadConfig({ NODE_ENV: 'test', PORT: '3000', DATA_DIR: '/tmp/pricewatch-test' });

describe('ranges', () => {
  test('names and the parts of a range no partition covers', () => {
    const nov = new Date('2026-11-01T00:00:00Z'),
      dec = new Date('2026-12-01T00:00:00Z');
    expect(partitionName('events', nov, dec)).toBe('events_2026_11');
    expect(partitionName('events', new Date('2026-11-25T12:00:05Z'), dec)).toBe('events_20261125t120005');
    const legacy = { name: 'events_before_2026_11', from: null, to: nov, isDefault: false };
    const mid = new Date('2026-11-15T00:00:00Z');
    expect(uncovered(nov, dec, [legacy])).toEqual([[nov, dec]]);
    expect(uncovered(new Date('2026-10-01T00:00:00Z'), nov, [legacy])).toEqual([]);
    expect(uncovered(nov, dec, [legacy, { name: 'x', from: mid, to: dec, isDefault: false }])).toEqual([[nov, mid]]);
    expect(monthStart(new Date('2026-12-31T23:59:59.999Z'))).toEqual(dec);
    expect(addMonths(dec, 1)).toEqual(new Date('2027-01-01T00:00:00Z'));
  });
});

describe('a new log', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;
  beforeAll(async () => {
    db = await testDatabase();
  }, SETUP_TIMEOUT);
  afterAll(() => db.close(), SETUP_TIMEOUT);

  test('is partitioned by month, with a DEFAULT partition, and the DDL run again changes nothing', async () => {
    const ctx = await createContext(config(), { database: { ...db, close: async () => {} } });
    await ctx.close();
    const now = new Date();
    const partitions = await listPartitions(db.sql);
    const months = Array.from({ length: MONTHS_AHEAD + 1 }, (_, n) => partitionName('events', addMonths(now, n), addMonths(now, n + 1)));
    expect(partitions.map((p) => p.name)).toEqual([...months, 'events_default']);
    expect(partitions[0]!.from).toEqual(monthStart(now));
    // A month's indexes are named after the log's: plans say which index they use.
    const indexesOf = async (table: string) =>
      (
        await db.sql<{ name: string }[]>`
      SELECT c.relname AS name FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = ${table}::regclass`
      )
        .map((r) => r.name)
        .sort();
    const month = partitions[0]!.name;
    expect(await indexesOf(month)).toEqual((await indexesOf('events')).map((n) => `${month}${n.slice('events'.length)}`).sort());
    const once = await schemaOf(db.sql);
    await db.sql.unsafe(EVENT_STORE_DDL);
    expect(await ensurePartitions(db.sql)).toEqual([]);
    const again = await createContext(config(), { database: { ...db, close: async () => {} } });
    await again.close();
    expect(await schemaOf(db.sql)).toEqual(once);
  });

  test('an append outside every month partition goes to the DEFAULT partition, and moves to its month when that is made', async () => {
    const store = createEventStore(db.sql);
    await store.append('user-later', 'no_stream', [changed('later')]);
    const far = new Date('2031-05-10T00:00:00Z');
    await appendingTransaction(db.sql, async (tx) => {
      await store.append('user-far', 'no_stream', [changed('far')], tx);
      await tx`UPDATE events SET recorded_at = ${far} WHERE stream_id = 'user-far'`; // a clock far ahead
    });
    const before = await rowsOf(db.sql);
    const [where] = await db.sql`SELECT tableoid::regclass::text AS part FROM events WHERE stream_id = 'user-far'`;
    expect(where!.part).toBe('events_default');
    expect(await ensurePartitions(db.sql)).toEqual(['events_2031_05']);
    const [moved] = await db.sql`SELECT tableoid::regclass::text AS part FROM events WHERE stream_id = 'user-far'`;
    expect(moved!.part).toBe('events_2031_05');
    expect(await rowsOf(db.sql)).toEqual(before);
    expect((await createEventStore(db.sql).readStream('user-far')).version).toBe(1);
  });
});

describe('a log from before partitions', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;
  const now = new Date();
  beforeAll(async () => {
    db = await testDatabase();
    await createUnpartitionedLog(db.sql);
    const store = createEventStore(db.sql);
    // Three months of history written straight into the old table, a position lost to a rolled-back
    // append, and two appends committed out of position order.
    const settings = JSON.stringify(changed('x').data);
    for (let month = 3; month >= 1; month--) {
      await db.sql.unsafe(
        `
        INSERT INTO events (stream_id, stream_version, type, schema_version, data, recorded_at)
        SELECT 'user-m${month}', n, 'SettingsChanged', 1, $1::text::jsonb, $2::timestamptz + n * interval '1 second'
        FROM generate_series(1, 400) AS n`,
        [settings, addMonths(now, -month)],
      );
      await db.sql`INSERT INTO streams (stream_id, version) VALUES (${`user-m${month}`}, 400)`;
    }
    await transaction(db.sql, async (tx) => {
      await store.append('user-lost', 'no_stream', [changed('lost')], tx);
      throw new Error('rolled back');
    }).catch(() => {});
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const first = appendingTransaction(db.sql, async (tx) => {
      await held;
      await store.append('user-first', 'no_stream', [changed('first')], tx);
    });
    if (!db.embedded) await Bun.sleep(30);
    const second = store.append('user-second', 'no_stream', [changed('second')]);
    if (!db.embedded) await second;
    release();
    await first;
    await second;
    for (let i = 0; i < 20; i++) await store.append('user-now', i === 0 ? 'no_stream' : i, [changed('now', i % 2 ? 'EUR' : 'GBP')]);
    // An observation and two checks kept as its repeats: they share the positions' sequence.
    const { lastPosition } = await store.append('product-p', 'no_stream', [observed('p', 'u', 12, new Date())]);
    await appendingTransaction(db.sql, (tx) =>
      store.appendRepeats(
        [1, 2].map((n) => ({ repeats: lastPosition, observedAt: new Date().toISOString(), pageHash: `${n}`.repeat(64) })),
        tx,
      ),
    );
    await transaction(db.sql, async (tx) => {
      await store.append('user-lost', 'no_stream', [changed('lost')], tx);
      throw new Error('rolled back');
    }).catch(() => {});
  }, SETUP_TIMEOUT);
  afterAll(() => db.close(), SETUP_TIMEOUT);

  test('becomes the first partition: every event kept with its position, transaction id and time, read in the same order', async () => {
    const rows = await rowsOf(db.sql);
    const order = await readEverything(db.sql);
    const stream = await createEventStore(db.sql).readStream('user-m2');
    const [{ last }] = await db.sql<
      { last: string }[]
    >`SELECT max(global_position)::text AS last FROM (SELECT global_position FROM events UNION ALL SELECT global_position FROM price_checks) log`;
    const repeats = await db.sql`SELECT * FROM price_checks ORDER BY global_position`;
    expect(rows).toHaveLength(1223);
    expect(repeats).toHaveLength(2);
    expect(order).toHaveLength(1225);

    const ctx = await createContext(config(), { database: { ...db, close: async () => {} } });
    try {
      expect(await rowsOf(db.sql)).toEqual(rows);
      expect(await db.sql`SELECT * FROM price_checks ORDER BY global_position`).toEqual(repeats);
      expect(await readEverything(db.sql)).toEqual(order);
      expect(await ctx.store.readStream('user-m2')).toEqual(stream);
      const bound = addMonths(now, 1);
      const partitions = await listPartitions(db.sql);
      expect(partitions[0]).toEqual({
        name: `events_before_${partitionName('events', bound, addMonths(bound, 1)).slice(7)}`,
        from: null,
        to: bound,
        isDefault: false,
      });
      const ahead = Array.from({ length: MONTHS_AHEAD }, (_, n) => partitionName('events', addMonths(now, n + 1), addMonths(now, n + 2)));
      expect(partitions.map((p) => p.name)).toEqual([partitions[0]!.name, ...ahead, 'events_default']);
      const [{ n }] = await db.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM ${db.sql(partitions[0]!.name)}`;
      expect(n).toBe(rows.length);

      // The next position follows the last one handed out, the rolled-back one included, for events and repeats alike.
      const appended = await ctx.store.append('user-after', 'no_stream', [changed('after')]);
      expect(appended.lastPosition).toBe(Number(last) + 2);
      const repeated = await appendingTransaction(db.sql, (tx) =>
        ctx.store.appendRepeats([{ repeats: Number(repeats[0]!.repeats), observedAt: new Date().toISOString(), pageHash: '3'.repeat(64) }], tx),
      );
      expect(repeated!.position).toBe(Number(last) + 3);
      expect((await readEverything(db.sql)).slice(0, order.length)).toEqual(order);

      // The old table's indexes were adopted by the partitioned ones, not built a second time.
      const indexes = await db.sql<{ name: string; parent: string | null }[]>`
        SELECT c.relname AS name, (SELECT p.relname FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent WHERE i.inhrelid = c.oid) AS parent
        FROM pg_index x JOIN pg_class c ON c.oid = x.indexrelid WHERE x.indrelid = ${partitions[0]!.name}::regclass`;
      const parents = await db.sql<{ name: string }[]>`SELECT indexrelid::regclass::text AS name FROM pg_index WHERE indrelid = 'events'::regclass`;
      expect(indexes.map((i) => i.parent).sort()).toEqual(parents.map((p) => p.name).sort());
      for (const adopted of [
        'events_by_commit_order',
        'events_product_lifecycle_by_user',
        'events_product_details_by_user',
        'events_by_billing_customer',
        'events_by_user_in_commit_order',
      ]) {
        expect(indexes.find((i) => i.parent === adopted)!.name).toBe(`${partitions[0]!.name}${adopted.slice(6)}`);
      }
    } finally {
      await ctx.close();
    }
  });

  test('migrating again changes nothing', async () => {
    const schema = await schemaOf(db.sql);
    const rows = await rowsOf(db.sql);
    const ctx = await createContext(config(), { database: { ...db, close: async () => {} } });
    await ctx.close();
    expect(await schemaOf(db.sql)).toEqual(schema);
    expect(await rowsOf(db.sql)).toEqual(rows);
  });
});

test.skipIf(!usingPostgresServer())('two processes that start at once migrate the old log once', async () => {
  const db = await testDatabase();
  try {
    await createUnpartitionedLog(db.sql);
    await db.sql`INSERT INTO events (stream_id, stream_version, type, schema_version, data) SELECT 'user-' || n, 1, 'SettingsChanged', 1, ${db.sql.json(changed('x').data as never)} FROM generate_series(1, 500) n`;
    const rows = await rowsOf(db.sql);
    const other = postgres(db.url!, { max: 2, onnotice: () => {} });
    try {
      const start = async (sql: Sql) => {
        await sql.unsafe(EVENT_STORE_DDL);
        return ensurePartitions(sql);
      };
      const [a, b] = await Promise.allSettled([start(db.sql), start(other as unknown as Sql)]);
      expect([a.status, b.status]).toEqual(['fulfilled', 'fulfilled']);
      // The months ahead were made once, by one of them.
      expect([a, b].flatMap((r) => (r.status === 'fulfilled' ? r.value : []))).toHaveLength(MONTHS_AHEAD);
    } finally {
      await other.end();
    }
    expect(await rowsOf(db.sql)).toEqual(rows);
    expect((await listPartitions(db.sql)).filter((p) => p.name.startsWith('events_before_'))).toHaveLength(1);
  } finally {
    await db.close();
  }
});

describe('across a partition boundary', () => {
  let db: Awaited<ReturnType<typeof testDatabase>>;
  beforeAll(async () => {
    db = await testDatabase({ max: 12 });
    await db.sql.unsafe(EVENT_STORE_DDL); // the DEFAULT partition only, until the test makes its own
  }, SETUP_TIMEOUT);
  afterAll(() => db.close(), SETUP_TIMEOUT);

  test('concurrent appends while the boundary passes: a reader catching up meanwhile sees every event once, in commit order', async () => {
    const store = createEventStore(db.sql);
    const now = new Date();
    const boundary = new Date(now.getTime() + 2500);
    const first = await createPartition(db.sql, 'events', monthStart(now), boundary);
    const second = await createPartition(db.sql, 'events', boundary, addMonths(now, 1));
    const seen: Checkpoint[] = [];
    let done = false;
    const reader = (async () => {
      let cp = START;
      for (;;) {
        const writersDone = done; // known before the read: then nothing is in flight during it
        const batch = await store.readAll(cp, 50);
        seen.push(...batch.map(checkpointOf));
        if (batch.length) cp = checkpointOf(batch[batch.length - 1]!);
        else if (writersDone) return;
        await Bun.sleep(1);
      }
    })();
    const until = boundary.getTime() + 1000;
    let made: string[] = [];
    const writers = Array.from({ length: db.embedded ? 2 : 8 }, (_, w) =>
      (async () => {
        for (let i = 0; Date.now() < until || i < 10; i++) {
          const stream = `user-b${w}-${i}`;
          if (i % 4 === 1) {
            await appendingTransaction(db.sql, async (tx) => {
              await tx`UPDATE streams SET version = version WHERE stream_id = 'none'`;
              await Bun.sleep(Math.random() * 20);
              await store.append(stream, 'no_stream', [changed('b')], tx);
            });
          } else if (i % 4 === 2) {
            // Appended before the boundary, committed after it: the reader must wait for it.
            await transaction(db.sql, async (tx) => {
              await store.append(stream, 'no_stream', [changed('b')], tx);
              await Bun.sleep(Math.random() * 60);
            });
          } else {
            await store.append(stream, 'no_stream', [changed('b'), changed('b', 'EUR')]);
          }
          // Months ahead are added meanwhile, as the server's hourly job does.
          if (w === 0 && i === 5) made = await ensurePartitions(db.sql, now, { ahead: 2 });
        }
      })(),
    );
    await Promise.all(writers);
    done = true;
    await reader;
    expect(made).toEqual([1, 2].map((n) => partitionName('events', addMonths(now, n), addMonths(now, n + 1))));
    const written = await db.sql<{ tx: string; position: string; part: string }[]>`
      SELECT transaction_id::text AS tx, global_position::text AS position, tableoid::regclass::text AS part FROM events ORDER BY transaction_id, global_position`;
    const parts = new Set(written.map((r) => r.part));
    expect(parts.has(first) && parts.has(second)).toBe(true);
    expect(seen).toEqual(written.map((r) => ({ transactionId: r.tx, position: Number(r.position) })));
  });

  test.skipIf(!usingPostgresServer())('an append made before the boundary and committed after a later one in the next partition is not skipped', async () => {
    const db = await testDatabase();
    try {
      await db.sql.unsafe(EVENT_STORE_DDL);
      const store = createEventStore(db.sql);
      const now = new Date();
      const boundary = new Date(now.getTime() + 1500);
      const before = await createPartition(db.sql, 'events', monthStart(now), boundary);
      const after = await createPartition(db.sql, 'events', boundary, addMonths(now, 1));
      const head = await store.head();

      let release!: () => void;
      const holds = new Promise<void>((r) => {
        release = r;
      });
      let appended!: () => void;
      const didAppend = new Promise<void>((r) => {
        appended = r;
      });
      const slow = transaction(db.sql, async (tx) => {
        await store.append('user-slow-boundary', 'no_stream', [changed('slow')], tx);
        appended();
        await holds;
      });
      await didAppend;
      await Bun.sleep(Math.max(0, boundary.getTime() - Date.now()) + 20);
      await store.append('user-fast-boundary', 'no_stream', [changed('fast')]);
      const [fast] = await db.sql`SELECT tableoid::regclass::text AS part FROM events WHERE stream_id = 'user-fast-boundary'`;
      expect(fast!.part).toBe(after);

      expect((await store.readAll(head, 100)).map((e) => e.streamId)).not.toContain('user-fast-boundary');
      release();
      await slow;
      const [slowRow] = await db.sql`SELECT tableoid::regclass::text AS part FROM events WHERE stream_id = 'user-slow-boundary'`;
      expect(slowRow!.part).toBe(before);
      expect((await store.readAll(head, 100)).map((e) => e.streamId)).toEqual(['user-slow-boundary', 'user-fast-boundary']);
    } finally {
      await db.close();
    }
  });
});
