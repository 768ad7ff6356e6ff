import { Elysia } from 'elysia';
import type { Module } from '../module.ts';
import type { AppContext } from '../context.ts';
import { productsRoutes } from './routes.ts';
import { productImportRoutes } from './import.ts';
import { productExportRoutes } from './export.ts';
import { productBulkRoutes } from './bulk.ts';
import { productsProjection } from '../../projections/products.ts';
import { pricePointDaysProjection } from '../../projections/price-point-days.ts';

/** The competitor pages a user tracks: adding, editing, CSV import and export, bulk actions. */
export const productsModule = {
  name: 'products',
  projections: [productsProjection, pricePointDaysProjection],
  // A CSV upload is read in its own format, with its own cap.
  bodyRoutes: productImportRoutes,
  routes: (ctx: AppContext) => new Elysia().use(productsRoutes(ctx)).use(productExportRoutes(ctx)).use(productBulkRoutes(ctx)),
} satisfies Module;
