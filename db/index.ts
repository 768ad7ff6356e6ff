import postgres from 'postgres';
import type { PGlite } from '@electric-sql/pglite';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** The database port: postgres.js over either a real PostgreSQL server or the embedded PGlite. */
// biome-ignore lint/complexity/noBannedTypes: postgres.js's own type for a connection without custom types
export type Sql = postgres.Sql<{}>;
export type Database = { sql: Sql; embedded: boolean; close(): Promise<void> };

const quiet = { onnotice: () => {} };

/**
 * Opens DATABASE_URL when set; otherwise starts an embedded PGlite under `dataDir` (or in memory)
 * behind a wire-protocol socket, so the rest of the code talks postgres.js to both.
 * PGlite is a single backend session: one connection only (larger pools fail intermittently).
 */
export async function openDatabase(opts: { url?: string; dataDir?: string | null; max?: number } = {}): Promise<Database> {
  if (opts.url) {
    const sql = postgres(opts.url, { max: opts.max ?? 10, ...quiet, connection: { idle_in_transaction_session_timeout: 60_000 } });
    return { sql, embedded: false, close: () => sql.end({ timeout: 5 }) };
  }
  const { PGlite } = await import('@electric-sql/pglite');
  let dir: string | undefined;
  if (opts.dataDir) {
    dir = join(opts.dataDir, 'pg');
    mkdirSync(dir, { recursive: true });
  }
  return serveEmbedded(await PGlite.create(dir ? { dataDir: dir } : {}));
}

/** Serves a started PGlite on a loopback port for postgres.js; closing the Database closes `db` too. */
export async function serveEmbedded(db: PGlite): Promise<Database> {
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 1 });
  await server.start();
  const port = (server as any).server?.address()?.port ?? Number((server as any).port);
  const sql = postgres({ host: '127.0.0.1', port, user: 'postgres', password: 'postgres', database: 'postgres', max: 1, ...quiet });
  return {
    sql,
    embedded: true,
    async close() {
      await sql.end({ timeout: 5 });
      await server.stop();
      await db.close();
    },
  };
}

/** Runs `fn` in one transaction; the transaction is the same port, so helpers accept either. */
export function transaction<T>(sql: Sql, fn: (tx: Sql) => Promise<T>): Promise<T> {
  return sql.begin((tx) => fn(tx as unknown as Sql)) as Promise<T>;
}
