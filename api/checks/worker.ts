import { hostname } from 'node:os';
import type { AppContext } from '../context.ts';
import { sharedFetcher, type Fetcher } from '../fetching/fetcher.ts';
import { claimJobs, MAX_ATTEMPTS, onWake, releaseJobs, type ClaimedJob } from './queue.ts';
import { checkPage, groupByUrl, recordOutcomes, type CheckOutcome } from './check.ts';
import { watchingBlocks } from '../fetching/host-backoff.ts';

/** How long an empty browser lane is left before it is looked at again. */
const BROWSER_LANE_PAUSE_MS = 1000;

export type WorkerOptions = {
  /** Products checked at the same time (default: CHECK_CONCURRENCY). */
  concurrency?: number;
  signal?: AbortSignal;
  /** How long to wait before looking again when the queue is empty. */
  idleMs?: number;
  /** Results are written together, up to this many per transaction. */
  writeBatch?: number;
  workerId?: string;
  fetcher?: Fetcher;
  /** Called after each write with the outcomes it recorded (benchmarks, tests). */
  onRecorded?: (outcomes: CheckOutcome[]) => void;
};

/**
 * Runs until the signal aborts: claims due jobs while it has room, checks each page once for all
 * the products tracking it, and writes results in batches. Slow shops do not hold up the rest:
 * a new claim is made as soon as half the slots are free. Pages that need the browser have a lane
 * of their own (products remembered as needing it are claimed into it, and a check that turns to
 * the browser moves there), so renders never hold the slots of static checks.
 */
export async function runWorker(ctx: AppContext, opts: WorkerOptions = {}): Promise<void> {
  const concurrency = opts.concurrency ?? ctx.config.checkConcurrency;
  // Enough waiting renders to keep the browser busy; more would only wait out their leases.
  const renderSlots = Math.max(2, (Number(process.env.BROWSER_CONCURRENCY) || 2) * 2);
  const idleMs = opts.idleMs ?? 1000;
  const workerId = opts.workerId ?? `${hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`;
  const writer = createWriter(ctx, opts.writeBatch ?? 100, opts.onRecorded);
  // Refusals put the shop's host to rest for every worker (host_backoff).
  const fetcher = watchingBlocks(ctx.sql, opts.fetcher ?? sharedFetcher);
  const tasks = new Set<Promise<void>>();
  let busy = 0;
  let rendering = 0;

  const start = (jobs: ClaimedJob[], lane: 'static' | 'browser') => {
    for (const [url, group] of groupByUrl(jobs)) {
      let inBrowserLane = lane === 'browser';
      if (inBrowserLane) rendering += group.length;
      else busy += group.length;
      const onRender = () => {
        if (inBrowserLane) return;
        inBrowserLane = true;
        busy -= group.length;
        rendering += group.length;
      };
      const task = checkGroup(ctx, url, group, fetcher, onRender)
        .then(writer.add, (err) => console.error('price-check worker:', err))
        .finally(() => {
          if (inBrowserLane) rendering -= group.length;
          else busy -= group.length;
          tasks.delete(task);
        });
      tasks.add(task);
    }
  };
  // An empty browser lane is looked at again after a pause, not after every finished check.
  let browserLaneEmptyAt = -Infinity;
  const claim = async (lane: 'static' | 'browser', limit: number) => {
    try {
      const jobs = await claimJobs(ctx.sql, { workerId, limit, lane });
      if (lane === 'browser' && jobs.length === 0) browserLaneEmptyAt = Date.now();
      start(jobs, lane);
    } catch (err) {
      console.error('price-check worker: claiming jobs failed:', err);
    }
  };

  // A job queued in this process (a new product) ends the idle pause, even one queued while claiming.
  const nudge: Nudge = { pending: false, wake: null };
  const stopListening = onWake(() => {
    nudge.pending = true;
    nudge.wake?.();
  });

  while (!opts.signal?.aborted) {
    nudge.pending = false;
    if (concurrency - busy >= Math.ceil(concurrency / 2)) await claim('static', concurrency - busy);
    if (rendering < renderSlots && Date.now() - browserLaneEmptyAt >= BROWSER_LANE_PAUSE_MS) await claim('browser', renderSlots - rendering);
    if (tasks.size === 0) {
      // Recording finished checks ends their jobs, which frees their shops' fetches for the next
      // claim (claimJobs counts them across workers): look again at once rather than idle.
      if (await writer.settle()) continue;
      if (!nudge.pending) await sleep(idleMs, opts.signal, nudge);
    } else {
      await Promise.race(tasks);
    }
  }
  stopListening();
  await Promise.all(tasks);
  await writer.flush();
}

