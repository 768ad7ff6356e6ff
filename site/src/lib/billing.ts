/** What the Billing and Subscribe screens show, from the plan table and the subscription answer (docs/product.md#billing-and-plans). */
import { PLANS, PLAN_IDS, TRIAL_DAYS, type PlanId } from '../../../api/billing/plans';
import { ApiError, isUnauthorizedError, type BillingAnswer, type PaidPlanId } from './api';
import { formatDate, formatPrice } from './format';

export { PLANS, PLAN_IDS, TRIAL_DAYS };

/** After the trial starts, the Billing page opens after this delay (docs/product.md#billing-and-plans). */
export const SUCCESS_REDIRECT_MS = 1500;
export const BILLING_SUCCESS_PATH = '/billing?success=true';

export type Subscription = NonNullable<BillingAnswer['subscription']>;

const PAID: readonly string[] = ['starter', 'growth', 'pro'];

/**
 * The plan of /subscribe?plan=…: starter when none is named; 'free' (nothing to set up: moving to
 * Free is cancelling); null for a name that is no plan, which is said rather than taken for another.
 */
export function subscribePlan(query: string | null | undefined): PaidPlanId | 'free' | null {
  if (!query) return 'starter';
  if (query === 'free') return 'free';
  return PAID.includes(query) ? (query as PaidPlanId) : null;
}

export const subscribePath = (plan: PlanId) => `/subscribe?plan=${plan}`;

/** The plan the user has the features of. */
export const currentPlanId = (answer: BillingAnswer): PlanId => (answer.user.subscriptionPlan as PlanId | null) ?? 'free';

/** Cancelled: ended, or ending at the end of the period (access stays until then). */
export const isCanceled = (sub: Subscription | null): boolean => !!sub && (sub.status === 'canceled' || sub.cancel_at_period_end);

export const productLimitLabel = (maxProducts: number | null | undefined) => (maxProducts === -1 ? 'Unlimited' : String(maxProducts ?? PLANS.free.maxProducts));

/** '6 Dec 2026' for Unix seconds; a dash when absent. */
export function formatBillingDate(seconds: number | null | undefined): string {
  return formatDate(seconds === null || seconds === undefined ? null : seconds * 1000);
}

/** '£18.00' for 1800 pence: plans are sold in pounds sterling. */
export const formatMonthly = (pence: number) => formatPrice(pence / 100, 'GBP');

const wholePounds = new Intl.NumberFormat('en-GB', { style: 'currency', currency: 'GBP', maximumFractionDigits: 0 });

/** '£49': a plan's monthly price as the plan table states it, in whole pounds. */
export const formatPlanPrice = (plan: PlanId) => wholePounds.format(PLANS[plan].priceGbp);

export type PlanAction =
  | { label: 'Current Plan'; kind: 'none' }
  | { label: 'Downgrade'; kind: 'cancel'; disabled: boolean }
  | { label: 'Start Free Trial' | 'Get Started' | 'Upgrade' | 'Downgrade'; kind: 'subscribe'; href: string };

/**
 * The button of a plan in the grid: the user's plan is 'Current Plan'; Free is 'Downgrade' for a
 * paying user (cancelling, which takes effect at the end of the period); for a paying user the
 * other paid plans are 'Upgrade' or 'Downgrade' by price; otherwise a paid plan starts the trial
 * while it is still available, else 'Get Started'.
 */
export function planAction(plan: PlanId, answer: BillingAnswer): PlanAction {
  const current = currentPlanId(answer);
  if (plan === current) return { label: 'Current Plan', kind: 'none' };
  if (plan === 'free') return { label: 'Downgrade', kind: 'cancel', disabled: isCanceled(answer.subscription) };
  const href = subscribePath(plan);
  if (current !== 'free') return { label: PLANS[plan].priceGbp > PLANS[current].priceGbp ? 'Upgrade' : 'Downgrade', kind: 'subscribe', href };
  return { label: answer.trialAvailable ? 'Start Free Trial' : 'Get Started', kind: 'subscribe', href };
}

export type SubscribeMode = 'trial' | 'paid' | 'change' | 'resume' | 'current';

/**
 * What subscribing to `plan` means for this user, as the server will decide it: while a
 * subscription lasts, the plan held is 'current' (or 'resume' once cancelled: subscribing again
 * takes the cancellation back) and another plan is a 'change' (which also takes it back).
 */
export function subscribeMode(plan: PaidPlanId, answer: BillingAnswer): SubscribeMode {
  const sub = answer.subscription;
  if (answer.user.subscriptionPlan && sub) {
    if (sub.plan !== plan) return 'change';
    return sub.cancel_at_period_end ? 'resume' : 'current';
  }
  return answer.trialAvailable ? 'trial' : 'paid';
}

/**
 * What will happen to the user's subscription, in one sentence: the spec's trial banner while a
 * trial runs, and after a cancellation, until when the plan lasts and that nothing more is charged.
 */
export function subscriptionOutlook(answer: BillingAnswer): string | null {
  const sub = answer.subscription;
  if (!sub || !answer.user.subscriptionPlan) return null;
  const plan = PLANS[currentPlanId(answer)].name;
  const trialing = sub.status === 'trialing';
  if (isCanceled(sub)) {
    const ends = formatBillingDate(trialing ? sub.trial_end : sub.current_period_end);
    return `${trialing ? 'Your trial' : 'Your subscription'} is cancelled: you keep ${plan} until ${ends}, then your account moves to the Free plan. Nothing more will be charged.`;
  }
  return trialing ? `Your trial ends on ${formatBillingDate(sub.trial_end)}. No charges until then.` : null;
}

/** The server's sentence from an error answer ('409: {"message":"…"}'), else the error's own message. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) {
    const body = error.message.slice(error.message.indexOf(': ') + 2);
    try {
      const parsed = JSON.parse(body);
      if (typeof parsed?.message === 'string') return parsed.message;
    } catch {}
    return body;
  }
  return error instanceof Error ? error.message : String(error);
}

/** The subscription is fetched with up to 3 retries, none after a 401 (docs/product.md#how-the-site-talks-to-the-api). */
export async function withRetries<T>(load: () => Promise<T>, retries = 3, delayMs = 500): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await load();
    } catch (error) {
      if (attempt >= retries || isUnauthorizedError(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, delayMs * 2 ** attempt));
    }
  }
}
