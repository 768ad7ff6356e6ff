import { normaliseGtin } from './gtin.ts';

/**
 * Suggested links between the owner's products and the competitor products they track. Three
 * kinds of evidence, strongest first:
 *
 * - gtin: both carry the same valid GTIN (domain/gtin.ts: any length, wrong check digits and
 *   all-zero placeholders ignored). Confidence 1.
 * - mpn: the same manufacturer part number (case, spaces, dashes and dots ignored) under the same
 *   brand (case, accents, punctuation and "&"/"+"/"and" ignored). Part numbers repeat across
 *   manufacturers, so without both brands there is no match. Confidence 0.9.
 * - title: the title measure below. Confidence 0.5..0.85.
 *
 * The title measure. The own side reads the product's title and variant, the competitor side
 * its name; each adds its brand's words when a brand is given. Both are lower-cased, stripped of
 * accents and apostrophes, "&" read as "and", split at punctuation, plurals' last "s" dropped:
 *   - amounts with units become one canonical token each: 1.7L, 1,7 l and 1700 ml are vol:1700;
 *     0.5kg and 500g are mass:500; 65", 65in and 65 inch are in:65; likewise GB/TB, watts,
 *     volts, Ah/mAh, megapixels, slices, cups, pieces, rolls, pods, washes…
 *   - pack counts ("4 x 415g", "pack of 6", "24pk") become pack:N;
 *   - sizes become size tokens: "Size M" and "Medium" are size:m; "W32 L34"; "UK 9"; "EU 42";
 *   - model numbers, tokens mixing letters and digits, are joined across dashes and dots
 *     (WH-1000XM5 and WH1000XM5 are wh1000xm5), and so is a one- or two-letter prefix written
 *     apart ("K 2" is k2).
 * Each token weighs w = ln((N + 1) / (df + 1)) + 1, df its count among the N competitor titles,
 * so a model number or a rare brand counts far more than "kettle". The score is the weighted
 * Dice coefficient,
 *   2 × (weight of the shared tokens) / (weight of A's tokens + weight of B's tokens),
 * where a model number written inside a longer one of the other title (QE55Q60C in
 * QE55Q60CAUXXU) counts as shared. 1 for the same tokens, 0 for none shared. A pair scoring at
 * least TITLE_THRESHOLD is suggested unless it is vetoed as two different products:
 *   - amounts of one kind disagree, neither title's amounts of that kind all found among the
 *     other's (2% tolerance for unit rounding): 1.5 L vs 1.7 L, 8GB/128GB vs 8GB/256GB, 2 vs
 *     4 slices, sizes M vs L. No pack count means one item: the 4-pack is not the single tin;
 *   - each title has a model number or bare number the other cannot account for (equal, or
 *     one containing the other when 3+ characters long): XM4 vs XM5, Flip 5 vs Flip 6;
 *   - the variant words in the name part (before the first comma, dash or bracket) differ:
 *     pro, plus, max, ultra, mini, lite, se, light, decaf, zero, diet, non, low, tall, short…
 *     (iPhone 15 vs 15 Pro, Gold Blend vs Gold Blend Decaf, Hi Top vs Low Top);
 *   - both name colours and share none;
 *   - both brands are known and neither contains the other.
 * Confidence scales the score from [TITLE_THRESHOLD, 1] into [0.5, 0.85], below mpn and gtin.
 * Pairs differing only in a flavour or line name ("Fruit & Nut", "Rossa" vs "Oro") are beyond
 * the measure: they score like true pairs and are for the owner to reject.
 *
 * Candidates come from an inverted index over the competitor tokens with prefix filtering (only
 * tokens that can still decide a pair are looked up). Tokens on more than 5% of the listings (and
 * over 50) are never looked up: a pair must share at least one rarer token.
 */

export type OwnIdentity = { id: string; title: string; variant: string | null; gtin: string | null; mpn: string | null; brand: string | null };
export type CompetitorIdentity = { productId: string; name: string; gtin: string | null; mpn: string | null; brand: string | null };
export type MatchReason = 'gtin' | 'mpn' | 'title';
export type MatchSuggestion = { ownProductId: string; productId: string; reason: MatchReason; confidence: number };

