import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import Stripe from 'stripe';
import { SETUP_TIMEOUT } from '../testing/database.ts';
import { startFakeStripe, type FakeStripe } from '../testing/fake-stripe.ts';
import { useTestApp } from '../testing/app.ts';

// Billing against a Stripe-shaped API on loopback, through the real stripe SDK.

const ORIGIN = 'http://localhost:3000';
const SECRET_KEY = 'sk_test_fake';
const WEBHOOK_SECRET = 'whsec_test_secret';
const PRICES = { price_starter: 1800, price_growth: 4900, price_pro: 9900 };
const DAY = 86_400;

let fake: FakeStripe;
const sdk = new Stripe(SECRET_KEY);

beforeAll(async () => {
  fake = await startFakeStripe({ secretKey: SECRET_KEY, prices: PRICES });
}, SETUP_TIMEOUT);
const api = useTestApp(() => ({
  PUBLIC_URL: ORIGIN,
  STRIPE_SECRET_KEY: SECRET_KEY,
  STRIPE_PUBLISHABLE_KEY: 'pk_test_fake',
  STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
  STRIPE_PRICE_STARTER: 'price_starter',
  STRIPE_PRICE_GROWTH: 'price_growth',
  STRIPE_PRICE_PRO: 'price_pro',
  STRIPE_API_HOST: '127.0.0.1',
  STRIPE_API_PORT: String(fake.port),
  STRIPE_API_PROTOCOL: 'http',
}));
afterAll(() => {
  fake?.stop();
});
const { request } = api;

type User = { cookie: string; userId: string };
const signedIn = (): Promise<User> => api.signedIn();

