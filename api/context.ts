import type { Config } from './config.ts';
import { openDatabase, type Database, type Sql } from '../db/index.ts';
import { createEventStore, EVENT_STORE_DDL, type EventStore } from '../events/store.ts';
import { ensurePartitions, reportPartitionFailure } from '../events/partitions.ts';
import { EVENT_ARCHIVES_DDL } from '../events/archive.ts';
import { createProjectionRunner, type ProjectionRunner } from '../projections/runner.ts';
import { projections } from '../projections/index.ts';
import { createSessionStore, SESSIONS_DDL, type SessionStore } from './auth/sessions.ts';
import { OAUTH_STATE_DDL } from './auth/oauth-state.ts';
import { BILLING_DDL } from './billing/webhook.ts';
import { CHECK_JOBS_DDL } from './checks/queue.ts';
import { HOST_BACKOFF_DDL } from './fetching/host-backoff.ts';
import { OUTBOX_DDL } from './alerts/outbox.ts';
import { CHANNELS_DDL } from './channels/outbox.ts';
import { API_KEYS_DDL } from './public-api/keys.ts';
import { RATE_LIMIT_DDL } from './public-api/rate-limit.ts';
import { reactors } from './alerts/reactors.ts';

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

/** Creates the tables this process needs; every statement is idempotent. */
export async function migrate(sql: Sql, runner: ProjectionRunner, reactorRunner?: ProjectionRunner) {
  await sql.unsafe(EVENT_STORE_DDL);
  await sql.unsafe(SESSIONS_DDL);
  await sql.unsafe(OAUTH_STATE_DDL);
  await sql.unsafe(CHECK_JOBS_DDL);
  await sql.unsafe(HOST_BACKOFF_DDL);
  await runner.setup();
  await sql.unsafe(OUTBOX_DDL);
  await sql.unsafe(CHANNELS_DDL);
  await reactorRunner?.setup();
  await sql.unsafe(BILLING_DDL); // after the event store: it indexes the events table
  await sql.unsafe(API_KEYS_DDL); // also an index on the events table
  await sql.unsafe(RATE_LIMIT_DDL);
  await sql.unsafe(EVENT_ARCHIVES_DDL);
  // The log's partitions for this month and the next ones. Should this wait too long for a lock,
  // appends go to the DEFAULT partition meanwhile, and the hourly job tries again.
  await ensurePartitions(sql).catch(reportPartitionFailure);
}

export async function createContext(config: Config, opts: { database?: Database } = {}): Promise<AppContext & { database: Database; close(): Promise<void> }> {
  const database = opts.database ?? await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir });
  const sql = database.sql;
  const store = createEventStore(sql);
  const runner = createProjectionRunner(store, projections, { onError: (err, name) => console.error(`projection ${name}:`, err) });
  const reactorRunner = createProjectionRunner(store, reactors(store), { checkpoints: 'reactor_checkpoints', onError: (err, name) => console.error(`reactor ${name}:`, err) });
  await migrate(sql, runner, reactorRunner);
  return {
    config, sql, store, database,
    projections: runner,
    reactors: reactorRunner,
    sessions: createSessionStore(sql, { lifetimeDays: config.sessionDays }),
    async close() { await runner.stop(); await reactorRunner.stop(); await database.close(); },
  };
}
