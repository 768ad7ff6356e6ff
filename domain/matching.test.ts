import { describe, expect, test } from 'bun:test';
import fc from 'fast-check';
import { type CompetitorIdentity, type MatchSuggestion, type OwnIdentity, suggestMatches, TITLE_THRESHOLD, titleSimilarity } from './matching.ts';

const ownProduct = (id: string, title: string, over: Partial<OwnIdentity> = {}): OwnIdentity => ({
  id,
  title,
  variant: null,
  gtin: null,
  mpn: null,
  brand: null,
  ...over,
});
const listing = (productId: string, name: string, over: Partial<CompetitorIdentity> = {}): CompetitorIdentity => ({
  productId,
  name,
  gtin: null,
  mpn: null,
  brand: null,
  ...over,
});
const none = () => false;
const pairs = (suggestions: MatchSuggestion[]) => suggestions.map((s) => `${s.ownProductId}>${s.productId}:${s.reason}`);

/** Listings of other things, so the rarity weights have a catalogue to work from. */
const background = [
  listing('bg1', 'Tower T17021 Vortx 5.7L Digital Air Fryer Black'),
  listing('bg2', 'Salter EK2716 Cordless Kettle 1.7L Stainless Steel'),
  listing('bg3', 'Apple Watch Series 9 GPS 41mm Midnight Aluminium Case'),
  listing('bg4', 'Heinz Cream of Tomato Soup 400g'),
  listing('bg5', 'Bosch Universal Drill 18V-60 Body Only'),
  listing('bg6', 'Marshall Major IV Wireless Headphones Black'),
];

