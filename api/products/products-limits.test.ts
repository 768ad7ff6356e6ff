import { describe, expect, test } from 'bun:test';
import { usingPostgresServer } from '../testing/database.ts';
import { useTestApp } from '../testing/app.ts';
import { kettle, page, productsApi } from '../testing/products-api.ts';

// The products API's limits: one product per page, and the plan's number of products, also under concurrent requests.

const api = useTestApp({ PUBLIC_URL: 'http://localhost:3000' });
const { signedIn } = api;
const { send, list, add, eventCount } = productsApi(api);

describe('products API: one product per page', () => {
  test('adding a page the user already tracks, however its address is written, answers 409 naming the product and records nothing', async () => {
    const user = await signedIn();
    await add(user, page('Kettle', { url: 'https://shop.example/kettle?size=2' }));
    const before = await eventCount();
    for (const url of ['HTTPS://Shop.Example:443/kettle?size=2#reviews', 'https://shop.example/kettle?utm_source=mail&size=2&gclid=x&fbclid=y']) {
      const res = await send(user, 'POST', '/api/products', page('Again', { url }));
      expect(res.status).toBe(409);
      expect(await res.json()).toEqual({ message: 'You already track this page: Kettle', field: 'url' });
    }
    expect(await eventCount()).toBe(before);
    // Other parameters name other pages (a variant), and a path's trailing slash is kept.
    await add(user, page('Size 3', { url: 'https://shop.example/kettle?size=3' }));
    await add(user, page('Slash', { url: 'https://shop.example/kettle/?size=2' }));
  });

  test('another user may track the same page', async () => {
    await add(await signedIn(), page('Mine', { url: 'https://shop.example/shared' }));
    await add(await signedIn(), page('Theirs', { url: 'https://shop.example/shared' }));
  });

  test('the name is the current one; a removed product frees its page', async () => {
    const user = await signedIn();
    const { id } = await add(user, page('Old name'));
    await send(user, 'PUT', `/api/products/${id}`, page('Old name', { name: 'New name', threshold: 10 }));
    expect(await (await send(user, 'POST', '/api/products', page('Old name'))).json()).toMatchObject({ message: 'You already track this page: New name' });
    await send(user, 'DELETE', `/api/products/${id}`);
    await add(user, page('Old name'));
  });

  test("editing to another product's page answers 409 and changes nothing; a product keeps its own page", async () => {
    const user = await signedIn();
    const kettle = await add(user, page('Kettle'));
    const toaster = await add(user, page('Toaster'));
    const before = await eventCount();
    const res = await send(user, 'PUT', `/api/products/${toaster.id}`, page('Toaster', { url: `${kettle.url}#top`, threshold: 10 }));
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({ message: 'You already track this page: Kettle', field: 'url' });
    expect(await eventCount()).toBe(before);
    expect((await list(user)).find((p) => p.id === toaster.id)!.url).toBe(toaster.url);
    const own = await send(user, 'PUT', `/api/products/${kettle.id}`, page('Kettle', { name: 'Kettle 2', url: `${kettle.url}?utm_source=x`, threshold: 10 }));
    expect(own.status).toBe(200);
  });

  test("another user's product is not found, even at a page the caller tracks", async () => {
    const owner = await signedIn(),
      other = await signedIn();
    const theirs = await add(owner, page('Theirs'));
    await add(other, page('Mine'));
    const res = await send(other, 'PUT', `/api/products/${theirs.id}`, page('Mine', { threshold: 10 }));
    expect(res.status).toBe(404);
  });
});

describe.skipIf(!usingPostgresServer())('products API: one product per page under concurrent requests (real PostgreSQL)', () => {
  test('10 simultaneous adds of the same page: exactly one succeeds, several rounds', async () => {
    for (let round = 0; round < 3; round++) {
      const user = await signedIn();
      await api.ctx.sql`UPDATE users SET plan = 'pro' WHERE id = ${user.userId}`;
      const statuses = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          send(user, 'POST', '/api/products', page(`Same ${i}`, { url: i % 2 ? 'https://shop.example/same' : 'https://SHOP.example/same#x' })).then(
            (r) => r.status,
          ),
        ),
      );
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409)).toHaveLength(9);
      expect(await list(user)).toHaveLength(1);
    }
  });

  test('an add and an edit to the same page at once: one of them wins', async () => {
    const user = await signedIn();
    const { id } = await add(user, page('Edited'));
    const [added, edited] = await Promise.all([
      send(user, 'POST', '/api/products', page('Added', { url: 'https://shop.example/contested' })),
      send(user, 'PUT', `/api/products/${id}`, page('Edited', { url: 'https://shop.example/contested', threshold: 10 })),
    ]);
    expect([201, 409]).toContain(added.status);
    expect([200, 409]).toContain(edited.status);
    expect(Number(added.status === 201) + Number(edited.status === 200)).toBe(1);
    expect((await list(user)).filter((p) => p.url === 'https://shop.example/contested')).toHaveLength(1);
  });

  test('the address check uses the index on the log', async () => {
    const plan = (await api.ctx.sql`EXPLAIN SELECT * FROM events WHERE data->>'userId' = 'x' AND type IN ('ProductAdded', 'ProductEdited', 'ProductRemoved')`)
      .map((r) => r['QUERY PLAN'])
      .join('\n');
    // Each month's partition has its copy of the index, named after it (events_2026_11_product_details_by_user).
    expect(plan).toContain('_product_details_by_user');
    expect(plan).not.toContain('Seq Scan');
  });
});