/**
 * Chosen on the labelled set (bun bench/catalogue/matching.ts): title precision stops rising
 * above 0.5 while recall falls (precision / recall at 0.4: 0.88 / 0.99, 0.5: 0.91 / 0.99, 0.6: 0.91 / 0.94).
 */
export const TITLE_THRESHOLD = 0.5;
const GTIN_CONFIDENCE = 1;
const MPN_CONFIDENCE = 0.9;
const TITLE_MIN_CONFIDENCE = 0.5;
const TITLE_MAX_CONFIDENCE = 0.85;
/** Title suggestions kept per own product: a short list to confirm, not every lookalike. */
const TITLE_SUGGESTIONS_PER_PRODUCT = 5;
const QUANTITY_TOLERANCE = 0.02;

// ---------------------------------------------------------------------------------------------
// Units and words

type Unit = { dim: string; factor: number };
/**
 * Each entry: a dimension, the factor to its base unit (ml, g, mm, inches, GB, W, V, mAh…) and
 * the names of the unit ("_" for a space). The last line's amounts are marketing ("2 year
 * warranty", "360° base"): tokens, but never a reason to veto.
 */
const UNITS = new Map<string, Unit>(
  `vol 1 ml millilitre millilitres milliliter milliliters; vol 10 cl; vol 100 dl; vol 1000 l lt ltr ltrs litre litres liter liters;
  vol 29.5735 fl_oz floz fl._oz; vol 568.261 pint pints; mass 0.001 mg; mass 1 g gr gram grams gramme grammes; mass 453.592 lb lbs;
  mass 1000 kg kgs kilo kilos kilogram kilograms; mass 28.3495 oz; len 1 mm; len 10 cm; len 1000 m metre metres meter meters;
  in 1 in inch inches; data 0.001 mb; data 1 gb; data 1000 tb; power 1 w watt watts; power 1000 kw; volt 1 v volt volts;
  charge 1 mah; charge 1000 ah; mp 1 mp megapixel megapixels; hz 1 hz; bar 1 bar; tog 1 tog; ply 1 ply; cups 1 cup cups;
  slices 1 slice slices slot slots; speeds 1 speed speeds; burners 1 burner burners; pieces 1 piece pieces pc pcs pce;
  pack 1 pack packs pk multipack pair pairs; rolls 1 roll rolls; pods 1 pod pods capsule capsules; tabs 1 tab tabs tablet tablets;
  bags 1 bag bags teabags; washes 1 wash washes; sheets 1 sheet sheets; sachets 1 sachet sachets;
  years 1 year years yr yrs; hours 1 hour hours hr hrs; minutes 1 min mins minute minutes; stars 1 star stars; deg 1 ° degree degrees; pct 1 %; pins 1 pin`
    .split(';')
    .flatMap((entry) => {
      const [dim, factor, ...names] = entry.trim().split(/\s+/);
      return names.map((name) => [name.replace('_', ' '), { dim: dim!, factor: Number(factor) }] as const);
    }),
);
const COUNTS = ['pieces', 'rolls', 'pods', 'tabs', 'bags', 'washes', 'sheets', 'sachets'];
const SOFT_DIMENSIONS = new Set(['years', 'hours', 'minutes', 'stars', 'deg', 'pct', 'pins']);
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const UNIT_PATTERN = [...UNITS.keys()]
  .sort((a, b) => b.length - a.length)
  .map((name) => escapeRegExp(name).replace(/ /g, '\\s?'))
  .join('|');
const NUMBER = '\\d+(?:[.,]\\d+)*';
/** An amount: a number on its own (not the tail of a model number) and a unit ending there. */
const QUANTITY = new RegExp(`(?<![a-z0-9]|\\d[.,])(${NUMBER})\\s*-?\\s*(${UNIT_PATTERN})(?![a-z0-9°%]|-\\d)`, 'g');
const DIMENSIONS = new RegExp(`(?<![a-z0-9])(${NUMBER})\\s*x\\s*(${NUMBER})(?:\\s*x\\s*(${NUMBER}))?\\s*(mm|cm|m|in|inch)(?![a-z0-9])`, 'g');

