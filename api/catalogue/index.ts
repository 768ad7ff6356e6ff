import { Elysia } from 'elysia';
import type { Module } from '../module.ts';
import { catalogueProjection } from '../../projections/catalogue.ts';
import { catalogueRoutes } from './routes.ts';
import { catalogueImportRoutes } from './import.ts';
import { SYNC_SCHEDULE_DDL, syncDueSources } from './sync.ts';
import { standingAlertsReactor } from './standing-alerts.ts';
import { STORE_ACCESS_DDL, storeAccessRoutes } from './store-access.ts';

/**
 * The owner's own catalogue: products read from their store or a CSV file, linked to the
 * competitor products they track, and where the owner stands against them (docs/catalogue.md).
 */
export const catalogueModule = {
  name: 'catalogue',
  // Write access to the owner's store is kept outside the log, as channel secrets are.
  ddl: [SYNC_SCHEDULE_DDL, STORE_ACCESS_DDL],
  projections: [catalogueProjection],
  // Undercut and cheapest-again alerts.
  reactors: (store) => [standingAlertsReactor(store)],
  bodyRoutes: catalogueImportRoutes,
  routes: (ctx) => new Elysia().use(catalogueRoutes(ctx)).use(storeAccessRoutes(ctx)),
  jobs: [{ name: 'read connected stores', roles: ['server'], cron: '* * * * *', run: (ctx) => syncDueSources(ctx) }],
} satisfies Module;
