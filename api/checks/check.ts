import { createHash } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { transaction } from '../db.ts';
import type { Availability, EventOf } from '../../events/catalogue.ts';
import { checkpointOf, type Checkpoint } from '../../events/store.ts';
import { productStream } from '../../events/product.ts';
import { createFetcher, type Fetcher, type FetchOptions } from './fetcher.ts';
import { extractPriceFromDocument } from './extract.ts';
import { attr, parsePage, queryOne, type Document } from './page.ts';
import { finishJobs } from './queue.ts';
import { isDemoShopUrl } from '../demo-shop/address.ts';

/**
 * One price check, the same for the queue's workers and for "Check Now": fetch the page once for
 * every product tracking it, read each product's price with its own selector, and record a
 * PriceObserved with its evidence or a PriceCheckFailed with a reason a person can act on.
 */

/** What to check: a product, and the lease of its queue job (null for a check run by hand). */
export type CheckTarget = { productId: string; userId: string; url: string; selector: string; lease: string | null };

export type CheckEvent = EventOf<'PriceObserved'> | EventOf<'PriceCheckFailed'>;
export type CheckOutcome = { target: CheckTarget; event: CheckEvent };

/** Per-host limits hold for the whole process, so every check shares one fetcher. */
export const sharedFetcher = createFetcher();

const MAX_MATCHED_TEXT = 2000;
const MAX_IMAGE_URL = 2000;

/** Fetch options for a product page: the demo shop is the only private page reachable in demo mode. */
export function fetchOptionsFor(config: AppContext['config'], url: string): FetchOptions {
  // The demo shop never redirects; refusing redirects keeps the exception to its own pages.
  if (isDemoShopUrl(config, url)) return { allowPrivate: true, maxRedirects: 0, retries: 0 };
  return { allowPrivate: config.checkAllowPrivate };
}

/** Checks products that track the same url with one fetch. */
export async function checkPage(
  config: AppContext['config'], url: string, targets: readonly CheckTarget[], fetcher: Fetcher = sharedFetcher,
): Promise<CheckOutcome[]> {
  const attemptedAt = new Date().toISOString();
  const page = await fetcher.fetchPage(url, fetchOptionsFor(config, url));
  if (!page.ok) {
    return targets.map((target) => failed(target, page.code, page.reason, page.status ?? null, attemptedAt));
  }
  const observedAt = new Date().toISOString();
  const document = parsePage(page.body);
  const pageHash = createHash('sha256').update(page.body).digest('hex');
  const imageUrl = openGraphImage(document, page.url);
  return targets.map((target) => {
    const found = extractPriceFromDocument(document, { selector: target.selector, url: target.url });
    // A sold-out page often shows no price; its availability is still news.
    if (!found.ok) return failed(target, found.code, found.reason, page.status, observedAt, found.availability);
    return {
      target,
      event: {
        type: 'PriceObserved',
        data: {
          productId: target.productId, userId: target.userId,
          price: found.price, currency: found.currency, source: found.source, selector: found.selector,
          matchedText: found.matchedText.slice(0, MAX_MATCHED_TEXT),
          url: target.url, httpStatus: page.status, pageHash, observedAt,
          ...(imageUrl ? { imageUrl } : {}),
          availability: found.availability,
        },
      },
    };
  });
}

function failed(target: CheckTarget, code: string, reason: string, httpStatus: number | null, attemptedAt: string, availability: Availability | null = null): CheckOutcome {
  return {
    target,
    event: { type: 'PriceCheckFailed', data: { productId: target.productId, userId: target.userId, code, reason, httpStatus, url: target.url, attemptedAt, availability } },
  };
}

/** The page's og:image as an absolute http(s) address, if it has one. */
function openGraphImage(document: Document, pageUrl: string): string | null {
  const meta = queryOne(document, 'meta[property="og:image"], meta[property="og:image:url"], meta[name="og:image"]');
  const content = meta && attr(meta, 'content')?.trim();
  if (!content) return null;
  try {
    const url = new URL(content, pageUrl);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.href.length <= MAX_IMAGE_URL ? url.href : null;
  } catch {
    return null;
  }
}

/** Groups targets by the page they track, so one fetch serves them all. */
export function groupByUrl<T extends { url: string }>(targets: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const t of targets) {
    const group = groups.get(t.url);
    if (group) group.push(t);
    else groups.set(t.url, [t]);
  }
  return groups;
}

/**
 * Records outcomes in one transaction with the end of their jobs. An outcome is dropped when its
 * job's lease passed to another worker (that worker records it) or when the product was removed.
 * Answers how many were recorded and where the last one stands in the log.
 */
export async function recordOutcomes(ctx: Pick<AppContext, 'sql' | 'store'>, outcomes: readonly CheckOutcome[]): Promise<{ recorded: CheckOutcome[]; checkpoint: Checkpoint | null }> {
  if (!outcomes.length) return { recorded: [], checkpoint: null };
  return transaction(ctx.sql, async (tx) => {
    const owned = await finishJobs(tx, outcomes.map(({ target }) => target));
    const ids = outcomes.map((o) => o.target.productId).filter((id) => owned.has(id));
    const live = new Set((await tx<{ id: string }[]>`SELECT id FROM products WHERE id = ANY(${ids}::text[])`).map((r) => r.id));
    // A fixed order of streams keeps two writers from waiting on each other.
    const recorded = outcomes.filter((o) => live.has(o.target.productId)).sort((a, b) => (a.target.productId < b.target.productId ? -1 : 1));
    // Sent without waiting for each answer: postgres.js pipelines them on the transaction's connection.
    const appended = await Promise.all(recorded.map((o) => ctx.store.append(productStream(o.target.productId), 'any', [o.event], tx)));
    const last = appended.reduce((a, b) => (b.lastPosition > a.lastPosition ? b : a), appended[0]);
    return { recorded, checkpoint: last ? checkpointOf({ transactionId: last.transactionId, position: last.lastPosition }) : null };
  });
}
