import type { Module } from '../module.ts';
import { settingsRoutes } from './routes.ts';
import { settingsProjection } from '../../projections/settings.ts';

/** A user's notification, currency, time zone and check frequency settings. */
export const settingsModule = {
  name: 'settings',
  projections: [settingsProjection],
  routes: settingsRoutes,
} satisfies Module;
