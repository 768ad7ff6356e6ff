import type { AppContext } from '../context.ts';
import type { Availability } from '../../events/catalogue.ts';

/**
 * Product and price events for tests and benchmarks, appended as the product commands and the
 * price-check worker would append them.
 */
export async function addProduct(ctx: Pick<AppContext, 'store'>, userId: string, opts: { name?: string; url?: string; imageUrl?: string | null } = {}) {
  const productId = crypto.randomUUID();
  await ctx.store.append(`product-${productId}`, 'no_stream', [
    {
      type: 'ProductAdded',
      data: {
        productId,
        userId,
        name: opts.name ?? `Product ${productId.slice(0, 6)}`,
        url: opts.url ?? `https://shop.example.com/p/${productId.slice(0, 6)}`,
        selector: '.price',
        alertRule: { kind: 'any' },
        imageUrl: opts.imageUrl ?? null,
      },
    },
  ]);
  return productId;
}

export const observed = (productId: string, userId: string, price: number, at: Date, availability: Availability | null = null) => ({
  type: 'PriceObserved' as const,
  data: {
    productId,
    userId,
    price,
    currency: 'GBP',
    source: 'selector' as const,
    selector: '.price',
    matchedText: `£${price.toFixed(2)}`,
    url: 'https://shop.example.com/p',
    httpStatus: 200,
    pageHash: 'test',
    observedAt: at.toISOString(),
    availability,
  },
});

/** Appends observed prices in time order, in batches (one transaction each). */
export async function observePrices(
  ctx: Pick<AppContext, 'store'>,
  productId: string,
  userId: string,
  prices: readonly (readonly [price: number, at: Date])[],
  batch = 1000,
) {
  for (let i = 0; i < prices.length; i += batch) {
    await ctx.store.append(
      `product-${productId}`,
      'any',
      prices.slice(i, i + batch).map(([price, at]) => observed(productId, userId, price, at)),
    );
  }
}

export async function failCheck(ctx: Pick<AppContext, 'store'>, productId: string, userId: string, at: Date, availability: Availability | null = null) {
  return ctx.store.append(`product-${productId}`, 'any', [
    {
      type: 'PriceCheckFailed',
      data:
        availability === null
          ? {
              productId,
              userId,
              code: 'timeout',
              reason: 'The page did not answer in time.',
              httpStatus: null,
              url: 'https://shop.example.com/p',
              attemptedAt: at.toISOString(),
              availability,
            }
          : {
              productId,
              userId,
              code: 'no-price',
              reason: 'No price found on the page.',
              httpStatus: 200,
              url: 'https://shop.example.com/p',
              attemptedAt: at.toISOString(),
              availability,
            },
    },
  ]);
}
