import { describe, expect, test } from 'bun:test';
import { handleProductCommand, type ProductCommand } from '../../events/product.ts';
import type { Availability } from '../../events/catalogue.ts';
import { productsProjection } from '../../projections/products.ts';
import { alertsProjection } from '../../projections/alerts.ts';
import { transaction } from '../../db/index.ts';
import { useTestApp } from '../testing/app.ts';
import { failed, hoursAgo, kettle, observed, page, productsApi } from '../testing/products-api.ts';

// The products API's prices (typed in, observed, failed checks, availability) and the products projection behind them.

const api = useTestApp({ PUBLIC_URL: 'http://localhost:3000' });
const { signedIn } = api;
const { send, list, add, record } = productsApi(api);

describe('products API: prices', () => {
  test('update-price sets the current price, a price point and, when it differs, a price change', async () => {
    const user = await signedIn();
    const { id } = await add(user);
    const res = await send(user, 'POST', `/api/products/${id}/update-price`, { price: '12.50' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ price: 12.5, currency: 'GBP' });
    let [product] = await list(user);
    expect(product).toMatchObject({ currentPrice: 12.5, currency: 'GBP', lastChecked: expect.any(String), changePercent: 0, lastCheckStatus: null });

    expect(await (await send(user, 'POST', `/api/products/${id}/update-price`, { price: ' 10 ' })).json()).toEqual({ price: 10, currency: 'GBP' });
    expect(await (await send(user, 'POST', `/api/products/${id}/update-price`, { price: 10 })).json()).toEqual({ price: 10, currency: 'GBP' });
    [product] = await list(user);
    expect(product!.currentPrice).toBe(10);
    expect(product!.changePercent).toBe(-20); // against the product's first price, set within the last 24 hours

    const points = await api.ctx.sql`SELECT price, currency, source, user_id FROM price_points WHERE product_id = ${id} ORDER BY event_position`;
    expect(points.map((p) => ({ ...p }))).toEqual([12.5, 10, 10].map((price) => ({ price, currency: 'GBP', source: 'manual', user_id: user.userId })));
    const changes = await api.ctx.sql`SELECT previous_price, current_price, change_percent, user_id FROM price_changes WHERE product_id = ${id}`;
    expect(changes.map((c) => ({ ...c }))).toEqual([{ previous_price: 12.5, current_price: 10, change_percent: -20, user_id: user.userId }]);
  });

  test("a price typed in is in the product's currency, else in the user's currency setting", async () => {
    const user = await signedIn();
    const settings = {
      emailNotifications: true,
      priceDropAlerts: true,
      weeklyReports: false,
      checkFrequency: 'daily',
      currency: 'USD',
      timezone: 'America/New_York',
    };
    expect((await send(user, 'PUT', '/api/settings', settings)).status).toBe(200);
    const { id: unpriced } = await add(user, page('Unpriced'));
    expect(await (await send(user, 'POST', `/api/products/${unpriced}/update-price`, { price: '.5' })).json()).toEqual({ price: 0.5, currency: 'USD' });
    const { id: euro } = await add(user, page('Euro'));
    await record({ ...observed(euro, 10), observation: { ...(observed(euro, 10) as any).observation, currency: 'EUR' } } as ProductCommand);
    expect(await (await send(user, 'POST', `/api/products/${euro}/update-price`, { price: '9.99' })).json()).toEqual({ price: 9.99, currency: 'EUR' });
    const points = await api.ctx
      .sql`SELECT product_id, price, currency FROM price_points WHERE source = 'manual' AND user_id = ${user.userId} ORDER BY event_position`;
    expect(points.map((p) => ({ ...p }))).toEqual([
      { product_id: unpriced, price: 0.5, currency: 'USD' },
      { product_id: euro, price: 9.99, currency: 'EUR' },
    ]);
    expect(Object.fromEntries((await list(user)).map((p) => [p.name, p.currency]))).toEqual({ Unpriced: 'USD', Euro: 'EUR' });
  });

  test('check status: pending until the first check; a failing product says so and why, and keeps its last good price and its date', async () => {
    const user = await signedIn();
    const { id } = await add(user);
    expect((await list(user))[0]).toMatchObject({ checkStatus: 'pending', lastFailure: null, currentPrice: null, lastPriceAt: null, priceSource: null });

    const pricedAt = hoursAgo(2);
    await record(observed(id, 25, pricedAt));
    expect((await list(user))[0]).toMatchObject({
      checkStatus: 'ok',
      lastFailure: null,
      currentPrice: 25,
      lastPriceAt: pricedAt,
      priceSource: 'structured-data',
    });

    const failedCheck = failed(id, 'The shop took too long to answer.');
    await record(failedCheck);
    const firstFailure = (failedCheck as Extract<ProductCommand, { type: 'RecordFailure' }>).failure.attemptedAt;
    expect((await list(user))[0]).toMatchObject({
      checkStatus: 'failing',
      currentPrice: 25,
      lastPriceAt: pricedAt,
      priceSource: 'structured-data',
      lastFailure: { code: 'selector_no_match', message: 'The shop took too long to answer.', at: firstFailure },
    });
    // The last failure since the last success.
    const blockedAt = new Date().toISOString();
    await record({
      type: 'RecordFailure',
      productId: id,
      failure: {
        code: 'blocked',
        reason: 'The shop refused the check (Cloudflare).',
        httpStatus: 403,
        url: kettle.url,
        attemptedAt: blockedAt,
        availability: null,
      },
    });
    expect((await list(user))[0]).toMatchObject({
      checkStatus: 'failing',
      currentPrice: 25,
      lastPriceAt: pricedAt,
      lastFailure: { code: 'blocked', message: 'The shop refused the check (Cloudflare).', at: blockedAt },
    });

    // A price typed in is the current price, but says nothing about checks.
    await send(user, 'POST', `/api/products/${id}/update-price`, { price: '24' });
    expect((await list(user))[0]).toMatchObject({ checkStatus: 'failing', lastFailure: { code: 'blocked' }, currentPrice: 24, priceSource: 'manual' });

    await record({
      type: 'RecordObservation',
      productId: id,
      observation: { ...(observed(id, 23) as any).observation, source: 'selector', selector: '.price' },
    });
    expect((await list(user))[0]).toMatchObject({ checkStatus: 'ok', lastFailure: null, currentPrice: 23, priceSource: 'selector' });
  });

  test("currency: the page's, else the user's currency setting", async () => {
    const user = await signedIn();
    const { id: stated } = await add(user, page('Stated'));
    const { id: unstated } = await add(user, page('Unstated'));
    await record(observed(stated, 10));
    await record({ ...observed(unstated, 10), observation: { ...(observed(unstated, 10) as any).observation, currency: null } } as ProductCommand);
    const currencies = async () => Object.fromEntries((await list(user)).map((p) => [p.name, p.currency]));
    expect(await currencies()).toEqual({ Stated: 'GBP', Unstated: 'GBP' });
    const settings = {
      emailNotifications: true,
      priceDropAlerts: true,
      weeklyReports: false,
      checkFrequency: 'daily',
      currency: 'USD',
      timezone: 'America/New_York',
    };
    expect((await send(user, 'PUT', '/api/settings', settings)).status).toBe(200);
    expect(await currencies()).toEqual({ Stated: 'GBP', Unstated: 'USD' });
  });

  test('24h change compares with the price in effect 24 hours ago', async () => {
    const user = await signedIn();
    const { id } = await add(user);
    await record(observed(id, 100, hoursAgo(30)));
    await record(observed(id, 90, hoursAgo(25)));
    await record(observed(id, 110, hoursAgo(10)));
    await record(observed(id, 99));
    const [product] = await list(user);
    expect(product).toMatchObject({ currentPrice: 99, changePercent: 10, lastCheckStatus: 'ok', isActive: true });
    const changes = await api.ctx.sql`SELECT change_percent FROM price_changes WHERE product_id = ${id} ORDER BY event_position`;
    expect(changes.map((c) => c.change_percent)).toEqual([-10, 22.2222, -10]);
  });

  test('a price older than 24 hours and nothing since: no change', async () => {
    const user = await signedIn();
    const { id } = await add(user);
    await record(observed(id, 40, hoursAgo(48)));
    expect((await list(user))[0]).toMatchObject({ currentPrice: 40, changePercent: 0 });
  });

  test('failed checks keep the last good price; three in a row make the product inactive until the next success', async () => {
    const user = await signedIn();
    const { id } = await add(user);
    await record({
      ...observed(id, 25),
      observation: { ...(observed(id, 25) as any).observation, imageUrl: 'https://shop.example/k.jpg', currency: null },
    } as ProductCommand);
    await record(failed(id));
    await record(failed(id));
    let [product] = await list(user);
    expect(product).toMatchObject({
      currentPrice: 25,
      imageUrl: 'https://shop.example/k.jpg',
      isActive: true,
      lastCheckStatus: 'failed',
      lastCheckError: 'The price element was not found on the page.',
    });
    await record(failed(id, 'The shop took too long to answer.'));
    [product] = await list(user);
    expect(product).toMatchObject({ currentPrice: 25, isActive: false, lastCheckStatus: 'failed', lastCheckError: 'The shop took too long to answer.' });
    await record(observed(id, 26));
    [product] = await list(user);
    expect(product).toMatchObject({ currentPrice: 26, currency: 'GBP', isActive: true, lastCheckStatus: 'ok', lastCheckError: null });
    const [{ n }] = (await api.ctx.sql`SELECT count(*)::int AS n FROM price_points WHERE product_id = ${id}`) as any;
    expect(n).toBe(2);
  });

  test('availability: the last one a page stated, from observations and from failed checks; a page that says nothing keeps it', async () => {
    const user = await signedIn();
    const { id } = await add(user);
    const availability = async () => (await list(user)).find((p) => p.id === id)!.availability;
    await record(observed(id, 20));
    expect(await availability()).toBeNull();
    await record(observed(id, 20, undefined, 'InStock'));
    expect(await availability()).toBe('InStock');
    await record(failed(id, 'No price found on the page.', 'OutOfStock'));
    let [product] = await list(user);
    expect(product).toMatchObject({ availability: 'OutOfStock', currentPrice: 20, lastCheckStatus: 'failed' });
    await record(failed(id));
    await record(observed(id, 20));
    expect(await availability()).toBe('OutOfStock');
    // A sold-out page that still shows its price keeps the price.
    await record(observed(id, 21, undefined, 'OutOfStock'));
    [product] = await list(user);
    expect(product).toMatchObject({ availability: 'OutOfStock', currentPrice: 21 });
    await record(observed(id, 21, undefined, 'PreOrder'));
    expect(await availability()).toBe('PreOrder');
  });

  test('a price of 0 is a price: stored, listed, and changes from it have no percent', async () => {
    const user = await signedIn();
    const { id } = await add(user);
    await record(observed(id, 10, hoursAgo(30)));
    await record(observed(id, 0, hoursAgo(2)));
    let [product] = await list(user);
    expect(product).toMatchObject({ currentPrice: 0, changePercent: -100 });
    await record(observed(id, 5));
    [product] = await list(user);
    expect(product).toMatchObject({ currentPrice: 5, changePercent: -50 });
    const changes = await api.ctx.sql`SELECT previous_price, current_price, change_percent FROM price_changes WHERE product_id = ${id} ORDER BY event_position`;
    expect(changes.map((c) => ({ ...c }))).toEqual([
      { previous_price: 10, current_price: 0, change_percent: -100 },
      { previous_price: 0, current_price: 5, change_percent: null },
    ]);
    // Every screen that averages or compares prices takes it.
    const dashboard = await send(user, 'GET', '/api/dashboard/stats');
    expect(dashboard.status).toBe(200);
    const stats = await dashboard.json();
    expect(stats.recentChanges.map((c: { changePercent: number | null }) => c.changePercent)).toEqual([null, -100]);
    for (const path of ['/api/price-history/products?timeFilter=month', `/api/price-history/detailed/${id}?timeFilter=month`]) {
      const res = await send(user, 'GET', path);
      expect(res.status).toBe(200);
      expect(JSON.stringify(await res.json())).not.toMatch(/NaN|Infinity/);
    }
  });

  test('check results for a removed product are refused and leave nothing behind', async () => {
    const user = await signedIn();
    const { id } = await add(user);
    await record(observed(id, 10));
    await record(observed(id, 12));
    await send(user, 'DELETE', `/api/products/${id}`);
    expect(handleProductCommand(api.ctx.store, observed(id, 11))).rejects.toThrow('Product not found');
    for (const table of ['products', 'price_points', 'price_changes']) {
      const [{ n }] = (await api.ctx.sql.unsafe(`SELECT count(*)::int AS n FROM ${table} WHERE ${table === 'products' ? 'id' : 'product_id'} = $1`, [
        id,
      ])) as any;
      expect(n).toBe(0);
    }
  });
});

