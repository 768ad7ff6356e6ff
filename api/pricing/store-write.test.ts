import { afterAll, describe, expect, test } from 'bun:test';
import { useTestApp } from '../testing/app.ts';
import { productsApi } from '../testing/products-api.ts';
import { addProduct, observePrices } from '../testing/prices.ts';
import { startTrial } from '../testing/plans.ts';
import { startFakeStores } from '../catalogue/sources/fake-stores.ts';
import { ownProductStream } from '../../events/own-product.ts';
import type { RecommendationEntry } from './read-model.ts';

// The fake store is on loopback: private addresses are allowed here (never the metadata address).
const api = useTestApp({ CHECK_ALLOW_PRIVATE: 'true' });
const { send } = productsApi(api);
const store = startFakeStores({ products: 3, adminToken: 'shpat_right' });
afterAll(() => store.stop());
type User = Awaited<ReturnType<typeof api.signedIn>>;

async function json<T>(res: Response, status = 200): Promise<T> {
  const body = await res.text();
  expect({ status: res.status, body }).toMatchObject({ status });
  return JSON.parse(body) as T;
}

/** A user whose Shopify store is connected, with a rule on its first product and two cheaper competitors linked. */
async function ownerWithRule(token: string) {
  const user = await api.signedIn();
  await startTrial(api.ctx, user.userId, 'growth');
  const connected = await json<{ source: { id: string } }>(await send(user, 'POST', '/api/catalogue/sources', { kind: 'shopify', url: store.origin }), 201);
  const sourceId = connected.source.id;
  expect((await send(user, 'PUT', `/api/catalogue/sources/${sourceId}/write-access`, { token })).status).toBe(200);
  const entries = await json<{ id: string; price: number }[]>(await send(user, 'GET', '/api/catalogue'));
  const own = entries[0]!;
  for (const [host, factor] of [
    ['acme.example', 0.95],
    ['bravo.example', 0.97],
  ] as const) {
    const productId = await addProduct(api.ctx, user.userId, { name: host, url: `https://${host}/p` });
    await observePrices(api.ctx, productId, user.userId, [[Math.round(own.price * factor * 100) / 100, new Date()]]);
    await api.ctx.projections.catchUp();
    expect((await send(user, 'PUT', `/api/catalogue/${own.id}/competitors/${productId}`)).status).toBe(200);
  }
  await json(await send(user, 'PUT', `/api/catalogue/${own.id}/rule`, { strategy: 'match-cheapest', floor: { amount: 1 } }));
  return { user, sourceId, own };
}

const events = async (ownId: string) => (await api.ctx.store.readStream(ownProductStream(ownId))).events;

describe('applying a price writes it to the store', () => {
  test('with write access, the store takes the price, and the next read confirms it', async () => {
    const { user, sourceId, own } = await ownerWithRule('shpat_right');
    const applied = await json<RecommendationEntry>(await send(user, 'POST', `/api/catalogue/${own.id}/recommendation/apply`));
    const written = (await events(own.id)).find((e) => e.type === 'StorePriceWritten');
    expect(written?.data).toMatchObject({ sourceId, price: applied.decision!.price });
    expect(store.adminRequests.some((r) => r.method === 'PUT' && r.headers['x-shopify-access-token'] === 'shpat_right')).toBe(true);
    // Not yet read back: the store's answer is trusted only once a read shows it.
    expect(applied.store?.state).toBe('pending');

    expect((await json<{ success: boolean }>(await send(user, 'POST', `/api/catalogue/sources/${sourceId}/sync`))).success).toBe(true);
    const after = await json<{ store: { state: string } }>(await send(user, 'GET', `/api/catalogue/${own.id}/recommendation`));
    expect(after.store.state).toBe('confirmed');
  });

  test('a refused token is recorded with its reason, and the next read flags the price the store still shows', async () => {
    const { user, sourceId, own } = await ownerWithRule('shpat_wrong');
    const applied = await json<RecommendationEntry>(await send(user, 'POST', `/api/catalogue/${own.id}/recommendation/apply`));
    const failed = (await events(own.id)).find((e) => e.type === 'StorePriceWriteFailed');
    expect(failed?.data).toMatchObject({ sourceId, httpStatus: 401 });
    expect(applied.store).toMatchObject({ state: 'failed', message: expect.stringContaining('access token') });
    // The export still lists it, so it can be uploaded by hand.
    expect(await (await send(user, 'GET', '/api/catalogue/recommendations/export.csv')).text()).toContain(String(applied.decision!.price.toFixed(2)));

    await api.ctx.sql`DELETE FROM store_price_writes WHERE own_product_id = ${own.id}`;
    expect((await json<{ success: boolean }>(await send(user, 'POST', `/api/catalogue/sources/${sourceId}/sync`))).success).toBe(true);
    const after = await json<{ store: { state: string; storePrice: number } }>(await send(user, 'GET', `/api/catalogue/${own.id}/recommendation`));
    expect(after.store).toMatchObject({ state: 'differs', storePrice: own.price });
  });

  test('write access is the owner’s: another user’s source is 404, and it goes with the source', async () => {
    const { user, sourceId } = await ownerWithRule('shpat_right');
    const other: User = await api.signedIn();
    expect((await send(other, 'GET', `/api/catalogue/sources/${sourceId}/write-access`)).status).toBe(404);
    expect((await send(other, 'PUT', `/api/catalogue/sources/${sourceId}/write-access`, { token: 'shpat_x' })).status).toBe(404);
    expect(await json(await send(user, 'GET', `/api/catalogue/sources/${sourceId}/write-access`))).toMatchObject({ connected: true });
    expect((await send(user, 'DELETE', `/api/catalogue/sources/${sourceId}`)).status).toBe(200);
    expect(await api.ctx.sql`SELECT 1 FROM catalogue_source_access WHERE source_id = ${sourceId}`).toHaveLength(0);
  });
});
