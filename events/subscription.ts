import type { EventData, EventOf } from './catalogue.ts';
import { DomainError, type Decider } from './decider.ts';

/**
 * The subscription aggregate: a user's billing customer ids, whether the free trial was used, and
 * their newest subscription as the payment provider last reported it. Stream `subscription-<userId>`.
 *
 * The provider is the source of truth. Every answer it gives (to our own calls and through its
 * webhooks) arrives as a snapshot, and the decider records only what changed since the state it
 * knows, so a snapshot seen twice changes nothing. Snapshots older than what is known are ignored
 * and an ended subscription stays ended, so news arriving out of order cannot undo newer news.
 */
export type SubscriptionEvent =
  | EventOf<'BillingCustomerCreated'>
  | EventOf<'TrialStarted'>
  | EventOf<'SubscriptionActivated'>
  | EventOf<'SubscriptionPlanChanged'>
  | EventOf<'SubscriptionPeriodChanged'>
  | EventOf<'SubscriptionCanceled'>
  | EventOf<'SubscriptionResumed'>
  | EventOf<'SubscriptionAwaitingPayment'>
  | EventOf<'SubscriptionEnded'>
  | EventOf<'PaymentSucceeded'>
  | EventOf<'PaymentFailed'>;

export type PaidPlanId = EventData<'TrialStarted'>['plan'];
export type BillingProviderKind = EventData<'BillingCustomerCreated'>['provider'];
export type AwaitingPaymentStatus = EventData<'SubscriptionAwaitingPayment'>['status'];
export type SubscriptionStatus = 'trialing' | 'active' | AwaitingPaymentStatus | 'canceled';

/** A subscription as the provider reports it (times in Unix seconds, amount in pence per month). */
export type SubscriptionSnapshot = {
  id: string;
  provider: BillingProviderKind;
  status: SubscriptionStatus;
  plan: PaidPlanId;
  amount: number;
  trialEnd: number | null;
  currentPeriodEnd: number;
  cancelAtPeriodEnd: boolean;
  created: number;
};

/** What we know of a subscription, and the provider's time of the newest news about it. */
export type Subscription = SubscriptionSnapshot & { asOf: number };

export type SubscriptionState = {
  customers: Partial<Record<BillingProviderKind, string>>;
  trialUsed: boolean;
  subscription: Subscription | null;
};

export type Payment = Omit<EventData<'PaymentFailed'>, 'userId'>;

export type SubscriptionCommand =
  | { type: 'RecordCustomer'; userId: string; provider: BillingProviderKind; customerId: string }
  /** `at`: when the provider says the snapshot was true (a webhook event's `created`, or now for its answers). */
  | { type: 'RecordSubscription'; userId: string; snapshot: SubscriptionSnapshot; at: number }
  | { type: 'RecordPayment'; userId: string; outcome: 'succeeded' | 'failed'; payment: Payment };

export const subscriptionStream = (userId: string) => `subscription-${userId}`;

/** Statuses in which the plan's features are available: a failed renewal keeps them while the provider retries. */
const ACCESS: ReadonlySet<SubscriptionStatus> = new Set(['trialing', 'active', 'past_due']);

export const hasAccess = (sub: Pick<Subscription, 'status'> | null): sub is Subscription => !!sub && ACCESS.has(sub.status);

/** The plan whose features the user has now, or null for the free plan. */
export const accessPlan = (state: SubscriptionState): PaidPlanId | null => (hasAccess(state.subscription) ? state.subscription.plan : null);

/**
 * What subscribing to `plan` means now: a trial (once per customer), a paid subscription, or a
 * change of the subscription the user has (which also takes back a cancellation).
 */
export function subscribeIntent(state: SubscriptionState, plan: PaidPlanId): 'trial' | 'paid' | 'change' {
  const sub = state.subscription;
  if (hasAccess(sub)) {
    if (sub.plan === plan && !sub.cancelAtPeriodEnd) throw new DomainError('You are already subscribed to this plan.', 409, 'plan');
    return 'change';
  }
  return state.trialUsed ? 'paid' : 'trial';
}

/** The subscription a cancellation applies to. */
export function cancellable(state: SubscriptionState): Subscription {
  const sub = state.subscription;
  if (!hasAccess(sub)) throw new DomainError('You have no subscription to cancel.', 409);
  if (sub.cancelAtPeriodEnd) throw new DomainError('Your subscription is already cancelled.', 409);
  return sub;
}

type Start = EventOf<'TrialStarted'> | EventOf<'SubscriptionActivated'>;

function start(type: Start['type'], userId: string, s: SubscriptionSnapshot, at: number): Start {
  const { id: subscriptionId, provider, plan, amount, trialEnd, currentPeriodEnd, created } = s;
  return { type, data: { userId, subscriptionId, provider, plan, amount, trialEnd, currentPeriodEnd, created, at } };
}

