import type { Module } from '../module.ts';
import { pricingProjection } from '../../projections/pricing.ts';
import { pricingRoutes } from './routes.ts';
import { applyAutomatically } from './apply.ts';
import { writeAppliedPrices } from './store-write.ts';

/**
 * Pricing rules on the owner's own products: what each price should be and why, a backtest of the
 * rule on recorded history, and applying the recommendation (docs/pricing.md).
 */
export const pricingModule = {
  name: 'pricing',
  projections: [pricingProjection],
  routes: pricingRoutes,
  jobs: [
    { name: 'apply recommendations automatically', roles: ['server'], cron: '* * * * *', run: (ctx) => applyAutomatically(ctx) },
    { name: 'write applied prices to stores', roles: ['server'], cron: '* * * * *', run: (ctx) => writeAppliedPrices(ctx) },
  ],
} satisfies Module;
