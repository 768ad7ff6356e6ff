import { loadConfig } from '../config.ts';
import { createContext } from '../context.ts';
import { testDatabase } from '../../db/testing.ts';

export { testDatabase, usingPostgresServer, repeatedForEmbedded, SETUP_TIMEOUT } from '../../db/testing.ts';

/** An app context on a fresh test database, in demo mode unless the environment says otherwise. */
export async function testContext(env: Record<string, string | undefined> = {}) {
  const database = await testDatabase();
  const config = loadConfig({ NODE_ENV: 'test', PORT: '3000', DATA_DIR: '/tmp/pricewatch-test', ...env });
  return createContext(config, { database });
}
