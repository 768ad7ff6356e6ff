import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SETUP_TIMEOUT, testContext } from '../testing/database.ts';
import { addProduct, observePrices } from '../testing/prices.ts';
import { createUserCache } from './user-cache.ts';

let ctx: Awaited<ReturnType<typeof testContext>>;
beforeAll(async () => {
  ctx = await testContext();
}, SETUP_TIMEOUT);
afterAll(() => ctx.close(), SETUP_TIMEOUT);

/** A cache and a counted computation of "how many points the user has". */
function counted(userId: string, opts: { ttlMs?: number } = {}) {
  const cached = createUserCache(ctx.sql, opts);
  let computed = 0;
  const read = async () => {
    const res = (await cached(new Request('http://localhost/'), userId, 'points', async () => {
      computed++;
      const [r] = await ctx.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM price_points WHERE user_id = ${userId}`;
      return r!.n;
    })) as unknown as Response;
    expect(res.headers.get('content-type')).toBe('application/json');
    return res.json() as Promise<number>;
  };
  return { read, computed: () => computed };
}

describe('user cache', () => {
  test('answers again from memory until an event about the user is projected', async () => {
    const userId = crypto.randomUUID();
    const id = await addProduct(ctx, userId);
    await ctx.projections.catchUp();
    const c = counted(userId);
    expect(await c.read()).toBe(0);
    expect(await c.read()).toBe(0);
    expect(c.computed()).toBe(1);

    await observePrices(ctx, id, userId, [[10, new Date()]]);
    // Not projected yet: the read models still say 0, and so does the cache.
    expect(await c.read()).toBe(0);
    await ctx.projections.catchUp();
    expect(await c.read()).toBe(1);
    expect(c.computed()).toBe(2);
  });

  test("another user's events leave the answer in place", async () => {
    const userId = crypto.randomUUID();
    await addProduct(ctx, userId);
    await ctx.projections.catchUp();
    const c = counted(userId);
    await c.read();
    const other = crypto.randomUUID();
    await observePrices(ctx, await addProduct(ctx, other), other, [[10, new Date()]]);
    await ctx.projections.catchUp();
    await c.read();
    expect(c.computed()).toBe(1);
  });

  test("nothing is kept while a read model has not applied the user's last event", async () => {
    const userId = crypto.randomUUID();
    // As if read-versions had seen an event the other read models have not applied yet.
    await ctx.sql`INSERT INTO user_read_versions (user_id, transaction_id, position) VALUES (${userId}, '999999999', 999999999)`;
    const c = counted(userId);
    await c.read();
    await c.read();
    expect(c.computed()).toBe(2);
  });

  test('answers expire with the clock', async () => {
    const c = counted(crypto.randomUUID(), { ttlMs: 0 });
    await c.read();
    await Bun.sleep(2);
    await c.read();
    expect(c.computed()).toBe(2);
  });

  test('large answers go gzipped to clients that accept it', async () => {
    const cached = createUserCache(ctx.sql);
    const userId = crypto.randomUUID();
    const value = Array.from({ length: 500 }, (_, i) => ({ price: i, timestamp: new Date(i * 1000).toISOString() }));
    const ask = (headers: Record<string, string>) =>
      cached(new Request('http://localhost/', { headers }), userId, 'big', async () => value) as unknown as Promise<Response>;
    for (let i = 0; i < 2; i++) {
      // computed, then stored
      const zipped = await ask({ 'accept-encoding': 'gzip, deflate, br' });
      expect(zipped.headers.get('content-encoding')).toBe('gzip');
      const bytes = new Uint8Array(await zipped.arrayBuffer());
      expect(bytes.byteLength).toBeLessThan(JSON.stringify(value).length / 4);
      expect(JSON.parse(new TextDecoder().decode(Bun.gunzipSync(bytes)))).toEqual(value);
      const plain = await ask({});
      expect(plain.headers.get('content-encoding')).toBeNull();
      expect(await plain.json()).toEqual(value);
    }
  });

  test('a user without products gets an answer as well', async () => {
    const c = counted(crypto.randomUUID());
    expect(await c.read()).toBe(0);
    expect(await c.read()).toBe(0);
    expect(c.computed()).toBe(1);
  });
});
