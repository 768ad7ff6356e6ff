import { describe, expect, test } from 'bun:test';
import { useTestApp } from '../testing/app.ts';
import { settle } from '../testing/alerts.ts';
import { observed } from '../testing/prices.ts';
import { transaction } from '../../db/index.ts';
import { START, type NewEvent } from '../../events/store.ts';
import type { Availability, EventData } from '../../events/catalogue.ts';
import { ownProductStream } from '../../events/own-product.ts';
import { importOwn, ownItem } from '../testing/own-catalogue.ts';
import { standingAlertIdFor } from './standing-alerts.ts';

const api = useTestApp();
const settled = () => settle(api.ctx);

type Raised = EventData<'AlertRaised'>;
/** The user's undercut and cheapest alerts, oldest first. */
async function standingAlerts(userId: string): Promise<Raised[]> {
  const { events } = await api.ctx.store.readStream(`alerts-${userId}`);
  return events.flatMap((e) => (e.type === 'AlertRaised' && (e.data.type === 'undercut' || e.data.type === 'cheapest') ? [e.data] : []));
}
const kinds = async (userId: string) => (await standingAlerts(userId)).map((a) => [a.type, a.message]);

/** A tracked competitor product that raises no alerts of its own. */
async function competitor(userId: string, name = 'Acme', url = 'https://www.acme.example/jacket') {
  const productId = crypto.randomUUID();
  await api.ctx.store.append(`product-${productId}`, 'no_stream', [
    { type: 'ProductAdded', data: { productId, userId, name, url, selector: '.price', alertRule: { kind: 'none' }, imageUrl: null, stockAlerts: false } },
  ]);
  return productId;
}

async function ownProduct(userId: string, title = 'Trail Jacket', price = 99, currency = 'GBP') {
  const [ownProductId] = await importOwn(api.ctx, userId, [ownItem(title, price, { currency, sku: crypto.randomUUID() })]);
  return ownProductId!;
}

const own = (ownProductId: string, events: NewEvent[]) => api.ctx.store.append(ownProductStream(ownProductId), 'any', events);
const linking = (ownProductId: string, userId: string, productId: string): NewEvent => ({
  type: 'CompetitorLinked',
  data: { ownProductId, userId, productId, via: 'hand' },
});
const unlinking = (ownProductId: string, userId: string, productId: string): NewEvent => ({
  type: 'CompetitorUnlinked',
  data: { ownProductId, userId, productId },
});
const ownPrice = (ownProductId: string, userId: string, price: number, previousPrice: number, currency = 'GBP'): NewEvent => ({
  type: 'OwnPriceChanged',
  data: { ownProductId, userId, price, previousPrice, currency, at: new Date().toISOString() },
});
const seen = (productId: string, userId: string, price: number, availability: Availability | null = null, currency = 'GBP'): NewEvent => {
  const e = observed(productId, userId, price, new Date(), availability);
  return { ...e, data: { ...e.data, currency } };
};
const observe = (productId: string, userId: string, ...prices: (number | [number, Availability | null, string?])[]) =>
  api.ctx.store.append(
    `product-${productId}`,
    'any',
    prices.map((p) => (typeof p === 'number' ? seen(productId, userId, p) : seen(productId, userId, p[0], p[1], p[2]))),
  );

/** A signed-in owner with an own product at £99 linked to a competitor. */
async function linked() {
  const user = await api.signedIn();
  const ownProductId = await ownProduct(user.userId);
  const productId = await competitor(user.userId);
  await own(ownProductId, [linking(ownProductId, user.userId, productId)]);
  return { ...user, ownProductId, productId };
}

const UNDERCUT = 'Acme (acme.example) undercut your Trail Jacket: £95.00 against your £99.00 (£4.00, 4.2% below you).';

