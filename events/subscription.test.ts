import { describe, expect, test } from 'bun:test';
import { DomainError } from './decider.ts';
import { deciderSpec } from './testing.ts';
import {
  accessPlan,
  cancellable,
  planAfter,
  subscribeIntent,
  subscriptionDecider,
  type SubscriptionCommand,
  type SubscriptionEvent,
  type SubscriptionSnapshot,
} from './subscription.ts';

/** given(events).when(command) -> the events the decider emits. */
const { given } = deciderSpec(subscriptionDecider);
/** The events a list of snapshots records one after the other, as webhooks would deliver them. */
function replay(...snapshots: [SubscriptionSnapshot, number][]): SubscriptionEvent[] {
  const log: SubscriptionEvent[] = [];
  for (const [snapshot, at] of snapshots) log.push(...given(log).when(record(snapshot, at)));
  return log;
}

const T = 1_800_000_000;
const DAY = 86_400;
const userId = 'u1';
const trial: SubscriptionSnapshot = {
  id: 'sub_1',
  provider: 'stripe',
  status: 'trialing',
  plan: 'starter',
  amount: 1800,
  trialEnd: T + 14 * DAY,
  currentPeriodEnd: T + 14 * DAY,
  cancelAtPeriodEnd: false,
  created: T,
};
const record = (snapshot: SubscriptionSnapshot, at: number): SubscriptionCommand => ({ type: 'RecordSubscription', userId, snapshot, at });
const ids = (at: number) => ({ userId, subscriptionId: 'sub_1', at });
const trialStarted: SubscriptionEvent = {
  type: 'TrialStarted',
  data: { ...ids(T), provider: 'stripe', plan: 'starter', amount: 1800, trialEnd: T + 14 * DAY, currentPeriodEnd: T + 14 * DAY, created: T },
};
const active = { ...trial, status: 'active' as const, currentPeriodEnd: T + 44 * DAY };

describe('subscription decider', () => {
  test('a customer is recorded once per provider', () => {
    const created: SubscriptionEvent = { type: 'BillingCustomerCreated', data: { userId, provider: 'stripe', customerId: 'cus_1' } };
    expect(given([]).when({ type: 'RecordCustomer', userId, provider: 'stripe', customerId: 'cus_1' })).toEqual([created]);
    expect(given([created]).when({ type: 'RecordCustomer', userId, provider: 'stripe', customerId: 'cus_2' })).toEqual([]);
    expect(given([created]).when({ type: 'RecordCustomer', userId, provider: 'demo', customerId: 'demo_cus_1' })).toHaveLength(1);
  });

  test('a first trialing snapshot starts the trial; the same snapshot again records nothing', () => {
    expect(given([]).when(record(trial, T))).toEqual([trialStarted]);
    expect(given([trialStarted]).when(record(trial, T + 5))).toEqual([]);
    expect(accessPlan(given([trialStarted]).state)).toBe('starter');
  });

  test('the trial converting records one activation carrying the new period', () => {
    const events = given([trialStarted]).when(record(active, T + 14 * DAY));
    expect(events).toEqual([{ type: 'SubscriptionActivated', data: { ...trialStarted.data, currentPeriodEnd: T + 44 * DAY, at: T + 14 * DAY } }]);
  });

  test('cancel at period end keeps access until the period ends; resuming takes it back', () => {
    const canceled = given([trialStarted]).when(record({ ...trial, cancelAtPeriodEnd: true }, T + 60));
    expect(canceled).toEqual([{ type: 'SubscriptionCanceled', data: { ...ids(T + 60), accessUntil: T + 14 * DAY } }]);
    expect(accessPlan(given([trialStarted, ...canceled]).state)).toBe('starter');
    expect(given([trialStarted, ...canceled]).when(record(trial, T + 120))).toEqual([{ type: 'SubscriptionResumed', data: ids(T + 120) }]);
  });

  test('news older than what is known is ignored', () => {
    const log = replay([{ ...trial, cancelAtPeriodEnd: true }, T + 60]);
    expect(given(log).when(record(trial, T + 30))).toEqual([]);
  });

  test('an ended subscription stays ended, whatever arrives after', () => {
    const log = replay([trial, T], [{ ...trial, status: 'canceled' }, T + 100]);
    expect(log.at(-1)).toEqual({ type: 'SubscriptionEnded', data: ids(T + 100) });
    expect(accessPlan(given(log).state)).toBeNull();
    expect(given(log).when(record(active, T + 200))).toEqual([]);
  });

  test('out-of-order delivery ends in the state of the newest snapshot', () => {
    const cancel = { ...trial, cancelAtPeriodEnd: true };
    const inOrder = given(replay([trial, T], [cancel, T + 60])).state;
    const reversed = given(replay([cancel, T + 60], [trial, T])).state;
    expect(reversed).toEqual(inOrder);
  });

  test('a failed renewal keeps access while past due, not once unpaid; a payment restores it', () => {
    const log = replay([active, T]);
    const pastDue = given(log).when(record({ ...active, status: 'past_due' }, T + 10));
    expect(pastDue).toEqual([{ type: 'SubscriptionAwaitingPayment', data: { ...ids(T + 10), plan: 'starter', status: 'past_due' } }]);
    expect(accessPlan(given([...log, ...pastDue]).state)).toBe('starter');
    const unpaid = replay([active, T], [{ ...active, status: 'unpaid' }, T + 20]);
    expect(accessPlan(given(unpaid).state)).toBeNull();
    expect(accessPlan(given(replay([active, T], [{ ...active, status: 'unpaid' }, T + 20], [active, T + 30])).state)).toBe('starter');
  });

  test('a plan change and a renewal are recorded as such', () => {
    const log = replay([active, T]);
    expect(given(log).when(record({ ...active, plan: 'pro', amount: 9900 }, T + 10))).toEqual([
      { type: 'SubscriptionPlanChanged', data: { ...ids(T + 10), plan: 'pro', amount: 9900 } },
    ]);
    expect(given(log).when(record({ ...active, currentPeriodEnd: T + 74 * DAY }, T + 30 * DAY))).toEqual([
      { type: 'SubscriptionPeriodChanged', data: { ...ids(T + 30 * DAY), trialEnd: active.trialEnd, currentPeriodEnd: T + 74 * DAY } },
    ]);
  });

  test('a subscription first heard of already cancelled records its start and the cancellation', () => {
    expect(
      given([])
        .when(record({ ...trial, cancelAtPeriodEnd: true }, T))
        .map((e) => e.type),
    ).toEqual(['TrialStarted', 'SubscriptionCanceled']);
  });

  test('a subscription without access that was never seen records nothing', () => {
    expect(given([]).when(record({ ...trial, status: 'incomplete' }, T))).toEqual([]);
    expect(given([]).when(record({ ...trial, status: 'canceled' }, T))).toEqual([]);
  });

  test('news of an older subscription does not replace a newer one', () => {
    const log = replay([{ ...active, id: 'sub_2', created: T + 100 }, T + 100]);
    expect(given(log).when(record(trial, T + 200))).toEqual([]);
  });

  test('after an ended subscription a new one starts, and the trial stays used', () => {
    const log = replay([trial, T], [{ ...trial, status: 'canceled' }, T + 100], [{ ...active, id: 'sub_2', trialEnd: null, created: T + 200 }, T + 200]);
    const { state } = given(log);
    expect(log.at(-1)!.type).toBe('SubscriptionActivated');
    expect(state.subscription?.id).toBe('sub_2');
    expect(state.trialUsed).toBe(true);
  });

  test('payments are recorded as they come', () => {
    const payment = { subscriptionId: 'sub_1', invoiceId: 'in_1', amount: 1800, currency: 'gbp', attempt: 2, at: T };
    expect(given([]).when({ type: 'RecordPayment', userId, outcome: 'failed', payment })).toEqual([{ type: 'PaymentFailed', data: { userId, ...payment } }]);
    const { attempt: _, ...paid } = payment;
    expect(given([]).when({ type: 'RecordPayment', userId, outcome: 'succeeded', payment })).toEqual([{ type: 'PaymentSucceeded', data: { userId, ...paid } }]);
  });
});

