import type { Config } from './config.ts';
import type { Sql } from '../db/index.ts';
import type { EventStore } from '../events/store.ts';
import type { ProjectionRunner } from '../projections/runner.ts';
import type { SessionStore } from './auth/sessions.ts';

/** Everything a request handler may need, built once per process (or per test). */
export type AppContext = {
  config: Config;
  sql: Sql;
  store: EventStore;
  projections: ProjectionRunner;
  /** Raise alerts and queue e-mails from the log; never rebuilt. */
  reactors: ProjectionRunner;
  sessions: SessionStore;
};
