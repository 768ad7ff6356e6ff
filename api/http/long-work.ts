import { DomainError } from '../../events/decider.ts';

/**
 * Requests that do slow work for one user (Check Now, AI Detect): how many one user may have
 * running at once, and an answer given in time however long the work goes on.
 */

export type TimeoutAnswer = { success: false; error: 'timeout'; message: string };

/**
 * At most `limit` pieces of work per user at once in this process; one more is refused with 429
 * and `refusal(limit)`. A slot is held until the work itself ends, even when its request was
 * answered earlier, so answering in time never lets more work run.
 */
export function perUserLimit(limit: number, refusal: (limit: number) => string) {
  const running = new Map<string, number>();
  return function run<T>(userId: string, work: () => Promise<T>): Promise<T> {
    const count = running.get(userId) ?? 0;
    if (count >= limit) throw new DomainError(refusal(limit), 429);
    running.set(userId, count + 1);
    const release = () => {
      const left = running.get(userId)! - 1;
      if (left > 0) running.set(userId, left);
      else running.delete(userId);
    };
    const done = work();
    done.then(release, release);
    return done;
  };
}

/**
 * The work's answer, or `late()` once `ms` have passed; the work goes on and its result is still
 * recorded. Its failure after the late answer is logged, since no request is left to carry it.
 */
export function answerWithin<T, L>(ms: number, work: Promise<T>, late: () => L): Promise<T | L> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let answered = false;
  const deadline = new Promise<L>((resolve) => {
    timer = setTimeout(() => {
      answered = true;
      resolve(late());
    }, ms);
  });
  work.catch((error) => {
    if (answered) console.error('work answered late failed:', error);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