/** Letter sizes by their names, smallest first: "2xl" is "xxl", "medium" is "m". */
const SIZE_ORDER = 'xxs xs s m l xl xxl xxxl 4xl 5xl'.split(' ');
const LETTER_SIZES = new Map([
  ...SIZE_ORDER.map((size) => [size, size] as const),
  ['small', 's'],
  ['medium', 'm'],
  ['large', 'l'],
  ['2xl', 'xxl'],
  ['3xl', 'xxxl'],
]);
const COLOURS = new Set(
  'black white silver grey gray red blue navy green pink purple yellow orange cream brown beige gold copper bronze graphite charcoal midnight starlight teal turquoise ivory burgundy khaki olive lilac titanium chrome stonewash indigo'.split(
    ' ',
  ),
);
/**
 * Words that name another edition, recipe or cut of the same line rather than describe it:
 * iPhone 15 vs 15 Pro, Gold Blend vs Gold Blend Decaf, Hi Top vs Low Top. Both titles must
 * carry the same ones.
 */
const VARIANT_WORDS = new Set(
  'pro plus max ultra mini lite se light lighter decaf decaffeinated zero diet non unsalted low tall short smooth refill'.split(' '),
);
const NUMBER_WORD_VALUES = 'one two three four five six seven eight nine ten eleven twelve'.split(' ');
/** Counts written as words, only before what they count: "Four Slice Toaster". */
const NUMBER_WORDS = new RegExp(
  `\\b(?:${NUMBER_WORD_VALUES.join('|')})(?=\\s*-?\\s*(?:slices?|slots?|cups?|pieces?|pack|burners?|speeds?|pairs?|rolls?)\\b)`,
  'g',
);
/** Short words that are not the first half of a model name ("up to 190", "x 24"). */
const UNJOINED = new Set(['a', 'an', 'as', 'at', 'by', 'in', 'is', 'of', 'on', 'or', 'to', 'up', 'x']);
/** "Short Sleeve" is a cut of shirt, not the short edition of one. */
const SLEEVES = /\b(short|long)\s*-?\s*sleeved?\b/g;
const STOP_WORDS = new Set(
  'the a an and with for of on by to from at or new uk free delivery official genuine sale offer deal latest best only ideal perfect great brand size up'.split(
    ' ',
  ),
);

// ---------------------------------------------------------------------------------------------
// Reading a title

type Quantities = Map<string, number[]>;
type Features = {
  tokens: Set<string>;
  quantities: Quantities;
  ids: string[];
  variants: string;
  colours: Set<string>;
  brand: string | null;
};

