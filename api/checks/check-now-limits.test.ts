import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createApp } from '../server.ts';
import { SETUP_TIMEOUT, testContext } from '../testing/database.ts';
import { signInDemo } from '../testing/sign-in.ts';
import { startTrial } from '../testing/plans.ts';
import { handleCommand } from '../../events/decider.ts';
import { checkpointOf } from '../../events/store.ts';
import { productDecider, productStream } from '../../events/product.ts';
import { CHECK_NOWS_PER_USER } from './routes.ts';
import { DETECTS_PER_USER } from '../ai/routes.ts';

/**
 * Check Now and AI Detect on a shop that trickles its page a byte at a time: each answers in
 * time while its work goes on, and one user's running checks are capped, with a 429 beyond,
 * without holding back another user's.
 */

const ORIGIN = 'http://localhost:3000';
const ANSWER_MS = 800;
const PAGE = '<!doctype html><html><head><title>Kettle</title></head><body><h1>Kettle</h1><span class="price">£19.99</span></body></html>';

/** Open trickles, each ended (with the rest of its page) when the test lets go of the shop; pages asked for after that come whole. */
const trickles = new Set<() => void>();
let trickling = true;
let shop: ReturnType<typeof Bun.serve>;

function trickle(): Response {
  let timer: ReturnType<typeof setInterval>;
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      const bytes = new TextEncoder().encode(PAGE);
      const finish = () => {
        clearInterval(timer);
        trickles.delete(finish);
        try {
          controller.enqueue(bytes.slice(sent));
          controller.close();
        } catch {
          /* the reader went away */
        }
      };
      trickles.add(finish);
      timer = setInterval(() => {
        try {
          controller.enqueue(bytes.slice(sent, ++sent));
        } catch {
          finish();
        }
      }, 1000);
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/html; charset=utf-8' } });
}

const letGo = () => {
  trickling = false;
  for (const finish of [...trickles]) finish();
};

let ctx: Awaited<ReturnType<typeof testContext>>;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  shop = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch(req) {
      const { pathname } = new URL(req.url);
      if (pathname.startsWith('/slow') && trickling) return trickle();
      return new Response(PAGE, { headers: { 'content-type': 'text/html; charset=utf-8' } });
    },
  });
  ctx = await testContext({ PUBLIC_URL: ORIGIN, CHECK_ALLOW_PRIVATE: 'true', ANSWER_WITHIN_MS: String(ANSWER_MS) });
  app = createApp(ctx);
}, SETUP_TIMEOUT);
afterAll(async () => {
  letGo();
  shop.stop(true);
  await ctx.close();
}, SETUP_TIMEOUT);

const post = (cookie: string, path: string, body?: unknown) =>
  app.handle(
    new Request(new URL(path, ORIGIN), {
      method: 'POST',
      headers: { cookie, origin: ORIGIN, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    }),
  );

/** Slow pages on one host, fast ones on another: fetches of one shop wait for each other by design. */
const slowUrl = (path: string) => `http://127.0.0.1:${shop.port}/slow${path}`;
const fastUrl = () => `http://localhost:${shop.port}/fast`;

async function addProduct(userId: string, url: string): Promise<string> {
  const productId = crypto.randomUUID();
  const { appended } = await handleCommand(ctx.store, productStream(productId), productDecider, {
    type: 'Add',
    productId,
    userId,
    details: { name: 'Kettle', url, selector: '.price', alertRule: { kind: 'none' } },
  });
  await ctx.projections.waitFor(checkpointOf({ transactionId: appended!.transactionId, position: appended!.lastPosition }), 30_000);
  return productId;
}

/** Waits until the product's stream holds `count` check results. */
async function checksRecorded(productId: string, count: number) {
  for (;;) {
    const { events } = await ctx.store.readStream(productStream(productId));
    if (events.filter((e) => e.type === 'PriceObserved' || e.type === 'PriceCheckFailed').length >= count) return;
    await Bun.sleep(25);
  }
}

describe('Check Now on a page that takes longer than the answer may', () => {
  test('answers in time with a timeout, refuses a check beyond the cap with 429, leaves other users be, and records every check', async () => {
    const heavy = await signInDemo(app, ORIGIN);
    const other = await signInDemo(app, ORIGIN);
    // More products than Free checks (the rest would pause).
    await startTrial(ctx, heavy.userId, 'starter');
    const slow = await Promise.all(Array.from({ length: CHECK_NOWS_PER_USER }, (_, i) => addProduct(heavy.userId, slowUrl(`/${i}`))));
    const heavyFast = await addProduct(heavy.userId, fastUrl());
    const otherFast = await addProduct(other.userId, fastUrl());

    const started = Date.now();
    const answers = await Promise.all(slow.map((id) => post(heavy.cookie, `/api/products/${id}/check-price`)));
    expect(Date.now() - started).toBeLessThan(ANSWER_MS + 5_000);
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ success: false, error: 'timeout', message: expect.stringContaining('goes on in the background') });
    }

    // Its checks are still running: one more is refused, and says why.
    const refused = await post(heavy.cookie, `/api/products/${heavyFast}/check-price`);
    expect(refused.status).toBe(429);
    expect((await refused.json()).message).toBe(`You have ${CHECK_NOWS_PER_USER} checks running already. Wait for one of them to finish, then try again.`);
    // Another user is not held back.
    const theirs = await post(other.cookie, `/api/products/${otherFast}/check-price`);
    expect(await theirs.json()).toMatchObject({ success: true, price: 19.99 });

    // Once the shop finishes its pages, the checks answered late are recorded, and the cap frees up.
    letGo();
    for (const id of slow) await checksRecorded(id, 1);
    const { events } = await ctx.store.readStream(productStream(slow[0]!));
    expect(events.find((e) => e.type === 'PriceObserved')?.data).toMatchObject({ price: 19.99 });
    let again: Response;
    // The cap is released when each check's work ends, just after its result is written.
    do again = await post(heavy.cookie, `/api/products/${heavyFast}/check-price`);
    while (again.status === 429);
    expect(await again.json()).toMatchObject({ success: true, price: 19.99 });
  });
});

describe('AI Detect on a page that takes longer than the answer may', () => {
  test('answers in time with a timeout, and refuses a detection beyond the cap with 429', async () => {
    trickling = true;
    const user = await signInDemo(app, ORIGIN);
    await startTrial(ctx, user.userId, 'starter');
    const answers = await Promise.all(
      Array.from({ length: DETECTS_PER_USER }, (_, i) => post(user.cookie, '/api/ai/detect-selector', { url: slowUrl(`/detect-${i}`) })),
    );
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ success: false, error: 'timeout', message: expect.stringContaining('did not give a price within') });
    }
    const refused = await post(user.cookie, '/api/ai/detect-selector', { url: fastUrl() });
    expect(refused.status).toBe(429);
    expect((await refused.json()).message).toBe(`You have ${DETECTS_PER_USER} detections running already. Wait for one of them to finish, then try again.`);
    // Once the pages are done, so are the detections, and the next one is taken.
    letGo();
    let again: Response;
    do again = await post(user.cookie, '/api/ai/detect-selector', { url: fastUrl() });
    while (again.status === 429);
    expect(await again.json()).toMatchObject({ success: true, selectors: [expect.objectContaining({ selector: '.price' })] });
  });
});