describe('titleSimilarity', () => {
  test.each([
    ['1.7L', 'Russell Hobbs Inspire Kettle 1.7L', 'Russell Hobbs Inspire Kettle 1,7 l'],
    ['1700 ml', 'Russell Hobbs Inspire Kettle 1.7L', 'Russell Hobbs Inspire Kettle 1700 ml'],
    ['litres spelt out', 'Russell Hobbs Inspire Kettle 1.7L', 'Russell Hobbs Inspire Kettle 1.7 Litre'],
    ['kilograms', 'Lavazza Qualita Oro Coffee Beans 500g', 'Lavazza Qualita Oro Coffee Beans 0.5kg'],
    ['inches', 'Samsung QE65Q80C 65" QLED TV', 'Samsung QE65Q80C 65 inch QLED TV'],
    ['inches with a dash', 'Samsung QE65Q80C 65in QLED TV', 'Samsung QE65Q80C 65-inch QLED TV'],
    ['gigabytes', 'Apple iPhone 15 256GB Black', 'Apple iPhone 15 256 GB Black'],
    ['terabytes', 'Samsung 870 EVO 1TB SSD', 'Samsung 870 EVO 1000GB SSD'],
    ['a thousands separator', 'Anker PowerCore 10000mAh', 'Anker PowerCore 10,000 mAh'],
    ['jeans sizes', "Levi's 501 Jeans W32 L34", "Levi's 501 Jeans 32W x 34L"],
    ['letter sizes', 'Uniqlo Crew Neck T-Shirt Size M', 'Uniqlo Crew Neck T-Shirt Medium'],
    ['model numbers with and without dashes', 'Sony WH-1000XM5 Headphones', 'Sony WH1000XM5 Headphones'],
    ['accents and case', 'NESCAFÉ Gold Blend 200g', 'Nescafe gold blend 200G'],
    ['ampersand', 'Black & Decker Drill', 'Black and Decker Drill'],
    ['word order', 'Kettle Inspire Russell Hobbs 1.7L', 'Russell Hobbs Inspire Kettle 1.7L'],
    ['pack counts', 'Heinz Baked Beans 4 x 415g', 'Heinz Baked Beans 415g x4'],
    ['pack of', 'Coca-Cola 330ml Cans Pack of 24', 'Coca-Cola 24 x 330ml Cans'],
    ['counts in words', 'Russell Hobbs Honeycomb 4 Slice Toaster', 'Russell Hobbs Honeycomb Four Slice Toaster'],
  ])('%s: the same amount reads the same', (_case, a, b) => {
    expect(titleSimilarity(a, b)).toBe(1);
  });

  test.each([
    ['1.5 L vs 1.7 L', 'Breville Curve Kettle 1.7L Black', 'Breville Curve Kettle 1.5L Black'],
    ['128GB vs 256GB', 'Apple iPhone 15 128GB Black', 'Apple iPhone 15 256GB Black'],
    ['RAM the same, storage not', 'Galaxy A54 8GB/128GB', 'Galaxy A54 8GB/256GB'],
    ['55" vs 65"', 'Samsung Q60C 55" QLED TV', 'Samsung Q60C 65" QLED TV'],
    ['500g vs 1kg', 'Lavazza Qualita Oro Coffee Beans 500g', 'Lavazza Qualita Oro Coffee Beans 1kg'],
    ['a 4-pack vs the single tin', 'Heinz Baked Beans 4 x 415g', 'Heinz Baked Beans 415g'],
    ['pack of 6 vs pack of 12', 'Brita Maxtra Pro Cartridges Pack of 6', 'Brita Maxtra Pro Cartridges 12 Pack'],
    ['2 slice vs 4 slice', 'Russell Hobbs Honeycomb 2 Slice Toaster', 'Russell Hobbs Honeycomb 4 Slice Toaster'],
    ['XM4 vs XM5', 'Sony WH-1000XM5 Wireless Headphones', 'Sony WH-1000XM4 Wireless Headphones'],
    ['Flip 5 vs Flip 6', 'JBL Flip 6 Bluetooth Speaker', 'JBL Flip 5 Bluetooth Speaker'],
    ['MX Master 3 vs 3S', 'Logitech MX Master 3S Mouse', 'Logitech MX Master 3 Mouse'],
    ['a tier word', 'Apple iPhone 15 128GB Black', 'Apple iPhone 15 Pro 128GB Black'],
    ['decaf', 'Nescafe Gold Blend Instant Coffee 200g', 'Nescafe Gold Blend Decaf Instant Coffee 200g'],
    ['colours', 'Sony WH-1000XM5 Headphones Black', 'Sony WH-1000XM5 Headphones Silver'],
    ['letter sizes', 'Uniqlo Crew Neck T-Shirt White M', 'Uniqlo Crew Neck T-Shirt White L'],
    ['shoe sizes', 'Nike Air Max 90 White UK 9', 'Nike Air Max 90 White UK 10'],
    ['jeans lengths', "Levi's 501 Jeans W32 L32", "Levi's 501 Jeans W32 L34"],
  ])('%s: a conflict vetoes the match', (_case, a, b) => {
    expect(titleSimilarity(a, b)).toBe(0);
    expect(titleSimilarity(b, a)).toBe(0);
  });

  test.each([
    ['warranty years', 'Russell Hobbs 24361 Kettle 1.7L', 'Russell Hobbs 24361 Kettle 1.7L with 2 Year Warranty'],
    ['a longer model number', 'Samsung QE55Q60C QLED TV', 'Samsung QE55Q60CAUXXU QLED TV'],
    ['a model number only one side gives', 'Russell Hobbs Inspire Kettle 1.7L Black', 'Russell Hobbs 24361 Inspire Kettle 1.7L Black'],
    ['a colour only one side gives', 'Sony WH-1000XM5 Headphones', 'Sony WH-1000XM5 Headphones Black'],
    ['a short sleeve', 'Uniqlo Crew Neck T-Shirt', 'Uniqlo Crew Neck Short Sleeve T-Shirt'],
    ['"9 Rolls" as "9 Pack"', 'Andrex Classic Clean Toilet Tissue 9 Rolls', 'Andrex Classic Clean Toilet Roll 9 Pack'],
  ])('%s does not veto', (_case, a, b) => {
    expect(titleSimilarity(a, b)).toBeGreaterThan(TITLE_THRESHOLD);
  });

  test('unrelated titles score low, and the same words in another order score 1', () => {
    expect(titleSimilarity('Russell Hobbs Inspire Kettle', 'Nike Air Max 90 Trainers')).toBe(0);
    expect(titleSimilarity('Tefal Ingenio Frying Pan 28cm', 'Tefal Ingenio Saucepan Set 3 Piece')).toBeLessThan(TITLE_THRESHOLD);
    expect(titleSimilarity('', '')).toBe(0);
  });

  const word = fc.constantFrom(
    'Russell',
    'Hobbs',
    'Kettle',
    'Black',
    '1.7L',
    '1.5L',
    'WH-1000XM5',
    'XM4',
    'Pro',
    '128GB',
    'UK',
    '9',
    'Size',
    'M',
    'x',
    '4',
    '&',
    '-',
    ',',
  );
  const title = fc.array(word, { maxLength: 8 }).map((words) => words.join(' '));

  test('similarity is between 0 and 1, symmetric, and 1 for a title and itself when it has anything to read', () => {
    fc.assert(
      fc.property(title, title, (a, b) => {
        const score = titleSimilarity(a, b);
        expect(score).toBeGreaterThanOrEqual(0);
        expect(score).toBeLessThanOrEqual(1);
        expect(titleSimilarity(b, a)).toBeCloseTo(score, 12);
        // Only a title with nothing to read ("Size", "&") scores 0 against itself.
        const itself = titleSimilarity(a, a);
        expect([0, 1]).toContain(itself);
        if (/Russell|Hobbs|Kettle|Black|\dL|XM|128GB|Pro/.test(a)) expect(itself).toBe(1);
      }),
    );
  });
});

