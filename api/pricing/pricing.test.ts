import { describe, expect, test } from 'bun:test';
import { parse } from 'csv-parse/sync';
import { useTestApp } from '../testing/app.ts';
import { productsApi } from '../testing/products-api.ts';
import { addProduct, observePrices } from '../testing/prices.ts';
import { importOwn, ownItem } from '../testing/own-catalogue.ts';
import { startTrial } from '../testing/plans.ts';
import { ownProductStream } from '../../events/own-product.ts';
import type { RecommendationEntry } from './read-model.ts';
import { applyAutomatically } from './apply.ts';

const api = useTestApp();
const { send } = productsApi(api);
type User = Awaited<ReturnType<typeof api.signedIn>>;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const beat = {
  strategy: 'beat-cheapest',
  offsetPercent: 1,
  floor: { costMarginPercent: 10 },
  rounding: '.99',
  maxStepPercent: 10,
};

async function json<T>(res: Response, status = 200): Promise<T> {
  const body = await res.text();
  expect({ status: res.status, body }).toMatchObject({ status });
  return JSON.parse(body) as T;
}

/** An own kettle at £110 costing £80, linked to competitors whose prices were observed an hour ago. */
async function kettleWith(user: User, prices: Record<string, number>, opts: { cost?: number | null; hoursAgo?: number } = {}) {
  const [kettle] = await importOwn(api.ctx, user.userId, [ownItem('Kettle', 110, { sku: 'K-1', cost: opts.cost === undefined ? 80 : opts.cost })]);
  const ids: string[] = [];
  for (const [host, price] of Object.entries(prices)) {
    const productId = await addProduct(api.ctx, user.userId, { name: `Kettle at ${host}`, url: `https://${host}/kettle` });
    await observePrices(api.ctx, productId, user.userId, [[price, new Date(Date.now() - (opts.hoursAgo ?? 1) * HOUR)]]);
    ids.push(productId);
  }
  await api.ctx.projections.catchUp();
  for (const id of ids) expect((await send(user, 'PUT', `/api/catalogue/${kettle}/competitors/${id}`)).status).toBe(200);
  return { kettle: kettle!, ids };
}

