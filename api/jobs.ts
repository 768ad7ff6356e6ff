import { Cron } from 'croner';
import type { AppContext } from './context.ts';
import type { Job, Module, Role } from './module.ts';

export type RunningJobs = { stop(): Promise<void> };

/**
 * Starts every job of these modules that runs in this role. `stop()` ends the schedules, aborts
 * the loops and waits for whatever is still running (an e-mail in flight is finished and recorded).
 */
export function startJobs(ctx: AppContext, role: Role, modules: readonly Module[]): RunningJobs {
  const stopping = new AbortController();
  const running = new Set<Promise<unknown>>();
  const track = (name: string, work: Promise<unknown>) => {
    const settled = work.catch((err) => console.error(`${name}:`, err)).finally(() => running.delete(settled));
    running.add(settled);
    return settled;
  };
  const schedules: Cron[] = [];
  const jobs = modules.flatMap((m): readonly Job[] => m.jobs ?? []).filter((job) => job.roles.includes(role) && job.enabled?.(ctx.config, role) !== false);
  for (const job of jobs) {
    if ('cron' in job)
      schedules.push(
        new Cron(job.cron, { protect: true }, async () => {
          await track(job.name, job.run(ctx));
        }),
      );
    else track(job.name, job.loop(ctx, stopping.signal));
  }
  return {
    async stop() {
      for (const schedule of schedules) schedule.stop();
      stopping.abort();
      while (running.size) await Promise.all(running);
    },
  };
}

/** Resolves when the signal aborts: the end of a loop job that only holds something open. */
export const aborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
