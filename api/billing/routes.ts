import { Elysia } from 'elysia';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { authentication } from '../auth/plugin.ts';
import { DomainError } from '../../events/decider.ts';
import { readBody } from '../http/input.ts';
import type { Billing } from './billing.ts';
import { receiveStripeEvent } from './webhook.ts';

const PLAN_MESSAGE = 'Choose one of the plans: starter, growth or pro.';
const PAYMENT_METHOD_MESSAGE = 'A payment method is required.';

export const CreateSubscriptionBody = z.object({
  plan: z.enum(['starter', 'growth', 'pro'], { error: PLAN_MESSAGE }),
  paymentMethodId: z.string({ error: PAYMENT_METHOD_MESSAGE }).trim().min(1, PAYMENT_METHOD_MESSAGE).max(255),
});

/** The billing calls (docs/product.md#billing-and-plans). */
export function billingRoutes(ctx: AppContext, billing: Billing) {
  return new Elysia({ prefix: '/api/billing' })
    .use(authentication(ctx))
    .get('/subscription', ({ userId }) => billing.read(userId), { signedIn: true })

    .post('/create-trial-setup', ({ userId }) => billing.createSetup(userId), { signedIn: true })

    .post(
      '/create-subscription',
      async ({ userId, body }) => {
        await billing.subscribe(userId, body.plan, body.paymentMethodId);
        return billing.read(userId);
      },
      { signedIn: true, body: CreateSubscriptionBody },
    )

    .post(
      '/cancel-subscription',
      async ({ userId }) => {
        await billing.cancel(userId);
        return billing.read(userId);
      },
      { signedIn: true },
    );
}

/**
 * Stripe's webhook. The signature covers the exact bytes Stripe sent, so the body is read raw,
 * never parsed, in whatever content type Stripe sends (still within the size cap).
 */
export function billingWebhookRoutes(ctx: AppContext, billing: Billing) {
  return new Elysia({ prefix: '/api/billing' }).post(
    '/webhook',
    async ({ request }) => {
      if (!billing.stripe) throw new DomainError('Not found', 404);
      const signature = request.headers.get('stripe-signature');
      if (!signature) throw new DomainError('Missing Stripe-Signature header.', 400);
      const raw = await readBody(request);
      const event = await billing.stripe.verify(raw, signature).catch(() => {
        throw new DomainError('Invalid Stripe signature.', 400);
      });
      return { received: true, outcome: await receiveStripeEvent(ctx, billing.stripe, event) };
    },
    { parse: 'none' },
  );
}