const post = (user: User | null, path: string, body?: unknown) =>
  request(path, {
    method: 'POST',
    headers: { origin: ORIGIN, ...(user ? { cookie: user.cookie } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
const subscription = async (user: User) => (await request('/api/billing/subscription', { headers: { cookie: user.cookie } })).json();
const currentUser = async (user: User) => (await request('/api/auth/user', { headers: { cookie: user.cookie } })).json();
const streamEvents = async (user: User) => (await api.ctx.store.readStream(`subscription-${user.userId}`)).events;
const stripeCalls = (path: RegExp, method = 'POST') => fake.requests.filter((r) => r.method === method && path.test(r.path));

/** Delivers an event the way Stripe does: JSON body, Stripe-Signature header, no Origin. */
async function deliver(event: object, opts: { secret?: string; timestamp?: number; body?: string } = {}) {
  const payload = JSON.stringify(event);
  const signature = await sdk.webhooks.generateTestHeaderStringAsync({ payload, secret: opts.secret ?? WEBHOOK_SECRET, timestamp: opts.timestamp });
  return request('/api/billing/webhook', {
    method: 'POST',
    headers: { 'stripe-signature': signature, 'content-type': 'application/json' },
    body: opts.body ?? payload,
  });
}
async function delivered(event: object) {
  const res = await deliver(event);
  expect(res.status).toBe(200);
  return (await res.json()).outcome as string;
}

/** A signed-in user on a Starter trial; returns the Stripe subscription id. */
async function onTrial(plan = 'starter') {
  const user = await signedIn();
  expect((await post(user, '/api/billing/create-trial-setup')).status).toBe(200);
  const res = await post(user, '/api/billing/create-subscription', { plan, paymentMethodId: 'pm_card_visa' });
  expect(res.status).toBe(200);
  const customerId = [...fake.customers.values()].find((c) => c.metadata.userId === user.userId)!.id;
  const sub = [...fake.subscriptions.values()].find((s) => s.customer === customerId)!;
  return { user, subscriptionId: sub.id as string, customerId: customerId as string };
}

describe('billing calls with Stripe', () => {
  test('signed out: 401 on every billing call', async () => {
    expect((await request('/api/billing/subscription')).status).toBe(401);
    for (const path of ['create-trial-setup', 'create-subscription', 'cancel-subscription']) {
      expect((await post(null, `/api/billing/${path}`, { plan: 'starter', paymentMethodId: 'pm_card_visa' })).status).toBe(401);
    }
  });

  test('a free user: no subscription, free limits, trial available', async () => {
    const user = await signedIn();
    expect(await subscription(user)).toEqual({
      user: { subscriptionPlan: null, planLimits: { maxProducts: 3, checkFrequency: 'daily', aiDetection: false, apiAccess: false } },
      subscription: null,
      trialAvailable: true,
      provider: 'stripe',
      productsOnFree: null,
    });
  });

  test('trial setup creates the Stripe customer once and a SetupIntent each time', async () => {
    const user = await signedIn();
    const first = await post(user, '/api/billing/create-trial-setup');
    expect(first.status).toBe(200);
    const setup = await first.json();
    expect(setup).toEqual({ clientSecret: expect.stringMatching(/^seti_\w+_secret_\w+$/), provider: 'stripe', publishableKey: 'pk_test_fake' });
    expect((await post(user, '/api/billing/create-trial-setup')).status).toBe(200);

    const customers = [...fake.customers.values()].filter((c) => c.metadata.userId === user.userId);
    expect(customers).toHaveLength(1);
    expect(customers[0]!.email).toMatch(/@example\.com$/);
    const intents = stripeCalls(/^\/v1\/setup_intents$/).filter((r) => r.params.customer === customers[0]!.id);
    expect(intents).toHaveLength(2);
    expect(intents[0]!.params).toMatchObject({ usage: 'off_session', automatic_payment_methods: { enabled: 'true' } });
    expect((await streamEvents(user)).map((e) => e.type)).toEqual(['BillingCustomerCreated']);
  });

  test('create-subscription starts a 14-day trial with the payment method as default', async () => {
    const before = Math.floor(Date.now() / 1000);
    const { user, subscriptionId, customerId } = await onTrial('growth');
    const create = stripeCalls(/^\/v1\/subscriptions$/).find((r) => r.params.customer === customerId)!;
    expect(create.params).toMatchObject({
      items: [{ price: 'price_growth' }],
      trial_period_days: '14',
      default_payment_method: 'pm_card_visa',
      metadata: { userId: user.userId, plan: 'growth' },
    });
    expect(create.idempotencyKey).toStartWith(`subscribe-${user.userId}-`);
    expect(fake.customers.get(customerId)!.invoice_settings.default_payment_method).toBe('pm_card_visa');

    const answer = await subscription(user);
    expect(answer.user).toEqual({
      subscriptionPlan: 'growth',
      planLimits: { maxProducts: 100, checkFrequency: 'hourly', aiDetection: true, apiAccess: false },
    });
    expect(answer.subscription).toMatchObject({ status: 'trialing', cancel_at_period_end: false, plan: 'growth', amount: 4900 });
    expect(answer.subscription.trial_end).toBeGreaterThanOrEqual(before + 14 * DAY - 60);
    expect(answer.subscription.current_period_end).toBe(fake.subscriptions.get(subscriptionId)!.items.data[0].current_period_end);
    expect(answer.trialAvailable).toBe(false);
    expect((await currentUser(user)).subscriptionPlan).toBe('growth');
    expect((await streamEvents(user)).map((e) => e.type)).toEqual(['BillingCustomerCreated', 'TrialStarted']);
  });

  test('bad input answers 400 naming the field and changes nothing', async () => {
    const user = await signedIn();
    const cases: [unknown, string][] = [
      [{ plan: 'platinum', paymentMethodId: 'pm_card_visa' }, 'plan'],
      [{ plan: 'free', paymentMethodId: 'pm_card_visa' }, 'plan'],
      [{ paymentMethodId: 'pm_card_visa' }, 'plan'],
      [{ plan: 'starter' }, 'paymentMethodId'],
      [{ plan: 'starter', paymentMethodId: '  ' }, 'paymentMethodId'],
    ];
    for (const [body, field] of cases) {
      const res = await post(user, '/api/billing/create-subscription', body);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ field, message: expect.stringMatching(new RegExp(`^${field}: `)) });
    }
    expect((await post(user, '/api/billing/create-subscription', '{"plan": "starter"')).status).toBe(400);
    expect(await streamEvents(user)).toEqual([]);
    expect(stripeCalls(/^\/v1\/customers$/).filter((r) => r.params.metadata?.userId === user.userId)).toEqual([]);
  });

  test('a payment method Stripe does not know: 400 with its message, no subscription', async () => {
    const user = await signedIn();
    const res = await post(user, '/api/billing/create-subscription', { plan: 'starter', paymentMethodId: 'card_123' });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ message: "No such PaymentMethod: 'card_123'", field: 'paymentMethodId' });
    expect((await subscription(user)).subscription).toBeNull();
    expect((await streamEvents(user)).map((e) => e.type)).toEqual(['BillingCustomerCreated']);
  });

  test('a second trial is refused with 409 and nothing changes', async () => {
    const { user, customerId } = await onTrial();
    const events = (await streamEvents(user)).length;
    const res = await post(user, '/api/billing/create-subscription', { plan: 'starter', paymentMethodId: 'pm_card_visa' });
    expect(res.status).toBe(409);
    expect((await res.json()).message).toBe('You are already subscribed to this plan.');
    expect(stripeCalls(/^\/v1\/subscriptions$/).filter((r) => r.params.customer === customerId)).toHaveLength(1);
    expect(await streamEvents(user)).toHaveLength(events);
  });

  test('a double submit subscribes once', async () => {
    const user = await signedIn();
    const body = { plan: 'starter', paymentMethodId: 'pm_card_visa' };
    const answers = await Promise.all([post(user, '/api/billing/create-subscription', body), post(user, '/api/billing/create-subscription', body)]);
    expect(answers.map((r) => r.status)).toContain(200);
    for (const r of answers) expect([200, 409]).toContain(r.status);
    const customers = [...fake.customers.values()].filter((c) => c.metadata.userId === user.userId);
    expect(customers).toHaveLength(1);
    expect([...fake.subscriptions.values()].filter((s) => s.customer === customers[0]!.id)).toHaveLength(1);
    expect((await streamEvents(user)).map((e) => e.type)).toEqual(['BillingCustomerCreated', 'TrialStarted']);
  });

  test('choosing another plan changes the subscription; the trial goes on', async () => {
    const { user, subscriptionId } = await onTrial();
    const trialEnd = (await subscription(user)).subscription.trial_end;
    const res = await post(user, '/api/billing/create-subscription', { plan: 'pro', paymentMethodId: 'pm_card_mastercard' });
    expect(res.status).toBe(200);
    const update = stripeCalls(new RegExp(`^/v1/subscriptions/${subscriptionId}$`)).at(-1)!;
    expect(update.params).toMatchObject({ items: [{ price: 'price_pro' }], default_payment_method: 'pm_card_mastercard', cancel_at_period_end: 'false' });
    const answer = await res.json();
    expect(answer.subscription).toMatchObject({ status: 'trialing', plan: 'pro', amount: 9900, trial_end: trialEnd });
    expect(answer.user.subscriptionPlan).toBe('pro');
    expect(answer.user.planLimits.maxProducts).toBe(-1);
  });

  test('cancel keeps access until the period ends; cancelling again or with no subscription is refused', async () => {
    const { user, subscriptionId } = await onTrial();
    const res = await post(user, '/api/billing/cancel-subscription', {});
    expect(res.status).toBe(200);
    expect(fake.subscriptions.get(subscriptionId)!.cancel_at_period_end).toBe(true);
    const answer = await res.json();
    expect(answer.subscription).toMatchObject({ status: 'trialing', cancel_at_period_end: true });
    expect(answer.user.subscriptionPlan).toBe('starter');
    expect((await streamEvents(user)).at(-1)!.type).toBe('SubscriptionCanceled');

    const again = await post(user, '/api/billing/cancel-subscription', {});
    expect(again.status).toBe(409);
    const nobody = await signedIn();
    const none = await post(nobody, '/api/billing/cancel-subscription', {});
    expect(none.status).toBe(409);
    expect((await none.json()).message).toBe('You have no subscription to cancel.');
    expect(await streamEvents(nobody)).toEqual([]);
  });

  test('after the subscription ended: a paid subscription without a trial; a declined card changes nothing', async () => {
    const { user, subscriptionId, customerId } = await onTrial();
    await delivered(fake.event('customer.subscription.deleted', fake.change(subscriptionId, { status: 'canceled', ended_at: fake.now }), fake.now + 10));
    expect((await subscription(user)).subscription).toBeNull();

    const declined = await post(user, '/api/billing/create-subscription', { plan: 'starter', paymentMethodId: 'pm_card_chargeDeclined' });
    expect(declined.status).toBe(402);
    expect((await declined.json()).message).toBe('Your card was declined.');
    expect((await streamEvents(user)).at(-1)!.type).toBe('SubscriptionEnded');

    const res = await post(user, '/api/billing/create-subscription', { plan: 'starter', paymentMethodId: 'pm_card_visa' });
    expect(res.status).toBe(200);
    const create = stripeCalls(/^\/v1\/subscriptions$/)
      .filter((r) => r.params.customer === customerId)
      .at(-1)!;
    expect(create.params.trial_period_days).toBeUndefined();
    expect(create.params.payment_behavior).toBe('error_if_incomplete');
    expect((await res.json()).subscription).toMatchObject({ status: 'active', trial_end: null, plan: 'starter' });
  });
});

