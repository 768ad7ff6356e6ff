import { Elysia } from 'elysia';
import { staticPlugin } from '@elysiajs/static';
import { join } from 'node:path';
import type { AppContext } from './context.ts';
import { errorHandling } from './http/errors.ts';
import { securityHeaders } from './http/security-headers.ts';
import { compression } from './http/compression.ts';
import { originCheck } from './http/origin.ts';
import { authRoutes } from './auth/routes.ts';
import { settingsRoutes } from './settings/routes.ts';
import { productsRoutes } from './products/routes.ts';
import { productImportRoutes } from './products/import.ts';
import { productExportRoutes } from './products/export.ts';
import { productBulkRoutes } from './products/bulk.ts';
import { dashboardRoutes } from './dashboard/routes.ts';
import { historyRoutes } from './history/routes.ts';
import { siteRoutes } from './site.ts';
import { billingRoutes, billingWebhookRoutes } from './billing/routes.ts';
import { createBilling } from './billing/billing.ts';
import { jsonInput } from './http/input.ts';
import { checkRoutes } from './checks/routes.ts';
import { checkHealthRoutes } from './check-health/routes.ts';
import { demoShopRoutes } from './demo-shop/routes.ts';
import { aiRoutes } from './ai/routes.ts';
import { alertRoutes } from './alerts/routes.ts';
import { channelRoutes } from './channels/routes.ts';
import { apiKeyRoutes } from './public-api/key-routes.ts';
import { publicApiRoutes } from './public-api/routes.ts';
import { apiDocs } from './public-api/docs.ts';

/** The whole HTTP surface: the JSON API under /api and the static site on the same origin. */
export function createApp(ctx: AppContext) {
  const billing = createBilling(ctx);
  const notFound = ({ set }: { set: { status?: number | string } }) => { set.status = 404; return { message: 'Not found' }; };
  return new Elysia()
    .use(securityHeaders(ctx.config))
    .use(compression)
    .use(errorHandling)
    .use(originCheck(ctx))
    // Routes that read their body themselves, in their own format, come before the JSON-only rules.
    .use(billingWebhookRoutes(ctx, billing))
    .use(productImportRoutes(ctx))
    .use(jsonInput)
    .use(authRoutes(ctx))
    .use(settingsRoutes(ctx))
    .use(productsRoutes(ctx))
    .use(productExportRoutes(ctx))
    .use(productBulkRoutes(ctx))
    .use(dashboardRoutes(ctx))
    .use(historyRoutes(ctx))
    .use(checkRoutes(ctx))
    .use(checkHealthRoutes(ctx))
    .use(demoShopRoutes(ctx))
    .use(billingRoutes(ctx, billing))
    .use(aiRoutes(ctx))
    .use(alertRoutes(ctx))
    .use(channelRoutes(ctx))
    .use(apiKeyRoutes(ctx))
    .use(publicApiRoutes(ctx))
    .use(apiDocs())
    // A method's own routes are searched before ALL ones, so GET needs its own or the site's /* takes it.
    .get('/api/*', notFound)
    .all('/api/*', notFound)
    .use(siteRoutes(ctx));
}

export type App = ReturnType<typeof createApp>;
