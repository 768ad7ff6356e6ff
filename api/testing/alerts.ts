import type { AppContext } from '../context.ts';
import type { createApp } from '../server.ts';
import { observed } from './prices.ts';
import type { Availability } from '../../events/catalogue.ts';
import { signInDemo } from './sign-in.ts';

/** Helpers for the alert tests and benchmark: sign in, add products, observe prices, settle. */

export const ORIGIN = 'http://localhost:3000';

export function client(app: ReturnType<typeof createApp>) {
  const request = (path: string, init: RequestInit & { cookie?: string } = {}) => {
    const headers = new Headers(init.headers);
    if (init.cookie) headers.set('cookie', init.cookie);
    if (init.method && init.method !== 'GET') headers.set('origin', ORIGIN);
    if (init.body) headers.set('content-type', 'application/json');
    return app.handle(new Request(new URL(path, ORIGIN), { ...init, headers }));
  };

  const signIn = (email?: string) => signInDemo(app, ORIGIN, email);

  async function addProduct(cookie: string, opts: { name?: string; threshold?: string | null; url?: string; stockAlerts?: boolean } = {}) {
    const res = await request('/api/products', {
      method: 'POST',
      cookie,
      body: JSON.stringify({
        name: opts.name ?? 'Kettle',
        url: opts.url ?? 'https://shop.example.com/kettle',
        selector: '.price',
        threshold: opts.threshold ?? 'any',
        ...(opts.stockAlerts === undefined ? {} : { stockAlerts: opts.stockAlerts }),
      }),
    });
    if (res.status !== 201) throw new Error(`adding a product answered ${res.status}: ${await res.text()}`);
    return (await res.json()).id as string;
  }

  return { request, signIn, addProduct };
}

/** A price seen by a check, appended as the worker appends it. */
export async function observe(
  ctx: Pick<AppContext, 'store'>,
  productId: string,
  userId: string,
  price: number,
  at = new Date(),
  availability: Availability | null = null,
) {
  return ctx.store.append(`product-${productId}`, 'any', [observed(productId, userId, price, at, availability)]);
}

/**
 * Runs the reactors and the projections until both have every event of the log, the alerts they
 * raise included. Waits rather than assumes: on a shared PostgreSQL server another database's
 * open transaction can hold catch-up readers back for a while.
 */
export async function settle(ctx: Pick<AppContext, 'sql' | 'store' | 'reactors' | 'projections'>, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await ctx.reactors.catchUp();
    await ctx.projections.catchUp();
    const last = await ctx.store.head();
    const [row] = await ctx.sql<{ done: boolean }[]>`
      SELECT coalesce(bool_and((c.transaction_id, c.position) >= (${last.transactionId}::xid8, ${last.position}::bigint)), true) AS done
      FROM (SELECT transaction_id, position FROM projection_checkpoints UNION ALL SELECT transaction_id, position FROM reactor_checkpoints) c`;
    if (!row || row.done) return;
    if (Date.now() > deadline) throw new Error('The reactors and projections did not catch up in time');
    await Bun.sleep(20);
  }
}