describe('products projection', () => {
  test('tables made before a price of 0 or stock alerts existed are brought up to date by the DDL', async () => {
    await transaction(api.ctx.sql, async (tx) => {
      await tx.unsafe('CREATE SCHEMA IF NOT EXISTS before_stock');
      await tx.unsafe('SET LOCAL search_path TO before_stock, public');
      // As the tables were made by the previous version.
      await tx.unsafe(`
        CREATE TABLE products (id text PRIMARY KEY, user_id text NOT NULL, name text NOT NULL, url text NOT NULL, selector text NOT NULL,
          alert_rule jsonb NOT NULL, threshold double precision, current_price double precision CHECK (current_price > 0), currency text,
          image_url text, price_updated_at timestamptz, last_checked timestamptz, last_check_at timestamptz, last_check_status text,
          last_check_error text, consecutive_failures integer NOT NULL DEFAULT 0, is_active boolean NOT NULL DEFAULT true,
          created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL);
        CREATE TABLE price_points (event_position bigint PRIMARY KEY, product_id text NOT NULL, user_id text NOT NULL,
          price double precision NOT NULL CHECK (price > 0), currency text, source text NOT NULL, observed_at timestamptz NOT NULL);
        CREATE TABLE price_changes (event_position bigint PRIMARY KEY, product_id text NOT NULL, user_id text NOT NULL,
          previous_price double precision NOT NULL, current_price double precision NOT NULL, change_percent double precision NOT NULL,
          changed_at timestamptz NOT NULL);
        CREATE TABLE alerts (id text PRIMARY KEY, user_id text NOT NULL, product_id text NOT NULL, type text NOT NULL,
          product_name text NOT NULL, product_url text NOT NULL, product_image text, message text NOT NULL,
          previous_price double precision NOT NULL, current_price double precision NOT NULL, currency text,
          change_percent double precision NOT NULL, threshold_percent double precision, trigger_position bigint NOT NULL,
          is_read boolean NOT NULL DEFAULT false, read_at timestamptz, created_at timestamptz NOT NULL);
        INSERT INTO products (id, user_id, name, url, selector, alert_rule, created_at, updated_at) VALUES ('p', 'u', 'n', 'https://x.io', '.p', '{}', now(), now());`);
      for (let i = 0; i < 2; i++) {
        await tx.unsafe(productsProjection.ddl);
        await tx.unsafe(alertsProjection.ddl);
      } // and again, as every start does
      await tx`UPDATE products SET current_price = 0 WHERE id = 'p'`;
      await tx`INSERT INTO price_points VALUES (1, 'p', 'u', 0, 'GBP', 'json-ld', now())`;
      await tx`INSERT INTO price_changes VALUES (2, 'p', 'u', 0, 5, NULL, now())`;
      await tx`INSERT INTO alerts (id, user_id, product_id, type, product_name, product_url, message, trigger_position, created_at)
               VALUES ('a', 'u', 'p', 'out_of_stock', 'n', 'https://x.io', 'Out of stock', 3, now())`;
      const [row] = await tx`SELECT availability, stock_alerts FROM products WHERE id = 'p'`;
      expect({ ...row }).toEqual({ availability: null, stock_alerts: true });
      const checks = await tx`SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint
        WHERE connamespace = 'before_stock'::regnamespace AND conname IN ('price_points_price_check', 'products_current_price_check') ORDER BY conname`;
      expect(checks.map((c) => c.def)).toEqual([expect.stringContaining('>= (0)'), expect.stringContaining('>= (0)')]);
      await tx.unsafe('DROP SCHEMA before_stock CASCADE');
    });
  });

  const snapshot = async () => {
    const out: Record<string, unknown[]> = {};
    for (const t of productsProjection.tables) out[t] = await api.ctx.sql.unsafe(`SELECT * FROM ${t} ORDER BY ${t === 'products' ? 'id' : 'event_position'}`);
    return out;
  };

  // The API projected this log one command at a time; the rebuild reads it in batches of up to 2,000.
  test('rebuilding from zero yields identical tables for a log with products, prices, failures, edits and removals', async () => {
    const user = await signedIn();
    await api.ctx.sql`UPDATE users SET plan = 'pro' WHERE id = ${user.userId}`;
    for (let i = 0; i < 12; i++) {
      const { id } = await add(user, page(`R${i}`, { threshold: i % 2 ? 'any' : '-5' }));
      const stock = (j: number): Availability | null => (['InStock', null, 'OutOfStock', 'PreOrder'] as const)[(i + j) % 4]!;
      for (let j = 0; j < 6; j++) {
        await record(j % 3 === 2 ? failed(id, undefined, stock(j)) : observed(id, j === 4 ? 0 : 10 + ((i + j) % 4), hoursAgo(40 - j * 7), stock(j)));
      }
      if (i % 3 === 0) expect((await send(user, 'PUT', `/api/products/${id}`, page(`R${i}`, { threshold: 10, stockAlerts: false }))).status).toBe(200);
      await send(user, 'POST', `/api/products/${id}/update-price`, { price: String(9 + i) });
      if (i % 4 === 0) expect((await send(user, 'PUT', `/api/products/${id}`, page(`R${i}`, { name: `R${i} edited`, threshold: 3 }))).status).toBe(200);
      if (i % 5 === 0) await send(user, 'DELETE', `/api/products/${id}`);
    }
    const before = await snapshot();
    expect(before.products!.length).toBeGreaterThanOrEqual(9);
    expect(before.price_changes!.length).toBeGreaterThan(10);
    expect(await api.ctx.projections.rebuild(['products'])).toBeGreaterThan(100);
    expect(await snapshot()).toEqual(before);
    const list1 = await list(user);
    await api.ctx.projections.rebuild(['products']);
    expect(await list(user)).toEqual(list1);

    // A database made before the price source and failure code were kept learns them on start, as a rebuild would set them.
    expect(before.products!.some((p: any) => p.last_failure_code !== null)).toBe(true);
    await api.ctx.sql`ALTER TABLE products DROP COLUMN price_source, DROP COLUMN last_failure_code`;
    await api.ctx.sql.unsafe(productsProjection.ddl);
    expect(await snapshot()).toEqual(before);
  });
});
