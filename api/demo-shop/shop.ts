/**
 * The built-in demo shop's products and their prices. Prices move by themselves, deterministically:
 * every 10 minutes each product may take a small step up or down, and a price is the sum of the
 * steps of the last few hours around its list price, so it wanders but never drifts away: it
 * stays within MAX_DRIFT of the list price, as a shop keeps to a floor and a ceiling. The same
 * moment always gives the same price, so seeded history and live checks agree.
 */
export type DemoProduct = {
  slug: string;
  name: string;
  brand: string;
  category: string;
  /** The price the walk wanders around, in pounds. */
  basePrice: number;
  description: string;
  colour: string;
};

export const DEMO_PRODUCTS: readonly DemoProduct[] = [
  {
    slug: 'aurora-anc-headphones',
    name: 'Aurora ANC Wireless Headphones',
    brand: 'Sonique',
    category: 'Audio',
    basePrice: 249,
    colour: '#4f46e5',
    description: 'Over-ear headphones with adaptive noise cancelling, 40-hour battery and multipoint Bluetooth 5.3.',
  },
  {
    slug: 'precision-burr-grinder',
    name: 'Precision Conical Burr Coffee Grinder',
    brand: 'Kaffa',
    category: 'Kitchen',
    basePrice: 129,
    colour: '#b45309',
    description: '40 grind settings from espresso to cold brew, 48 mm steel burrs and a low-retention chute.',
  },
  {
    slug: 'stride-trail-shoes',
    name: 'Stride Trail Running Shoes',
    brand: 'Northpeak',
    category: 'Running',
    basePrice: 115,
    colour: '#059669',
    description: 'Lightweight trail shoes with a 5 mm lugged outsole, rock plate and a breathable mesh upper.',
  },
  {
    slug: 'glow-smart-kettle',
    name: 'Glow Smart Kettle 1.7 L',
    brand: 'Hearth',
    category: 'Kitchen',
    basePrice: 69,
    colour: '#dc2626',
    description: 'Variable temperature from 40 to 100 °C, keep-warm for 30 minutes and a 1.7 litre glass body.',
  },
  {
    slug: 'rover-daypack-25',
    name: 'Rover Daypack 25 L',
    brand: 'Northpeak',
    category: 'Outdoor',
    basePrice: 79,
    colour: '#0e7490',
    description: 'Water-resistant 25 litre daypack with a padded laptop sleeve and ventilated back panel.',
  },
];

/** The selector a shop owner would pick for the selling price on a demo product page. */
export const DEMO_PRICE_SELECTOR = '.product-price .price-now';

const STEP_MINUTES = 10;
/** Steps that add up to the current price: three hours' worth. */
const WINDOW = 18;
const STEP_CHANCE = 0.3;
const MAX_STEP = 0.04;
/**
 * How far from its list price the walk may take a price, either way. A bound rather than a
 * likelihood, so the demo owner's store (my-store.ts) can be priced to stay cheapest, or stay
 * undercut, at any moment.
 */
const MAX_DRIFT = 0.1;

export function findDemoProduct(slug: string): DemoProduct | undefined {
  return DEMO_PRODUCTS.find((p) => p.slug === slug);
}

/** The product's price at a moment, in pounds, ending in .99 or .49 like a shop's. */
export function demoPriceAt(product: DemoProduct, at: Date): number {
  const slot = Math.floor(at.getTime() / (STEP_MINUTES * 60_000));
  let offset = 0;
  for (let i = slot - WINDOW + 1; i <= slot; i++) offset += step(product.slug, i);
  return shopPrice(product.basePrice * (1 + Math.min(MAX_DRIFT, Math.max(-MAX_DRIFT, offset))));
}

/** The lowest and highest prices the walk can reach. */
export function demoPriceRange(product: DemoProduct): { low: number; high: number } {
  return { low: shopPrice(product.basePrice * (1 - MAX_DRIFT)), high: shopPrice(product.basePrice * (1 + MAX_DRIFT)) };
}

/** The crossed-out 'was' price: above any price the walk reaches. */
export function demoWasPrice(product: DemoProduct): number {
  return shopPrice(product.basePrice * 1.35);
}

function shopPrice(amount: number): number {
  const whole = Math.floor(amount);
  return amount - whole >= 0.5 ? whole + 0.99 : whole + 0.49;
}

function step(slug: string, slot: number): number {
  const random = mulberry32(fnv1a(`${slug}:${slot}`));
  if (random() >= STEP_CHANCE) return 0;
  return (random() * 2 - 1) * MAX_STEP;
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
