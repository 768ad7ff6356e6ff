import postgres from 'postgres';
import type { PGlite } from '@electric-sql/pglite';
import { openDatabase, serveEmbedded, type Database } from './index.ts';

/**
 * What a test database starts from instead of nothing: `migrate` brings an empty database to it
 * (and leaves the database open). Built once per test process, on first use, then copied for
 * each test database that asks for it, which is much faster than migrating each one.
 */
export type TestTemplate = { name: string; migrate(db: Database): Promise<void> };

/**
 * A fresh database for one test file: a new database on the PostgreSQL server of DATABASE_URL
 * when it is set, otherwise an in-memory embedded PGlite. Empty unless `template` is given; then a
 * copy of that template (on PostgreSQL `CREATE DATABASE ... TEMPLATE`, on PGlite a copy of its
 * data directory).
 */
export async function testDatabase(opts: { max?: number; template?: TestTemplate } = {}): Promise<Database & { url?: string }> {
  const serverUrl = process.env.DATABASE_URL;
  // TEST_TEMPLATES=0 (to compare, or to rule copies out): every database is made from nothing, an
  // embedded one by initdb, and migrated in full. So is every one on the server without
  // db/testing-teardown.ts preloaded (a script rather than bun test): no teardown would drop a template.
  const copies = process.env.TEST_TEMPLATES !== '0';
  const teardown = !serverUrl || (globalThis as Record<symbol, unknown>)[TEARDOWN] === true;
  if (opts.template && !(copies && teardown)) {
    const db = await testDatabase({ max: opts.max });
    await opts.template.migrate(db);
    return db;
  }
  if (!serverUrl) return copies ? embeddedDatabase(opts.template) : serveEmbedded(await createPGlite());
  const from = opts.template ? await serverTemplate(serverUrl, opts.template) : null;
  const name = `pricewatch_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(from ? `CREATE DATABASE ${name} TEMPLATE ${from}` : `CREATE DATABASE ${name}`);
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

// ---------------------------------------------------------------------------------------------
// Templates on the PostgreSQL server: one database per template and test process, named after
// the time it was made, dropped by dropTestTemplates() when the run ends (db/testing-teardown.ts).

const TEMPLATE_PREFIX = 'pricewatch_tpl_';
/** A template older than this is left over from a run that died before its teardown. */
const STALE_TEMPLATE_MS = 2 * 3_600_000;
/** Set by db/testing-teardown.ts when bun test preloads it; dropTestTemplates() is registered here for it. */
const TEARDOWN = Symbol.for('pricewatch.testTeardown');
const DROP = Symbol.for('pricewatch.dropTestTemplates');
const serverTemplates = new Map<string, Promise<string>>();

function serverTemplate(serverUrl: string, template: TestTemplate): Promise<string> {
  let made = serverTemplates.get(template.name);
  if (!made) {
    (globalThis as Record<symbol, unknown>)[DROP] = dropTestTemplates;
    made = makeServerTemplate(serverUrl, template);
    made.catch(() => serverTemplates.delete(template.name)); // the next test file tries again
    serverTemplates.set(template.name, made);
  }
  return made;
}

async function makeServerTemplate(serverUrl: string, template: TestTemplate): Promise<string> {
  const name = `${TEMPLATE_PREFIX}${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    await dropStaleTemplates(admin);
    await admin.unsafe(`CREATE DATABASE ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    // One connection, closed before the first copy: CREATE DATABASE ... TEMPLATE needs the template idle.
    const db = await openDatabase({ url: url.toString(), max: 1 });
    try {
      await template.migrate(db);
    } finally {
      await db.close();
    }
    // No one connects to it again, autovacuum included, so every copy finds it idle.
    await admin.unsafe(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`);
    return name;
  } catch (err) {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    throw err;
  } finally {
    await admin.end();
  }
}

async function dropStaleTemplates(admin: postgres.Sql) {
  const rows = await admin<{ datname: string }[]>`SELECT datname FROM pg_database WHERE starts_with(datname, ${TEMPLATE_PREFIX})`;
  for (const { datname } of rows) {
    const made = parseInt(datname.slice(TEMPLATE_PREFIX.length).split('_')[0]!, 36);
    if (Date.now() - made > STALE_TEMPLATE_MS) await admin.unsafe(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`).catch(() => {});
  }
}

/** Drops the templates this process made on the server; the test run's global teardown calls it. */
export async function dropTestTemplates(): Promise<void> {
  const serverUrl = process.env.DATABASE_URL;
  const made = [...serverTemplates.values()];
  serverTemplates.clear();
  if (!serverUrl || !made.length) return;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    for (const name of await Promise.allSettled(made)) {
      if (name.status === 'fulfilled') await admin.unsafe(`DROP DATABASE IF EXISTS ${name.value} WITH (FORCE)`);
    }
  } finally {
    await admin.end();
  }
}

// ---------------------------------------------------------------------------------------------
// Embedded PGlite: starting one runs initdb, seconds of WebAssembly; loading a copy of a data
// directory skips that. So the first empty database of a process is dumped before it is handed
// out, and so is the first one of each template once migrated; every later database is loaded
// from those dumps (what PGlite's clone() does, without dumping each time).

type DataDir = Blob;
let emptyDataDir: Promise<DataDir> | undefined;
const embeddedTemplates = new Map<string, Promise<DataDir>>();

async function createPGlite(dataDir?: DataDir): Promise<PGlite> {
  const { PGlite } = await import('@electric-sql/pglite');
  return PGlite.create(dataDir ? { loadDataDir: dataDir } : {});
}

/** The data directory, checkpointed so that a copy starts without replaying the WAL. */
async function dump(db: PGlite): Promise<DataDir> {
  await db.exec('CHECKPOINT');
  return db.dumpDataDir('none');
}

/** An empty PGlite: the first one of the process runs initdb and is dumped, the others are copies. */
async function emptyPGlite(): Promise<PGlite> {
  if (emptyDataDir) return createPGlite(await emptyDataDir);
  const db = createPGlite();
  const dumped = (emptyDataDir = db.then(dump));
  dumped.catch(() => {
    if (emptyDataDir === dumped) emptyDataDir = undefined;
  });
  await dumped;
  return db;
}

async function embeddedDatabase(template?: TestTemplate): Promise<Database> {
  if (!template) return serveEmbedded(await emptyPGlite());
  const made = embeddedTemplates.get(template.name);
  if (made) return serveEmbedded(await createPGlite(await made));
  // The first database of this template: migrate an empty one, dump it, and hand it out.
  const dumped = Promise.withResolvers<DataDir>();
  dumped.promise.catch(() => embeddedTemplates.delete(template.name));
  embeddedTemplates.set(template.name, dumped.promise);
  let database: Database | undefined;
  try {
    const db = await emptyPGlite();
    database = await serveEmbedded(db);
    await template.migrate(database);
    dumped.resolve(await dump(db));
    return database;
  } catch (err) {
    dumped.reject(err);
    await database?.close();
    throw err;
  }
}

export const usingPostgresServer = () => !!process.env.DATABASE_URL;

/** Starting an embedded database takes seconds on a busy machine: hooks that open one get this timeout. */
export const SETUP_TIMEOUT = 60_000;