describe('Stripe webhook', () => {
  test('a valid signature is accepted; a tampered body, another secret, a stale timestamp or none are refused', async () => {
    const { user, subscriptionId } = await onTrial();
    const event = fake.event('customer.subscription.updated', fake.change(subscriptionId, { cancel_at_period_end: true }), fake.now + 5);
    const before = (await streamEvents(user)).length;

    const tampered = JSON.stringify({ ...event, data: { object: { ...event.data.object, cancel_at_period_end: false } } });
    for (const res of [
      await deliver(event, { body: tampered }),
      await deliver(event, { secret: 'whsec_someone_else' }),
      await deliver(event, { timestamp: Math.floor(Date.now() / 1000) - 600 }),
      await request('/api/billing/webhook', { method: 'POST', body: JSON.stringify(event) }),
    ]) {
      expect(res.status).toBe(400);
      expect((await res.json()).message).toBeString();
    }
    expect(await streamEvents(user)).toHaveLength(before);

    expect(await delivered(event)).toBe('recorded');
    const [last] = (await streamEvents(user)).slice(-1);
    expect(last!.type).toBe('SubscriptionCanceled');
    expect(last!.metadata).toEqual({ stripeEventId: event.id });
  });

  test('a signature dated outside the tolerance is refused, an hour ahead as an hour behind; a minute of clock skew is not', async () => {
    const { user, subscriptionId } = await onTrial();
    const event = fake.event('customer.subscription.updated', fake.change(subscriptionId, { cancel_at_period_end: true }), fake.now + 5);
    const before = (await streamEvents(user)).length;
    const now = Math.floor(Date.now() / 1000);
    for (const timestamp of [now + 3600, now - 3600, now + 600]) {
      const res = await deliver(event, { timestamp });
      expect([timestamp - now, res.status]).toEqual([timestamp - now, 400]);
      expect((await res.json()).message).toBe('Invalid Stripe signature.');
    }
    expect(await streamEvents(user)).toHaveLength(before);
    expect(await (await deliver(event, { timestamp: now + 60 })).json()).toMatchObject({ received: true, outcome: 'recorded' });
    expect(await delivered(event)).toBe('duplicate');
  });

  test('a redelivered event changes nothing', async () => {
    const { user, subscriptionId } = await onTrial();
    const now = fake.now; // the fake's clock moves on while the test runs
    fake.change(subscriptionId, { status: 'active', trial_end: now - 1 });
    fake.setPeriod(subscriptionId, now, now + 30 * DAY);
    const event = fake.event('customer.subscription.updated', fake.subscriptions.get(subscriptionId), now + 14 * DAY);
    expect(await delivered(event)).toBe('recorded');
    const events = (await streamEvents(user)).length;
    expect(await delivered(event)).toBe('duplicate');
    expect(await delivered(event)).toBe('duplicate');
    expect(await streamEvents(user)).toHaveLength(events);
    expect((await subscription(user)).subscription).toMatchObject({ status: 'active', current_period_end: now + 30 * DAY });
  });

  test('the same event delivered concurrently is applied once', async () => {
    const { user, subscriptionId } = await onTrial();
    const event = fake.event('customer.subscription.updated', fake.change(subscriptionId, { cancel_at_period_end: true }), fake.now + 5);
    const outcomes = await Promise.all(Array.from({ length: 5 }, () => delivered(event)));
    expect(outcomes.sort()).toEqual(['duplicate', 'duplicate', 'duplicate', 'duplicate', 'recorded']);
    expect((await streamEvents(user)).filter((e) => e.type === 'SubscriptionCanceled')).toHaveLength(1);
  });

  test('the trial created by our own call and its webhook are recorded once', async () => {
    const { user, subscriptionId } = await onTrial();
    const created = fake.event('customer.subscription.created', fake.subscriptions.get(subscriptionId));
    expect(await delivered(created)).toBe('unchanged');
    expect((await streamEvents(user)).filter((e) => e.type === 'TrialStarted')).toHaveLength(1);
  });

  test('out-of-order delivery: older news arriving late changes nothing', async () => {
    const { user, subscriptionId } = await onTrial();
    const t = fake.now;
    const created = fake.event('customer.subscription.created', fake.subscriptions.get(subscriptionId), t);
    const canceled = fake.event('customer.subscription.updated', fake.change(subscriptionId, { cancel_at_period_end: true }), t + 60);
    const ended = fake.event('customer.subscription.deleted', fake.change(subscriptionId, { status: 'canceled' }), t + 120);

    expect(await delivered(canceled)).toBe('recorded');
    expect(await delivered(created)).toBe('stale');
    expect((await subscription(user)).subscription.cancel_at_period_end).toBe(true);

    expect(await delivered(ended)).toBe('recorded');
    // A late, older update must not bring an ended subscription back.
    const resumed = fake.event('customer.subscription.updated', { ...canceled.data.object, cancel_at_period_end: false }, t + 90);
    expect(await delivered(resumed)).toBe('stale');
    expect((await subscription(user)).subscription).toBeNull();
    expect((await currentUser(user)).subscriptionPlan).toBeNull();
  });

  test('a failed renewal keeps access while past due; payments are recorded', async () => {
    const { user, subscriptionId } = await onTrial();
    const t = fake.now + 14 * DAY;
    expect(await delivered(fake.event('invoice.payment_failed', fake.invoice(subscriptionId, false, 1800), t))).toBe('recorded');
    expect(await delivered(fake.event('customer.subscription.updated', fake.change(subscriptionId, { status: 'past_due' }), t))).toBe('recorded');
    expect((await subscription(user)).subscription.status).toBe('past_due');
    expect((await currentUser(user)).subscriptionPlan).toBe('starter');

    expect(await delivered(fake.event('invoice.paid', fake.invoice(subscriptionId, true, 1800, 2), t + DAY))).toBe('recorded');
    expect(await delivered(fake.event('customer.subscription.updated', fake.change(subscriptionId, { status: 'active' }), t + DAY))).toBe('recorded');
    const types = (await streamEvents(user)).map((e) => e.type);
    expect(types.slice(-4)).toEqual(['PaymentFailed', 'SubscriptionAwaitingPayment', 'PaymentSucceeded', 'SubscriptionActivated']);
    const failed = (await streamEvents(user)).find((e) => e.type === 'PaymentFailed')!;
    expect(failed.data).toMatchObject({ subscriptionId, amount: 1800, currency: 'gbp', attempt: 1 });
    expect((await subscription(user)).subscription.status).toBe('active');
  });

  test('events about customers that are not ours, and events billing does not follow, are acknowledged and ignored', async () => {
    const stranger = {
      id: 'sub_elsewhere',
      object: 'subscription',
      customer: 'cus_elsewhere',
      status: 'active',
      created: fake.now,
      trial_end: null,
      cancel_at_period_end: false,
      metadata: {},
      items: { data: [] },
    };
    expect(await delivered(fake.event('customer.subscription.updated', stranger))).toBe('ignored');
    expect(await delivered(fake.event('charge.refunded', { id: 'ch_1', object: 'charge' }))).toBe('ignored');
  });

  test('an older API version with the period on the subscription is read too', async () => {
    const { user, subscriptionId } = await onTrial();
    const legacy = fake.subscriptions.get(subscriptionId)!;
    const periodEnd = fake.now + 40 * DAY;
    legacy.items.data[0].current_period_end = undefined;
    const event = fake.event('customer.subscription.updated', { ...legacy, status: 'active', current_period_end: periodEnd }, fake.now + 20);
    expect(await delivered(event)).toBe('recorded');
    expect((await subscription(user)).subscription).toMatchObject({ status: 'active', current_period_end: periodEnd });
  });
});

