import { Elysia } from 'elysia';
import type { Module } from '../module.ts';
import type { AppContext } from '../context.ts';
import { API_KEYS_DDL } from './keys.ts';
import { RATE_LIMIT_DDL } from './rate-limit.ts';
import { apiKeyRoutes } from './key-routes.ts';
import { publicApiRoutes } from './routes.ts';
import { apiDocs } from './docs.ts';

/** The public API: keys, its rate limit, its routes and their documentation. */
export const publicApiModule = {
  name: 'public-api',
  ddl: [API_KEYS_DDL, RATE_LIMIT_DDL],
  routes: (ctx: AppContext) => new Elysia().use(apiKeyRoutes(ctx)).use(publicApiRoutes(ctx)).use(apiDocs()),
} satisfies Module;
