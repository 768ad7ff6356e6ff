/**
 * What the screens say about the plan's limits before the server has to refuse anything: the
 * product limit, products beyond it (paused), the check frequencies the plan allows, and API access.
 * Words shared with the server come from the server's own modules.
 */
import { PLANS, PLAN_IDS, planOf } from '../../../api/billing/plans';
import { pausedReason, productLimitMessage } from '../../../api/products/beyond-plan';
import { effectiveFrequency, frequenciesWithin, type CheckFrequencySetting } from '../../../events/settings';
import type { BillingAnswer } from './api';
import { formatBillingDate } from './billing';
import { CHECK_FREQUENCIES } from './settings';

type PlanHolder = { subscriptionPlan?: string | null; plan?: string | null } | null | undefined;

const planOfUser = (user: PlanHolder) => planOf(user?.subscriptionPlan ?? user?.plan);

/**
 * The Products screen's note once the plan's product limit is reached: '3 of 3 products on Free',
 * and past it (a plan ended) how many are paused, with the reason Add Product gives; null below
 * the limit, on unlimited plans, and while the user is unknown.
 */
export function productUsage(user: PlanHolder, count: number): { text: string; reason: string; paused: number } | null {
  if (!user) return null;
  const plan = planOfUser(user);
  if (plan.maxProducts === -1 || count < plan.maxProducts) return null;
  const paused = count - plan.maxProducts;
  return {
    text: `${count} of ${plan.maxProducts} products on ${plan.name}${paused ? `: ${paused} paused` : ''}`,
    reason: productLimitMessage(plan),
    paused,
  };
}

export type PausedView = { tone: 'paused'; label: string; line: string; reason: string };

/** The status of a card beyond the plan's limit: not checked, and why. */
export function pausedCheckView(user: PlanHolder): PausedView {
  const reason = pausedReason(planOfUser(user));
  return { tone: 'paused', label: `Checks paused: ${reason}`, line: 'Checks paused', reason };
}

const frequencyLabel = (value: CheckFrequencySetting) => CHECK_FREQUENCIES.find((c) => c.value === value)!.label;

const listed = (words: readonly string[]) => (words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`);

export type FrequencyChoices = {
  /** Only the frequencies the plan checks at, fastest first. */
  options: typeof CHECK_FREQUENCIES;
  /** The saved frequency, or what it comes to on this plan. */
  value: CheckFrequencySetting;
  /** The faster frequencies and the plans that have them; null when the plan allows every one. */
  note: string | null;
  /** A saved frequency faster than the plan (saved before a downgrade) and what applies instead. */
  savedNote: string | null;
};

/** The Settings screen's check frequency on the user's plan. */
export function frequencyChoices(user: PlanHolder, saved: CheckFrequencySetting): FrequencyChoices {
  const plan = planOfUser(user);
  const allowed = frequenciesWithin(plan.checkIntervalMinutes);
  const value = effectiveFrequency(saved, plan.checkIntervalMinutes);
  const faster = CHECK_FREQUENCIES.filter((c) => !allowed.includes(c.value));
  // The plans that have the fastest frequency this one lacks have every faster one.
  const fastest = faster[0]?.value;
  const plansWith = fastest ? PLAN_IDS.filter((id) => frequenciesWithin(PLANS[id].checkIntervalMinutes).includes(fastest)).map((id) => PLANS[id].name) : [];
  return {
    options: CHECK_FREQUENCIES.filter((c) => allowed.includes(c.value)),
    value,
    note: faster.length ? `${listed(faster.map((c) => c.label))} checks come with the ${listed(plansWith)} plans.` : null,
    savedNote:
      value === saved
        ? null
        : `${frequencyLabel(saved)} was saved on an earlier plan. ${plan.name} checks prices ${allowed[0]} at most, so ${frequencyLabel(value)} applies.`,
  };
}

/** What the API Access field shows: the masked key when there is one, else the truth in words. */
export function apiKeyFieldText(status: { apiAccess: boolean; hasKey: boolean; maskedKey: string | null } | null, failed: boolean): string {
  if (failed) return 'Not available';
  if (!status) return '';
  if (status.hasKey && status.maskedKey) return status.maskedKey;
  return status.apiAccess ? 'No key yet' : 'API access is on Pro';
}

const RESUME = 'Paused products keep their price history and are checked again when you upgrade, or once you remove others.';

/**
 * What the Free plan does to the products beyond its limit, for the cancel dialog and the Billing
 * page: after the subscription ends (or now, on Free), which keep being checked and which pause;
 * null when every product fits.
 */
export function productsAfterEnd(answer: BillingAnswer): string | null {
  const onFree = answer.productsOnFree;
  if (!onFree) return null;
  const names = (refs: { name: string }[], count = refs.length) =>
    count > refs.length ? `${refs.map((r) => r.name).join(', ')} and ${count - refs.length} more` : refs.map((r) => r.name).join(', ');
  const checked = names(onFree.checked);
  const paused = names(onFree.paused, onFree.pausedCount);
  const sub = answer.subscription;
  if (!sub || !answer.user.subscriptionPlan) {
    return `Free checks ${onFree.checked.length} products: ${checked}. These ${onFree.pausedCount} are paused: ${paused}. ${RESUME}`;
  }
  const ends = formatBillingDate(sub.status === 'trialing' ? sub.trial_end : sub.current_period_end);
  const keep =
    onFree.checked.length === 1 ? `this product keeps being checked: ${checked}` : `these ${onFree.checked.length} products keep being checked: ${checked}`;
  const pause = onFree.pausedCount === 1 ? `this one pauses: ${paused}` : `these ${onFree.pausedCount} pause: ${paused}`;
  return `After ${ends}, ${keep}; ${pause}. ${RESUME}`;
}