async function checkGroup(
  ctx: AppContext,
  url: string,
  jobs: ClaimedJob[],
  fetcher: ReturnType<typeof watchingBlocks>,
  onRender: () => void,
): Promise<CheckOutcome[]> {
  // Claimed together with a page whose shop has just turned us away: wait for the rest to end.
  if (fetcher.restingUntil(url)) {
    await releaseJobs(ctx.sql, jobs);
    return [];
  }
  // A job that keeps killing its worker is given up rather than tried forever.
  const abandoned = jobs.filter((j) => j.attempts > MAX_ATTEMPTS);
  const live = jobs.filter((j) => j.attempts <= MAX_ATTEMPTS);
  const outcomes: CheckOutcome[] = abandoned.map((target) => ({
    target,
    event: {
      type: 'PriceCheckFailed',
      data: {
        productId: target.productId,
        userId: target.userId,
        code: 'interrupted',
        httpStatus: null,
        url: target.url,
        reason: `The check stopped ${MAX_ATTEMPTS} times before it could finish, so it was given up rather than tried again at once (the page may be what stopped it). It will be tried again at the next scheduled time.`,
        attemptedAt: new Date().toISOString(),
        availability: null,
      },
    },
  }));
  if (live.length) outcomes.push(...(await checkPage(ctx.config, url, live, fetcher, { sql: ctx.sql, onRender })));
  return outcomes;
}

/** Collects outcomes and writes them in batches, one transaction at a time. */
function createWriter(ctx: AppContext, batch: number, onRecorded?: (outcomes: CheckOutcome[]) => void) {
  let pending: CheckOutcome[] = [];
  let writing: Promise<void> = Promise.resolve();
  let timer: ReturnType<typeof setTimeout> | null = null;
  let written = 0;

  function flush(): Promise<void> {
    if (timer) {
      clearTimeout(timer);
      timer = null;
    }
    writing = writing.then(async () => {
      while (pending.length) {
        const chunk = pending.slice(0, batch);
        pending = pending.slice(batch);
        try {
          const { recorded } = await recordOutcomes(ctx, chunk);
          written += chunk.length;
          onRecorded?.(recorded);
        } catch (err) {
          // The jobs keep their lease and are checked again once it runs out.
          console.error('price-check worker: recording results failed:', err);
        }
      }
    });
    return writing;
  }

  return {
    flush,
    /** Writes what is pending; answers whether anything was written since the last time it was asked. */
    async settle(): Promise<boolean> {
      await flush();
      const any = written > 0;
      written = 0;
      return any;
    },
    add(outcomes: CheckOutcome[]) {
      pending.push(...outcomes);
      if (pending.length >= batch) void flush();
      // A short wait lets results of checks finishing together share a transaction.
      else timer ??= setTimeout(flush, 20);
    },
  };
}

type Nudge = { pending: boolean; wake: (() => void) | null };

/** The idle pause: until `ms` pass, the signal aborts, or the nudge wakes it. */
function sleep(ms: number, signal?: AbortSignal, nudge?: Nudge): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      if (nudge) nudge.wake = null;
      resolve();
    };
    const timer = setTimeout(done, ms);
    if (nudge) nudge.wake = done;
    signal?.addEventListener('abort', done, { once: true });
  });
}
