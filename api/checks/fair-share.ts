/** A waiting job a claim may take. `host` is null for an address with no host (nothing is fetched). */
export type ClaimCandidate = { productId: string; userId: string; host: string | null; url: string; runAt: Date };

export type ShareRules = {
  /** Jobs the claim takes at most. */
  limit: number;
  /** Pages one shop may have fetched at the same time, by every worker together. */
  perHost: number;
  /** Pages of each shop being fetched now (under other claims), by host. */
  fetching: ReadonlyMap<string, number>;
};

/**
 * Which jobs a claim takes. `candidates` hold each user's waiting jobs in the order of the user's
 * line (oldest first). Users take turns: every user's first job, then every user's second, and so
 * on, the longest waiting first within a turn; so 10,000 jobs of one user queue behind one job of
 * another only once each. A shop gets a page only while it has fewer than `perHost` being fetched;
 * products tracking a page already taken come with it, since one fetch serves them. Pure.
 */
export function chooseJobs<C extends ClaimCandidate>(candidates: readonly C[], rules: ShareRules): C[] {
  const seen = new Map<string, number>();
  const inTurn = candidates
    .map((job, line) => {
      const turn = seen.get(job.userId) ?? 0;
      seen.set(job.userId, turn + 1);
      return { job, turn, line };
    })
    .sort((a, b) => a.turn - b.turn || a.job.runAt.getTime() - b.job.runAt.getTime() || a.line - b.line);

  const pages = new Map<string, number>(rules.fetching);
  const taken = new Set<string>();
  const chosen: C[] = [];
  for (const { job } of inTurn) {
    if (chosen.length >= rules.limit) break;
    if (job.host !== null && !taken.has(job.url)) {
      const fetching = pages.get(job.host) ?? 0;
      if (fetching >= rules.perHost) continue;
      pages.set(job.host, fetching + 1);
    }
    taken.add(job.url);
    chosen.push(job);
  }
  return chosen;
}
