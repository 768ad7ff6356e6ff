import type { EventData } from '../../events/catalogue.ts';
import { DomainError } from '../../events/decider.ts';
import { handleProductCommand, productStream, type PriceCorrection } from '../../events/product.ts';
import { START, checkpointOf, type EventStore, type RecordedEvent } from '../../events/store.ts';
import { parsePriceText } from '../reading/price-text.ts';

export const REPARSE_REASON = 'Re-read from the observation’s matched text with a newer price parser.';

/**
 * The price today's parser reads in an observation's evidence (its matched text, with the
 * currency it was read in as the hint for signs such as "$"), or null when it reads none.
 */
export function rereadPrice(observation: Pick<EventData<'PriceObserved'>, 'matchedText' | 'currency'>): number | null {
  const reading = parsePriceText(observation.matchedText, { currencyHint: observation.currency });
  return reading && reading.amount > 0 ? reading.amount : null;
}

export type ReparseOptions = {
  productId?: string;
  /** Only observations recorded at or after this moment. */
  since?: Date;
  /** Report what would change, append nothing. */
  dryRun?: boolean;
  onCorrection?: (c: PriceCorrection & { productId: string; matchedText: string }) => void;
};

export type ReparseReport = { examined: number; corrected: number; unreadable: number; skipped: number };

const PAGE = 2000;
/** Corrections held before they are appended. */
const FLUSH_AT = 1000;

/**
 * Re-derives past prices from the evidence on PriceObserved events and appends PriceCorrected
 * where today's parser reads a different price than the one in effect (the observed one, or an
 * earlier correction's). Reads the log in pages; running it again appends nothing new.
 * Text the parser can no longer read is counted, never turned into a price. Removed products
 * are skipped.
 */
export async function reparsePrices(store: EventStore, opts: ReparseOptions = {}): Promise<ReparseReport> {
  const scope = { streamId: opts.productId ? productStream(opts.productId) : undefined };
  const since = opts.since;
  const inScope = (e: RecordedEvent) => !since || e.recordedAt >= since;
  const report: ReparseReport = { examined: 0, corrected: 0, unreadable: 0, skipped: 0 };

  // Corrections made before: the price in effect for those observations.
  const corrected = new Map<number, number>();
  for await (const e of pages(store, ['PriceCorrected'], scope)) {
    if (e.type === 'PriceCorrected') corrected.set(e.data.correctsPosition, e.data.price);
  }

  const pending = new Map<string, PriceCorrection[]>();
  let held = 0;
  const flush = async () => {
    for (const [productId, corrections] of pending) {
      if (opts.dryRun) {
        report.corrected += corrections.length;
        continue;
      }
      try {
        const { events } = await handleProductCommand(store, { type: 'CorrectPrices', productId, corrections });
        report.corrected += events.length;
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        report.skipped += corrections.length; // removed since it was observed
      }
    }
    pending.clear();
    held = 0;
  };

  for await (const e of pages(store, ['PriceObserved'], scope)) {
    if (e.type !== 'PriceObserved' || !inScope(e)) continue;
    report.examined++;
    const price = rereadPrice(e.data);
    if (price === null) {
      report.unreadable++;
      continue;
    }
    const inEffect = corrected.get(e.position) ?? e.data.price;
    if (price === inEffect) continue;
    const correction = { correctsPosition: e.position, price, previousPrice: inEffect, reason: REPARSE_REASON };
    opts.onCorrection?.({ ...correction, productId: e.data.productId, matchedText: e.data.matchedText });
    const list = pending.get(e.data.productId) ?? [];
    list.push(correction);
    pending.set(e.data.productId, list);
    if (++held >= FLUSH_AT) await flush();
  }
  await flush();
  return report;
}

async function* pages(store: EventStore, types: string[], scope: { streamId?: string }) {
  let after = START;
  for (;;) {
    const batch = await store.readAll(after, PAGE, { types, streamId: scope.streamId });
    yield* batch;
    if (batch.length < PAGE) return;
    after = checkpointOf(batch[batch.length - 1]!);
  }
}
