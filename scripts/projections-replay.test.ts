import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { join } from 'node:path';
import { testContext, usingPostgresServer, SETUP_TIMEOUT } from '../api/testing/database.ts';
import { addProduct, observePrices } from '../api/testing/prices.ts';
import { readModelSnapshot } from '../api/testing/read-models.ts';
import { rebuildInto } from '../projections/replay.ts';

let ctx: Awaited<ReturnType<typeof testContext>>;
let product: string;
/** A moment between the two observations. */
let between: Date;

beforeAll(async () => {
  ctx = await testContext();
  product = await addProduct(ctx, 'analyst-user', { name: 'Kettle' });
  await observePrices(ctx, product, 'analyst-user', [[10, new Date('2025-01-01T10:00:00Z')]]);
  await Bun.sleep(30);
  between = new Date();
  await Bun.sleep(30);
  await observePrices(ctx, product, 'analyst-user', [[12, new Date('2025-01-01T11:00:00Z')]]);
  await ctx.projections.catchUp();
}, SETUP_TIMEOUT);
afterAll(() => ctx.close());

const checkpoints = () => ctx.sql`SELECT name, transaction_id::text, position, updated_at FROM projection_checkpoints ORDER BY name`;

describe('rebuild into a schema', () => {
  test('as of a moment between two observations: the earlier price, beside the untouched live read models', async () => {
    const live = await readModelSnapshot(ctx.sql, ctx.projections.projections);
    const before = await checkpoints();
    const progress: [number, number][] = [];
    const done = await rebuildInto(ctx.store, ctx.projections.projections, {
      schema: 'as_of_test',
      asOf: between,
      onProgress: (d, t) => progress.push([d, t]),
    });
    expect(done).toBeGreaterThan(0);
    expect(progress[progress.length - 1]).toEqual([done, done]);

    const [past] = await ctx.sql`SELECT current_price FROM as_of_test.products WHERE id = ${product}`;
    expect(past!.current_price).toBe(10);
    expect((await ctx.sql`SELECT price FROM as_of_test.price_points WHERE product_id = ${product}`).map((r) => r.price)).toEqual([10]);
    const [present] = await ctx.sql`SELECT current_price FROM products WHERE id = ${product}`;
    expect(present!.current_price).toBe(12);

    expect(await readModelSnapshot(ctx.sql, ctx.projections.projections)).toEqual(live);
    expect(await checkpoints()).toEqual(before);
    const [info] = await ctx.sql`SELECT as_of, events FROM as_of_test.replay_info WHERE projection = 'products'`;
    expect(info!.as_of.getTime()).toBe(between.getTime());
  });

  test('without --as-of the schema holds the same read models as the live ones; building again replaces them', async () => {
    await rebuildInto(ctx.store, ctx.projections.projections, { schema: 'present_copy' });
    await rebuildInto(ctx.store, ctx.projections.projections, { schema: 'present_copy' });
    expect(await readModelSnapshot(ctx.sql, ctx.projections.projections, 'present_copy')).toEqual(
      await readModelSnapshot(ctx.sql, ctx.projections.projections),
    );
  });

  test('only the named read models; never into public; unknown names are refused', async () => {
    await rebuildInto(ctx.store, ctx.projections.projections, { schema: 'only_products', names: ['products'] });
    const tables = await ctx.sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'only_products' ORDER BY 1`;
    expect(tables.map((t) => t.table_name)).toEqual(['price_changes', 'price_points', 'products', 'replay_info']);
    await expect(rebuildInto(ctx.store, ctx.projections.projections, { schema: 'public' })).rejects.toThrow('not public');
    await expect(rebuildInto(ctx.store, ctx.projections.projections, { schema: 'x; drop table events' })).rejects.toThrow('cannot be used');
    await expect(rebuildInto(ctx.store, ctx.projections.projections, { schema: 'y', names: ['nope'] })).rejects.toThrow('Unknown projection: nope');
  });

  test.skipIf(!usingPostgresServer())('bun run projections rebuild --as-of --into, with progress', () => {
    const run = (...args: string[]) =>
      Bun.spawnSync([process.execPath, 'scripts/projections.ts', 'rebuild', ...args], {
        env: { ...process.env, DATABASE_URL: (ctx.database as { url?: string }).url! },
        cwd: join(import.meta.dir, '..'),
      });
    const ok = run('products', '--as-of', between.toISOString(), '--into', 'cli_past');
    expect(ok.exitCode).toBe(0);
    expect(ok.stderr.toString()).toMatch(/\/ \d+ events, [\d,]+\/s, [\d.]+ s left/);
    expect(ok.stdout.toString()).toContain(`Rebuilt products into schema cli_past as of ${between.toISOString()}`);
    const refused = run('--as-of', between.toISOString());
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr.toString()).toContain('--as-of needs --into');
  });

  test.skipIf(!usingPostgresServer())('the CLI reads the schema it built', async () => {
    const [row] = await ctx.sql`SELECT current_price FROM cli_past.products WHERE id = ${product}`;
    expect(row!.current_price).toBe(10);
  });
});