describe('products API: plan limits', () => {
  test('the free plan allows 3 products: the fourth add answers 403 with the message the screen shows', async () => {
    const user = await signedIn();
    for (let i = 0; i < 3; i++) await add(user, page(`P${i}`));
    const before = await eventCount();
    const res = await send(user, 'POST', '/api/products', kettle);
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual({ message: 'Your Free plan allows 3 products. Upgrade your plan to add more.' });
    expect(await eventCount()).toBe(before);
    expect(await list(user)).toHaveLength(3);
  });

  test('deleting a product makes room for another', async () => {
    const user = await signedIn();
    const products = [];
    for (let i = 0; i < 3; i++) products.push(await add(user, page(`P${i}`)));
    await send(user, 'DELETE', `/api/products/${products[0]!.id}`);
    await add(user);
    expect((await send(user, 'POST', '/api/products', page('P3'))).status).toBe(403);
  });

  test('the subscription plan counts over the account plan; unlimited pro', async () => {
    const user = await signedIn();
    await api.ctx.sql`UPDATE users SET plan = 'free', subscription_plan = 'pro' WHERE id = ${user.userId}`;
    for (let i = 0; i < 30; i++) await add(user, page(`P${i}`));
    expect(await list(user)).toHaveLength(30);
  });

  test('a downgraded user keeps every product but cannot add more until below the new limit', async () => {
    const user = await signedIn();
    await api.ctx.sql`UPDATE users SET subscription_plan = 'starter' WHERE id = ${user.userId}`;
    const products = [];
    for (let i = 0; i < 5; i++) products.push(await add(user, page(`P${i}`)));
    await api.ctx.sql`UPDATE users SET subscription_plan = NULL WHERE id = ${user.userId}`;
    expect(await list(user)).toHaveLength(5);
    const edit = await send(user, 'PUT', `/api/products/${products[0]!.id}`, page('P0', { name: 'Still mine', threshold: 10 }));
    expect(edit.status).toBe(200);
    expect((await send(user, 'POST', '/api/products', kettle)).status).toBe(403);
    await send(user, 'DELETE', `/api/products/${products[0]!.id}`);
    await send(user, 'DELETE', `/api/products/${products[1]!.id}`);
    expect((await send(user, 'POST', '/api/products', kettle)).status).toBe(403); // 3 left: still at the limit
    await send(user, 'DELETE', `/api/products/${products[2]!.id}`);
    await add(user);
    const starter = await signedIn();
    await api.ctx.sql`UPDATE users SET plan = 'starter' WHERE id = ${starter.userId}`;
    for (let i = 0; i < 25; i++) await add(starter, page(`S${i}`));
    expect(await send(starter, 'POST', '/api/products', kettle).then((r) => r.json())).toEqual({
      message: 'Your Starter plan allows 25 products. Upgrade your plan to add more.',
    });
  });
});

describe.skipIf(!usingPostgresServer())('products API: plan limit under concurrent adds (real PostgreSQL)', () => {
  const addedBy = async (userId: string) =>
    Number((await api.ctx.sql`SELECT count(*) AS n FROM events WHERE type = 'ProductAdded' AND data->>'userId' = ${userId}`)[0]!.n);

  test('10 concurrent adds by a new free user: exactly 3 succeed', async () => {
    const user = await signedIn();
    const statuses = await Promise.all(Array.from({ length: 10 }, (_, i) => send(user, 'POST', '/api/products', page(`C${i}`)).then((r) => r.status)));
    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    expect(statuses.filter((s) => s === 403)).toHaveLength(7);
    expect(await addedBy(user.userId)).toBe(3);
    expect(await list(user)).toHaveLength(3);
  });

  test('10 concurrent adds one below the limit: exactly 1 succeeds, several rounds', async () => {
    for (let round = 0; round < 5; round++) {
      const user = await signedIn();
      await add(user);
      await add(user, page('Second'));
      const statuses = await Promise.all(Array.from({ length: 10 }, (_, i) => send(user, 'POST', '/api/products', page(`C${i}`)).then((r) => r.status)));
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(await addedBy(user.userId)).toBe(3);
    }
  });

  test('concurrent adds and deletes never leave more products than the plan allows', async () => {
    const user = await signedIn();
    const first = [await add(user, page('A')), await add(user, page('B')), await add(user, page('C'))];
    await Promise.all([
      ...first.map((p) => send(user, 'DELETE', `/api/products/${p.id}`)),
      ...Array.from({ length: 10 }, (_, i) => send(user, 'POST', '/api/products', page(`N${i}`))),
    ]);
    expect((await list(user)).length).toBeLessThanOrEqual(3);
    const live = Number(
      (
        await api.ctx.sql`
      SELECT count(*) FILTER (WHERE type = 'ProductAdded') - count(*) FILTER (WHERE type = 'ProductRemoved') AS n
      FROM events WHERE data->>'userId' = ${user.userId}`
      )[0]!.n,
    );
    expect(live).toBe((await list(user)).length);
  });

  test('the limit count uses the index on the log', async () => {
    const plan = (await api.ctx.sql`EXPLAIN SELECT count(*) FROM events WHERE data->>'userId' = 'x' AND type IN ('ProductAdded', 'ProductRemoved')`)
      .map((r) => r['QUERY PLAN'])
      .join('\n');
    expect(plan).toContain('_product_lifecycle_by_user');
    expect(plan).not.toContain('Seq Scan');
  });
});
