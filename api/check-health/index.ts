import type { Module } from '../module.ts';
import { checkHealthRoutes } from './routes.ts';
import { checkHealthProjection } from '../../projections/check-health.ts';

/** How well each product's checks go: failures by reason, pauses, the shops resting. */
export const checkHealthModule = {
  name: 'check-health',
  projections: [checkHealthProjection],
  routes: checkHealthRoutes,
} satisfies Module;