describe('pricing rules', () => {
  test('a rule gives a recommendation with its reasons, its evidence from the log and its bounds; apply and dismiss are recorded', async () => {
    const user = await api.signedIn();
    await startTrial(api.ctx, user.userId, 'growth');
    const { kettle, ids } = await kettleWith(user, { 'acme.example': 105, 'bravo.example': 112 });

    const saved = await json<Record<string, unknown>>(await send(user, 'PUT', `/api/catalogue/${kettle}/rule`, beat));
    expect(saved).toMatchObject({
      strategy: 'beat-cheapest',
      minCompetitors: 2,
      spikePercent: 40,
      ceiling: { amount: null, regular: false },
      competitors: null,
    });
    expect(await json(await send(user, 'GET', `/api/catalogue/${kettle}/rule`))).toEqual(saved);

    const rec = await json<any>(await send(user, 'GET', `/api/catalogue/${kettle}/recommendation`));
    expect(rec).toMatchObject({
      status: 'change',
      price: 102.99,
      currentPrice: 110,
      currency: 'GBP',
      bounds: { floor: 88, ceiling: null, decidedBy: 'rounding' },
    });
    expect(rec.explanation).toEqual([
      'Cheapest counted competitor: acme.example at £105.00 (checked 1 h ago).',
      'Beat by 1% → £103.95.',
      'Rounded down .99 → £102.99.',
      'Within your floor of £88.00 (cost £80.00 + 10%) and step limit of 10%.',
    ]);
    // Every piece of evidence names the exact PriceObserved in the log.
    expect(rec.evidence.map((e: any) => e.productId).sort()).toEqual([...ids].sort());
    for (const e of rec.evidence) {
      const { events } = await api.ctx.store.readStream(`product-${e.productId}`);
      const observedEvent = events.find((x) => x.type === 'PriceObserved')!;
      expect(e.eventPosition).toBe(Number(observedEvent.position));
      expect(e.price).toBe((observedEvent.data as { price: number }).price);
    }

    const waiting = await json<RecommendationEntry[]>(await send(user, 'GET', '/api/catalogue/recommendations'));
    expect(waiting.map((w) => w.ownProductId)).toEqual([kettle]);

    // A stale view of the price is refused; the current one is applied and leaves the waiting list.
    expect((await send(user, 'POST', `/api/catalogue/${kettle}/recommendation/apply`, { price: 101 })).status).toBe(409);
    const applied = await json<RecommendationEntry>(await send(user, 'POST', `/api/catalogue/${kettle}/recommendation/apply`, { price: 102.99 }));
    expect(applied.decision).toMatchObject({ kind: 'applied', price: 102.99, previousPrice: 110, via: 'hand' });
    expect(applied.decision!.evidence.sort()).toEqual(rec.evidence.map((e: any) => e.eventPosition).sort());
    expect(applied.store).toMatchObject({ state: 'pending' });
    expect(await json(await send(user, 'GET', '/api/catalogue/recommendations'))).toEqual([]);

    // The export lists what the store has not confirmed; the store taking it confirms it.
    const csv = await (await send(user, 'GET', '/api/catalogue/recommendations/export.csv')).text();
    expect(parse(csv, { columns: true })).toEqual([
      { SKU: 'K-1', 'Regular price': '102.99', Currency: 'GBP', Title: 'Kettle', Variant: '', 'Previous price': '110' },
    ]);
    await importOwn(api.ctx, user.userId, [ownItem('Kettle', 102.99, { sku: 'K-1' })]);
    const confirmed = await json<any>(await send(user, 'GET', `/api/catalogue/${kettle}/recommendation`));
    expect(confirmed).toMatchObject({ status: 'keep', price: 102.99, store: { state: 'confirmed' } });
    // The store did not state a cost: the owner's stays.
    expect((await json<any>(await send(user, 'GET', `/api/catalogue/${kettle}`))).cost).toBe(80);
    expect(parse(await (await send(user, 'GET', '/api/catalogue/recommendations/export.csv')).text(), { columns: true })).toEqual([]);

    // Undo sets the replaced price back.
    const undone = await json<RecommendationEntry>(await send(user, 'POST', `/api/catalogue/${kettle}/recommendation/undo`));
    expect(undone.decision).toMatchObject({ kind: 'applied', price: 110, via: 'undo' });

    const { events } = await api.ctx.store.readStream(ownProductStream(kettle));
    expect(events.map((e) => e.type)).toContain('RecommendationApplied');
  });

  test('dismissing keeps it off the list until the recommendation changes', async () => {
    const user = await api.signedIn();
    const { kettle } = await kettleWith(user, { 'acme.example': 105, 'bravo.example': 112 });
    await json(await send(user, 'PUT', `/api/catalogue/${kettle}/rule`, beat));
    const dismissed = await json<RecommendationEntry>(await send(user, 'POST', `/api/catalogue/${kettle}/recommendation/dismiss`));
    expect(dismissed).toMatchObject({ waiting: false, decision: { kind: 'dismissed', price: 102.99 } });
    expect(await json(await send(user, 'GET', '/api/catalogue/recommendations'))).toEqual([]);
    // A different rule gives a different price: it waits again.
    await json(await send(user, 'PUT', `/api/catalogue/${kettle}/rule`, { ...beat, rounding: 'none' }));
    expect((await json<RecommendationEntry[]>(await send(user, 'GET', '/api/catalogue/recommendations'))).map((e) => e.recommendation.price)).toEqual([103.95]);
    expect((await send(user, 'POST', '/api/catalogue/recommendations/apply', {})).status).toBe(200);
    expect(await json(await send(user, 'GET', '/api/catalogue/recommendations'))).toEqual([]);
  });

  test('holds back with too few competitors, and says why', async () => {
    const user = await api.signedIn();
    const { kettle } = await kettleWith(user, { 'acme.example': 105 });
    await json(await send(user, 'PUT', `/api/catalogue/${kettle}/rule`, beat));
    const rec = await json<any>(await send(user, 'GET', `/api/catalogue/${kettle}/recommendation`));
    expect(rec).toMatchObject({ status: 'hold', price: null });
    expect(rec.explanation[0]).toContain('Only 1 of 1 chosen competitors counted, and the rule needs 2');
    expect((await send(user, 'POST', `/api/catalogue/${kettle}/recommendation/apply`)).status).toBe(409);
  });

  test('bad rules are a 400 naming the field and change nothing; others’ products are 404', async () => {
    const user = await api.signedIn();
    const { kettle, ids } = await kettleWith(user, { 'acme.example': 105, 'bravo.example': 112 }, { cost: null });
    const refused = async (body: unknown, field: string) => {
      const res = await send(user, 'PUT', `/api/catalogue/${kettle}/rule`, body);
      expect({ status: res.status, field: ((await res.json()) as { field?: string }).field }).toEqual({ status: 400, field });
    };
    await refused({ ...beat, strategy: 'cheapest-ever' }, 'strategy');
    await refused(beat, 'floor.amount'); // no cost, and no amount
    await refused({ ...beat, floor: { costMarginPercent: -5, amount: 50 } }, 'floor.costMarginPercent');
    await refused({ ...beat, floor: {} }, 'floor');
    await refused({ ...beat, offsetAmount: 2, floor: { amount: 50 } }, 'offsetAmount');
    await refused({ ...beat, offsetPercent: null, floor: { amount: 50 } }, 'offsetPercent');
    await refused({ ...beat, floor: { amount: 50 }, competitors: ['not-linked'] }, 'competitors');
    await refused({ ...beat, floor: { amount: 50 }, maxStepPercent: 0 }, 'maxStepPercent');
    expect((await send(user, 'GET', `/api/catalogue/${kettle}/rule`)).status).toBe(404);

    expect((await send(user, 'PUT', `/api/catalogue/${kettle}/rule`, { ...beat, floor: { amount: 50 }, competitors: [ids[0]] })).status).toBe(200);
    const other = await api.signedIn();
    for (const [method, path, body] of [
      ['GET', `/api/catalogue/${kettle}/rule`],
      ['PUT', `/api/catalogue/${kettle}/rule`, beat],
      ['DELETE', `/api/catalogue/${kettle}/rule`],
      ['GET', `/api/catalogue/${kettle}/recommendation`],
      ['POST', `/api/catalogue/${kettle}/recommendation/apply`],
      ['POST', `/api/catalogue/${kettle}/recommendation/dismiss`],
      ['POST', `/api/catalogue/${kettle}/rule/backtest`, { timeFilter: 'month' }],
      ['PATCH', `/api/catalogue/${kettle}`, { cost: 1 }],
    ] as const) {
      expect({ method, path, status: (await send(other, method, path, body)).status }).toEqual({ method, path, status: 404 });
    }
    expect((await json<any>(await send(user, 'GET', `/api/catalogue/${kettle}/rule`))).competitors).toEqual([ids[0]]);
    expect((await send(user, 'PATCH', `/api/catalogue/${kettle}`, { cost: -1 })).status).toBe(400);
    expect(await json(await send(user, 'PATCH', `/api/catalogue/${kettle}`, { cost: 70 }))).toEqual({ id: kettle, cost: 70 });
    expect((await send(user, 'DELETE', `/api/catalogue/${kettle}/rule`)).status).toBe(200);
    expect((await send(user, 'DELETE', `/api/catalogue/${kettle}/rule`)).status).toBe(404);
  });

  test('the backtest replays recorded prices day by day through the rule', async () => {
    const user = await api.signedIn();
    const [kettle] = await importOwn(api.ctx, user.userId, [ownItem('Kettle', 110, { sku: 'K-1', cost: 80 })], new Date(Date.now() - 40 * DAY).toISOString());
    const a = await addProduct(api.ctx, user.userId, { name: 'A', url: 'https://acme.example/kettle' });
    const b = await addProduct(api.ctx, user.userId, { name: 'B', url: 'https://bravo.example/kettle' });
    const now = Date.now();
    // Acme falls from £120 to £90 over the month, a pound a day; Bravo stays at £125. Checked every 6 hours.
    const times = Array.from({ length: 31 * 4 }, (_, i) => now - 30 * DAY + i * 6 * HOUR).filter((t) => t <= now);
    await observePrices(
      api.ctx,
      a,
      user.userId,
      times.map((t) => [Math.max(90, 120 - Math.floor((t - (now - 30 * DAY)) / DAY)), new Date(t)] as const),
    );
    await observePrices(
      api.ctx,
      b,
      user.userId,
      times.map((t) => [125, new Date(t)] as const),
    );
    await api.ctx.projections.catchUp();
    for (const id of [a, b]) expect((await send(user, 'PUT', `/api/catalogue/${kettle}/competitors/${id}`)).status).toBe(200);
    await api.ctx.sql`UPDATE user_settings SET check_frequency = 'hourly' WHERE user_id = ${user.userId}`;

    const result = await json<any>(
      await send(user, 'POST', `/api/catalogue/${kettle}/rule/backtest`, {
        rule: { ...beat, rounding: 'none', floor: { costMarginPercent: 25 } },
        timeFilter: 'month',
      }),
    );
    expect(result.days.length).toBe(31);
    const last = result.days.at(-1);
    expect(last).toMatchObject({ actual: 110, cheapest: 90 });
    // It followed Acme down by at most 10% a day and stopped at the floor of £100 (cost £80 + 25%).
    expect(last.recommended).toBe(100);
    expect(result.floorHits).toBeGreaterThan(0);
    expect(result.lowestMarginPercent).toBe(25);
    expect(result.changes).toBeGreaterThan(1);
    const sum = (o: Record<string, number>) => Object.values(o).reduce((x, y) => x + y, 0);
    expect(sum(result.daysBy)).toBe(sum(result.actualDaysBy));
    expect(result.recommendation).toMatchObject({ status: 'change', price: 100, bounds: { decidedBy: 'floor' } });
    expect((await send(user, 'POST', `/api/catalogue/${kettle}/rule/backtest`, { timeFilter: 'month' })).status).toBe(400);
    expect((await send(user, 'POST', `/api/catalogue/${kettle}/rule/backtest`, { timeFilter: 'decade' })).status).toBe(400);
  });
});

