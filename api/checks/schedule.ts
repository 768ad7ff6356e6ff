import { createHash } from 'node:crypto';
import { PLANS, planOf } from '../billing/plans.ts';
import { CHECK_FREQUENCY_MINUTES, type CheckFrequencySetting } from '../../events/settings.ts';
import { backoff } from '../../domain/backoff.ts';

/**
 * When a product is checked next. Pure: the cron tick (enqueueDueChecks in queue.ts) asks it.
 *
 * - The plan sets the fastest interval (free and starter daily, growth hourly, pro every 15 minutes).
 * - The user's saved default check frequency can only make it slower. A user who never saved
 *   settings gets the plan's interval.
 * - Products on the built-in demo shop are checked every few minutes in demo mode, so a new user
 *   sees changes soon.
 * - A product that keeps failing is checked less often: each failure after the first doubles the
 *   interval, up to 16 times and at most a week (never less than its normal interval).
 * - A product never checked, or edited since its last check, is due at once.
 * - Checks are spread over the interval: each product has its own slot in it (see `nearestSlot`),
 *   and the next check is due one interval after the slot nearest the last check. So products
 *   added or checked together (an import, a restart) drift apart instead of all coming due at :00,
 *   and a product that is on its slot stays there.
 */
export type { CheckFrequencySetting };

export const MAX_BACKOFF_FACTOR = 16;
export const MAX_BACKOFF_MINUTES = 7 * 24 * 60;

export type ScheduleRules = { demoCheckMinutes: number };

export type ProductSchedule = {
  /** Its slot within the interval comes from the id. */
  productId: string;
  /** The user's effective plan (subscription plan, else plan); unknown means free. */
  plan: string | null;
  /** The saved default check frequency, or null when the user never saved settings. */
  checkFrequency: CheckFrequencySetting | null;
  /** Tracks a page of the built-in demo shop while in demo mode. */
  demoShop: boolean;
  lastCheckAt: Date | null;
  consecutiveFailures: number;
  /** When the url or selector last changed. */
  editedAt: Date | null;
};

/** Minutes between two checks of a healthy product. */
export function checkIntervalMinutes(p: Pick<ProductSchedule, 'plan' | 'checkFrequency' | 'demoShop'>, rules: ScheduleRules): number {
  if (p.demoShop) return rules.demoCheckMinutes;
  const planMinutes = planOf(p.plan).checkIntervalMinutes;
  return Math.max(planMinutes, p.checkFrequency ? CHECK_FREQUENCY_MINUTES[p.checkFrequency] : 0);
}

/** How many normal intervals to wait after `failures` failed checks in a row. */
export function backoffFactor(failures: number): number {
  return backoff(failures, { baseMs: 1, maxMs: MAX_BACKOFF_FACTOR });
}

const MINUTE = 60_000;

/**
 * Where a product's checks fall within an interval: its offset after each multiple of the interval
 * since the epoch, in ms, from a stable hash of its id (the first 32 bits of its MD5, scaled to the
 * interval). enqueueDueChecks computes the same in SQL to narrow its candidates.
 */
export function slotOffsetMs(productId: string, intervalMs: number): number {
  const hash = createHash('md5').update(productId).digest().readUInt32BE(0);
  // Exact in 64 bits, as in the database: hash * interval can pass 2^53.
  return Number((BigInt(hash) * BigInt(intervalMs)) >> 32n);
}

/** The product's slot nearest `at`: within half an interval either side. */
export function nearestSlot(productId: string, intervalMs: number, at: Date): Date {
  const t = at.getTime();
  const offset = slotOffsetMs(productId, intervalMs);
  const half = intervalMs / 2;
  return new Date(t + half - mod(t - offset + half, intervalMs));
}

const mod = (a: number, n: number) => ((a % n) + n) % n;

/**
 * The moment the product becomes due; the epoch for a product that is due at once. The wait is
 * counted from the slot nearest the last check: a product checked off its slot (just added, edited,
 * or held up) is next checked between half an interval and one and a half later, at its slot, and
 * from then on a whole interval apart.
 */
export function nextCheckAt(p: ProductSchedule, rules: ScheduleRules): Date {
  if (!p.lastCheckAt || (p.editedAt && p.editedAt > p.lastCheckAt)) return new Date(0);
  const interval = checkIntervalMinutes(p, rules);
  const wait = Math.min(interval * backoffFactor(p.consecutiveFailures), Math.max(interval, MAX_BACKOFF_MINUTES));
  return new Date(nearestSlot(p.productId, interval * MINUTE, p.lastCheckAt).getTime() + wait * MINUTE);
}

export function isDue(p: ProductSchedule, now: Date, rules: ScheduleRules): boolean {
  return nextCheckAt(p, rules) <= now;
}

/** Minutes per plan, for the database to narrow candidates before isDue decides. */
export const PLAN_MINUTES = Object.values(PLANS).map((plan) => [plan.id, plan.checkIntervalMinutes] as const);
