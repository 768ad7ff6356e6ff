import { Elysia } from 'elysia';
import type { AppContext } from '../context.ts';
import { authentication } from '../auth/plugin.ts';
import { idOf } from '../http/ids.ts';
import { createUserCache } from '../http/user-cache.ts';
import { handleProductCommand, PRODUCT_NOT_FOUND, type ProductCommand } from '../../events/product.ts';
import type { AppendResult } from '../../events/store.ts';
import type { Sql } from '../../db/index.ts';
import { AddProductBody, assertCheckableUrl, EditProductBody, UpdatePriceBody } from './schemas.ts';
import { assertBelowProductLimit, withUserProducts } from './limit.ts';
import { assertPageNotTracked } from './same-page.ts';
import { readProduct, readProducts } from './read-model.ts';
import { checkSoon } from '../checks/queue.ts';
import { editNeedsCheck } from './recheck.ts';
import { readSettings } from '../settings/routes.ts';

const productIdOf = (id: string) => idOf(id, PRODUCT_NOT_FOUND);

/** GET, POST /api/products; PUT, DELETE /api/products/:id; POST /api/products/:id/update-price (docs/product.md#products). */
export function productsRoutes(ctx: AppContext) {
  /** Runs a command and waits until the read models show it, so the next GET sees the change. */
  async function run(command: ProductCommand, tx?: Sql) {
    const result = await handleProductCommand(ctx.store, command, { tx });
    return result.appended;
  }
  async function caughtUp(appended: AppendResult | null) {
    if (appended) await ctx.projections.waitFor({ transactionId: appended.transactionId, position: appended.lastPosition });
  }

  // The list is reused until an event about the user's products arrives (or the 24h window moves on).
  const cached = createUserCache(ctx.sql);

  return new Elysia({ prefix: '/api/products' })
    .use(authentication(ctx))
    .get('/', ({ request, userId }) => cached(request, userId, 'products', () => readProducts(ctx.sql, userId)), { signedIn: true })

    .post(
      '/',
      async ({ userId, body, set }) => {
        assertCheckableUrl(ctx.config, body.url);
        const productId = crypto.randomUUID();
        const { threshold: alertRule, ...details } = body;
        const appended = await withUserProducts(ctx.sql, userId, async (tx) => {
          await assertPageNotTracked(tx, userId, body.url);
          await assertBelowProductLimit(tx, userId);
          return run({ type: 'Add', productId, userId, details: { ...details, alertRule } }, tx);
        });
        await caughtUp(appended);
        await checkSoon(ctx.sql, { productId, userId, url: body.url });
        set.status = 201;
        return (await readProduct(ctx.sql, userId, productId)) ?? { id: productId };
      },
      { signedIn: true, body: AddProductBody },
    )

    .put(
      '/:id',
      async ({ userId, body, params }) => {
        const productId = productIdOf(params.id);
        assertCheckableUrl(ctx.config, body.url);
        const { threshold: alertRule, ...details } = body;
        const { appended, recheck } = await withUserProducts(ctx.sql, userId, async (tx) => {
          const before = await assertPageNotTracked(tx, userId, body.url, productId);
          // A new address or selector is checked at once, as a new product is.
          return {
            appended: await run({ type: 'Edit', productId, userId, details: { ...details, alertRule } }, tx),
            recheck: !before || editNeedsCheck(before, body),
          };
        });
        await caughtUp(appended);
        const saved = await readProduct(ctx.sql, userId, productId);
        // A product beyond the plan stays paused at its new address too.
        if (appended && recheck && !saved?.checksPaused) await checkSoon(ctx.sql, { productId, userId, url: body.url });
        return saved ?? { id: productId };
      },
      { signedIn: true, body: EditProductBody },
    )

    .delete(
      '/:id',
      async ({ userId, params }) => {
        const productId = productIdOf(params.id);
        await caughtUp(await run({ type: 'Remove', productId, userId }));
        return { success: true, id: productId };
      },
      { signedIn: true },
    )

    .post(
      '/:id/update-price',
      async ({ userId, body, params }) => {
        const productId = productIdOf(params.id);
        const currency = (await readProduct(ctx.sql, userId, productId))?.currency ?? (await readSettings(ctx.sql, userId)).currency;
        await caughtUp(await run({ type: 'SetPriceManually', productId, userId, price: body.price, currency }));
        return { price: body.price, currency };
      },
      { signedIn: true, body: UpdatePriceBody },
    );
}
