/**
 * A Stripe-shaped HTTP API on loopback for tests, reached through the real `stripe` SDK (its
 * `host`, `port` and `protocol` options): form-encoded requests with bracketed keys, bearer-key
 * authentication, Idempotency-Key replays, Stripe's error bodies, and objects shaped like the
 * current API version (the billing period on subscription items).
 *
 * Payment method ids starting with `pm_` exist (like Stripe's test methods); `pm_card_chargeDeclined`
 * is declined when a payment is taken.
 */
type Params = Record<string, any>;

/** `items[0][price]=p&metadata[userId]=u` -> { items: [{ price: 'p' }], metadata: { userId: 'u' } }. */
export function parseForm(body: string): Params {
  const root: Params = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.replace(/\]/g, '').split('[');
    let node: any = root;
    path.forEach((part, i) => {
      const last = i === path.length - 1;
      const nextIsIndex = !last && /^\d+$/.test(path[i + 1]!);
      if (last) node[part] = value;
      else node = node[part] ??= nextIsIndex ? [] : {};
    });
  }
  return root;
}

class StripeFailure extends Error {
  constructor(
    readonly status: number,
    readonly body: { type: string; message: string; code?: string; param?: string; decline_code?: string },
  ) {
    super(body.message);
  }
}

const missing = (what: string, id: string, param?: string) =>
  new StripeFailure(404, { type: 'invalid_request_error', code: 'resource_missing', message: `No such ${what}: '${id}'`, param });

const DAY = 86_400;
const DECLINED = 'pm_card_chargeDeclined';

