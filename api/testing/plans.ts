import type { AppContext } from '../context.ts';
import { subscriptionStream } from '../../events/subscription.ts';

type PaidPlan = 'starter' | 'growth' | 'pro';

/**
 * Subscription events for tests, as the billing API would record them: a started trial gives
 * the plan's features at once; an ended subscription takes them back. Catches up the read models.
 */
export async function startTrial(ctx: Pick<AppContext, 'store' | 'projections'>, userId: string, plan: PaidPlan = 'pro') {
  const now = Math.floor(Date.now() / 1000);
  const subscriptionId = `sub_${crypto.randomUUID().slice(0, 8)}`;
  await ctx.store.append(subscriptionStream(userId), 'any', [
    {
      type: 'TrialStarted',
      data: {
        userId,
        subscriptionId,
        provider: 'demo',
        plan,
        amount: { starter: 1800, growth: 4900, pro: 9900 }[plan],
        trialEnd: now + 14 * 86_400,
        currentPeriodEnd: now + 14 * 86_400,
        created: now,
        at: now,
      },
    },
  ]);
  await ctx.projections.catchUp();
  return subscriptionId;
}

export async function endSubscription(ctx: Pick<AppContext, 'store' | 'projections'>, userId: string, subscriptionId: string) {
  await ctx.store.append(subscriptionStream(userId), 'any', [
    {
      type: 'SubscriptionEnded',
      data: { userId, subscriptionId, at: Math.floor(Date.now() / 1000) },
    },
  ]);
  await ctx.projections.catchUp();
}
