/**
 * The API as the benchmark drives it: the real app on the configured database, without the
 * scheduled jobs (they would add checks of their own to what is measured). Prints the port.
 */
import { loadConfig } from '../../api/config.ts';
import { createContext } from '../../api/create-context.ts';
import { createApp } from '../../api/server.ts';

const ctx = await createContext(loadConfig());
await ctx.projections.catchUp();
ctx.projections.start();
const app = createApp(ctx).listen({ port: 0, hostname: '127.0.0.1' });
console.log(JSON.stringify({ port: app.server!.port }));

process.on('SIGTERM', async () => {
  await app.stop();
  await ctx.close();
  process.exit(0);
});
