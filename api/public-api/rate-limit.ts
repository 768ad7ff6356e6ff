/**
 * A token bucket per API key, in this process: `capacity` requests at once, refilled at
 * `perSecond`. Several API processes each keep their own buckets, so a key gets up to N times
 * the rate across N processes; a strict shared limit would move the buckets to PostgreSQL (one
 * UPDATE ... RETURNING per request) or Redis.
 */
export type RateLimit = { capacity: number; perSecond: number };

export const DEFAULT_RATE_LIMIT: RateLimit = { capacity: 60, perSecond: 1 };

export function createRateLimiter({ capacity, perSecond }: RateLimit, now: () => number = () => performance.now()) {
  const buckets = new Map<string, { tokens: number; at: number }>();
  /** Takes one token: `retryAfter` is the whole seconds until one is back when none is left. */
  return function take(key: string): { ok: true; remaining: number } | { ok: false; retryAfter: number } {
    const t = now();
    const b = buckets.get(key) ?? { tokens: capacity, at: t };
    b.tokens = Math.min(capacity, b.tokens + ((t - b.at) / 1000) * perSecond);
    b.at = t;
    buckets.set(key, b);
    // Full buckets are the default state: forgetting them bounds memory by the keys in use.
    if (buckets.size > 10_000) {
      for (const [k, v] of buckets) if (v.tokens + ((t - v.at) / 1000) * perSecond >= capacity) buckets.delete(k);
    }
    if (b.tokens < 1) return { ok: false, retryAfter: Math.max(1, Math.ceil((1 - b.tokens) / perSecond)) };
    b.tokens -= 1;
    return { ok: true, remaining: Math.floor(b.tokens) };
  };
}