describe('suggestMatches', () => {
  const kettle = ownProduct('k1', 'Breville Curve Kettle 1.7L', { variant: 'Black and Chrome', brand: 'Breville' });
  const kettles = [
    listing('c1', 'Breville Curve VKT111 Electric Kettle, 1.7 L, 3 KW Fast Boil, Gloss Black & Chrome'),
    listing('c2', 'Breville Curve 1.5L Compact Kettle Black & Chrome'),
    listing('c3', 'Breville Curve Jug Kettle 1700ml Black'),
    ...background,
  ];

  test('the 1.5 L kettle is not suggested for the 1.7 L one; 1,7 l and 1700 ml are', () => {
    const result = suggestMatches([kettle], [...kettles, listing('c4', 'Breville Curve Kettle 1,7 l, Black')], none);
    expect(pairs(result).sort()).toEqual(['k1>c1:title', 'k1>c3:title', 'k1>c4:title']);
  });

  test('a matching GTIN beats the title, and the pair appears once', () => {
    const withGtin = { ...kettle, gtin: '5011773066341' };
    const result = suggestMatches([withGtin], [listing('c1', kettles[0]!.name, { gtin: '5 011773 066341' }), ...background], none);
    expect(result).toEqual([{ ownProductId: 'k1', productId: 'c1', reason: 'gtin', confidence: 1 }]);
  });

  test('a GTIN with a wrong check digit is ignored: only the title can match', () => {
    const withGtin = { ...kettle, gtin: '5011773066346' };
    const listings = [
      listing('c1', kettles[0]!.name, { gtin: '5011773066346' }),
      listing('c9', 'Kenwood Chopper CH580', { gtin: '5011773066346' }),
      ...background,
    ];
    const result = suggestMatches([withGtin], listings, none);
    expect(pairs(result)).toEqual(['k1>c1:title']);
  });

  test('GTINs of different lengths naming the same item match', () => {
    const result = suggestMatches([ownProduct('o1', 'Coke', { gtin: '036000291452' })], [listing('c1', 'Something else', { gtin: '0036000291452' })], none);
    expect(pairs(result)).toEqual(['o1>c1:gtin']);
  });

  test('an MPN matches under the same brand, whatever its punctuation and the brand’s spelling', () => {
    const own = [
      ownProduct('d1', 'Cordless drill', { mpn: 'BDCDD186K-GB', brand: 'BLACK+DECKER' }),
      ownProduct('e1', 'Espresso machine', { mpn: 'EC685.M', brand: "De'Longhi" }),
    ];
    const listings = [
      listing('c1', 'Drill driver with kitbox', { mpn: 'bdcdd186k gb', brand: 'Black & Decker' }),
      listing('c2', 'Dedica', { mpn: 'EC 685M', brand: 'DeLonghi' }),
    ];
    const result = suggestMatches(own, listings, none);
    expect(result).toEqual([
      { ownProductId: 'd1', productId: 'c1', reason: 'mpn', confidence: 0.9 },
      { ownProductId: 'e1', productId: 'c2', reason: 'mpn', confidence: 0.9 },
    ]);
  });

  test('an MPN under a different brand, or with a brand missing, is no match', () => {
    const own = [ownProduct('a1', 'Anker PowerCore 10000mAh Portable Charger', { mpn: 'A1263', brand: 'Anker' })];
    const listings = [
      listing('c1', 'AUKEY Wireless Charging Pad 10W', { mpn: 'A1263', brand: 'Aukey' }),
      listing('c2', 'Phone case', { mpn: 'A1263', brand: null }),
    ];
    expect(suggestMatches(own, listings, none)).toEqual([]);
    expect(suggestMatches([{ ...own[0]!, brand: null }], [{ ...listings[0]!, brand: 'Anker' }], none)).toEqual([]);
  });

  test('placeholder MPNs are ignored', () => {
    const own = [ownProduct('o1', 'Kettle', { mpn: 'N/A', brand: 'Acme' })];
    expect(suggestMatches(own, [listing('c1', 'Toaster', { mpn: 'n/a', brand: 'Acme' })], none)).toEqual([]);
  });

  test('rejected or already linked pairs are left out, without taking the place of others', () => {
    const rejected = new Set(['k1 c1', 'k1 c3']);
    const result = suggestMatches([kettle], [...kettles, listing('c4', 'Breville Curve Kettle 1.7L Black')], (o, p) => rejected.has(`${o} ${p}`));
    expect(pairs(result)).toEqual(['k1>c4:title']);
    const byGtin = suggestMatches([{ ...kettle, gtin: '5011773066341' }], [listing('c1', 'x', { gtin: '5011773066341' })], () => true);
    expect(byGtin).toEqual([]);
  });

  test('a rejected GTIN pair is not offered again as a title match', () => {
    const withGtin = { ...kettle, gtin: '5011773066341' };
    const result = suggestMatches([withGtin], [listing('c1', kettles[0]!.name, { gtin: '5011773066341' }), ...background], (o, p) => o === 'k1' && p === 'c1');
    expect(result).toEqual([]);
  });

  test('at most five title suggestions per own product, best first', () => {
    const listings = Array.from({ length: 8 }, (_, i) => listing(`c${i}`, `Breville Curve Kettle 1.7L Black${' Gloss'.repeat(i)}`));
    const result = suggestMatches([kettle], [...listings, ...background], none);
    expect(result.map((s) => s.productId)).toEqual(['c0', 'c1', 'c2', 'c3', 'c4']);
    for (const s of result) {
      expect(s.confidence).toBeGreaterThanOrEqual(0.5);
      expect(s.confidence).toBeLessThanOrEqual(0.85);
    }
  });

  test('sorted by confidence, then own product, then listing', () => {
    const own = [ownProduct('b', 'Sony WH-1000XM5 Headphones', { gtin: '4548736132610' }), ownProduct('a', 'Sony WH-1000XM5 Headphones')];
    const listings = [listing('z', 'Sony WH-1000XM5 Headphones'), listing('y', 'Sony WH-1000XM5 Headphones', { gtin: '4548736132610' }), ...background];
    expect(pairs(suggestMatches(own, listings, none))).toEqual(['b>y:gtin', 'a>y:title', 'a>z:title', 'b>z:title']);
  });

  test('no listings, no own products, no suggestions', () => {
    expect(suggestMatches([], kettles, none)).toEqual([]);
    expect(suggestMatches([kettle], [], none)).toEqual([]);
  });

  test('1,000 own products against 5,000 listings', () => {
    const { own, competitors } = catalogue(1_000, 5_000);
    const result = suggestMatches(own, competitors, none);
    expect(result.length).toBeGreaterThan(0);
    const perProduct = new Map<string, number>();
    for (const s of result) if (s.reason === 'title') perProduct.set(s.ownProductId, (perProduct.get(s.ownProductId) ?? 0) + 1);
    expect(Math.max(...perProduct.values())).toBeLessThanOrEqual(5);
  }, 30_000);
});

