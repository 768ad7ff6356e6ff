import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createApp } from '../server.ts';
import { SETUP_TIMEOUT, testContext } from '../testing/database.ts';
import { signInDemo } from '../testing/sign-in.ts';
import { endSubscription, startTrial } from '../testing/plans.ts';
import { enqueueDueChecks } from '../checks/queue.ts';
import { PLANS } from '../billing/plans.ts';
import type { SubscriptionAnswer } from '../billing/billing.ts';
import { isBeyondPlan, pausedReason, splitByPlan } from './beyond-plan.ts';
import type { ProductItem } from './read-model.ts';

describe('which products a plan checks', () => {
  const products = ['a', 'b', 'c', 'd', 'e'];

  test('given five products on Free, the three added first are checked and the other two pause', () => {
    expect(splitByPlan(PLANS.free, products)).toEqual({ checked: ['a', 'b', 'c'], paused: ['d', 'e'] });
    expect([1, 2, 3, 4, 5].map((place) => isBeyondPlan(PLANS.free, place))).toEqual([false, false, false, true, true]);
  });

  test('given products within the limit, or an unlimited plan, nothing pauses', () => {
    expect(splitByPlan(PLANS.starter, products)).toEqual({ checked: products, paused: [] });
    expect(
      splitByPlan(
        PLANS.pro,
        Array.from({ length: 500 }, (_, i) => i),
      ).paused,
    ).toEqual([]);
    expect(splitByPlan(PLANS.free, [])).toEqual({ checked: [], paused: [] });
  });
});

const ORIGIN = 'http://localhost:3000';
let ctx: Awaited<ReturnType<typeof testContext>>;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  ctx = await testContext({ PUBLIC_URL: ORIGIN });
  app = createApp(ctx);
}, SETUP_TIMEOUT);
afterAll(() => ctx.close(), SETUP_TIMEOUT);

type User = Awaited<ReturnType<typeof signInDemo>>;
const send = (user: User, method: string, path: string, body?: unknown) =>
  app.handle(
    new Request(new URL(path, ORIGIN), {
      method,
      headers: { cookie: user.cookie, origin: ORIGIN, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    }),
  );
const json = async <T>(res: Response | Promise<Response>): Promise<T> => {
  const answer = await res;
  expect(answer.status).toBeLessThan(300);
  return answer.json() as Promise<T>;
};

/** A user who added five products on a Growth trial, each a moment after the other, whose subscription then ended. */
async function fiveProductsAfterTrial() {
  const user = await signInDemo(app, ORIGIN);
  const subscriptionId = await startTrial(ctx, user.userId, 'growth');
  const names = ['First', 'Second', 'Third', 'Fourth', 'Fifth'];
  const ids: string[] = [];
  for (const name of names) {
    const added = await json<ProductItem>(
      send(user, 'POST', '/api/products', { name, url: `https://shop.example/${name.toLowerCase()}`, selector: '.price', threshold: 'none' }),
    );
    ids.push(added.id);
  }
  await endSubscription(ctx, user.userId, subscriptionId);
  // The new products' first checks were queued when they were added; only the schedule is under test.
  await ctx.sql`DELETE FROM check_jobs WHERE user_id = ${user.userId}`;
  return { user, ids, names };
}

const queuedOf = async (userId: string) =>
  (await ctx.sql<{ product_id: string }[]>`SELECT product_id FROM check_jobs WHERE user_id = ${userId}`).map((r) => r.product_id).sort();
const pausedOf = async (user: User) =>
  (await json<ProductItem[]>(send(user, 'GET', '/api/products')))
    .filter((p) => p.checksPaused)
    .map((p) => p.name)
    .sort();

describe('after a subscription ends with more products than Free allows', () => {
  test('the three added first keep being checked; the others are listed as paused and never queued', async () => {
    const { user, ids } = await fiveProductsAfterTrial();
    expect(await pausedOf(user)).toEqual(['Fifth', 'Fourth']);
    await enqueueDueChecks(ctx);
    expect(await queuedOf(user.userId)).toEqual(ids.slice(0, 3).sort());
  });

  test('Check Now on a paused product says why and fetches nothing; bulk Check now queues only the checked ones', async () => {
    const { user, ids } = await fiveProductsAfterTrial();
    const answer = await json<{ success: boolean; error: string; message: string }>(send(user, 'POST', `/api/products/${ids[4]}/check-price`));
    expect(answer).toEqual({ success: false, error: 'paused', message: `Checks of this product are paused. ${pausedReason(PLANS.free)}` });
    expect((await ctx.sql`SELECT 1 FROM events WHERE stream_id = ${`product-${ids[4]}`} AND type IN ('PriceObserved', 'PriceCheckFailed')`).length).toBe(0);

    const bulk = await json<{ queued: number; beyondPlan: number }>(send(user, 'POST', '/api/products/bulk', { action: 'check-now', ids }));
    expect(bulk).toMatchObject({ queued: 3, beyondPlan: 2 });
    expect(await queuedOf(user.userId)).toEqual(ids.slice(0, 3).sort());
  });

  test('an edit that moves a paused product to another page does not check it', async () => {
    const { user, ids } = await fiveProductsAfterTrial();
    await json(send(user, 'PUT', `/api/products/${ids[3]}`, { name: 'Fourth', url: 'https://shop.example/fourth-moved', selector: '.price', threshold: null }));
    expect(await queuedOf(user.userId)).toEqual([]);
  });

  test('removing a checked product resumes the next one; subscribing again resumes them all', async () => {
    const { user, ids } = await fiveProductsAfterTrial();
    await json(send(user, 'DELETE', `/api/products/${ids[0]}`));
    expect(await pausedOf(user)).toEqual(['Fifth']);
    await enqueueDueChecks(ctx);
    expect(await queuedOf(user.userId)).toEqual(ids.slice(1, 4).sort());

    await startTrial(ctx, user.userId, 'starter');
    expect(await pausedOf(user)).toEqual([]);
    await enqueueDueChecks(ctx);
    expect(await queuedOf(user.userId)).toEqual(ids.slice(1).sort());
  });

  test('the billing answer names which products Free would keep checking and which would pause', async () => {
    const user = await signInDemo(app, ORIGIN);
    await startTrial(ctx, user.userId, 'starter');
    const none = await json<SubscriptionAnswer>(send(user, 'GET', '/api/billing/subscription'));
    expect(none.productsOnFree).toBeNull();
    for (const name of ['Kettle', 'Toaster', 'Jug', 'Grinder']) {
      await json(send(user, 'POST', '/api/products', { name, url: `https://shop.example/${name}`, selector: '.price', threshold: 'none' }));
    }
    const answer = await json<SubscriptionAnswer>(send(user, 'GET', '/api/billing/subscription'));
    expect(answer.productsOnFree).toEqual({
      checked: ['Kettle', 'Toaster', 'Jug'].map((name) => ({ id: expect.any(String), name })),
      paused: [{ id: expect.any(String), name: 'Grinder' }],
      pausedCount: 1,
    });
  });
});