/** Lower case, accents and apostrophes gone, "&" as "and": the text every reading starts from. */
function fold(text: string): string {
  // Most titles are plain ASCII: skip the Unicode decomposition for them.
  let folded = /[\u0080-\uffff]/.test(text) ? text.normalize('NFKD').replace(/[\u0300-\u036f]/g, '') : text;
  folded = folded.toLowerCase();
  if (/["'’‘`´“”″]/.test(folded))
    folded = folded
      .replace(/(\d)\s*(?:''|″|“|”|")/g, '$1 inch ')
      .replace(/["“”″]/g, ' ')
      .replace(/['’‘`´]/g, '');
  if (folded.includes('&')) folded = folded.replace(/\s*&\s*/g, ' and ');
  if (folded.includes('+')) folded = folded.replace(/([a-z0-9])\+/g, '$1 plus ');
  return folded;
}

/** Brands compared whole: "BLACK+DECKER" = "Black & Decker", "De'Longhi" = "DeLonghi". */
function brandKey(brand: string | null): string | null {
  if (!brand) return null;
  const key = fold(brand)
    .replace(/\bplus\b/g, 'and')
    .replace(/[^a-z0-9]/g, '');
  return key || null;
}

const PLACEHOLDER_MPNS = new Set(['na', 'n/a', 'none', 'null', 'unknown', 'doesnotapply', 'notapplicable']);
function mpnKey(mpn: string | null): string | null {
  if (!mpn) return null;
  const key = fold(mpn).replace(/[\s.\-_]/g, '');
  return key.length < 3 || PLACEHOLDER_MPNS.has(key) ? null : key;
}

function parseNumber(text: string): number {
  if (/^\d{1,3}(,\d{3})+$/.test(text)) return Number(text.replace(/,/g, ''));
  return Number(text.replace(',', '.'));
}

/** A plural's last "s" off, so "Bean" and "Beans" meet; "glass", "citrus" keep theirs. */
const stem = (word: string) => (word.length >= 4 && word.endsWith('s') && !/(?:ss|us|is)$/.test(word) ? word.slice(0, -1) : word);

/** Three significant figures: 12 fl oz (354.9 ml) and 355 ml give the same token. */
const canonical = (value: number) => Number(value.toPrecision(3));

/**
 * The name part of a listing: what comes before the first comma, dash, bar or bracket. Variant
 * words count only there; after it they describe ("Short Sleeve", "adjustable warm light").
 */
const head = (title: string) => {
  const end = title.search(/,|\s[-–—|]\s|\(|\|/);
  return end < 0 ? title : title.slice(0, end);
};

/** Amounts, counts and sizes read out of the text into `add`; the text left without them. */
function readAmounts(text: string, add: (dim: string, value: number) => void): string {
  const take = (dim: string, value: number) => {
    add(dim, value);
    return ' ';
  };
  const pair = (w: string, l: string) => {
    add('waist', Number(w));
    return take('leg', Number(l));
  };
  if (text.includes('x')) {
    text = text.replace(DIMENSIONS, (_m, a: string, b: string, c: string | undefined, u: string) => {
      const { dim, factor } = UNITS.get(u)!;
      for (const n of [a, b, c]) if (n) add(dim, parseNumber(n) * factor);
      return ' ';
    });
    // "4 x 415g", "2x 2.0Ah": a count of what follows; "330ml x 24": of what went before.
    const count = (m: string, n: string) => (Number(n) > 0 ? take('pack', Number(n)) : m);
    text = text.replace(/(?<![a-z0-9.,-])(\d{1,3})\s*x\s*(?=\d)/g, count).replace(/\bx\s*(\d{1,3})(?![a-z0-9.,])/g, count);
  }
  if (/uk|eu|us/.test(text))
    text = text.replace(/\b(?:size\s*)?(uk|eu|us)\s*(?:size\s*)?(\d{1,2}(?:[.,]5)?)(?![a-z0-9]|\s*-?\s*(?:pin|plug|year))/g, (_m, system: string, n: string) =>
      take(`size-${system}`, parseNumber(n)),
    );
  if (text.includes('size')) text = text.replace(/\bsize\s*:?\s*(\d{1,2})\b/g, (_m, n: string) => take('size-uk', Number(n)));
  if (/\dw|w\s?\d|waist/.test(text))
    text = text
      .replace(/\b(\d{2})\s*w\s*(?:\/|x)?\s*(\d{2})\s*l\b/g, (_m, w: string, l: string) => pair(w, l))
      .replace(/\bw\s?(\d{2})\s*(?:\/|x)?\s*l\s?(\d{2})\b/g, (_m, w: string, l: string) => pair(w, l))
      .replace(/\b(?:waist\s*|w\s?)(\d{2})\b(?!\s*w)/g, (_m, w: string) => take('waist', Number(w)));
  text = text.replace(QUANTITY, (_m, n: string, u: string) => {
    const found = UNITS.get(u.replace(/\s/g, '')) ?? UNITS.get(u.replace(/\s+/g, ' '));
    if (found) add(found.dim, parseNumber(n) * found.factor);
    return ' ';
  });
  // "K 2", "WV 6", "No 7": a short prefix written apart from its number is one model name.
  return text.replace(/\b([a-z]{1,2})\s+(\d{1,3})\b(?![.,]\d)/g, (m, letters: string, n: string) => (UNJOINED.has(letters) ? m : ` ${letters}${n} `));
}

type Brand = { key: string | null; words: Set<string> };
const NO_WORDS = new Set<string>();
const words = (text: string) => text.match(/[a-z0-9]+(?:[-./][a-z0-9]+)*/g) ?? [];

function readBrand(brand: string | null): Brand | null {
  if (!brand) return null;
  return { key: brandKey(brand), words: new Set(words(fold(brand)).flatMap((word) => word.split(/[-./]/))) };
}

function analyse(title: string, brand: Brand | null, named = head(title)): Features {
  const quantities: Quantities = new Map();
  const tokens = new Set<string>();
  const ids = new Set<string>();
  const variants = new Set<string>();
  const colours = new Set<string>();
  const sizes = new Set<string>();
  const add = (dim: string, value: number) => {
    if (!Number.isFinite(value) || value < 0) return;
    const values = quantities.get(dim) ?? [];
    values.push(value);
    quantities.set(dim, values);
    tokens.add(`${dim}:${canonical(value)}`);
  };

  let text = fold(title);
  // Each rewrite only where its words occur: most titles need few of them.
  const has = (word: string) => text.includes(word);
  if (has('warrant') || has('guarant')) text = text.replace(/\b\d+\s*(?:years?|yrs?)\s*(?:warranty|guarantee)\b/g, ' ');
  if (has('/s')) text = text.replace(/([a-z])\/s\b/g, '$1 ');
  if (has('in')) text = text.replace(/\b(\d+)\s*-?\s*in\s*-?\s*(\d+)\b/g, ' $1in$2 ');
  if (has('bag')) text = text.replace(/\b(\d+)\s+((?:[a-z]+\s+){0,2}?)tea\s*bags?\b/g, ' $1 bags $2 tea ');
  if (/rolls|pods|capsules|tablets|sachets|sheets/.test(text))
    text = text.replace(/\b(\d+)\s+((?:[a-z]+\s+){1,2}?)(rolls|pods|capsules|tablets|sachets|sheets)\b/g, ' $1 $3 $2 ');
  if (has('sleeve')) text = text.replace(SLEEVES, ' $1sleeve ');
  if (has('hi')) text = text.replace(/\bhi\b/g, 'high');
  if (has('large') || has('small'))
    text = text
      .replace(/\b(?:extra\s*extra\s*large|xx-large|xx\s+large)\b/g, ' xxl ')
      .replace(/\b(?:extra\s*large|x-large|x\s+large)\b/g, ' xl ')
      .replace(/\b(?:extra\s*small|x-small|x\s+small)\b/g, ' xs ');
  if (has('twin')) text = text.replace(/\btwin\s*-?\s*pack\b/g, ' 2 pack ');
  if (has(' of ')) text = text.replace(/\b(?:pack|case|box|multipack)\s+of\s+(\d+)\b/g, ' $1 pack ').replace(/\bset\s+of\s+(\d+)\b/g, ' $1 pieces ');
  text = text.replace(NUMBER_WORDS, (word) => ` ${NUMBER_WORD_VALUES.indexOf(word) + 1} `);
  if (/\d/.test(text)) text = readAmounts(text, add);

  const brandWords = brand?.words ?? NO_WORDS;

  for (const raw of words(text)) {
    const joined = raw.replace(/[-./]/g, '');
    const hasDigit = /\d/.test(joined);
    if (hasDigit && /[a-z]/.test(joined)) {
      const ordinal = /^(\d+)(?:st|nd|rd|th)$/.exec(joined);
      const size = LETTER_SIZES.get(joined);
      if (ordinal) {
        ids.add(ordinal[1]!);
        tokens.add(ordinal[1]!);
      } else if (size) {
        sizes.add(size);
      } else if (/^\d+[gkd]$|^\d+in\d+$/.test(joined)) {
        // 4K, 5G, 3D, 3-in-1: features shared across a range, not model numbers.
        tokens.add(joined);
      } else {
        ids.add(joined);
        tokens.add(joined);
      }
      continue;
    }
    if (hasDigit) {
      const parts = /^\d+\.\d+$/.test(raw) ? [raw] : raw.split(/[-./]/).filter(Boolean);
      for (const part of parts) {
        ids.add(part);
        tokens.add(part);
      }
      continue;
    }
    for (const word of raw.split(/[-./]/)) {
      if (!word || STOP_WORDS.has(word)) continue;
      const size = LETTER_SIZES.get(word);
      if (size) {
        sizes.add(size);
        continue;
      }
      tokens.add(stem(word));
      if (brandWords.has(word)) continue;
      if (COLOURS.has(word)) colours.add(word === 'gray' ? 'grey' : word);
    }
  }
  for (const word of brandWords) if (!STOP_WORDS.has(word)) tokens.add(stem(word));
  for (const word of words(fold(named).replace(SLEEVES, ' '))) if (VARIANT_WORDS.has(word) && !brandWords.has(word)) variants.add(word);
  for (const size of sizes) {
    tokens.add(`size:${size}`);
    // Letter sizes as numbers only to compare equal or not, spaced so the tolerance joins none.
    push(quantities, 'size', (SIZE_ORDER.indexOf(size) + 1) * 100);
  }
  return { tokens, quantities, ids: [...ids], variants: [...variants].sort().join(' '), colours, brand: brand?.key ?? null };
}

// ---------------------------------------------------------------------------------------------
// Vetoes

const close = (a: number, b: number) => Math.abs(a - b) <= QUANTITY_TOLERANCE * Math.max(Math.abs(a), Math.abs(b));
const within = (small: number[], large: number[]) => small.every((a) => large.some((b) => close(a, b)));

/**
 * The pack count of a title: none written means one item (a 4-pack is not the single tin),
 * unless the title counts its contents the same ("9 Rolls" is the "9 Pack").
 */
function packOf(q: Quantities, other: number[] | undefined): number[] {
  const pack = q.get('pack');
  if (pack) return pack;
  const contents = COUNTS.flatMap((dim) => q.get(dim) ?? []);
  return other && within(other, contents) ? other : [1];
}

function quantitiesConflict(a: Quantities, b: Quantities): boolean {
  for (const dim of new Set([...a.keys(), ...b.keys(), 'pack'])) {
    if (SOFT_DIMENSIONS.has(dim)) continue;
    const x = dim === 'pack' ? packOf(a, b.get(dim)) : a.get(dim);
    const y = dim === 'pack' ? packOf(b, a.get(dim)) : b.get(dim);
    if (x && y && !within(x, y) && !within(y, x)) return true;
  }
  return false;
}

const accounts = (id: string, other: readonly string[]) =>
  other.some((o) => o === id || (Math.min(o.length, id.length) >= 3 && (o.includes(id) || id.includes(o))));

function identifiersConflict(a: readonly string[], b: readonly string[]): boolean {
  return a.some((id) => !accounts(id, b)) && b.some((id) => !accounts(id, a));
}

function brandsConflict(a: string | null, b: string | null): boolean {
  return a !== null && b !== null && !a.includes(b) && !b.includes(a);
}

function vetoed(a: Features, b: Features): boolean {
  if (a.variants !== b.variants) return true;
  if (brandsConflict(a.brand, b.brand)) return true;
  if (a.colours.size > 0 && b.colours.size > 0 && ![...a.colours].some((c) => b.colours.has(c))) return true;
  return quantitiesConflict(a.quantities, b.quantities) || identifiersConflict(a.ids, b.ids);
}

// ---------------------------------------------------------------------------------------------
// Scoring

/**
 * Weight shared through model numbers one title writes inside a longer one of the other
 * (QE55Q60C in QE55Q60CAUXXU), each at the lighter of the two weights. Counted both ways and
 * the smaller kept, so the score does not depend on which title is which.
 */
function nestedIds(a: Features, b: Features, weight: (token: string) => number): number {
  return Math.min(nestedOneWay(a, b, weight), nestedOneWay(b, a, weight));
}

function nestedOneWay(a: Features, b: Features, weight: (token: string) => number): number {
  let credit = 0;
  for (const id of a.ids) {
    if (b.tokens.has(id)) continue;
    for (const other of b.ids) {
      if (a.tokens.has(other) || Math.min(other.length, id.length) < 3 || !(other.includes(id) || id.includes(other))) continue;
      credit += Math.min(weight(id), weight(other));
      break;
    }
  }
  return credit;
}

/** The weighted Dice coefficient of two titles; both sides weigh a token alike. */
function dice(a: Features, b: Features, weight: (token: string) => number): number {
  let shared = nestedIds(a, b, weight);
  let total = 0;
  for (const t of a.tokens) total += weight(t);
  for (const t of b.tokens) {
    total += weight(t);
    if (a.tokens.has(t)) shared += weight(t);
  }
  return total === 0 ? 0 : Math.min(1, (2 * shared) / total);
}

/**
 * How alike two titles are, 0..1, weighing each token by its rarity between the two alone (so
 * the score does not depend on a catalogue); the vetoes above make it 0.
 */
export function titleSimilarity(a: string, b: string): number {
  const x = analyse(a, null);
  const y = analyse(b, null);
  if (vetoed(x, y)) return 0;
  const idf = (t: string) => Math.log(3 / ((x.tokens.has(t) ? 1 : 0) + (y.tokens.has(t) ? 1 : 0) + 1)) + 1;
  return dice(x, y, idf);
}

const titleConfidence = (score: number, threshold: number) => {
  const scaled = TITLE_MIN_CONFIDENCE + ((TITLE_MAX_CONFIDENCE - TITLE_MIN_CONFIDENCE) * (score - threshold)) / (1 - threshold || 1);
  return Math.round(Math.min(TITLE_MAX_CONFIDENCE, Math.max(TITLE_MIN_CONFIDENCE, scaled)) * 1000) / 1000;
};

// ---------------------------------------------------------------------------------------------
// Suggesting

/** Tokens on more competitor titles than this share are not used to find candidates. */
const COMMON_SHARE = 0.05;
const COMMON_FLOOR = 50;

function push<K, V>(map: Map<K, V[]>, key: K, value: V) {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

export function suggestMatches(
  own: readonly OwnIdentity[],
  competitors: readonly CompetitorIdentity[],
  exclude: (ownProductId: string, productId: string) => boolean,
  opts: { titleThreshold?: number } = {},
): MatchSuggestion[] {
  const threshold = opts.titleThreshold ?? TITLE_THRESHOLD;
  const n = competitors.length;
  // Brands repeat across a catalogue: read each once.
  const brands = new Map<string, Brand | null>();
  const brandOf = (brand: string | null) => {
    if (!brand) return null;
    if (!brands.has(brand)) brands.set(brand, readBrand(brand));
    return brands.get(brand)!;
  };
  const read = competitors.map((c) => analyse(c.name, brandOf(c.brand)));

  // Tokens as numbers, so scoring a pair is a loop over arrays.
  const vocabulary = new Map<string, number>();
  const intern = (t: string) => {
    let k = vocabulary.get(t);
    if (k === undefined) vocabulary.set(t, (k = vocabulary.size));
    return k;
  };
  const keys = read.map((c) => Int32Array.from(c.tokens, intern));
  const df = new Int32Array(vocabulary.size);
  for (const list of keys) for (const k of list) df[k]!++;
  const weights = Float64Array.from(df, (d) => Math.log((n + 1) / (d + 1)) + 1);
  const unknownWeight = Math.log(n + 1) + 1;
  const weightOf = (t: string) => {
    const k = vocabulary.get(t);
    return k === undefined ? unknownWeight : weights[k]!;
  };
  const totals = Float64Array.from(keys, (list) => list.reduce((sum, k) => sum + weights[k]!, 0));

  const common = Math.max(COMMON_FLOOR, Math.ceil(n * COMMON_SHARE));
  const postings: number[][] = [];
  keys.forEach((list, i) => {
    for (const k of list) if (df[k]! <= common) (postings[k] ??= []).push(i);
  });
  const byGtin = new Map<string, number[]>();
  const byMpn = new Map<string, number[]>();
  competitors.forEach((c, i) => {
    const gtin = normaliseGtin(c.gtin);
    if (gtin) push(byGtin, gtin, i);
    const mpn = mpnKey(c.mpn);
    if (mpn && read[i]!.brand) push(byMpn, mpn, i);
  });

  const suggestions: MatchSuggestion[] = [];
  const shared = new Float64Array(n);
  const mineWeights = new Float64Array(vocabulary.size);
  for (const product of own) {
    const taken = new Set<number>();
    const suggest = (i: number, reason: MatchReason, confidence: number) => {
      if (taken.has(i)) return;
      taken.add(i);
      if (exclude(product.id, competitors[i]!.productId)) return;
      suggestions.push({ ownProductId: product.id, productId: competitors[i]!.productId, reason, confidence });
    };
    const gtin = normaliseGtin(product.gtin);
    for (const i of gtin ? (byGtin.get(gtin) ?? []) : []) suggest(i, 'gtin', GTIN_CONFIDENCE);
    const mpn = mpnKey(product.mpn);
    const brand = brandOf(product.brand)?.key;
    if (mpn && brand) for (const i of byMpn.get(mpn) ?? []) if (read[i]!.brand === brand) suggest(i, 'mpn', MPN_CONFIDENCE);

    const mine = analyse(`${product.title} ${product.variant ?? ''}`, brandOf(product.brand), `${head(product.title)} ${product.variant ?? ''}`);
    const known: number[] = [];
    let total = 0;
    for (const t of mine.tokens) {
      const k = vocabulary.get(t);
      total += k === undefined ? unknownWeight : weights[k]!;
      if (k !== undefined) {
        known.push(k);
        mineWeights[k] = weights[k]!;
      }
    }
    // Prefix filtering: a pair reaching the threshold shares at least t·A/(2−t) of the own
    // title's weight A, so it must share one of the rarest tokens beyond the lightest that
    // weigh less than that together. Only those are looked up. Nested model numbers can add at
    // most the weight of the own ones, and the commonest tokens are never looked up; what is
    // not looked up keeps the bound below honest.
    known.sort((a, b) => weights[a]! - weights[b]!);
    let idMass = 0;
    for (const id of mine.ids) idMass += weightOf(id);
    const needed = (threshold * total) / (2 - threshold);
    let unseen = idMass;
    let from = 0;
    while (from < known.length && unseen + weights[known[from]!]! < needed) unseen += weights[known[from++]!]!;
    const touched: number[] = [];
    for (let j = from; j < known.length; j++) {
      const k = known[j]!;
      const list = postings[k];
      if (!list) {
        unseen += weights[k]!;
        continue;
      }
      for (const i of list) {
        if (shared[i] === 0) touched.push(i);
        shared[i] += weights[k]!;
      }
    }
    const found: { i: number; score: number }[] = [];
    for (const i of touched) {
      const pair = total + totals[i]!;
      const bound = (2 * (shared[i]! + unseen)) / pair;
      shared[i] = 0;
      if (bound < threshold || (taken.size > 0 && taken.has(i))) continue;
      const list = keys[i]!;
      let exact = 0;
      for (let j = 0; j < list.length; j++) exact += mineWeights[list[j]!]!;
      if ((2 * (exact + idMass)) / pair < threshold) continue;
      if (mine.ids.length > 0 && read[i]!.ids.length > 0 && (2 * exact) / pair < 1) exact += nestedIds(mine, read[i]!, weightOf);
      const score = Math.min(1, (2 * exact) / pair);
      if (score >= threshold && !vetoed(mine, read[i]!)) found.push({ i, score });
    }
    for (const k of known) mineWeights[k] = 0;
    found.sort((a, b) => b.score - a.score || compare(competitors[a.i]!.productId, competitors[b.i]!.productId));
    let kept = 0;
    for (const { i, score } of found) {
      if (kept === TITLE_SUGGESTIONS_PER_PRODUCT) break;
      if (exclude(product.id, competitors[i]!.productId)) continue;
      taken.add(i);
      suggestions.push({ ownProductId: product.id, productId: competitors[i]!.productId, reason: 'title', confidence: titleConfidence(score, threshold) });
      kept++;
    }
  }
  return suggestions.sort((a, b) => b.confidence - a.confidence || compare(a.ownProductId, b.ownProductId) || compare(a.productId, b.productId));
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
