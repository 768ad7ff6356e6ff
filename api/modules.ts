import type { Module } from './module.ts';
import type { Projection } from '../projections/projection.ts';
import type { EventStore } from '../events/store.ts';
import { eventLogModule } from './event-log/index.ts';
import { authModule } from './auth/index.ts';
import { settingsModule } from './settings/index.ts';
import { productsModule } from './products/index.ts';
import { catalogueModule } from './catalogue/index.ts';
import { pricingModule } from './pricing/index.ts';
import { fetchingModule } from './fetching/index.ts';
import { checksModule } from './checks/index.ts';
import { dashboardModule } from './dashboard/index.ts';
import { historyModule } from './history/index.ts';
import { checkHealthModule } from './check-health/index.ts';
import { demoShopModule } from './demo-shop/index.ts';
import { billingModule } from './billing/index.ts';
import { aiModule } from './ai/index.ts';
import { alertsModule } from './alerts/index.ts';
import { channelsModule } from './channels/index.ts';
import { publicApiModule } from './public-api/index.ts';

/**
 * Every capability of the product, and the only list of them: tables are made, read models caught
 * up, reactors run and routes mounted in this order (docs/architecture.md). A new capability is a
 * folder with an index.ts exporting its module, and one line here.
 */
export const modules = [
  eventLogModule,
  authModule,
  settingsModule,
  productsModule,
  fetchingModule,
  checksModule,
  dashboardModule,
  historyModule,
  catalogueModule,
  pricingModule,
  checkHealthModule,
  demoShopModule,
  billingModule,
  aiModule,
  alertsModule,
  channelsModule,
  publicApiModule,
] as const satisfies readonly Module[];

export const allProjections: readonly Projection[] = modules.flatMap((m: Module) => m.projections ?? []);
export const allReactors = (store: EventStore): readonly Projection[] => modules.flatMap((m: Module) => m.reactors?.(store) ?? []);
