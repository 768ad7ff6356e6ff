/**
 * The one plan table: every screen (landing, billing, subscribe) and every server-side limit check
 * reads it, so the product never advertises one price and charges another.
 */
export const PLAN_IDS = ['free', 'starter', 'growth', 'pro'] as const;
export type PlanId = (typeof PLAN_IDS)[number];

export type CheckFrequency = 'weekly' | 'daily' | 'hourly' | 'quarter-hourly';

export type Plan = {
  id: PlanId;
  name: string;
  /** Monthly price in whole pounds sterling. */
  priceGbp: number;
  /** -1 means unlimited. */
  maxProducts: number;
  /** The owner's own products in the catalogue, counted apart from competitor products; -1 means unlimited. */
  maxOwnProducts: number;
  /** Whether the catalogue can be read from a connected store (every plan can import a CSV file). */
  storeSources: boolean;
  /** Whether pricing recommendations may apply themselves (the automatic mode). */
  automaticRepricing: boolean;
  checkFrequency: CheckFrequency;
  /** Minutes between scheduled checks of one product. */
  checkIntervalMinutes: number;
  aiDetection: boolean;
  apiAccess: boolean;
  support: string;
  popular?: boolean;
  features: string[];
};

export const PLANS: Record<PlanId, Plan> = {
  free: {
    id: 'free',
    name: 'Free',
    priceGbp: 0,
    maxProducts: 3,
    maxOwnProducts: 3,
    storeSources: false,
    automaticRepricing: false,
    checkFrequency: 'daily',
    checkIntervalMinutes: 1440,
    aiDetection: false,
    apiAccess: false,
    support: 'Community support',
    features: ['3 products', 'Daily price checks', 'Email alerts', 'Price history', 'Community support'],
  },
  starter: {
    id: 'starter',
    name: 'Starter',
    priceGbp: 18,
    maxProducts: 25,
    maxOwnProducts: 25,
    storeSources: true,
    automaticRepricing: false,
    checkFrequency: 'daily',
    checkIntervalMinutes: 1440,
    aiDetection: true,
    apiAccess: false,
    support: 'Email support',
    features: ['25 products', 'Daily price checks', 'AI price detection', 'Price history', 'Email support'],
  },
  growth: {
    id: 'growth',
    name: 'Growth',
    priceGbp: 49,
    maxProducts: 100,
    maxOwnProducts: 100,
    storeSources: true,
    automaticRepricing: false,
    checkFrequency: 'hourly',
    checkIntervalMinutes: 60,
    aiDetection: true,
    apiAccess: false,
    support: 'Priority support',
    popular: true,
    features: ['100 products', 'Hourly price checks', 'AI price detection', 'Advanced analytics', 'Priority support'],
  },
  pro: {
    id: 'pro',
    name: 'Pro',
    priceGbp: 99,
    maxProducts: -1,
    maxOwnProducts: -1,
    storeSources: true,
    automaticRepricing: true,
    checkFrequency: 'quarter-hourly',
    checkIntervalMinutes: 15,
    aiDetection: true,
    apiAccess: true,
    support: 'Phone and e-mail support',
    features: ['Unlimited products', 'Checks every 15 minutes', 'AI price detection', 'API access', 'Phone and e-mail support'],
  },
};

export const TRIAL_DAYS = 14;

export function planOf(id: string | null | undefined): Plan {
  return (id && (PLANS as Record<string, Plan>)[id]) || PLANS.free;
}

export const CHECK_FREQUENCY_LABEL: Record<CheckFrequency, string> = {
  weekly: 'Weekly',
  daily: 'Daily',
  hourly: 'Hourly',
  'quarter-hourly': 'Every 15 minutes',
};
