import postgres from 'postgres';
import { openDatabase, type Database } from './index.ts';

/**
 * A fresh, empty database for one test file: a new database on the PostgreSQL server of
 * DATABASE_URL when it is set, otherwise an in-memory embedded PGlite.
 */
export async function testDatabase(opts: { max?: number } = {}): Promise<Database & { url?: string }> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) return openDatabase({ dataDir: null });
  const name = `pricewatch_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const db = await openDatabase({ url: url.toString(), max: opts.max ?? 10 });
  return {
    ...db,
    url: url.toString(),
    async close() {
      await db.close();
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

export const usingPostgresServer = () => !!process.env.DATABASE_URL;

/** True in the suite's second pass, on the embedded database: tests that use no database ran in the first. */
export const repeatedForEmbedded = () => process.env.TEST_PASS === 'embedded-again';

/** Starting an embedded database takes seconds on a busy machine: hooks that open one get this timeout. */
export const SETUP_TIMEOUT = 60_000;
