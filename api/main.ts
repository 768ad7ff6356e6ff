import { cron } from '@elysiajs/cron';
import { loadConfig } from './config.ts';
import { createContext } from './context.ts';
import { createApp } from './server.ts';
import { enqueueDueChecks } from './checks/queue.ts';
import { runWorker } from './checks/worker.ts';

/** The product in one process: API, static site, projections and scheduled jobs. */
const config = loadConfig();
const ctx = await createContext(config);
ctx.projections.start();
await ctx.projections.catchUp();

const app = createApp(ctx)
  // Expired sessions and abandoned sign-ins are cleaned up hourly.
  .use(cron({
    name: 'cleanup', pattern: '17 * * * *', protect: true, catch: true,
    async run() {
      await ctx.sql`DELETE FROM sessions WHERE expires_at < now()`;
      await ctx.sql`DELETE FROM oauth_states WHERE created_at < now() - interval '1 hour'`;
    },
  }))
  // Due price checks go into the queue every minute; workers (this process and `bun run worker`) take them.
  .use(cron({
    name: 'enqueue-checks', pattern: '* * * * *', protect: true, catch: true,
    run: () => enqueueDueChecks(ctx),
  }))
  .listen({ port: config.port, hostname: process.env.HOST ?? '0.0.0.0' });

const stopWorker = new AbortController();
const worker = config.checkWorker ? runWorker(ctx, { signal: stopWorker.signal }) : Promise.resolve();

console.log(`Pricewatch is running at ${config.publicUrl}${config.demo ? ' (demo mode: local sign-in, no Google account needed)' : ''}`);
console.log(ctx.database.embedded ? `Embedded database in ${config.dataDir}` : 'Database: DATABASE_URL');

const shutdown = async () => { stopWorker.abort(); await app.stop(); await worker; await ctx.close(); process.exit(0); };
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
