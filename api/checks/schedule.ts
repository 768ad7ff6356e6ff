import { PLANS, planOf } from '../billing/plans.ts';
import type { Settings } from '../../events/catalogue.ts';

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
 */
export type CheckFrequencySetting = Settings['checkFrequency'];

export const FREQUENCY_MINUTES: Record<CheckFrequencySetting, number> = { hourly: 60, daily: 1440, weekly: 10_080 };

export const MAX_BACKOFF_FACTOR = 16;
export const MAX_BACKOFF_MINUTES = 7 * 24 * 60;

export type ScheduleRules = { demoCheckMinutes: number };

export type ProductSchedule = {
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
  return Math.max(planMinutes, p.checkFrequency ? FREQUENCY_MINUTES[p.checkFrequency] : 0);
}

/** How many normal intervals to wait after `failures` failed checks in a row. */
export function backoffFactor(failures: number): number {
  return failures <= 1 ? 1 : Math.min(2 ** (failures - 1), MAX_BACKOFF_FACTOR);
}

/** The moment the product becomes due; the epoch for a product that is due at once. */
export function nextCheckAt(p: ProductSchedule, rules: ScheduleRules): Date {
  if (!p.lastCheckAt || (p.editedAt && p.editedAt > p.lastCheckAt)) return new Date(0);
  const interval = checkIntervalMinutes(p, rules);
  const wait = Math.min(interval * backoffFactor(p.consecutiveFailures), Math.max(interval, MAX_BACKOFF_MINUTES));
  return new Date(p.lastCheckAt.getTime() + wait * 60_000);
}

export function isDue(p: ProductSchedule, now: Date, rules: ScheduleRules): boolean {
  return nextCheckAt(p, rules) <= now;
}

/** Minutes per plan, for the database to narrow candidates before isDue decides. */
export const PLAN_MINUTES = Object.values(PLANS).map((plan) => [plan.id, plan.checkIntervalMinutes] as const);