describe('undercut and cheapest', () => {
  test('a competitor going below the owner raises one undercut, with its standing; staying below raises nothing more', async () => {
    const u = await linked();
    await observe(u.productId, u.userId, 101);
    await settled();
    expect(await standingAlerts(u.userId)).toEqual([]);

    const { lastPosition } = await observe(u.productId, u.userId, 95);
    await settled();
    const [alert, ...more] = await standingAlerts(u.userId);
    expect(more).toEqual([]);
    expect(alert).toMatchObject({
      alertId: standingAlertIdFor(lastPosition, u.ownProductId),
      type: 'undercut',
      productId: u.productId,
      productName: 'Acme',
      productUrl: 'https://www.acme.example/jacket',
      previousPrice: 99,
      currentPrice: 95,
      currency: 'GBP',
      changePercent: null,
      thresholdPercent: null,
      message: UNDERCUT,
      trigger: { eventType: 'PriceObserved', position: lastPosition },
    });
    expect(alert!.standing).toEqual({
      ownProductId: u.ownProductId,
      ownTitle: 'Trail Jacket',
      ownPrice: 99,
      competitorName: 'Acme',
      competitorHost: 'acme.example',
      competitorPrice: 95,
      gap: 4,
      gapPercent: expect.closeTo(4.2105, 4),
    });

    await observe(u.productId, u.userId, 95);
    await observe(u.productId, u.userId, 94);
    await settled();
    expect(await kinds(u.userId)).toEqual([['undercut', UNDERCUT]]);

    // Listed like any alert: on the Alerts screen (and its type filter) and in the notifications.
    const listed = await (await api.request('/api/alerts', { headers: { cookie: u.cookie } })).json();
    expect(listed).toEqual([expect.objectContaining({ type: 'undercut', productName: 'Acme', message: UNDERCUT, previousPrice: 99, currentPrice: 95 })]);
    const page = await (await api.request('/api/alerts/page?type=undercut', { headers: { cookie: u.cookie } })).json();
    expect(page).toMatchObject({ matching: 1, alerts: [{ type: 'undercut' }] });
    const notifications = await (await api.request('/api/notifications', { headers: { cookie: u.cookie } })).json();
    expect(notifications.map((n: { type: string }) => n.type)).toEqual(['undercut']);
    // And queued for e-mail like any alert.
    expect((await api.ctx.sql<{ kind: string }[]>`SELECT kind FROM email_outbox WHERE id = ${alert!.alertId}`).map((r) => r.kind)).toEqual(['alerts']);
  });

  test('the owner lowering their price below every competitor raises one cheapest', async () => {
    const u = await linked();
    const other = await competitor(u.userId, 'Bolt', 'https://bolt.example/jacket');
    await own(u.ownProductId, [linking(u.ownProductId, u.userId, other)]);
    await observe(u.productId, u.userId, 95);
    await observe(other, u.userId, 97);
    await settled();
    const { lastPosition } = await own(u.ownProductId, [ownPrice(u.ownProductId, u.userId, 94, 99)]);
    await own(u.ownProductId, [ownPrice(u.ownProductId, u.userId, 93, 94)]);
    await settled();
    const alerts = await standingAlerts(u.userId);
    expect(alerts.map((a) => [a.type, a.message])).toEqual([
      ['undercut', UNDERCUT],
      ['cheapest', "You're the cheapest for Trail Jacket again: £94.00, Acme is at £95.00."],
    ]);
    expect(alerts[1]).toMatchObject({
      productId: u.productId,
      trigger: { eventType: 'OwnPriceChanged', position: lastPosition },
      standing: { ownPrice: 94, competitorPrice: 95, gap: -1 },
    });
  });

  test('a competitor out of stock stops counting: cheapest; back in stock below: undercut again', async () => {
    const u = await linked();
    await observe(u.productId, u.userId, 95);
    await observe(u.productId, u.userId, [95, 'OutOfStock']);
    await settled();
    // A failed check that says nothing of stock changes nothing; one whose page says it is orderable again does.
    await api.ctx.store.append(`product-${u.productId}`, 'any', [
      {
        type: 'PriceCheckFailed',
        data: {
          productId: u.productId,
          userId: u.userId,
          code: 'timeout',
          reason: 'No answer.',
          httpStatus: null,
          url: 'https://www.acme.example/jacket',
          attemptedAt: new Date().toISOString(),
          availability: null,
        },
      },
    ]);
    await settled();
    expect(await kinds(u.userId)).toEqual([
      ['undercut', UNDERCUT],
      ['cheapest', "You're the cheapest for Trail Jacket again: £99.00, Acme is out of stock."],
    ]);
    await api.ctx.store.append(`product-${u.productId}`, 'any', [
      {
        type: 'PriceCheckFailed',
        data: {
          productId: u.productId,
          userId: u.userId,
          code: 'no-price',
          reason: 'No price.',
          httpStatus: 200,
          url: 'https://www.acme.example/jacket',
          attemptedAt: new Date().toISOString(),
          availability: 'InStock',
        },
      },
    ]);
    await settled();
    expect((await standingAlerts(u.userId)).map((a) => [a.type, a.trigger.eventType])).toEqual([
      ['undercut', 'PriceObserved'],
      ['cheapest', 'PriceObserved'],
      ['undercut', 'PriceCheckFailed'],
    ]);
  });

  test('a price in another currency is not compared; a price typed in by hand counts', async () => {
    const u = await linked();
    await observe(u.productId, u.userId, [50, null, 'EUR']);
    await settled();
    expect(await standingAlerts(u.userId)).toEqual([]);
    await api.ctx.store.append(`product-${u.productId}`, 'any', [
      { type: 'PriceManuallySet', data: { productId: u.productId, userId: u.userId, price: 95, currency: 'GBP' } },
    ]);
    await settled();
    expect((await standingAlerts(u.userId)).map((a) => [a.type, a.trigger.eventType, a.message])).toEqual([['undercut', 'PriceManuallySet', UNDERCUT]]);
  });

  test('links made and ended are judged silently: the owner did it', async () => {
    const u = await linked();
    await observe(u.productId, u.userId, 95);
    await own(u.ownProductId, [unlinking(u.ownProductId, u.userId, u.productId)]);
    await observe(u.productId, u.userId, 101, 96);
    await own(u.ownProductId, [linking(u.ownProductId, u.userId, u.productId)]);
    await settled();
    expect((await standingAlerts(u.userId)).map((a) => a.type)).toEqual(['undercut']);
    // Linked again while below: undercut already, so only the owner's next move is news.
    await own(u.ownProductId, [ownPrice(u.ownProductId, u.userId, 96, 99)]);
    await settled();
    expect((await standingAlerts(u.userId)).map((a) => a.type)).toEqual(['undercut', 'cheapest']);
  });

  test('one observation below two own products raises two alerts', async () => {
    const u = await linked();
    const second = await ownProduct(u.userId, 'Trail Jacket XL', 98);
    await own(second, [linking(second, u.userId, u.productId)]);
    const { lastPosition } = await observe(u.productId, u.userId, 90);
    await settled();
    const alerts = await standingAlerts(u.userId);
    expect(alerts.map((a) => [a.type, a.standing?.ownTitle, a.trigger.position]).sort((x, y) => String(x[1]).localeCompare(String(y[1])))).toEqual([
      ['undercut', 'Trail Jacket', lastPosition],
      ['undercut', 'Trail Jacket XL', lastPosition],
    ]);
    expect(new Set(alerts.map((a) => a.alertId)).size).toBe(2);
  });

  test('down and up again in one batch raises both; that batch applied again raises nothing', async () => {
    const u = await linked();
    await observe(u.productId, u.userId, 95, 101);
    await settled();
    expect((await standingAlerts(u.userId)).map((a) => a.type)).toEqual(['undercut', 'cheapest']);

    const reactor = api.ctx.reactors.projections.find((p) => p.name === 'standing-alerts')!;
    const batch = await api.ctx.store.readAll(START, 100_000, { types: reactor.handles, userId: u.userId });
    await transaction(api.ctx.sql, (tx) => reactor.apply(tx, batch));
    await settled();
    expect((await standingAlerts(u.userId)).map((a) => a.type)).toEqual(['undercut', 'cheapest']);
    const [undercut] = await api.ctx.sql<{ undercut: boolean }[]>`SELECT undercut FROM standing_own_products WHERE own_product_id = ${u.ownProductId}`;
    expect(undercut).toEqual({ undercut: false });
  });
});
