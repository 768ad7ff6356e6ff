import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import postgres from 'postgres';
import type { Sql } from '../../db/index.ts';
import { SETUP_TIMEOUT, testContext, usingPostgresServer } from '../testing/database.ts';
import { appendingTransaction } from '../../events/store.ts';
import { handleProductCommands, type ProductCommand } from '../../events/product.ts';
import { MAX_FETCHES_PER_HOST } from '../fetching/fetcher.ts';
import { claimJobs, enqueueCheck, enqueueDueChecks, type ClaimedJob } from './queue.ts';

type Ctx = Awaited<ReturnType<typeof testContext>>;
let ctx: Ctx;

beforeAll(async () => {
  ctx = await testContext();
}, SETUP_TIMEOUT);
afterAll(async () => {
  await ctx.close();
}, SETUP_TIMEOUT);

/** Adds products for a user through the product commands and waits until the read models have them. */
async function addProducts(userId: string, urls: string[]): Promise<string[]> {
  const ids = urls.map(() => crypto.randomUUID());
  const commands: ProductCommand[] = urls.map((url, i) => ({
    type: 'Add',
    productId: ids[i]!,
    userId,
    details: { name: `Product ${i}`, url, selector: '.price', alertRule: { kind: 'none' } },
  }));
  const { checkpoint } = await appendingTransaction(ctx.sql, (tx) => handleProductCommands(ctx.store, commands, tx));
  if (checkpoint) await ctx.projections.waitFor(checkpoint, 30_000);
  return ids;
}

const clearQueue = () => ctx.sql`DELETE FROM check_jobs`;

/** Adds products and queues their checks (and only theirs: earlier tests' products stay unqueued). */
async function addQueued(userId: string, urls: string[]): Promise<string[]> {
  const ids = await addProducts(userId, urls);
  for (const [i, id] of ids.entries()) await enqueueCheck(ctx.sql, id, urls[i]!);
  return ids;
}

describe('claims take turns between users', () => {
  test("a user with hundreds of checks due does not hold up another user's check: it is in the first claim", async () => {
    await clearQueue();
    const heavy = `heavy-${crypto.randomUUID()}`,
      light = `light-${crypto.randomUUID()}`;
    // Many shops, so the shops' limits are not what lets the light user in.
    await addProducts(
      heavy,
      Array.from({ length: 400 }, (_, i) => `https://shop-${i % 100}.example/p/${i}`),
    );
    const [lightProduct] = await addProducts(light, ['https://small.example/p/1']);
    expect(await enqueueDueChecks(ctx)).toBe(401);
    // The heavy user's checks came due an hour earlier: in due order they would all go first.
    await ctx.sql`UPDATE check_jobs SET run_at = now() - interval '1 hour' WHERE user_id = ${heavy}`;

    const first = await claimJobs(ctx.sql, { workerId: 'w1', limit: 8 });
    expect(first).toHaveLength(8);
    expect(first.map((j) => j.productId)).toContain(lightProduct!);
    // Nothing else waits: the heavy user has the rest of the claim, and the next ones.
    expect(first.filter((j) => j.userId === heavy)).toHaveLength(7);
    expect(await claimJobs(ctx.sql, { workerId: 'w2', limit: 8 })).toHaveLength(8);
  });

  test('with many users waiting, each claim goes on round the users', async () => {
    await clearQueue();
    const users = Array.from({ length: 12 }, (_, i) => `round-${i}-${crypto.randomUUID()}`);
    for (const user of users)
      await addQueued(
        user,
        Array.from({ length: 3 }, (_, i) => `https://${user}.example/p/${i}`),
      );
    const served = new Set<string>();
    for (let claim = 0; claim < 3; claim++) {
      const jobs = await claimJobs(ctx.sql, { workerId: `w${claim}`, limit: 4 });
      // Four users, one check each, not one user's three.
      expect(new Set(jobs.map((j) => j.userId)).size).toBe(4);
      for (const j of jobs) served.add(j.userId);
    }
    expect(served.size).toBe(12);
  });
});

