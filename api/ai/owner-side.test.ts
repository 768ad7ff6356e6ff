import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { createApp } from '../server.ts';
import { useTestApp } from '../testing/app.ts';
import { startFakeOpenAI, type FakeOpenAI } from '../testing/fake-openai.ts';
import { importOwn, ownItem } from '../testing/own-catalogue.ts';
import { addProduct, observePrices } from '../testing/prices.ts';
import { productsApi } from '../testing/products-api.ts';
import type { PricingSuggestion } from './pricing.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const beat = { strategy: 'beat-cheapest', offsetPercent: 1, floor: { costMarginPercent: 10 }, rounding: '.99', maxStepPercent: 10 };

let model: FakeOpenAI;
beforeAll(() => {
  model = startFakeOpenAI();
});
afterAll(() => model?.stop());

const api = useTestApp(() => ({ OPENAI_API_KEY: 'test-key', OPENAI_BASE_URL: model.url, OPENAI_MODEL: 'fake-model', OPENAI_TIMEOUT_MS: '800' }));
const { send } = productsApi(api);
type User = Awaited<ReturnType<typeof api.signedIn>>;

/** The same app without a model: what the rules answer alone. */
let plainApp: ReturnType<typeof createApp>;
beforeAll(() => {
  plainApp = createApp({ ...api.ctx, config: { ...api.ctx.config, ai: null } });
});

async function suggestions(user: User, productId: string, timeFilter = 'month', on?: ReturnType<typeof createApp>): Promise<PricingSuggestion[]> {
  const init = {
    method: 'POST',
    headers: { cookie: user.cookie, origin: api.origin, 'content-type': 'application/json' },
    body: JSON.stringify({ productId, timeFilter }),
  };
  const res = on ? await on.handle(new Request(new URL('/api/price-suggestions', api.origin), init)) : await api.request('/api/price-suggestions', init);
  expect(res.status).toBe(200);
  return (await res.json()).suggestions;
}

/**
 * The owner's Kettle at £110 (cost £80), linked to Acme, whose price came down from £120 to £105
 * over two weeks, and to Bravo at £112, read an hour ago.
 */
async function linkedKettle(user: User) {
  const [kettle] = await importOwn(api.ctx, user.userId, [ownItem('Kettle', 110, { sku: 'K-1', cost: 80 })]);
  const acme = await addProduct(api.ctx, user.userId, { name: 'Kettle at Acme', url: 'https://acme.example/kettle' });
  const prices = [120, 120, 118, 118, 115, 115, 112, 112, 110, 110, 108, 108, 105, 105, 105];
  const start = Date.now() - (prices.length - 1) * DAY - HOUR;
  await observePrices(
    api.ctx,
    acme,
    user.userId,
    prices.map((price, i) => [price, new Date(start + i * DAY)] as const),
  );
  const bravo = await addProduct(api.ctx, user.userId, { name: 'Kettle at Bravo', url: 'https://bravo.example/kettle' });
  await observePrices(api.ctx, bravo, user.userId, [[112, new Date(Date.now() - HOUR)]]);
  await api.ctx.projections.catchUp();
  for (const id of [acme, bravo]) expect((await send(user, 'PUT', `/api/catalogue/${kettle}/competitors/${id}`)).status).toBe(200);
  return { kettle: kettle!, acme, bravo };
}

const AGAINST_ACME = "Your Kettle is £110.00, £5.00 (4.8%) above this competitor's £105.00; you rank 2 of 3 (within the competitive band).";
const RULE =
  'Your pricing rule recommends £102.99: Beat by 1% → £103.95. Rounded down .99 → £102.99. Within your floor of £88.00 (cost £80.00 + 10%) and step limit of 10%.';

