import { describe, expect, test } from 'bun:test';
import { ApiError, type BillingAnswer } from './api';
import {
  errorMessage, formatBillingDate, formatMonthly, isCanceled, planAction, productLimitLabel, subscribeMode, subscribePlan, withRetries,
} from './billing';

process.env.TZ = 'Europe/London';

const free: BillingAnswer = {
  user: { subscriptionPlan: null, planLimits: { maxProducts: 3, checkFrequency: 'daily', aiDetection: false, apiAccess: false } },
  subscription: null,
  trialAvailable: true,
  provider: 'demo',
};
const trial: BillingAnswer = {
  user: { subscriptionPlan: 'starter', planLimits: { maxProducts: 25, checkFrequency: 'daily', aiDetection: true, apiAccess: false } },
  subscription: { status: 'trialing', trial_end: 1_796_000_000, current_period_end: 1_796_000_000, cancel_at_period_end: false, plan: 'starter', amount: 1800 },
  trialAvailable: false,
  provider: 'demo',
};
const canceled: BillingAnswer = { ...trial, subscription: { ...trial.subscription!, cancel_at_period_end: true } };
const ended: BillingAnswer = { ...free, trialAvailable: false };

describe('billing screens', () => {
  test('the subscribe page plan: starter by default and for anything unknown', () => {
    expect(subscribePlan('growth')).toBe('growth');
    expect(subscribePlan('pro')).toBe('pro');
    expect(subscribePlan(null)).toBe('starter');
    expect(subscribePlan('free')).toBe('starter');
    expect(subscribePlan('platinum')).toBe('starter');
  });

  test('limits, dates and amounts', () => {
    expect(productLimitLabel(-1)).toBe('Unlimited');
    expect(productLimitLabel(25)).toBe('25');
    expect(productLimitLabel(undefined)).toBe('3');
    expect(formatBillingDate(1_796_000_000)).toBe('30 Nov 2026');
    expect(formatBillingDate(null)).toBe('—');
    expect(formatMonthly(1800)).toBe('£18.00');
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
    expect(planAction('pro', trial)).toEqual({ label: 'Get Started', kind: 'subscribe', href: '/subscribe?plan=pro' });
    expect(planAction('free', trial)).toEqual({ label: 'Downgrade', kind: 'cancel', disabled: false });
    expect(planAction('free', canceled)).toEqual({ label: 'Downgrade', kind: 'cancel', disabled: true });
  });

  test('what subscribing means: a trial, a paid subscription, a plan change, or the plan already held', () => {
    expect(subscribeMode('starter', free)).toBe('trial');
    expect(subscribeMode('starter', ended)).toBe('paid');
    expect(subscribeMode('pro', trial)).toBe('change');
    expect(subscribeMode('starter', trial)).toBe('current');
    expect(subscribeMode('starter', canceled)).toBe('change');
  });

  test('error messages come from the server answer when there is one', () => {
    expect(errorMessage(new ApiError(409, '{"message":"You are already subscribed to this plan."}', 'Conflict'))).toBe('You are already subscribed to this plan.');
    expect(errorMessage(new ApiError(502, '', 'Bad Gateway'))).toBe('Bad Gateway');
    expect(errorMessage(new Error('offline'))).toBe('offline');
  });

  test('the subscription is retried up to 3 times, never after a 401', async () => {
    let calls = 0;
    await expect(withRetries(async () => { calls++; throw new Error('500: down'); }, 3, 0)).rejects.toThrow('500: down');
    expect(calls).toBe(4);
    calls = 0;
    await expect(withRetries(async () => { calls++; throw new ApiError(401, '{"message":"Unauthorized"}', 'Unauthorized'); }, 3, 0)).rejects.toThrow();
    expect(calls).toBe(1);
    calls = 0;
    expect(await withRetries(async () => (++calls < 3 ? Promise.reject(new Error('x')) : 'ok'), 3, 0)).toBe('ok');
  });
});
