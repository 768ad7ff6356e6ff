/**
 * The wait after the n-th failure in a row: `baseMs` after the first, doubling after each further
 * one, at most `maxMs`. `jitter` spreads the waits of retries that failed together by that share
 * either way (0.2: from 80% to 120%), so they do not all come back at the same moment. Every retry
 * in the product waits by this rule: fetches, resting shops, failing checks, e-mails and channel messages.
 */
export function backoff(failures: number, opts: { baseMs: number; maxMs?: number; jitter?: number }, random = Math.random): number {
  const delay = Math.min(opts.maxMs ?? Number.POSITIVE_INFINITY, opts.baseMs * 2 ** Math.max(0, failures - 1));
  return opts.jitter ? Math.round(delay * (1 - opts.jitter + 2 * opts.jitter * random())) : delay;
}