/** One event applied to the subscription it is about (a start event may begin a new one). */
function applyTo(sub: Subscription | null, event: SubscriptionEvent): Subscription | null {
  if (event.type === 'TrialStarted' || event.type === 'SubscriptionActivated') {
    const { subscriptionId: id, provider, plan, amount, trialEnd, currentPeriodEnd, created, at } = event.data;
    const same = sub?.id === id;
    return {
      id,
      provider,
      plan,
      amount,
      trialEnd,
      currentPeriodEnd,
      created,
      status: event.type === 'TrialStarted' ? 'trialing' : 'active',
      cancelAtPeriodEnd: same ? sub!.cancelAtPeriodEnd : false,
      asOf: same ? Math.max(sub!.asOf, at) : at,
    };
  }
  if (event.type === 'BillingCustomerCreated' || !sub || sub.id !== event.data.subscriptionId) return sub;
  const next: Subscription = { ...sub, asOf: Math.max(sub.asOf, event.data.at) };
  switch (event.type) {
    case 'SubscriptionPlanChanged':
      return { ...next, plan: event.data.plan, amount: event.data.amount };
    case 'SubscriptionPeriodChanged':
      return { ...next, trialEnd: event.data.trialEnd, currentPeriodEnd: event.data.currentPeriodEnd };
    case 'SubscriptionCanceled':
      return { ...next, cancelAtPeriodEnd: true };
    case 'SubscriptionResumed':
      return { ...next, cancelAtPeriodEnd: false };
    case 'SubscriptionAwaitingPayment':
      return { ...next, status: event.data.status, plan: event.data.plan };
    case 'SubscriptionEnded':
      return { ...next, status: 'canceled' };
    case 'PaymentSucceeded':
    case 'PaymentFailed':
      return sub;
  }
}

/** The events that turn what we know of one subscription into the snapshot. */
function changes(userId: string, known: Subscription, s: SubscriptionSnapshot, at: number): SubscriptionEvent[] {
  const ids = { userId, subscriptionId: s.id, at };
  if (s.status === 'canceled') return [{ type: 'SubscriptionEnded', data: ids }];
  const out: SubscriptionEvent[] = [];
  let now = known;
  const add = (event: SubscriptionEvent) => {
    out.push(event);
    now = applyTo(now, event)!;
  };
  if (s.status !== now.status) {
    if (s.status === 'trialing' || s.status === 'active') add(start(s.status === 'trialing' ? 'TrialStarted' : 'SubscriptionActivated', userId, s, at));
    else add({ type: 'SubscriptionAwaitingPayment', data: { ...ids, plan: s.plan, status: s.status } });
  }
  if (s.plan !== now.plan || s.amount !== now.amount) add({ type: 'SubscriptionPlanChanged', data: { ...ids, plan: s.plan, amount: s.amount } });
  if (s.trialEnd !== now.trialEnd || s.currentPeriodEnd !== now.currentPeriodEnd) {
    add({ type: 'SubscriptionPeriodChanged', data: { ...ids, trialEnd: s.trialEnd, currentPeriodEnd: s.currentPeriodEnd } });
  }
  if (s.cancelAtPeriodEnd !== now.cancelAtPeriodEnd) {
    add(s.cancelAtPeriodEnd ? { type: 'SubscriptionCanceled', data: { ...ids, accessUntil: s.currentPeriodEnd } } : { type: 'SubscriptionResumed', data: ids });
  }
  return out;
}

function recordSubscription(state: SubscriptionState, userId: string, s: SubscriptionSnapshot, at: number): SubscriptionEvent[] {
  const known = state.subscription;
  if (known?.id === s.id) {
    // An ended subscription never comes back; older news than we have is already superseded.
    if (known.status === 'canceled' || at < known.asOf) return [];
    return changes(userId, known, s, at);
  }
  // News of an older subscription while a newer one runs changes nothing we show.
  if (known && known.status !== 'canceled' && s.created < known.created) return [];
  // A subscription we first hear of counts once it gives access.
  if (!hasAccess(s)) return [];
  const first = start(s.status === 'trialing' ? 'TrialStarted' : 'SubscriptionActivated', userId, s, at);
  return [first, ...changes(userId, applyTo(null, first)!, s, at)];
}

export const subscriptionDecider: Decider<SubscriptionState, SubscriptionCommand, SubscriptionEvent> = {
  initialState: () => ({ customers: {}, trialUsed: false, subscription: null }),

  evolve(state, event) {
    switch (event.type) {
      case 'BillingCustomerCreated':
        return { ...state, customers: { ...state.customers, [event.data.provider]: event.data.customerId } };
      case 'PaymentSucceeded':
      case 'PaymentFailed':
        return state;
      default:
        return { ...state, trialUsed: state.trialUsed || event.type === 'TrialStarted', subscription: applyTo(state.subscription, event) };
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'RecordCustomer': {
        const { userId, provider, customerId } = command;
        return state.customers[provider] ? [] : [{ type: 'BillingCustomerCreated', data: { userId, provider, customerId } }];
      }
      case 'RecordSubscription':
        return recordSubscription(state, command.userId, command.snapshot, command.at);
      case 'RecordPayment': {
        const { userId, payment } = command;
        if (command.outcome === 'failed') return [{ type: 'PaymentFailed', data: { userId, ...payment } }];
        const { attempt: _, ...paid } = payment;
        return [{ type: 'PaymentSucceeded', data: { userId, ...paid } }];
      }
    }
  },
};

/**
 * The plan a user has access to after `event`, given the plan they had (null: free), for read
 * models that keep only the plan: a plan change counts only while the subscription gives access.
 */
export function planAfter(current: string | null, event: SubscriptionEvent): string | null {
  switch (event.type) {
    case 'TrialStarted':
    case 'SubscriptionActivated':
      return event.data.plan;
    case 'SubscriptionPlanChanged':
      return current && event.data.plan;
    case 'SubscriptionAwaitingPayment':
      return hasAccess(event.data) ? event.data.plan : null;
    case 'SubscriptionEnded':
      return null;
    default:
      return current;
  }
}

/** The event types that can change the plan a user has access to. */
export const PLAN_EVENTS = ['TrialStarted', 'SubscriptionActivated', 'SubscriptionPlanChanged', 'SubscriptionAwaitingPayment', 'SubscriptionEnded'] as const;
