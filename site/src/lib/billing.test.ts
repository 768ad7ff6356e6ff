import { describe, expect, test } from 'bun:test';
import { ApiError, type BillingAnswer } from './api';
import {
  errorMessage,
  formatBillingDate,
  formatMonthly,
  formatPlanPrice,
  isCanceled,
  planAction,
  productLimitLabel,
  subscribeMode,
  subscribePlan,
  subscriptionOutlook,
  withRetries,
} from './billing';

process.env.TZ = 'Europe/London';

const free: BillingAnswer = {
  user: { subscriptionPlan: null, planLimits: { maxProducts: 3, checkFrequency: 'daily', aiDetection: false, apiAccess: false } },
  subscription: null,
  trialAvailable: true,
  provider: 'demo',
  productsOnFree: null,
};
const trial: BillingAnswer = {
  user: { subscriptionPlan: 'starter', planLimits: { maxProducts: 25, checkFrequency: 'daily', aiDetection: true, apiAccess: false } },
  subscription: { status: 'trialing', trial_end: 1_796_000_000, current_period_end: 1_796_000_000, cancel_at_period_end: false, plan: 'starter', amount: 1800 },
  trialAvailable: false,
  provider: 'demo',
  productsOnFree: null,
};
const canceled: BillingAnswer = { ...trial, subscription: { ...trial.subscription!, cancel_at_period_end: true } };
const ended: BillingAnswer = { ...free, trialAvailable: false };
const pro: BillingAnswer = {
  user: { subscriptionPlan: 'pro', planLimits: { maxProducts: -1, checkFrequency: 'quarter-hourly', aiDetection: true, apiAccess: true } },
  subscription: { status: 'active', trial_end: null, current_period_end: 1_797_000_000, cancel_at_period_end: false, plan: 'pro', amount: 9900 },
  trialAvailable: false,
  provider: 'demo',
  productsOnFree: null,
};
const proCanceled: BillingAnswer = { ...pro, subscription: { ...pro.subscription!, cancel_at_period_end: true } };

describe('billing screens', () => {
  test('the subscribe page plan: starter when none is named; free and unknown names are not taken for another plan', () => {
    expect(subscribePlan('growth')).toBe('growth');
    expect(subscribePlan('pro')).toBe('pro');
    expect(subscribePlan(null)).toBe('starter');
    expect(subscribePlan('')).toBe('starter');
    expect(subscribePlan('free')).toBe('free');
    expect(subscribePlan('platinum')).toBeNull();
  });

  test('limits, dates and amounts', () => {
    expect(productLimitLabel(-1)).toBe('Unlimited');
    expect(productLimitLabel(25)).toBe('25');
    expect(productLimitLabel(undefined)).toBe('3');
    expect(formatBillingDate(1_796_000_000)).toBe('30 Nov 2026');
    expect(formatBillingDate(null)).toBe('—');
    expect(formatMonthly(1800)).toBe('£18.00');
    expect(formatPlanPrice('growth')).toBe('£49');
    expect(formatPlanPrice('free')).toBe('£0');
  });

  test('cancelled means ended or ending at the end of the period', () => {
    expect(isCanceled(trial.subscription)).toBe(false);
    expect(isCanceled(canceled.subscription)).toBe(true);
    expect(isCanceled({ ...trial.subscription!, status: 'canceled' })).toBe(true);
    expect(isCanceled(null)).toBe(false);
  });

  test('plan buttons: current plan, downgrade, start free trial or get started', () => {
    expect(planAction('free', free)).toEqual({ label: 'Current Plan', kind: 'none' });
    expect(planAction('growth', free)).toEqual({ label: 'Start Free Trial', kind: 'subscribe', href: '/subscribe?plan=growth' });
    expect(planAction('growth', ended)).toMatchObject({ label: 'Get Started' });
    expect(planAction('starter', trial)).toEqual({ label: 'Current Plan', kind: 'none' });
    expect(planAction('free', trial)).toEqual({ label: 'Downgrade', kind: 'cancel', disabled: false });
    expect(planAction('free', canceled)).toEqual({ label: 'Downgrade', kind: 'cancel', disabled: true });
  });

  test('a paying user moves up with Upgrade and down with Downgrade', () => {
    expect(planAction('pro', trial)).toEqual({ label: 'Upgrade', kind: 'subscribe', href: '/subscribe?plan=pro' });
    expect(planAction('starter', pro)).toEqual({ label: 'Downgrade', kind: 'subscribe', href: '/subscribe?plan=starter' });
    expect(planAction('growth', pro)).toEqual({ label: 'Downgrade', kind: 'subscribe', href: '/subscribe?plan=growth' });
    expect(planAction('pro', pro)).toEqual({ label: 'Current Plan', kind: 'none' });
    expect(planAction('free', pro)).toEqual({ label: 'Downgrade', kind: 'cancel', disabled: false });
  });

  test('what will happen, in words: the trial banner, or after cancelling, the end of access and no more charges', () => {
    expect(subscriptionOutlook(free)).toBeNull();
    expect(subscriptionOutlook(pro)).toBeNull();
    expect(subscriptionOutlook(trial)).toBe('Your trial ends on 30 Nov 2026. No charges until then.');
    expect(subscriptionOutlook(canceled)).toBe(
      'Your trial is cancelled: you keep Starter until 30 Nov 2026, then your account moves to the Free plan. Nothing more will be charged.',
    );
    expect(subscriptionOutlook(proCanceled)).toBe(
      'Your subscription is cancelled: you keep Pro until 11 Dec 2026, then your account moves to the Free plan. Nothing more will be charged.',
    );
  });

  test('what subscribing means: a trial, a paid subscription, a plan change, or the plan already held', () => {
    expect(subscribeMode('starter', free)).toBe('trial');
    expect(subscribeMode('starter', ended)).toBe('paid');
    expect(subscribeMode('pro', trial)).toBe('change');
    expect(subscribeMode('starter', trial)).toBe('current');
    expect(subscribeMode('starter', canceled)).toBe('resume');
    expect(subscribeMode('growth', canceled)).toBe('change');
  });

  test('error messages come from the server answer when there is one', () => {
    expect(errorMessage(new ApiError(409, '{"message":"You are already subscribed to this plan."}', 'Conflict'))).toBe(
      'You are already subscribed to this plan.',
    );
    expect(errorMessage(new ApiError(502, '', 'Bad Gateway'))).toBe('Bad Gateway');
    expect(errorMessage(new Error('offline'))).toBe('offline');
  });

  test('the subscription is retried up to 3 times, never after a 401', async () => {
    let calls = 0;
    await expect(
      withRetries(
        async () => {
          calls++;
          throw new Error('500: down');
        },
        3,
        0,
      ),
    ).rejects.toThrow('500: down');
    expect(calls).toBe(4);
    calls = 0;
    await expect(
      withRetries(
        async () => {
          calls++;
          throw new ApiError(401, '{"message":"Unauthorized"}', 'Unauthorized');
        },
        3,
        0,
      ),
    ).rejects.toThrow();
    expect(calls).toBe(1);
    calls = 0;
    expect(await withRetries(async () => (++calls < 3 ? Promise.reject(new Error('x')) : 'ok'), 3, 0)).toBe('ok');
  });
});
