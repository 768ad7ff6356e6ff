import { expect } from 'bun:test';
import { handleProductCommand, type ProductCommand } from '../../events/product.ts';
import type { Availability } from '../../events/catalogue.ts';
import type { ProductItem } from '../products/read-model.ts';
import type { SignedIn, useTestApp } from './app.ts';

/** The products API as the products tests call it, on the app of useTestApp(). */
export function productsApi(api: ReturnType<typeof useTestApp>) {
  const send = (user: SignedIn | null, method: string, path: string, body?: unknown, raw?: { text: string; type: string }) =>
    api.request(path, {
      method,
      headers: {
        ...(user ? { cookie: user.cookie } : {}),
        origin: api.origin,
        ...(body !== undefined || raw ? { 'content-type': raw?.type ?? 'application/json' } : {}),
      },
      body: raw ? raw.text : body === undefined ? undefined : JSON.stringify(body),
    });

  const list = async (user: SignedIn): Promise<ProductItem[]> => {
    const res = await send(user, 'GET', '/api/products');
    expect(res.status).toBe(200);
    return res.json();
  };

  async function add(user: SignedIn, body: Record<string, unknown> = kettle): Promise<ProductItem> {
    const res = await send(user, 'POST', '/api/products', body);
    expect(res.status).toBe(201);
    return res.json();
  }

  const eventCount = async () => Number((await api.ctx.sql`SELECT count(*) AS n FROM events`)[0]!.n);

  /** What the price-check worker does with a result: a command on the product, then the read models catch up. */
  async function record(command: ProductCommand) {
    const { appended } = await handleProductCommand(api.ctx.store, command);
    await api.ctx.projections.waitFor({ transactionId: appended!.transactionId, position: appended!.lastPosition });
  }

  return { send, list, add, eventCount, record };
}

export const kettle = { name: 'Steel kettle', url: 'https://shop.example/kettle', selector: '.price', threshold: '-10' };
/** The same product as the edit dialog sends it: the threshold is a number. */
export const kettleEdit = { ...kettle, threshold: 10 };
/** Another page of the shop: a user tracks each page once. */
export const page = (name: string, extra: Record<string, unknown> = {}) => ({ ...kettle, name, url: `https://shop.example/${name}`, ...extra });

export const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();
export const observed = (
  productId: string,
  price: number,
  observedAt = new Date().toISOString(),
  availability: Availability | null = null,
): ProductCommand => ({
  type: 'RecordObservation',
  productId,
  observation: {
    price,
    currency: 'GBP',
    source: 'json-ld',
    selector: null,
    identifiers: null,
    matchedText: `£${price}`,
    url: kettle.url,
    httpStatus: 200,
    pageHash: 'h',
    observedAt,
    availability,
    fetcher: 'static',
  },
});
export const failed = (
  productId: string,
  reason = 'The price element was not found on the page.',
  availability: Availability | null = null,
): ProductCommand => ({
  type: 'RecordFailure',
  productId,
  failure: { code: 'selector_no_match', reason, httpStatus: 200, url: kettle.url, attemptedAt: new Date().toISOString(), availability },
});
