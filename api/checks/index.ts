import type { Module } from '../module.ts';
import { CHECK_JOBS_DDL, ENQUEUE_TICK_MS, enqueueDueChecks } from './queue.ts';
import { checkRoutes } from './routes.ts';
import { runWorker } from './worker.ts';

/** Price checks: the schedule, the queue with its fair shares, the workers, and Check Now. */
export const checksModule = {
  name: 'checks',
  ddl: [CHECK_JOBS_DDL],
  routes: checkRoutes,
  jobs: [
    {
      // Due checks go into the queue every minute, with those due before the next tick to run at
      // their time; workers (the server's own and `bun run worker`) take them.
      name: 'enqueue-checks',
      roles: ['server'],
      cron: '* * * * *',
      run: (ctx) => enqueueDueChecks(ctx, new Date(), { aheadMs: ENQUEUE_TICK_MS }),
    },
    {
      // The server checks pages too unless CHECK_WORKER=off; a worker process always does.
      name: 'price-check-worker',
      roles: ['server', 'worker'],
      enabled: (config, role) => role === 'worker' || config.checkWorker,
      loop: (ctx, signal) => runWorker(ctx, { signal }),
    },
  ],
} satisfies Module;
