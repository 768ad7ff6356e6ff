/** What the check benchmarks share: seeding products, and worker processes of their own. */
import { loadConfig } from '../../api/config.ts';
import { createContext } from '../../api/create-context.ts';
import { openDatabase, transaction } from '../../db/index.ts';
import { PLANS } from '../../api/billing/plans.ts';
import { runWorker } from '../../api/checks/worker.ts';
import { productStream } from '../../events/product.ts';
import type { NewEvent } from '../../events/store.ts';

type Context = Awaited<ReturnType<typeof createContext>>;

/** Free users at their plan's limit, and their products, appended as events and projected. */
export async function seedProducts(ctx: Context, products: readonly { url: string; selector: string }[], prefix = 'bench'): Promise<void> {
  // A product beyond its user's plan would never be queued (api/products/beyond-plan.ts).
  const perUser = PLANS.free.maxProducts;
  const events: [string, NewEvent][] = [];
  for (let u = 0; u < Math.ceil(products.length / perUser); u++) {
    const userId = `${prefix}-user-${u}`;
    const email = `${userId}@example.com`;
    events.push([
      `user-${userId}`,
      { type: 'UserSignedUp', data: { userId, provider: 'demo', subject: email, email, firstName: null, lastName: null, profileImageUrl: null } },
    ]);
  }
  products.forEach(({ url, selector }, i) => {
    const productId = `${prefix}-product-${i}`;
    const userId = `${prefix}-user-${Math.floor(i / perUser)}`;
    events.push([
      productStream(productId),
      { type: 'ProductAdded', data: { productId, userId, name: `Product ${i}`, url, selector, alertRule: { kind: 'none' }, imageUrl: null } },
    ]);
  });
  for (let i = 0; i < events.length; i += 500) {
    await transaction(ctx.sql, (tx) => Promise.all(events.slice(i, i + 500).map(([stream, e]) => ctx.store.append(stream, 'no_stream', [e], tx))));
  }
  while ((await ctx.sql`SELECT count(*)::int AS n FROM products`)[0]!.n < products.length) {
    await ctx.projections.catchUp();
    await Bun.sleep(50);
  }
}

/** A worker process: checks what is due until SIGTERM, polling an empty queue every 20 ms. */
export async function workerProcess(url: string, concurrency: number): Promise<void> {
  const ctx = await createContext(loadConfig({ DATABASE_URL: url, CHECK_ALLOW_PRIVATE: 'true' }), { database: await openDatabase({ url, max: 4 }) });
  const stop = new AbortController();
  process.on('SIGTERM', () => stop.abort());
  console.log('ready');
  await runWorker(ctx, { concurrency, signal: stop.signal, idleMs: 20 });
  await ctx.close();
  process.exit(0);
}

/** Runs `script` with `args` in a process of its own, once it says it is ready (with what it said). */
export async function spawnReady(script: string, args: string[]): Promise<{ proc: Bun.Subprocess; said: string }> {
  const profile = process.env.BENCH_PROFILE && args[0] === '--worker' ? ['--cpu-prof-md', '--cpu-prof-dir=/tmp/prof'] : [];
  const proc = Bun.spawn([process.execPath, ...profile, script, ...args], { stdout: 'pipe', stderr: 'inherit' });
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  let said = '';
  while (!said.includes('ready')) {
    const chunk = await reader.read();
    if (chunk.done) throw new Error(`${args[0]} exited before it was ready`);
    said += new TextDecoder().decode(chunk.value);
  }
  reader.releaseLock();
  return { proc, said };
}

/**
 * The floor a check is measured against: one HTMLRewriter pass with handlers on the price
 * selector, the JSON-LD scripts and the price meta tags (without the selector where lol-html
 * cannot run it). Answers how many characters the handlers saw.
 */
export function floorPass(html: string, selector: string): number {
  const pass = (withSelector: boolean) => {
    let seen = 0;
    const rewriter = new HTMLRewriter()
      .on('script[type="application/ld+json"]', { text: (t) => void (seen += t.text.length) })
      .on('meta[itemprop], meta[property^="og:"], meta[property^="product:"]', { element: (e) => void (seen += e.getAttribute('content')?.length ?? 0) });
    if (withSelector) rewriter.on(selector, { text: (t) => void (seen += t.text.length) });
    rewriter.transform(html);
    return seen;
  };
  try {
    return pass(true);
  } catch {
    return pass(false);
  }
}
