import { checkpointOf, type Checkpoint, type EventStore } from '../../events/store.ts';
import { toFeedEvent } from './feed.ts';

/**
 * Watches the head of the log for every open event stream of this process: one cheap query per
 * interval however many clients listen, and none while nobody does. (LISTEN/NOTIFY would be
 * quicker, but does not pass the embedded database's socket.)
 */
export function createLogWatcher(store: EventStore, pollMs = 250) {
  let head: string | null = null;
  const waiters = new Set<() => void>();
  let timer: ReturnType<typeof setTimeout> | null = null;

  async function poll() {
    try {
      const h = await store.head();
      const now = `${h.transactionId}.${h.position}`;
      if (now !== head) {
        head = now;
        for (const wake of waiters) wake();
      }
    } catch {
      /* the next poll tries again */
    }
    timer = waiters.size ? setTimeout(poll, pollMs) : null;
  }

  return {
    get head() {
      return head;
    },
    /** Resolves once the head is other than `seen` (at once if it already is), after `timeoutMs`, or on abort. */
    changed(seen: string | null, timeoutMs: number, signal?: AbortSignal): Promise<void> {
      if ((head !== seen && head !== null) || signal?.aborted) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(t);
          waiters.delete(wake);
          signal?.removeEventListener('abort', wake);
          resolve();
        };
        const t = setTimeout(wake, timeoutMs);
        waiters.add(wake);
        signal?.addEventListener('abort', wake);
        if (!timer) timer = setTimeout(poll, 0);
      });
    },
  };
}

export type LogWatcher = ReturnType<typeof createLogWatcher>;

const encoder = new TextEncoder();
const PAGE = 500;

/**
 * Server-sent events with a user's new events, from `from` on: each with `id` (its cursor, so a
 * reconnecting client resumes with Last-Event-ID), `event` (its type) and `data` (the event as
 * JSON), and a comment line as a heartbeat. Ends when `signal` aborts (the client went away, or
 * this process revoked the key), or when `stillAllowed` says no. That is asked before anything is
 * delivered and with each heartbeat, so a key revoked through another process, or an owner who
 * left Pro, gets nothing more and the stream ends by the next heartbeat at the latest.
 */
export function eventStream(opts: {
  store: EventStore;
  watcher: LogWatcher;
  userId: string;
  from: Checkpoint;
  signal: AbortSignal;
  heartbeatMs?: number;
  stillAllowed: () => Promise<boolean>;
  onClose?: () => void;
}): ReadableStream<Uint8Array> {
  const heartbeatMs = opts.heartbeatMs ?? 15_000;
  const closed = new AbortController();
  const close = () => {
    if (closed.signal.aborted) return;
    closed.abort();
    opts.onClose?.();
  };
  opts.signal.addEventListener('abort', close);
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const send = (text: string) => {
        if (!closed.signal.aborted) controller.enqueue(encoder.encode(text));
      };
      send(': connected\nretry: 3000\n\n');
      let cursor = opts.from;
      let lastBeat = Date.now();
      try {
        while (!closed.signal.aborted) {
          const seen = opts.watcher.head;
          for (;;) {
            const page = await opts.store.readAll(cursor, PAGE, { userId: opts.userId });
            if (page.length && !(await opts.stillAllowed())) close();
            for (const e of page) {
              const event = toFeedEvent(e);
              send(`id: ${event.cursor}\nevent: ${e.type}\ndata: ${JSON.stringify(event)}\n\n`);
            }
            if (page.length) cursor = checkpointOf(page[page.length - 1]!);
            if (page.length < PAGE || closed.signal.aborted) break;
          }
          if (!closed.signal.aborted && Date.now() - lastBeat >= heartbeatMs) {
            lastBeat = Date.now();
            if (await opts.stillAllowed()) send(': heartbeat\n\n');
            else close();
          }
          await opts.watcher.changed(seen, Math.max(0, heartbeatMs - (Date.now() - lastBeat)), closed.signal);
        }
      } catch (err) {
        if (!closed.signal.aborted) console.error('event stream:', err);
      }
      close();
      try {
        controller.close();
      } catch {
        /* the client cancelled it already */
      }
    },
    cancel: close,
  });
}
