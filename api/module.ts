import type { AnyElysia } from 'elysia';
import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import type { EventStore } from '../events/store.ts';
import type { Projection } from '../projections/projection.ts';

/**
 * One capability of the product, whole: its tables, read models, reactors, HTTP routes and
 * background jobs. The list in api/modules.ts is the only place that names them all; migration,
 * the app, the server and workers loop over it (docs/architecture.md).
 */
export type Module = {
  name: string;
  /** Idempotent statements, run at every start in the list's order (after the modules before it). */
  ddl?: readonly string[];
  /** Read models, caught up in the list's order. */
  projections?: readonly Projection[];
  /** Shaped like projections, but they act (raise alerts, queue messages) and are never rebuilt. */
  reactors?: (store: EventStore) => readonly Projection[];
  /** Routes that read their own body in their own format (webhooks, uploads): mounted before the JSON-only rule. */
  bodyRoutes?: (ctx: AppContext) => AnyElysia;
  routes?: (ctx: AppContext) => AnyElysia;
  jobs?: readonly Job[];
};

/** The server process, or an extra `bun run worker` process. */
export type Role = 'server' | 'worker';

/**
 * Background work. A `cron` job runs on its schedule (never twice at once); a `loop` job runs
 * until its signal aborts, and is awaited when the process stops.
 */
export type Job = {
  name: string;
  roles: readonly Role[];
  /** Whether this process runs it at all (a setting may turn it off). */
  enabled?: (config: Config, role: Role) => boolean;
} & ({ cron: string; run(ctx: AppContext): Promise<unknown> } | { loop(ctx: AppContext, signal: AbortSignal): Promise<void> });