describe('the automatic mode', () => {
  test('on Pro, waiting changes apply themselves within the daily cap, each listed and undoable', async () => {
    const user = await api.signedIn();
    await startTrial(api.ctx, user.userId, 'pro');
    // Pro checks every 15 minutes: a price read an hour ago would be stale.
    const { kettle, ids } = await kettleWith(user, { 'acme.example': 105, 'bravo.example': 112 }, { hoursAgo: 0.1 });
    await json(await send(user, 'PUT', `/api/catalogue/${kettle}/rule`, beat));
    await json(await send(user, 'PUT', '/api/catalogue/settings', { competitivePercent: 5, autoAcceptGtin: false, autoApply: true, dailyChangeCap: 1 }));

    await applyAutomatically(api.ctx);
    const all = await json<RecommendationEntry[]>(await send(user, 'GET', '/api/catalogue/recommendations?include=all'));
    expect(all[0]!.decision).toMatchObject({ kind: 'applied', price: 102.99, via: 'automatic' });

    // The store takes it, Acme drops again: a new change waits, but the cap of one a day holds it.
    await importOwn(api.ctx, user.userId, [ownItem('Kettle', 102.99, { sku: 'K-1', cost: 80 })]);
    await observePrices(api.ctx, ids[0]!, user.userId, [[100, new Date()]]);
    await api.ctx.projections.catchUp();
    await applyAutomatically(api.ctx);
    const waiting = await json<RecommendationEntry[]>(await send(user, 'GET', '/api/catalogue/recommendations'));
    expect(waiting.map((e) => e.recommendation.price)).toEqual([98.99]);

    const undone = await json<RecommendationEntry>(await send(user, 'POST', `/api/catalogue/${kettle}/recommendation/undo`));
    expect(undone.decision).toMatchObject({ kind: 'applied', price: 110, via: 'undo' });
  });
});
