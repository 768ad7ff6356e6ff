import type { Module } from '../module.ts';
import { historyRoutes } from './routes.ts';

/** Price history: a product's observations, charts and the evidence behind each price. */
export const historyModule = {
  name: 'history',
  routes: historyRoutes,
} satisfies Module;