describe('plan limits after a downgrade', () => {
  const product = (n: number) => ({ name: `Kettle ${n}`, url: `https://shop.example/kettle-${n}`, selector: '.price', threshold: 'none' });

  test('products beyond the free limit are kept; adding more is refused until the user upgrades again', async () => {
    const { user, subscriptionId } = await onTrial();
    for (let n = 1; n <= 5; n++) expect((await post(user, '/api/products', product(n))).status).toBe(201);

    await delivered(fake.event('customer.subscription.deleted', fake.change(subscriptionId, { status: 'canceled' }), fake.now + 14 * DAY));
    expect((await subscription(user)).user).toEqual({
      subscriptionPlan: null,
      planLimits: { maxProducts: 3, checkFrequency: 'daily', aiDetection: false, apiAccess: false },
    });

    const list = await (await request('/api/products', { headers: { cookie: user.cookie } })).json();
    expect(list).toHaveLength(5);
    const refused = await post(user, '/api/products', product(6));
    expect(refused.status).toBe(403);
    expect((await refused.json()).message).toContain('Free plan allows 3 products');

    expect((await post(user, '/api/billing/create-subscription', { plan: 'growth', paymentMethodId: 'pm_card_visa' })).status).toBe(200);
    expect((await post(user, '/api/products', product(6))).status).toBe(201);
  });
});

describe('read models', () => {
  test('rebuilding billing and users from the log gives the same tables', async () => {
    await onTrial();
    const snapshot = async () => ({
      subscriptions: await api.ctx.sql`SELECT * FROM subscriptions ORDER BY user_id`,
      plans: await api.ctx.sql`SELECT id, plan, subscription_plan FROM users ORDER BY id`,
    });
    const before = await snapshot();
    await api.ctx.projections.rebuild(['billing', 'users']);
    expect(await snapshot()).toEqual(before);
  });
});
