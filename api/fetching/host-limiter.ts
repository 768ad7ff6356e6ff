// Politeness: per-host concurrency and spacing. At most so many requests to one host at a time,
// and their starts spaced apart, within one process.

export type HostLimiter = { run<T>(host: string, task: () => Promise<T>): Promise<T> };

export function createHostLimiter(maxConcurrent: number, spacingMs: number): HostLimiter {
  type HostState = { active: number; nextStartAt: number; waiting: Array<() => void>; timer?: ReturnType<typeof setTimeout> };
  const hosts = new Map<string, HostState>();

  function admit(host: string, state: HostState) {
    while (state.active < maxConcurrent && state.waiting.length > 0 && !state.timer) {
      const wait = state.nextStartAt - performance.now();
      if (wait > 0) {
        state.timer = setTimeout(() => {
          state.timer = undefined;
          admit(host, state);
        }, wait);
        return;
      }
      state.active++;
      state.nextStartAt = performance.now() + spacingMs;
      state.waiting.shift()!();
    }
    if (state.active === 0 && state.waiting.length === 0 && state.nextStartAt <= performance.now()) hosts.delete(host);
  }

  return {
    async run(host, task) {
      let state = hosts.get(host);
      if (!state) hosts.set(host, (state = { active: 0, nextStartAt: 0, waiting: [] }));
      const current = state;
      await new Promise<void>((start) => {
        current.waiting.push(start);
        admit(host, current);
      });
      try {
        return await task();
      } finally {
        current.active--;
        admit(host, current);
      }
    },
  };
}
