import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { transaction } from '../../db/index.ts';
import { SETUP_TIMEOUT, testDatabase, usingPostgresServer } from '../../db/testing.ts';
import { createEventStore, EVENT_STORE_DDL, type EventStore } from '../../events/store.ts';
import { DEFAULT_SETTINGS, type Settings } from '../../events/catalogue.ts';
import { createProjectionRunner, type ProjectionRunner } from '../../projections/runner.ts';
import { allProjections as projections } from '../modules.ts';
import type { Sql } from '../../db/index.ts';

let db: Awaited<ReturnType<typeof testDatabase>>;
let store: EventStore;
let runner: ProjectionRunner;

const signUp = (id: string) =>
  store.append(`user-${id}`, 'no_stream', [
    {
      type: 'UserSignedUp',
      data: { userId: id, provider: 'demo', subject: `${id}@x.io`, email: `${id}@x.io`, firstName: id, lastName: null, profileImageUrl: null },
    },
  ]);
const saveSettings = (id: string, s: Partial<Settings>) =>
  store.append(`user-${id}`, 'any', [{ type: 'SettingsChanged', data: { userId: id, settings: { ...DEFAULT_SETTINGS, ...s } } }]);

async function snapshot(sql: Sql) {
  const out: Record<string, unknown[]> = {};
  for (const p of projections) for (const t of p.tables) out[t] = await sql.unsafe(`SELECT * FROM ${t} ORDER BY 1`);
  return out;
}

beforeAll(async () => {
  db = await testDatabase();
  await db.sql.unsafe(EVENT_STORE_DDL);
  store = createEventStore(db.sql);
  runner = createProjectionRunner(store, projections);
  await runner.setup();
}, SETUP_TIMEOUT);
afterAll(async () => {
  await runner.stop();
  await db.close();
}, SETUP_TIMEOUT);

describe('projection runner', () => {
  test('catches up every read model and keeps one checkpoint each', async () => {
    await signUp('ann');
    await saveSettings('ann', { currency: 'EUR' });
    await signUp('bob');
    expect(await runner.catchUp()).toBe(4); // two sign-ups; the settings, read by two read models
    const users = await db.sql`SELECT id FROM users ORDER BY id`;
    expect(users.map((u) => u.id)).toEqual(['ann', 'bob']);
    const [s] = await db.sql`SELECT currency FROM user_settings WHERE user_id = 'ann'`;
    expect(s!.currency).toBe('EUR');
    const cps = await db.sql`SELECT name, position FROM projection_checkpoints ORDER BY name`;
    expect(cps.map((c) => c.name)).toEqual(projections.map((p) => p.name).sort());
    // Both checkpoints passed the last event, also the one whose projection does not read it.
    const head = await store.head();
    for (const c of cps) expect(Number(c.position)).toBe(head.position);
  });

  test('running again applies nothing twice', async () => {
    const before = await snapshot(db.sql);
    expect(await runner.catchUp()).toBe(0);
    expect(await snapshot(db.sql)).toEqual(before);
  });

  test('waitFor resolves once the read models include an appended event', async () => {
    runner.start();
    const r = await saveSettings('bob', { timezone: 'Asia/Tokyo' });
    await runner.waitFor({ transactionId: r.transactionId, position: r.lastPosition });
    const [s] = await db.sql`SELECT timezone FROM user_settings WHERE user_id = 'bob'`;
    expect(s!.timezone).toBe('Asia/Tokyo');
    await runner.stop();
  });

  test('rebuilding from zero yields identical tables', async () => {
    for (let i = 0; i < 40; i++) {
      await signUp(`u${i}`);
      await saveSettings(`u${i}`, { weeklyReports: i % 2 === 0 });
      if (i % 3 === 0) await saveSettings(`u${i}`, { currency: 'USD' });
    }
    await runner.catchUp();
    const before = await snapshot(db.sql);
    let progress = 0;
    const applied = await runner.rebuild(undefined, (n) => (progress = n));
    expect(applied).toBe(progress);
    const [{ n }] = (await db.sql`SELECT count(*)::int AS n FROM events`) as any;
    expect(applied).toBe(n); // each event here is read by exactly one of the two projections
    expect(await snapshot(db.sql)).toEqual(before);
    expect(await runner.rebuild(['settings'])).toBeGreaterThan(0);
    expect(await snapshot(db.sql)).toEqual(before);
  });

  test('an unknown projection name is refused before anything changes', async () => {
    expect(runner.rebuild(['nope'])).rejects.toThrow('Unknown projection: nope');
  });
});

describe.skipIf(!usingPostgresServer())('projection under overlapping writers (real PostgreSQL)', () => {
  test('a runner polling while transactions commit out of order misses nothing', async () => {
    runner.start();
    const writers = Array.from({ length: 6 }, (_, w) =>
      (async () => {
        for (let i = 0; i < 15; i++) {
          await transaction(db.sql, async (tx) => {
            await store.append(
              `user-ow${w}-${i}`,
              'no_stream',
              [
                {
                  type: 'UserSignedUp',
                  data: {
                    userId: `ow${w}-${i}`,
                    provider: 'demo',
                    subject: `ow${w}-${i}`,
                    email: `ow${w}-${i}@x.io`,
                    firstName: null,
                    lastName: null,
                    profileImageUrl: null,
                  },
                },
              ],
              tx,
            );
            await Bun.sleep(Math.random() * 4);
          });
        }
      })(),
    );
    await Promise.all(writers);
    const head = await store.head();
    await runner.waitFor(head, 10_000);
    await runner.stop();
    const [{ n }] = (await db.sql`SELECT count(*)::int AS n FROM users WHERE id LIKE 'ow%'`) as any;
    expect(n).toBe(90);
  });
});
