/** Pure rules of the Your Catalogue screen: bands, ranks, gaps, freshness and the filters. */
import type { CatalogueCompetitor, CatalogueEntry, MatchSuggestion, SourceKind } from '../../lib/api';
import { formatPrice, formatSignedPercent, relativeTime } from '../../lib/format';

export type Band = NonNullable<CatalogueEntry['position']>['band'];
export type BandFilter = Band | 'unpositioned' | 'all';

export const BAND_FILTERS: readonly { value: BandFilter; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'cheapest', label: 'Cheapest' },
  { value: 'competitive', label: 'Competitive' },
  { value: 'above', label: 'Above market' },
  { value: 'unpositioned', label: 'No position' },
];

export const BAND_LABELS: Record<Band, string> = { cheapest: 'Cheapest', competitive: 'Competitive', above: 'Above market' };
export const BAND_TONES = { cheapest: 'success', competitive: 'warning', above: 'danger' } as const satisfies Record<Band, string>;

/** The band filter a link asked for (`/catalogue?band=above`); anything else shows all. */
export function bandFromSearch(search: string): BandFilter {
  const band = new URLSearchParams(search).get('band');
  return BAND_FILTERS.some((f) => f.value === band) ? (band as BandFilter) : 'all';
}

export const bandOf = (entry: CatalogueEntry): Exclude<BandFilter, 'all'> => entry.position?.band ?? 'unpositioned';

/** Entries in a band and matching a search of title, variant or SKU, ignoring case; the list's order is kept. */
export function filterEntries(entries: readonly CatalogueEntry[], band: BandFilter, query: string): CatalogueEntry[] {
  const q = query.trim().toLowerCase();
  return entries.filter(
    (e) =>
      (band === 'all' || bandOf(e) === band) &&
      (!q || e.title.toLowerCase().includes(q) || (e.sku ?? '').toLowerCase().includes(q) || (e.variant ?? '').toLowerCase().includes(q)),
  );
}

/** How many entries each filter shows. */
export function bandCounts(entries: readonly CatalogueEntry[]): Record<BandFilter, number> {
  const counts: Record<BandFilter, number> = { all: entries.length, cheapest: 0, competitive: 0, above: 0, unpositioned: 0 };
  for (const e of entries) counts[bandOf(e)]++;
  return counts;
}

/** 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st. */
export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** "2nd of 5": the owner's place among the counted competitors and themselves. */
export const rankText = (position: { rank: number; of: number }) => `${ordinal(position.rank)} of ${position.of}`;

/**
 * The gap to the cheapest competitor as money and percent, signed: "+£2.49 (+7.7%)", "−£1.00
 * (−3.2%)". `direction` lets the screen add an icon and words, so the sign is not told by colour alone.
 */
export function gapText(gap: number, gapPercent: number | null, currency: string): { text: string; direction: 'above' | 'below' | 'level' } {
  const direction = gap > 0 ? 'above' : gap < 0 ? 'below' : 'level';
  const sign = direction === 'above' ? '+' : direction === 'below' ? '−' : '';
  const money = `${sign}${formatPrice(Math.abs(gap), currency)}`;
  const percent = gapPercent === null ? '' : ` (${formatSignedPercent(gapPercent).replace('-', '−')})`;
  return { text: `${money}${percent}`, direction };
}

export const GAP_WORDS = { above: 'above the cheapest', below: 'below the cheapest', level: 'level with the cheapest' } as const;

/** The newest price among the counted competitors: what the position is as fresh as. */
export function newestCountedPrice(competitors: readonly CatalogueCompetitor[]): string | null {
  let newest: string | null = null;
  for (const c of competitors) {
    if (c.counted && c.lastPriceAt && (!newest || Date.parse(c.lastPriceAt) > Date.parse(newest))) newest = c.lastPriceAt;
  }
  return newest;
}

/** "checked 2h ago", "checked just now", "checked 5 Mar, 14:30". */
export function checkedText(at: string | null, now: number = Date.now()): string | null {
  if (!at) return null;
  const when = relativeTime(at, now);
  return `checked ${when === 'Just now' ? 'just now' : when}`;
}

/** A competitor's stock in words. */
export function stockText(availability: CatalogueCompetitor['availability']): string {
  switch (availability) {
    case 'InStock':
      return 'In stock';
    case 'OutOfStock':
      return 'Out of stock';
    case 'PreOrder':
      return 'Pre-order';
    case 'BackOrder':
      return 'Backorder';
    default:
      return 'Stock unknown';
  }
}

/** Why a competitor is left out of the position, as a sentence's end. */
export const REASON_TEXT: Record<NonNullable<CatalogueCompetitor['reason']>, string> = {
  'no price': 'no price yet',
  stale: 'stale: its price has not been read lately',
  'out of stock': 'out of stock',
  'other currency': 'priced in another currency',
};

export const MATCH_REASONS: Record<MatchSuggestion['reason'], string> = {
  gtin: 'Same GTIN',
  mpn: 'Same MPN and brand',
  title: 'Similar title',
};

export const confidenceText = (confidence: number) => `${Math.round(confidence * 100)}% match`;

export const SOURCE_KINDS: readonly { value: SourceKind; label: string; hint: string; placeholder: string }[] = [
  {
    value: 'shopify',
    label: 'Shopify',
    hint: "Your store's address, such as https://yourshop.com or https://yourshop.myshopify.com.",
    placeholder: 'https://yourshop.com',
  },
  { value: 'woocommerce', label: 'WooCommerce', hint: "Your store's address: its public product list is read.", placeholder: 'https://yourshop.com' },
  {
    value: 'merchant-feed',
    label: 'Google Merchant feed',
    hint: "The feed's own address (RSS, Atom or tab-separated), as your feed app or Merchant Center shows it.",
    placeholder: 'https://yourshop.com/feeds/google.xml',
  },
];

export const sourceKindLabel = (kind: SourceKind) => SOURCE_KINDS.find((k) => k.value === kind)?.label ?? kind;

/** Suggestions grouped by own product, strongest first within each. */
export function suggestionsByProduct(matches: readonly MatchSuggestion[]): Map<string, MatchSuggestion[]> {
  const grouped = Map.groupBy(matches, (m) => m.ownProductId);
  for (const list of grouped.values()) list.sort((a, b) => b.confidence - a.confidence);
  return grouped;
}

export const plural = (n: number, word: string, many = `${word}s`) => `${n.toLocaleString('en-GB')} ${n === 1 ? word : many}`;