describe('what a user may ask', () => {
  const refused = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      return error instanceof DomainError ? error.status : 'other';
    }
    return 'allowed';
  };

  test('subscribing: a trial once, then paid; a different plan changes the subscription; the same plan is refused', () => {
    expect(subscribeIntent(given([]).state, 'starter')).toBe('trial');
    expect(subscribeIntent(given(replay([trial, T], [{ ...trial, status: 'canceled' }, T + 1])).state, 'starter')).toBe('paid');
    expect(subscribeIntent(given([trialStarted]).state, 'pro')).toBe('change');
    expect(refused(() => subscribeIntent(given([trialStarted]).state, 'starter'))).toBe(409);
    // Choosing the plan again after cancelling takes the cancellation back.
    expect(subscribeIntent(given(replay([{ ...trial, cancelAtPeriodEnd: true }, T])).state, 'starter')).toBe('change');
  });

  test('cancelling needs a subscription that is not cancelled yet', () => {
    expect(refused(() => cancellable(given([]).state))).toBe(409);
    expect(cancellable(given([trialStarted]).state).id).toBe('sub_1');
    expect(refused(() => cancellable(given(replay([{ ...trial, cancelAtPeriodEnd: true }, T])).state))).toBe(409);
    expect(refused(() => cancellable(given(replay([trial, T], [{ ...trial, status: 'canceled' }, T + 1])).state))).toBe(409);
  });

  test('the plan a read model keeps follows access', () => {
    const changed: SubscriptionEvent = { type: 'SubscriptionPlanChanged', data: { ...ids(T), plan: 'pro', amount: 9900 } };
    expect(planAfter(null, trialStarted)).toBe('starter');
    expect(planAfter('starter', changed)).toBe('pro');
    expect(planAfter(null, changed)).toBeNull();
    expect(planAfter('starter', { type: 'SubscriptionEnded', data: ids(T) })).toBeNull();
    expect(planAfter('starter', { type: 'SubscriptionAwaitingPayment', data: { ...ids(T), plan: 'starter', status: 'unpaid' } })).toBeNull();
  });
});
