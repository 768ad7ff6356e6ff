/**
 * A reused reading through the queue and the log: the first check reads the page and remembers
 * the observation it appended; the next claim carries it, the check records it again without
 * reading the page, and the log keeps it as a repeat of that observation. Check Now looks it up.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { testContext, SETUP_TIMEOUT } from '../testing/database.ts';
import { addProduct } from '../testing/prices.ts';
import type { Fetcher } from '../fetching/fetcher.ts';
import { checkPage, recordOutcomes } from './check.ts';
import { claimJobs, enqueueCheck } from './queue.ts';

let ctx: Awaited<ReturnType<typeof testContext>>;
beforeAll(async () => {
  ctx = await testContext();
}, SETUP_TIMEOUT);
afterAll(() => ctx.close());

const page = (price: string, token: string) =>
  `<html><head><meta name="csrf-token" content="${token}"><title>Grinder</title></head>` +
  `<body><h1>Grinder</h1><p class="price">£${price}</p><button>Add to basket</button></body></html>`;
const serving = (html: string): Fetcher => ({
  fetchPage: async (url) => ({ ok: true, url, status: 200, contentType: 'text/html', headers: {}, body: html, bytes: html.length, elapsedMs: 1 }),
});

async function checkFromQueue(productId: string, url: string, html: string) {
  await enqueueCheck(ctx.sql, productId, url);
  const [job] = await claimJobs(ctx.sql, { workerId: 'test', limit: 1 });
  expect(job?.productId).toBe(productId);
  const outcomes = await checkPage(ctx.config, url, [job!], serving(html), { sql: ctx.sql });
  await recordOutcomes(ctx, outcomes);
  return { job: job!, outcome: outcomes[0]! };
}

describe('a reused reading in the log', () => {
  test('the queue carries the last reading; an unchanged page is recorded as a repeat of its observation', async () => {
    const userId = crypto.randomUUID();
    const url = 'https://shop.example.com/grinder';
    const productId = await addProduct(ctx, userId, { url });
    await ctx.projections.catchUp();

    const first = await checkFromQueue(productId, url, page('149.00', 'a1b2c3'));
    expect(first.job.reading).toBeNull();
    expect(first.outcome.reused).toBeUndefined();
    // The observations appended whole, oldest first (the log reads repeats back too, each at its own time).
    const log = () =>
      ctx.sql<{ position: string; data: Record<string, unknown> }[]>`
        SELECT global_position AS position, data FROM events WHERE stream_id = ${`product-${productId}`} AND type = 'PriceObserved' ORDER BY global_position`;
    const [observation] = await log();
    expect(observation!.data).toMatchObject({ price: 149, source: 'selector' });

    // New tokens, same page: the claim brings the observation along, and nothing is read.
    const second = await checkFromQueue(productId, url, page('149.00', 'z9y8x7'));
    expect(second.job.reading?.observation).toEqual(observation!.data as never);
    expect(second.outcome.reused).toBe(true);
    expect(second.outcome.event.data).toMatchObject({ price: 149, pageHash: observation!.data.pageHash });
    const [{ repeats }] = await ctx.sql<
      { repeats: number }[]
    >`SELECT count(*)::int AS repeats FROM price_checks WHERE repeats = ${Number(observation!.position)}`;
    expect(repeats).toBe(1);
    expect(await log()).toHaveLength(1);

    // Check Now finds the same reading without a claim.
    const [now] = await checkPage(ctx.config, url, [{ productId, userId, url, selector: '.price', lease: null }], serving(page('149.00', 'q')), {
      sql: ctx.sql,
    });
    expect(now!.reused).toBe(true);

    // The page changes elsewhere and the price does not: read again and kept as a repeat. The next
    // check of those same bytes reuses the reading with the new page version, not the repeated one's.
    const elsewhere = page('149.00', 'e').replace('</body>', '<p>3 people are looking at this</p></body>');
    const changed = await checkFromQueue(productId, url, elsewhere);
    expect(changed.outcome.reused).toBeUndefined();
    const changedVersion = (changed.outcome.event.data as { pageHash: string }).pageHash;
    expect(changedVersion).not.toBe(observation!.data.pageHash);
    const same = await checkFromQueue(productId, url, elsewhere);
    expect(same.outcome.reused).toBe(true);
    expect(same.outcome.event.data).toMatchObject({ price: 149, pageHash: changedVersion });
    expect(await log()).toHaveLength(1);

    // A new price is read, appended whole, and becomes the reading the next check reuses.
    const third = await checkFromQueue(productId, url, page('139.00', 'k'));
    expect(third.outcome.reused).toBeUndefined();
    const observations = await log();
    expect(observations.map((e) => (e.data as { price: number }).price)).toEqual([149, 139]);
    const fourth = await checkFromQueue(productId, url, page('139.00', 'm'));
    expect(fourth.job.reading?.observation).toEqual(observations[1]!.data as never);
    expect(fourth.outcome.reused).toBe(true);
  });
});
