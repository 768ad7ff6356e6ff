import { Elysia } from 'elysia';
import type { Module } from '../module.ts';
import type { AppContext } from '../context.ts';
import { createBilling, type Billing } from './billing.ts';
import { billingRoutes, billingWebhookRoutes } from './routes.ts';
import { BILLING_DDL } from './webhook.ts';
import { billingProjection } from '../../projections/billing.ts';

// The webhook and the billing routes share one provider client per app context.
const billings = new WeakMap<AppContext, Billing>();
const billingOf = (ctx: AppContext) => {
  let billing = billings.get(ctx);
  if (!billing) billings.set(ctx, (billing = createBilling(ctx)));
  return billing;
};

/** Plans, trials, checkout and the payment provider's webhook. */
export const billingModule = {
  name: 'billing',
  ddl: [BILLING_DDL],
  projections: [billingProjection],
  // The provider signs the raw body: it is read as sent.
  bodyRoutes: (ctx: AppContext) => new Elysia().use(billingWebhookRoutes(ctx, billingOf(ctx))),
  routes: (ctx: AppContext) => new Elysia().use(billingRoutes(ctx, billingOf(ctx))),
} satisfies Module;
