import { describe, expect, test } from 'bun:test';
import { loadConfig } from '../config.ts';
import { useTestApp } from '../testing/app.ts';

// Demo billing: the same calls and answers as with Stripe, without Stripe.
const ORIGIN = 'http://localhost:3000';
const DAY = 86_400;

const api = useTestApp({ PUBLIC_URL: ORIGIN });
const { request, signedIn } = api;

const post = (user: { cookie: string }, path: string, body?: unknown) =>
  request(path, {
    method: 'POST',
    headers: { origin: ORIGIN, cookie: user.cookie, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const subscription = async (user: { cookie: string }) => (await request('/api/billing/subscription', { headers: { cookie: user.cookie } })).json();

describe('demo billing', () => {
  test('trial setup answers a client secret like Stripe, without a publishable key', async () => {
    const user = await signedIn();
    const res = await post(user, '/api/billing/create-trial-setup');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ clientSecret: expect.stringMatching(/^demo_seti_\w+_secret_\w+$/), provider: 'demo', publishableKey: null });
    expect((await subscription(user)).provider).toBe('demo');
  });

  test('a trial starts at once; cancelling keeps access until the trial ends', async () => {
    const user = await signedIn();
    const now = Math.floor(Date.now() / 1000);
    await post(user, '/api/billing/create-trial-setup');
    const res = await post(user, '/api/billing/create-subscription', { plan: 'growth', paymentMethodId: 'pm_demo_visa4242' });
    expect(res.status).toBe(200);
    const answer = await res.json();
    expect(answer.user.subscriptionPlan).toBe('growth');
    expect(answer.subscription).toMatchObject({ status: 'trialing', plan: 'growth', amount: 4900, cancel_at_period_end: false });
    expect(answer.subscription.trial_end - now).toBeWithin(14 * DAY - 5, 14 * DAY + 5);
    expect(answer.subscription.current_period_end).toBe(answer.subscription.trial_end);

    const canceled = await (await post(user, '/api/billing/cancel-subscription', {})).json();
    expect(canceled.subscription).toMatchObject({ status: 'trialing', cancel_at_period_end: true });
    expect(canceled.user.subscriptionPlan).toBe('growth');
  });

  test('only the demo card is taken; a second trial is refused', async () => {
    const user = await signedIn();
    const card = await post(user, '/api/billing/create-subscription', { plan: 'starter', paymentMethodId: 'pm_card_visa' });
    expect(card.status).toBe(400);
    expect((await card.json()).field).toBe('paymentMethodId');
    expect((await subscription(user)).subscription).toBeNull();

    expect((await post(user, '/api/billing/create-subscription', { plan: 'starter', paymentMethodId: 'pm_demo_1' })).status).toBe(200);
    expect((await post(user, '/api/billing/create-subscription', { plan: 'starter', paymentMethodId: 'pm_demo_2' })).status).toBe(409);
  });

  test('there is no webhook without Stripe', async () => {
    expect((await request('/api/billing/webhook', { method: 'POST', headers: { 'stripe-signature': 't=1,v1=x' }, body: '{}' })).status).toBe(404);
  });
});

describe('billing configuration', () => {
  const stripe = {
    STRIPE_SECRET_KEY: 'sk_live_x',
    STRIPE_PUBLISHABLE_KEY: 'pk_live_x',
    STRIPE_WEBHOOK_SECRET: 'whsec_x',
    STRIPE_PRICE_STARTER: 'price_s',
    STRIPE_PRICE_GROWTH: 'price_g',
    STRIPE_PRICE_PRO: 'price_p',
  };
  const google = { GOOGLE_CLIENT_ID: 'id', GOOGLE_CLIENT_SECRET: 'secret' };

  test('without Stripe keys billing is the demo, which production refuses', () => {
    expect(loadConfig({}).billing).toEqual({ provider: 'demo' });
    expect(() => loadConfig({ NODE_ENV: 'production', ...google })).toThrow(/STRIPE_SECRET_KEY/);
    expect(loadConfig({ NODE_ENV: 'production', ...google, ...stripe }).billing).toMatchObject({ provider: 'stripe', api: null });
  });

  test('a Stripe secret key without the rest names what is missing', () => {
    expect(() => loadConfig({ STRIPE_SECRET_KEY: 'sk_test_x', STRIPE_PUBLISHABLE_KEY: 'pk' })).toThrow(/STRIPE_WEBHOOK_SECRET, STRIPE_PRICE_STARTER/);
  });

  test('the API address can point at a local stand-in, except in production', () => {
    const config = loadConfig({ ...stripe, STRIPE_API_HOST: '127.0.0.1', STRIPE_API_PORT: '12111', STRIPE_API_PROTOCOL: 'http' });
    expect(config.billing).toMatchObject({
      api: { host: '127.0.0.1', port: 12111, protocol: 'http' },
      prices: { starter: 'price_s', growth: 'price_g', pro: 'price_p' },
    });
    expect(() => loadConfig({ NODE_ENV: 'production', ...google, ...stripe, STRIPE_API_PROTOCOL: 'http' })).toThrow(/tests/);
  });
});
