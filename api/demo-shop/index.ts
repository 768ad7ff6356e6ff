import type { Module } from '../module.ts';
import { demoShopRoutes } from './routes.ts';

/** The demo shop's product pages, which demo accounts track. */
export const demoShopModule = {
  name: 'demo-shop',
  routes: demoShopRoutes,
} satisfies Module;
