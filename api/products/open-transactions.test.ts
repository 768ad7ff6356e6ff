import { afterAll, beforeAll, expect, test } from 'bun:test';
import postgres from 'postgres';
import { createApp } from '../server.ts';
import { SETUP_TIMEOUT, testContext, usingPostgresServer } from '../testing/database.ts';
import { signInDemo } from '../testing/sign-in.ts';

const ORIGIN = 'http://localhost:3000';
let ctx: Awaited<ReturnType<typeof testContext>>;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  ctx = await testContext({ PUBLIC_URL: ORIGIN });
  app = createApp(ctx);
}, SETUP_TIMEOUT);
afterAll(() => ctx.close(), SETUP_TIMEOUT);

const send = (cookie: string, method: string, path: string, body?: unknown) =>
  app.handle(
    new Request(new URL(path, ORIGIN), {
      method,
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: { cookie, origin: ORIGIN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    }),
  );

test.skipIf(!usingPostgresServer())('a price set by hand shows at once while other sessions leave write transactions open on the server', async () => {
  const { cookie } = await signInDemo(app, ORIGIN);
  const added = await (
    await send(cookie, 'POST', '/api/products', { name: 'Kettle', url: 'https://shop.example/kettle', selector: '.price', threshold: 'none' })
  ).json();
  // A forgotten session in another database, and one in this database with a transaction id (a writer that does not append).
  const other = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
  const elsewhere = await other.reserve();
  const here = await ctx.sql.reserve();
  try {
    for (const session of [elsewhere, here]) {
      await session`BEGIN`;
      await session`SELECT pg_current_xact_id()`;
    }
    const started = Date.now();
    expect((await send(cookie, 'POST', `/api/products/${added.id}/update-price`, { price: '12.5' })).status).toBe(200);
    const listed = await (await send(cookie, 'GET', '/api/products')).json();
    expect(listed.find((p: { id: string }) => p.id === added.id)).toMatchObject({ currentPrice: 12.5 });
    // Read-your-writes did not wait for those transactions (it gives up after 10 s).
    expect(Date.now() - started).toBeLessThan(5_000);
  } finally {
    for (const session of [elsewhere, here]) {
      await session`ROLLBACK`.catch(() => {});
      session.release();
    }
    await other.end();
  }
});