export async function startFakeStripe(opts: { secretKey: string; prices: Record<string, number> }) {
  let serial = 0;
  let offset = 0;
  const clock = () => Math.floor(Date.now() / 1000) + offset;
  const id = (prefix: string) => `${prefix}_fake${(++serial).toString().padStart(6, '0')}`;
  const customers = new Map<string, Params>();
  const subscriptions = new Map<string, Params>();
  const replays = new Map<string, { params: string; status: number; body: unknown }>();
  const requests: { method: string; path: string; params: Params; idempotencyKey: string | null }[] = [];

  const fake = {
    url: '',
    port: 0,
    /** The fake's clock in Unix seconds: the real time, moved on by `advance`. */
    get now() {
      return clock();
    },
    advance(seconds: number) {
      offset += seconds;
    },
    requests,
    customers,
    subscriptions,
    /** Changes a subscription as Stripe would on its own (a trial ending, a failed renewal). */
    change(subscriptionId: string, changes: Params) {
      const sub = subscriptions.get(subscriptionId)!;
      Object.assign(sub, changes);
      return structuredClone(sub);
    },
    /** A period after `start`: items carry it in current API versions. */
    setPeriod(subscriptionId: string, start: number, end: number) {
      const item = subscriptions.get(subscriptionId)!.items.data[0];
      item.current_period_start = start;
      item.current_period_end = end;
    },
    /** An event as Stripe would deliver it to a webhook endpoint. */
    event<T>(type: string, object: T, created = clock()) {
      return {
        id: id('evt'),
        object: 'event',
        api_version: '2026-10-28.endive',
        created,
        type,
        livemode: false,
        pending_webhooks: 1,
        data: { object: structuredClone(object) },
        request: { id: null, idempotency_key: null },
      };
    },
    /** An invoice of a subscription, paid or failed, as invoice.* events carry it. */
    invoice(subscriptionId: string, paid: boolean, amount: number, attempt = 1) {
      const sub = subscriptions.get(subscriptionId)!;
      return {
        id: id('in'),
        object: 'invoice',
        customer: sub.customer,
        currency: 'gbp',
        status: paid ? 'paid' : 'open',
        amount_due: amount,
        amount_paid: paid ? amount : 0,
        attempt_count: attempt,
        created: clock(),
        parent: { type: 'subscription_details', quote_details: null, subscription_details: { subscription: sub.id, metadata: sub.metadata } },
      };
    },
    reset() {
      customers.clear();
      subscriptions.clear();
      replays.clear();
      requests.length = 0;
    },
    stop: () => server.stop(true),
  };

  function price(priceId: string) {
    const unit = opts.prices[priceId];
    if (unit === undefined) throw missing('price', priceId, 'items[0][price]');
    return { id: priceId, object: 'price', currency: 'gbp', unit_amount: unit, recurring: { interval: 'month', interval_count: 1 } };
  }

  function paymentMethod(pm: unknown, param: string): string {
    if (typeof pm !== 'string' || !pm.startsWith('pm_')) throw missing('PaymentMethod', String(pm), param);
    return pm;
  }

  function customer(customerId: string) {
    const c = customers.get(customerId);
    if (!c) throw missing('customer', customerId, 'customer');
    return c;
  }

  function subscription(subscriptionId: string) {
    const s = subscriptions.get(subscriptionId);
    if (!s) throw missing('subscription', subscriptionId);
    return s;
  }

  const monthAfter = (t: number) => t + 30 * DAY;

  function createSubscription(p: Params) {
    const c = customer(p.customer);
    const pm = p.default_payment_method ? paymentMethod(p.default_payment_method, 'default_payment_method') : c.invoice_settings.default_payment_method;
    const trialDays = p.trial_period_days ? Number(p.trial_period_days) : 0;
    if (!trialDays && (!pm || pm === DECLINED)) {
      throw new StripeFailure(402, { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline', message: 'Your card was declined.' });
    }
    const start = clock();
    const trialEnd = trialDays ? start + trialDays * DAY : null;
    const periodEnd = trialEnd ?? monthAfter(start);
    const sub = {
      id: id('sub'),
      object: 'subscription',
      customer: c.id,
      status: trialDays ? 'trialing' : 'active',
      created: start,
      start_date: start,
      trial_start: trialDays ? start : null,
      trial_end: trialEnd,
      cancel_at_period_end: false,
      cancel_at: null,
      canceled_at: null,
      ended_at: null,
      default_payment_method: pm ?? null,
      metadata: p.metadata ?? {},
      livemode: false,
      latest_invoice: null,
      items: {
        object: 'list',
        has_more: false,
        url: '/v1/subscription_items',
        data: (p.items ?? []).map((item: Params) => ({
          id: id('si'),
          object: 'subscription_item',
          price: price(item.price),
          quantity: Number(item.quantity ?? 1),
          current_period_start: start,
          current_period_end: periodEnd,
        })),
      },
    };
    subscriptions.set(sub.id, sub);
    return sub;
  }

  function updateSubscription(sub: Params, p: Params) {
    if (sub.status === 'canceled') {
      throw new StripeFailure(400, {
        type: 'invalid_request_error',
        message: 'A canceled subscription can only update its cancellation_details and metadata.',
      });
    }
    if (p.cancel_at_period_end !== undefined) {
      sub.cancel_at_period_end = p.cancel_at_period_end === 'true';
      sub.canceled_at = sub.cancel_at_period_end ? clock() : null;
    }
    if (p.default_payment_method) sub.default_payment_method = paymentMethod(p.default_payment_method, 'default_payment_method');
    if (p.metadata) sub.metadata = { ...sub.metadata, ...p.metadata };
    for (const item of p.items ?? []) {
      const existing = sub.items.data.find((i: Params) => i.id === item.id);
      if (!existing) throw missing('subscription_item', item.id, 'items[0][id]');
      if (item.price) existing.price = price(item.price);
    }
    return sub;
  }

  function route(method: string, path: string, p: Params): unknown {
    const [, , resource, resourceId] = path.split('/');
    if (resource === 'customers' && method === 'POST' && !resourceId) {
      const c = {
        id: id('cus'),
        object: 'customer',
        email: p.email ?? null,
        metadata: p.metadata ?? {},
        created: clock(),
        invoice_settings: { default_payment_method: null },
      };
      customers.set(c.id, c);
      return c;
    }
    if (resource === 'customers' && method === 'POST') {
      const c = customer(resourceId!);
      const pm = p.invoice_settings?.default_payment_method;
      if (pm !== undefined) c.invoice_settings.default_payment_method = paymentMethod(pm, 'invoice_settings[default_payment_method]');
      return c;
    }
    if (resource === 'setup_intents' && method === 'POST' && !resourceId) {
      if (p.customer) customer(p.customer);
      const intentId = id('seti');
      return {
        id: intentId,
        object: 'setup_intent',
        client_secret: `${intentId}_secret_${crypto.randomUUID().slice(0, 8)}`,
        customer: p.customer ?? null,
        usage: p.usage ?? 'off_session',
        status: 'requires_payment_method',
      };
    }
    if (resource === 'subscriptions' && method === 'POST' && !resourceId) return createSubscription(p);
    if (resource === 'subscriptions' && method === 'GET' && resourceId) return subscription(resourceId);
    if (resource === 'subscriptions' && method === 'POST') return updateSubscription(subscription(resourceId!), p);
    if (resource === 'subscriptions' && method === 'DELETE') {
      return Object.assign(subscription(resourceId!), { status: 'canceled', canceled_at: clock(), ended_at: clock() });
    }
    throw new StripeFailure(404, { type: 'invalid_request_error', message: `Unrecognized request URL (${method}: ${path}).` });
  }

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const text = request.method === 'GET' || request.method === 'DELETE' ? url.search.slice(1) : await request.text();
      const params = parseForm(text);
      const idempotencyKey = request.headers.get('idempotency-key');
      requests.push({ method: request.method, path: url.pathname, params, idempotencyKey });
      if (request.headers.get('authorization') !== `Bearer ${opts.secretKey}`) {
        return Response.json({ error: { type: 'invalid_request_error', message: 'Invalid API Key provided.' } }, { status: 401 });
      }
      const replayKey = idempotencyKey && request.method === 'POST' ? `${url.pathname} ${idempotencyKey}` : null;
      const replay = replayKey ? replays.get(replayKey) : undefined;
      if (replay) {
        if (replay.params !== text) {
          return Response.json(
            {
              error: {
                type: 'idempotency_error',
                message: 'Keys for idempotent requests can only be used with the same parameters they were first used with.',
              },
            },
            { status: 400 },
          );
        }
        return Response.json(replay.body, { status: replay.status, headers: { 'idempotent-replayed': 'true' } });
      }
      let status = 200,
        body: unknown;
      try {
        body = structuredClone(route(request.method, url.pathname, params));
      } catch (error) {
        if (!(error instanceof StripeFailure)) throw error;
        status = error.status;
        body = { error: error.body };
      }
      if (replayKey) replays.set(replayKey, { params: text, status, body });
      return Response.json(body, { status, headers: { 'request-id': id('req') } });
    },
  });
  fake.port = server.port!;
  fake.url = `http://127.0.0.1:${server.port}`;
  return fake;
}

export type FakeStripe = Awaited<ReturnType<typeof startFakeStripe>>;
