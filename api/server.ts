import { Elysia } from 'elysia';
import type { AppContext } from './context.ts';
import type { Module } from './module.ts';
import { modules } from './modules.ts';
import { errorHandling } from './http/errors.ts';
import { securityHeaders } from './http/security-headers.ts';
import { compression } from './http/compression.ts';
import { originCheck } from './http/origin.ts';
import { jsonInput } from './http/input.ts';
import { siteRoutes } from './site.ts';

type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void ? I : never;
type RoutesOf<F> = F extends (ctx: AppContext) => { '~Routes': infer R } ? R : never;
type ModuleRoutesOf<M> = M extends unknown
  ? RoutesOf<M extends { routes: infer F } ? F : never> | RoutesOf<M extends { bodyRoutes: infer F } ? F : never>
  : never;
/** Every module's routes in one type, so the site's typed client knows each route, its body and its answer. */
type ModuleRoutes = UnionToIntersection<ModuleRoutesOf<(typeof modules)[number]>>;

/** The whole HTTP surface: every module's JSON API under /api, and the static site on the same origin. */
export function createApp(ctx: AppContext) {
  const notFound = ({ set }: { set: { status?: number | string } }) => {
    set.status = 404;
    return { message: 'Not found' };
  };
  const app = new Elysia().use(securityHeaders(ctx.config)).use(compression).use(errorHandling).use(originCheck(ctx));
  // Routes that read their body themselves, in their own format, come before the JSON-only rules.
  for (const module of modules as readonly Module[]) if (module.bodyRoutes) app.use(module.bodyRoutes(ctx));
  app.use(jsonInput);
  for (const module of modules as readonly Module[]) if (module.routes) app.use(module.routes(ctx));
  return (
    app
      // A method's own routes are searched before ALL ones, so GET needs its own or the site's /* takes it.
      .get('/api/*', notFound)
      .all('/api/*', notFound)
      .use(siteRoutes(ctx)) as unknown as typeof app & { '~Routes': ModuleRoutes }
  );
}

export type App = ReturnType<typeof createApp>;