describe("POST /api/price-suggestions: the owner's side", () => {
  let user: User;
  let ids: Awaited<ReturnType<typeof linkedKettle>>;
  /** The rules' answer for Acme with the Kettle's rule in place. */
  let rules: PricingSuggestion[];
  beforeAll(async () => {
    user = await api.signedIn();
    ids = await linkedKettle(user);
  });

  test('without a rule: the price against this competitor and the position', async () => {
    const answer = await suggestions(user, ids.acme, 'month', plainApp);
    expect(answer[0]).toEqual({
      title: 'Your price against this competitor',
      description: AGAINST_ACME,
      confidence: 0.9,
      recommendedAction: 'You are within the competitive band: hold your price. A pricing rule in Your Catalogue can keep you there as competitors move.',
    });
    // The competitor's own readings are still there.
    expect(answer.map((s) => s.title)).toContain('Prices are falling: down 12.5%');
  });

  test("with a rule: its recommendation, quoted from the rule's explanation, pointing to Recommendations", async () => {
    const rule = await send(user, 'PUT', `/api/catalogue/${ids.kettle}/rule`, beat);
    expect(rule.status).toBe(200);
    rules = await suggestions(user, ids.acme, 'month', plainApp);
    expect(rules[0]).toEqual({
      title: 'Your price against this competitor',
      description: `${AGAINST_ACME} ${RULE}`,
      confidence: 0.9,
      recommendedAction: 'Review it in Your Catalogue → Recommendations, where you can apply or dismiss it.',
    });
    // The catalogue's recommendation says the same price.
    const rec = await (await send(user, 'GET', `/api/catalogue/${ids.kettle}/recommendation`)).json();
    expect(rec).toMatchObject({ status: 'change', price: 102.99 });
  });

  test('too little history of this competitor: the honest answer, and the owner’s side from its price now', async () => {
    const answer = await suggestions(user, ids.bravo, 'month', plainApp);
    expect(answer.map((s) => s.title)).toEqual(['Not enough price history yet', 'Your price against this competitor']);
    expect(answer[1]!.description).toBe(
      "Your Kettle is £110.00, £2.00 (1.8%) below this competitor's £112.00; you rank 2 of 3 (within the competitive band), £5.00 (4.8%) above the cheapest counted competitor at £105.00. " +
        RULE,
    );
  });

  test('a competitor linked to nothing, or another user, answers as before', async () => {
    const unlinked = await addProduct(api.ctx, user.userId, { name: 'Toaster', url: 'https://acme.example/toaster' });
    const start = Date.now() - 14 * DAY - HOUR;
    await observePrices(
      api.ctx,
      unlinked,
      user.userId,
      [50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50].map((price, i) => [price, new Date(start + i * DAY)] as const),
    );
    await api.ctx.projections.catchUp();
    expect(await suggestions(user, unlinked, 'month', plainApp)).toEqual([
      expect.objectContaining({ title: 'Stable at £50.00', description: 'No price change in 14 days (15 checks).' }),
    ]);
    const other = await api.signedIn();
    const res = await send(other, 'POST', '/api/price-suggestions', { productId: ids.acme, timeFilter: 'month' });
    expect(res.status).toBe(404);
  });

  test("with a model: the owner's figures are in the prompt, and a rewrite that states them is taken", async () => {
    model.requests.length = 0;
    const rewrite = {
      title: 'You are £5.00 above Acme',
      description: 'Your Kettle at £110.00 ranks 2 of 3; this competitor charges £105.00.',
      confidence: 0.9,
      recommendedAction: 'Your rule recommends £102.99: apply it in Your Catalogue → Recommendations.',
    };
    model.answer = () => ({ content: JSON.stringify({ suggestions: [rewrite] }) });
    expect(await suggestions(user, ids.acme)).toEqual([rewrite]);
    const sent = JSON.parse(model.requests[0]!.messages.at(-1)!.content);
    expect(sent.figures).toContain('Current price: £105.00');
    expect(sent.figures).toContain('Your "Kettle": your price £110.00');
    expect(sent.figures).toContain('Your "Kettle" pricing rule: recommends £102.99');
    expect(sent.suggestions[0]).toEqual(rules[0]);
  });

  test("with a model: a figure for the owner's side that was not computed is refused", async () => {
    model.answer = () => ({
      content: JSON.stringify({
        suggestions: [
          {
            title: 'Cut your Kettle to £101.99',
            description: 'At £110.00 you rank 2 of 3.',
            confidence: 0.9,
            recommendedAction: 'Undercut them.',
          },
        ],
      }),
    });
    expect(await suggestions(user, ids.acme)).toEqual(rules);
  });

  test("with a model: a rewrite that leaves the owner's side out gets it back", async () => {
    const theirs = { title: 'Prices are falling', description: 'Down 12.5% over the last 30 days.', confidence: 0.8, recommendedAction: 'Hold.' };
    model.answer = () => ({ content: JSON.stringify({ suggestions: [theirs] }) });
    expect(await suggestions(user, ids.acme)).toEqual([theirs, rules[0]!]);
  });
});
