import { loadConfig } from './config.ts';
import { createContext } from './create-context.ts';
import { createApp } from './server.ts';
import { startJobs } from './jobs.ts';
import { modules } from './modules.ts';
import { containBrowserErrors, sharedRenderer } from './fetching/browser.ts';

/** The product in one process: API, static site, read models and every module's background jobs. */
// A shop page's doings in the browser fail its check, never the process.
containBrowserErrors();
const config = loadConfig();
const ctx = await createContext(config);
const jobs = startJobs(ctx, 'server', modules);
await ctx.projections.catchUp();

// Bun's own ceiling for any body; JSON routes stop at 1 MB (api/http/input.ts), and a route with
// larger uploads (a CSV import) sets its own cap below this one.
const app = createApp(ctx).listen({ port: config.port, hostname: process.env.HOST ?? '0.0.0.0', maxRequestBodySize: 10 * 1024 * 1024 });

console.log(`Pricewatch is running at ${config.publicUrl}${config.demo ? ' (demo mode: local sign-in, no Google account needed)' : ''}`);
console.log(ctx.database.embedded ? `Embedded database in ${config.dataDir}` : 'Database: DATABASE_URL');
console.log(config.smtpUrl ? 'E-mail: SMTP_URL' : `E-mail: written to ${config.dataDir}/outbox (set SMTP_URL to send)`);

// E-mails and channel messages in flight are finished and recorded before the database closes.
const shutdown = async () => {
  await app.stop();
  await jobs.stop();
  await sharedRenderer().close();
  await ctx.close();
  process.exit(0);
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
