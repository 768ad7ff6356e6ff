import { loadConfig } from '../api/config.ts';
import { createContext } from '../api/create-context.ts';
import { startJobs } from '../api/jobs.ts';
import { modules } from '../api/modules.ts';
import { containBrowserErrors, sharedRenderer } from '../api/fetching/browser.ts';

/**
 * An extra price-check worker process: `bun run worker [--concurrency N]`. Any number of them, on
 * any number of machines, share the queue in the PostgreSQL database of DATABASE_URL. The server
 * keeps enqueueing due checks (and runs a worker of its own unless CHECK_WORKER=off). A worker
 * runs the modules' jobs of the worker role: the checks, and the log's partitions kept ahead.
 */
const config = loadConfig();
if (!config.databaseUrl) {
  console.error('bun run worker needs DATABASE_URL: the embedded database belongs to the server process, which runs its own worker.');
  process.exit(1);
}
const flag = process.argv.indexOf('--concurrency');
const concurrency = flag > 0 ? Number(process.argv[flag + 1]) : config.checkConcurrency;
if (!(concurrency >= 1)) {
  console.error('--concurrency needs a number of at least 1');
  process.exit(1);
}

// A shop page's doings in the browser fail its check, never the process.
containBrowserErrors();
const ctx = await createContext({ ...config, checkConcurrency: concurrency });
const jobs = startJobs(ctx, 'worker', modules);
console.log(`Price-check worker ${process.pid} started (${concurrency} at a time)`);

const stopped = new Promise((resolve) => {
  process.once('SIGINT', resolve);
  process.once('SIGTERM', resolve);
});
await stopped;
await jobs.stop();
// A browser launched for script-rendered pages would keep the process alive.
await sharedRenderer().close();
await ctx.close();
console.log(`Price-check worker ${process.pid} stopped`);
