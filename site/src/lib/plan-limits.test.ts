import { describe, expect, test } from 'bun:test';
import type { BillingAnswer } from './api';
import { apiKeyFieldText, frequencyChoices, pausedCheckView, productsAfterEnd, productUsage } from './plan-limits';

process.env.TZ = 'Europe/London';

const free = { plan: 'free', subscriptionPlan: null };
const starter = { plan: 'free', subscriptionPlan: 'starter' };
const growth = { plan: 'free', subscriptionPlan: 'growth' };
const pro = { plan: 'free', subscriptionPlan: 'pro' };

describe('the Products screen at the plan limit', () => {
  test('says nothing below the limit or on an unlimited plan', () => {
    expect(productUsage(free, 2)).toBeNull();
    expect(productUsage(starter, 3)).toBeNull();
    expect(productUsage(pro, 5000)).toBeNull();
    expect(productUsage(null, 3)).toBeNull();
  });

  test('at the limit: how many of how many, and the reason Add Product gives', () => {
    expect(productUsage(free, 3)).toEqual({
      text: '3 of 3 products on Free',
      reason: 'Your Free plan allows 3 products. Upgrade your plan to add more.',
      paused: 0,
    });
  });

  test('past it, after a plan ended: how many are paused', () => {
    expect(productUsage(free, 5)?.text).toBe('5 of 3 products on Free: 2 paused');
  });

  test('a paused card says why, in a grey dot that does not pulse', () => {
    const reason = 'Your Free plan checks the first 3 products you added. Upgrade, or remove another product, to check this one again.';
    expect(pausedCheckView(free)).toEqual({ tone: 'paused', label: `Checks paused: ${reason}`, line: 'Checks paused', reason });
  });
});

describe('the check frequency the Settings screen offers', () => {
  test('Free and Starter: daily and weekly, with a note on hourly', () => {
    for (const user of [free, starter]) {
      const choices = frequencyChoices(user, 'daily');
      expect(choices.options.map((o) => o.value)).toEqual(['daily', 'weekly']);
      expect(choices.value).toBe('daily');
      expect(choices.note).toBe('Hourly checks come with the Growth and Pro plans.');
      expect(choices.savedNote).toBeNull();
    }
  });

  test('Growth and Pro: every choice, no note', () => {
    expect(frequencyChoices(growth, 'hourly')).toEqual({
      options: [
        { value: 'hourly', label: 'Hourly' },
        { value: 'daily', label: 'Daily' },
        { value: 'weekly', label: 'Weekly' },
      ],
      value: 'hourly',
      note: null,
      savedNote: null,
    });
    expect(frequencyChoices(pro, 'weekly').value).toBe('weekly');
  });

  test('hourly saved before a downgrade reads as what applies now, and says so', () => {
    const choices = frequencyChoices(starter, 'hourly');
    expect(choices.value).toBe('daily');
    expect(choices.savedNote).toBe('Hourly was saved on an earlier plan. Starter checks prices daily at most, so Daily applies.');
  });
});

describe('the API Access field', () => {
  const none = { apiAccess: true, hasKey: false, maskedKey: null };
  test('tells the truth when there is no key, instead of a mask', () => {
    expect(apiKeyFieldText(none, false)).toBe('No key yet');
    expect(apiKeyFieldText({ ...none, apiAccess: false }, false)).toBe('API access is on Pro');
    expect(apiKeyFieldText({ apiAccess: true, hasKey: true, maskedKey: 'pw_live_••••••••abcd' }, false)).toBe('pw_live_••••••••abcd');
    expect(apiKeyFieldText(null, true)).toBe('Not available');
    expect(apiKeyFieldText(null, false)).toBe('');
  });
});

describe('what moving to Free does to the products beyond its limit', () => {
  const answer = (over: Partial<BillingAnswer>): BillingAnswer => ({
    user: { subscriptionPlan: 'growth', planLimits: { maxProducts: 100, checkFrequency: 'hourly', aiDetection: true, apiAccess: false } },
    subscription: { status: 'active', trial_end: null, current_period_end: 1_796_000_000, cancel_at_period_end: false, plan: 'growth', amount: 4900 },
    trialAvailable: false,
    provider: 'demo',
    productsOnFree: null,
    ...over,
  });
  const ref = (name: string) => ({ id: name.toLowerCase(), name });
  const onFree = { checked: ['Kettle', 'Toaster', 'Jug'].map(ref), paused: ['Grinder', 'Scale'].map(ref), pausedCount: 2 };

  test('nothing to say when every product fits', () => {
    expect(productsAfterEnd(answer({}))).toBeNull();
  });

  test('before and after cancelling: which keep being checked after the end date, and which pause', () => {
    expect(productsAfterEnd(answer({ productsOnFree: onFree }))).toBe(
      'After 30 Nov 2026, these 3 products keep being checked: Kettle, Toaster, Jug; these 2 pause: Grinder, Scale. ' +
        'Paused products keep their price history and are checked again when you upgrade, or once you remove others.',
    );
  });

  test('a trial ends on its trial end; many paused products are counted, not all named', () => {
    const trial = answer({
      subscription: {
        status: 'trialing',
        trial_end: 1_795_000_000,
        current_period_end: 1_795_000_000,
        cancel_at_period_end: true,
        plan: 'growth',
        amount: 4900,
      },
      productsOnFree: { ...onFree, paused: [ref('Grinder')], pausedCount: 41 },
    });
    expect(productsAfterEnd(trial)).toStartWith(
      'After 18 Nov 2026, these 3 products keep being checked: Kettle, Toaster, Jug; these 41 pause: Grinder and 40 more.',
    );
  });

  test('on Free already: which are paused now', () => {
    const ended = answer({
      user: { subscriptionPlan: null, planLimits: { maxProducts: 3, checkFrequency: 'daily', aiDetection: false, apiAccess: false } },
      subscription: null,
      productsOnFree: onFree,
    });
    expect(productsAfterEnd(ended)).toBe(
      'Free checks 3 products: Kettle, Toaster, Jug. These 2 are paused: Grinder, Scale. ' +
        'Paused products keep their price history and are checked again when you upgrade, or once you remove others.',
    );
  });
});
