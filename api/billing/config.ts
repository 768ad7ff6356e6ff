import type { PaidPlanId } from '../../events/subscription.ts';

export type StripeConfig = {
  provider: 'stripe';
  secretKey: string;
  publishableKey: string;
  webhookSecret: string;
  /** The Stripe price id of each paid plan. */
  prices: Record<PaidPlanId, string>;
  /** Where the Stripe API is reached; null for Stripe itself (tests point it at a local fake). */
  api: { host: string; port?: number; protocol: 'http' | 'https' } | null;
};

export type BillingConfig = StripeConfig | { provider: 'demo' };

const REQUIRED = ['STRIPE_PUBLISHABLE_KEY', 'STRIPE_WEBHOOK_SECRET', 'STRIPE_PRICE_STARTER', 'STRIPE_PRICE_GROWTH', 'STRIPE_PRICE_PRO'] as const;

/** Stripe when STRIPE_SECRET_KEY is set; otherwise the local demo provider, which production refuses. */
export function billingConfig(env: Record<string, string | undefined>, production: boolean): BillingConfig {
  const secretKey = env.STRIPE_SECRET_KEY;
  if (!secretKey) {
    if (production)
      throw new Error('NODE_ENV=production needs STRIPE_SECRET_KEY and the other STRIPE_* settings: demo billing is never available in production.');
    return { provider: 'demo' };
  }
  const missing = REQUIRED.filter((name) => !env[name]);
  if (missing.length) throw new Error(`STRIPE_SECRET_KEY is set, so billing needs ${missing.join(', ')} as well.`);
  const host = env.STRIPE_API_HOST;
  if (production && env.STRIPE_API_PROTOCOL === 'http')
    throw new Error('STRIPE_API_PROTOCOL=http is for tests against a local stand-in, never for production.');
  return {
    provider: 'stripe',
    secretKey,
    publishableKey: env.STRIPE_PUBLISHABLE_KEY!,
    webhookSecret: env.STRIPE_WEBHOOK_SECRET!,
    prices: { starter: env.STRIPE_PRICE_STARTER!, growth: env.STRIPE_PRICE_GROWTH!, pro: env.STRIPE_PRICE_PRO! },
    api: host
      ? { host, port: env.STRIPE_API_PORT ? Number(env.STRIPE_API_PORT) : undefined, protocol: env.STRIPE_API_PROTOCOL === 'http' ? 'http' : 'https' }
      : null,
  };
}