describe("a shop's limit holds across worker processes", () => {
  /** Separate clients, as separate worker processes have; one client on the embedded database. */
  async function workerClients(n: number): Promise<{ clients: Sql[]; close: () => Promise<void> }> {
    if (!usingPostgresServer()) return { clients: [ctx.sql], close: async () => {} };
    const [{ db }] = await ctx.sql<{ db: string }[]>`SELECT current_database() AS db`;
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${db}`;
    const clients = Array.from({ length: n }, () => postgres(url.toString(), { max: 2, onnotice: () => {} }) as unknown as Sql);
    return {
      clients,
      close: async () => {
        await Promise.all(clients.map((c) => (c as unknown as postgres.Sql).end({ timeout: 5 })));
      },
    };
  }

  /** Pages of each shop under live leases: one per claim and url, as the workers fetch them. */
  const pagesByHost = async () =>
    Object.fromEntries(
      (
        await ctx.sql<{ host: string; pages: number }[]>`
    SELECT host, count(DISTINCT (lease, url))::int AS pages FROM check_jobs WHERE lease IS NOT NULL GROUP BY host`
      ).map((r) => [r.host, r.pages]),
    );

  test('workers claiming at the same moment never hold more pages of one shop than the limit', async () => {
    await clearQueue();
    // Six users with pages on the same two shops, and one page elsewhere each.
    for (let u = 0; u < 6; u++) {
      const user = `shared-${u}-${crypto.randomUUID()}`;
      await addQueued(user, [
        ...Array.from({ length: 10 }, (_, i) => `https://big-a.example/p/${u}-${i}`),
        ...Array.from({ length: 10 }, (_, i) => `https://big-b.example/p/${u}-${i}`),
        `https://own-${u}.example/p`,
      ]);
    }
    const { clients, close } = await workerClients(6);
    try {
      const claimAll = () => Promise.all(Array.from({ length: 12 }, (_, i) => claimJobs(clients[i % clients.length]!, { workerId: `w${i}`, limit: 8 })));
      const claims = (await claimAll()).flat();
      const held = (host: string, jobs: ClaimedJob[]) => new Set(jobs.filter((j) => new URL(j.url).host === host).map((j) => j.url)).size;
      expect(held('big-a.example', claims)).toBe(MAX_FETCHES_PER_HOST);
      expect(held('big-b.example', claims)).toBe(MAX_FETCHES_PER_HOST);
      // Other shops are not held up by the busy ones.
      for (let u = 0; u < 6; u++) expect(held(`own-${u}.example`, claims)).toBe(1);
      expect(await pagesByHost()).toMatchObject({ 'big-a.example': 2, 'big-b.example': 2 });

      // Nothing more of the busy shops until a page is done; then one more, never two.
      expect((await claimAll()).flat().length).toBe(0);
      const done = claims.find((j) => j.url.includes('big-a'))!;
      await ctx.sql`DELETE FROM check_jobs WHERE product_id = ${done.productId}`;
      const next = (await claimAll()).flat();
      expect(next.map((j) => new URL(j.url).host)).toEqual(['big-a.example']);
      expect(await pagesByHost()).toMatchObject({ 'big-a.example': 2, 'big-b.example': 2 });
    } finally {
      await close();
    }
  });

  test('a job whose lease ran out no longer holds its shop', async () => {
    await clearQueue();
    await addQueued(
      `lease-${crypto.randomUUID()}`,
      Array.from({ length: 4 }, (_, i) => `https://lease.example/p/${i}`),
    );
    expect(await claimJobs(ctx.sql, { workerId: 'dead', limit: 8 })).toHaveLength(2);
    expect(await claimJobs(ctx.sql, { workerId: 'other', limit: 8 })).toHaveLength(0);
    await ctx.sql`UPDATE check_jobs SET claimed_at = now() - interval '1 hour' WHERE claimed_by = 'dead'`;
    expect(await claimJobs(ctx.sql, { workerId: 'other', limit: 8 })).toHaveLength(2);
  });
});
