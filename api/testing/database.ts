import { loadConfig } from '../config.ts';
import { createContext } from '../create-context.ts';
import { testDatabase, type TestTemplate } from '../../db/testing.ts';

export { testDatabase, usingPostgresServer, SETUP_TIMEOUT } from '../../db/testing.ts';

const TEST_ENV = { NODE_ENV: 'test', PORT: '3000', DATA_DIR: '/tmp/pricewatch-test' };

/**
 * A database as the app's migrations leave it (every table, projection and reactor set up, no
 * events): what testContext() starts from. Migrating does not depend on the configuration.
 */
export const MIGRATED: TestTemplate = {
  name: 'migrated',
  async migrate(database) {
    const ctx = await createContext(loadConfig(TEST_ENV), { database: { ...database, close: async () => {} } });
    await ctx.close();
  },
};

/**
 * An app context on a fresh test database, in demo mode unless the environment says otherwise.
 * The database is a copy of MIGRATED; createContext migrates it again, as the app does at every
 * start, which finds nothing to do.
 */
export async function testContext(env: Record<string, string | undefined> = {}) {
  const database = await testDatabase({ template: MIGRATED });
  const config = loadConfig({ ...TEST_ENV, ...env });
  return createContext(config, { database });
}