/** A generated catalogue: listings from 60 brands, each own product a retitled listing. */
function catalogue(ownCount: number, listingCount: number) {
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)]!;
  const brands = Array.from({ length: 60 }, (_, i) => `Brand${String.fromCharCode(97 + (i % 26), 97 + Math.floor(i / 26))}`);
  const kinds = [
    'Kettle',
    'Toaster',
    'Air Fryer',
    'Blender',
    'Headphones',
    'Speaker',
    'Drill Driver',
    'Jeans',
    'Trainers',
    'Coffee Beans',
    'Tea Bags',
    'Vacuum',
  ];
  const words = ['Classic', 'Digital', 'Compact', 'Cordless', 'Wireless', 'Premium', 'Original', 'Deluxe', 'Portable', 'Stainless', 'Steel', 'Retro'];
  const colours = ['Black', 'White', 'Silver', 'Red', 'Blue', 'Grey', 'Cream', 'Navy'];
  const amounts = ['1.5L', '1.7L', '500g', '1kg', '128GB', '256GB', '55"', '65"', '18V', '5m', '28cm', '4 x 415g'];
  const items = Array.from({ length: listingCount }, () => ({
    brand: pick(brands),
    model: `${pick(['KX', 'RT', 'ZB', 'QE'])}${Math.floor(random() * 9000 + 1000)}`,
    kind: pick(kinds),
    word: pick(words),
    other: pick(words),
    colour: pick(colours),
    amount: pick(amounts),
  }));
  const competitors: CompetitorIdentity[] = items.map((x, i) =>
    listing(
      `c${i}`,
      i % 2
        ? `${x.brand} ${x.word} ${x.kind} ${x.amount} ${x.colour} ${x.model}`
        : `${x.brand.toUpperCase()} ${x.model} ${x.other} ${x.word} ${x.kind}, ${x.amount}, ${x.colour}`,
      {
        mpn: i % 7 ? null : x.model,
        brand: i % 3 ? x.brand : null,
      },
    ),
  );
  const own = Array.from({ length: ownCount }, (_, i) => {
    const x = items[(i * 4_999) % items.length]!;
    return ownProduct(`o${i}`, `${x.brand} ${x.kind} ${x.word} ${x.amount}`, { variant: i % 2 ? x.colour : null, mpn: i % 5 ? null : x.model, brand: x.brand });
  });
  return { own, competitors };
}
