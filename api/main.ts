import { cron } from '@elysiajs/cron';
import { loadConfig } from './config.ts';
import { createContext } from './context.ts';
import { createApp } from './server.ts';
import { ENQUEUE_TICK_MS, enqueueDueChecks } from './checks/queue.ts';
import { runWorker } from './checks/worker.ts';
import { containBrowserErrors, sharedRenderer } from './fetching/browser.ts';
import { createMailer } from './alerts/mailer.ts';
import { createOutboxSender } from './alerts/sender.ts';
import { queueWeeklyReports } from './alerts/weekly.ts';
import { createChannelDeliverer } from './channels/deliverer.ts';
import { keepPartitionsAhead } from '../events/partitions.ts';

/** The product in one process: API, static site, projections and scheduled jobs. */
// A shop page's doings in the browser fail its check, never the process.
containBrowserErrors();
const config = loadConfig();
const ctx = await createContext(config);
ctx.projections.start();
ctx.reactors.start();
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
  // Due price checks go into the queue every minute, with those due before the next tick to run
  // at their time; workers (this process and `bun run worker`) take them.
  .use(cron({
    name: 'enqueue-checks', pattern: '* * * * *', protect: true, catch: true,
    run: () => enqueueDueChecks(ctx, new Date(), { aheadMs: ENQUEUE_TICK_MS }),
  }))
  // Weekly reports go out on Monday from 08:00 in each user's time zone; a minute's look finds them.
  .use(cron({
    name: 'weekly-reports', pattern: '* * * * *', protect: true, catch: true,
    run: () => queueWeeklyReports(ctx),
  }))
  // Bun's own ceiling for any body; JSON routes stop at 1 MB (api/http/input.ts), and a route with
  // larger uploads (a CSV import) sets its own cap below this one.
  .listen({ port: config.port, hostname: process.env.HOST ?? '0.0.0.0', maxRequestBodySize: 10 * 1024 * 1024 });

const stopWorker = new AbortController();
// The event log's partitions for the months ahead (made at start too), as workers keep them.
keepPartitionsAhead(ctx.sql, { signal: stopWorker.signal });
const worker = config.checkWorker ? runWorker(ctx, { signal: stopWorker.signal }) : Promise.resolve();
const mailer = createMailer(config);
const sender = createOutboxSender(ctx, mailer).run(stopWorker.signal);
const deliverer = createChannelDeliverer(ctx).run(stopWorker.signal);

console.log(`Pricewatch is running at ${config.publicUrl}${config.demo ? ' (demo mode: local sign-in, no Google account needed)' : ''}`);
console.log(ctx.database.embedded ? `Embedded database in ${config.dataDir}` : 'Database: DATABASE_URL');
console.log(config.smtpUrl ? 'E-mail: SMTP_URL' : `E-mail: written to ${config.dataDir}/outbox (set SMTP_URL to send)`);

// E-mails and channel messages in flight are finished and recorded before the database closes.
const shutdown = async () => { stopWorker.abort(); await app.stop(); await worker; await sender; await deliverer; mailer.close(); await sharedRenderer().close(); await ctx.close(); process.exit(0); };
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
