import type { Module } from '../module.ts';
import { dashboardRoutes } from './routes.ts';

/** The dashboard's figures, trends and recent changes. */
export const dashboardModule = {
  name: 'dashboard',
  routes: dashboardRoutes,
} satisfies Module;
