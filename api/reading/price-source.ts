import type { EventData } from '../../events/catalogue.ts';
import type { ExtractionFailureCode } from './extract.ts';

/**
 * Where a price came from, as the screens tell it: the user's selector, the page's structured
 * data (JSON-LD, microdata, RDFa, meta tags), its visible price block found without the selector,
 * the state its scripts keep, or the user's own hand.
 */
export type PriceSource = 'selector' | 'structured-data' | 'visible' | 'script-state' | 'manual';

type EvidenceSource = EventData<'PriceObserved'>['source'] | 'manual';

const SOURCES: Record<EvidenceSource, PriceSource> = {
  selector: 'selector',
  page: 'visible',
  'script-state': 'script-state',
  manual: 'manual',
  'json-ld': 'structured-data',
  microdata: 'structured-data',
  rdfa: 'structured-data',
  opengraph: 'structured-data',
  meta: 'structured-data',
};

/** The source of a price point or observation (its evidence's `source`); null when unknown. */
export function priceSourceOf(source: string | null): PriceSource | null {
  return source !== null && Object.hasOwn(SOURCES, source) ? SOURCES[source as EvidenceSource] : null;
}

const READ_FROM: Record<Exclude<PriceSource, 'selector' | 'manual'>, string> = {
  'structured-data': "Read from the page's structured data",
  visible: "Read from the page's price next to the product title",
  'script-state': "Read from the data the page's scripts keep",
};

/**
 * The sentence saying a price was not read with the product's selector, or null when it was.
 * `selectorFailure`: why the selector gave no price, when the check knows it.
 */
export function selectorMissNote(source: PriceSource, selectorFailure: ExtractionFailureCode | null = null): string | null {
  if (source === 'selector' || source === 'manual') return null;
  const why =
    selectorFailure === 'no-price-in-text'
      ? 'your selector matched no price'
      : selectorFailure === 'ambiguous'
        ? 'your selector matched several different prices'
        : 'your selector matched nothing';
  return `${READ_FROM[source]}; ${why}.`;
}
