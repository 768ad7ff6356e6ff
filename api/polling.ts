/**
 * Runs `work` until the signal aborts: again at once while it finds something to do, and after
 * `pollMs` when it found nothing. A failed round is logged and the loop goes on.
 */
export async function pollUntilAborted(name: string, work: () => Promise<number>, opts: { pollMs: number; signal: AbortSignal }): Promise<void> {
  while (!opts.signal.aborted) {
    let handled = 0;
    try {
      handled = await work();
    } catch (err) {
      console.error(`${name}:`, err);
    }
    if (!handled) await sleep(opts.pollMs, opts.signal);
  }
}

/** Resolves after `ms`, or at once when the signal aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
