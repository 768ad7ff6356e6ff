import type { Config } from './config.ts';
import type { AppContext } from './context.ts';
import { openDatabase, type Database, type Sql } from '../db/index.ts';
import { createEventStore } from '../events/store.ts';
import { ensurePartitions, reportPartitionFailure } from '../events/partitions.ts';
import { createProjectionRunner, type ProjectionRunner } from '../projections/runner.ts';
import { createSessionStore } from './auth/sessions.ts';
import { allProjections, allReactors, modules } from './modules.ts';

/** Creates the tables this process needs, module by module; every statement is idempotent. */
export async function migrate(sql: Sql, runner: ProjectionRunner, reactorRunner?: ProjectionRunner) {
  for (const module of modules) for (const ddl of 'ddl' in module ? module.ddl : []) await sql.unsafe(ddl);
  await runner.setup();
  await reactorRunner?.setup();
  // The log's partitions for this month and the next ones. Should this wait too long for a lock,
  // appends go to the DEFAULT partition meanwhile, and the hourly job tries again.
  await ensurePartitions(sql).catch(reportPartitionFailure);
}

export async function createContext(config: Config, opts: { database?: Database } = {}): Promise<AppContext & { database: Database; close(): Promise<void> }> {
  const database = opts.database ?? (await openDatabase({ url: config.databaseUrl, dataDir: config.dataDir }));
  const sql = database.sql;
  const store = createEventStore(sql);
  const runner = createProjectionRunner(store, allProjections, { onError: (err, name) => console.error(`projection ${name}:`, err) });
  const reactorRunner = createProjectionRunner(store, allReactors(store), {
    checkpoints: 'reactor_checkpoints',
    onError: (err, name) => console.error(`reactor ${name}:`, err),
  });
  await migrate(sql, runner, reactorRunner);
  return {
    config,
    sql,
    store,
    database,
    projections: runner,
    reactors: reactorRunner,
    sessions: createSessionStore(sql, { lifetimeDays: config.sessionDays }),
    async close() {
      await runner.stop();
      await reactorRunner.stop();
      await database.close();
    },
  };
}
