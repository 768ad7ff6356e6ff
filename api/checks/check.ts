import { createHash } from 'node:crypto';
import type { AppContext } from '../context.ts';
import type { Sql } from '../../db/index.ts';
import { validateForAppend, type Availability, type EventOf } from '../../events/catalogue.ts';
import { appendingTransaction, checkpointOf, type Checkpoint, type RepeatedCheck } from '../../events/store.ts';
import { repeatsObservation } from './repeat.ts';
import { productStream } from '../../events/product.ts';
import { sharedFetcher, type Fetcher, type FetchOptions } from '../fetching/fetcher.ts';
import type { OfferVariant } from '../reading/offers.ts';
import { extractPriceFromDocument, selectorReadsPrice, type ExtractionFailureCode, type ExtractionResult } from '../reading/extract.ts';
import { attr, parsePage, queryOne, type Document } from '../reading/page.ts';
import { finishJobs, lastReadings, rememberReadings, type ReadingKeys, type ReadingMemory, type RenderMemory } from './queue.ts';
import { pageVersion } from '../reading/page-version.ts';
import { readingVersion } from './reading-version.ts';
import { sharedRenderer, type Renderer, type RenderFailure } from '../fetching/browser.ts';
import { hasScripts, looksScriptRendered } from '../reading/script-rendered.ts';
import { needsRendering, renderHelped } from './read-page.ts';
import { isDemoShopUrl } from '../demo-shop/address.ts';

/**
 * One price check, the same for the queue's workers and for "Check Now": fetch the page once for
 * every product tracking it, read each product's price with its own selector, and record a
 * PriceObserved with its evidence or a PriceCheckFailed with a reason a person can act on.
 */

/** What to check: a product, and the lease of its queue job (null for a check run by hand). */
export type CheckTarget = {
  productId: string;
  userId: string;
  url: string;
  selector: string;
  lease: string | null;
  /** What the last checks learnt about rendering; undefined: not known yet (looked up when a database is given). */
  render?: RenderMemory | null;
  /** The last static reading of the page, to reuse while the page is unchanged; undefined: not known yet. */
  reading?: ReadingMemory | null;
};

export type CheckEvent = EventOf<'PriceObserved'> | EventOf<'PriceCheckFailed'>;
/**
 * `render` says how the product's render memory changes when the outcome is recorded:
 * remember (the page needed the browser), count (another render), forget (static works again).
 */
export type CheckOutcome = {
  target: CheckTarget;
  event: CheckEvent;
  render?: 'remember' | 'count' | 'forget';
  /** How the product's selector failed when the page's structured data gave the price instead (not recorded: Check Now says it). */
  selectorFailure?: ExtractionFailureCode;
  /** A static reading that needed no browser: the keys it can be reused under while the page is unchanged. */
  reading?: ReadingKeys;
  /** The observation is the last reading's, reused: the page had not changed (nothing to remember anew). */
  reused?: true;
};

export type CheckPageOptions = {
  /** Where the render memory is looked up for targets that do not carry it. */
  sql?: Sql;
  renderer?: Renderer;
  /** Called once the check turns to the browser, so a worker can give its slot to static checks meanwhile. */
  onRender?: () => void;
};

const MAX_MATCHED_TEXT = 2000;
const MAX_IMAGE_URL = 2000;
/** A page remembered as needing the browser is fetched statically again after this many renders, or a day. */
export const STATIC_RETRY_RENDERS = 10;
const STATIC_RETRY_MS = 86_400_000;

/** Fetch options for a product page: the demo shop is the only private page reachable in demo mode. */
export function fetchOptionsFor(config: AppContext['config'], url: string): FetchOptions {
  // The demo shop never redirects; refusing redirects keeps the exception to its own pages.
  if (isDemoShopUrl(config, url)) return { allowPrivate: true, maxRedirects: 0, retries: 0 };
  return { allowPrivate: config.checkAllowPrivate };
}

/** A page as read: `pageHash` is its version (page-version.ts). */
type Reading = { fetcher: 'static' | 'browser'; url: string; status: number; pageHash: string; document: Document };

/**
 * Checks products that track the same url with one fetch. Static first: the browser renders the
 * page only when the static HTML gives a product neither its selector's price nor a stated one
 * (see needsRendering), or is an app shell; a page that needed it is remembered, and goes
 * straight to the browser next time.
 */
export async function checkPage(
  config: AppContext['config'],
  url: string,
  targets: readonly CheckTarget[],
  fetcher: Fetcher = sharedFetcher,
  opts: CheckPageOptions = {},
): Promise<CheckOutcome[]> {
  const attemptedAt = new Date().toISOString();
  const { memory, readings } = await checkMemory(targets, opts.sql);
  const fetchOptions = fetchOptionsFor(config, url);
  const renderer = opts.renderer ?? sharedRenderer();
  const render = (needs: readonly CheckTarget[]) => {
    opts.onRender?.();
    return renderFor(renderer, url, needs, fetcher, fetchOptions);
  };

  // Remembered pages skip the static fetch, except now and then in case the shop changed.
  const now = Date.now();
  const straight = targets.filter((t) => {
    const m = memory.get(t.productId);
    return m && m.rendersSinceStatic + 1 < STATIC_RETRY_RENDERS && now - m.staticCheckedAt.getTime() < STATIC_RETRY_MS;
  });
  if (straight.length) {
    const rendered = await render(targets);
    const counted = (t: CheckTarget) => (memory.has(t.productId) ? 'count' : undefined);
    if (!rendered.ok) return targets.map((t) => failed(t, rendered.code, rendered.reason, rendered.status ?? null, attemptedAt, null, counted(t)));
    return targets.map((t) => {
      const outcome = outcomeOf(t, rendered, counted(t));
      // Another product of the same page that the browser served is remembered with it.
      return outcome.render || outcome.event.type !== 'PriceObserved' ? outcome : { ...outcome, render: 'remember' };
    });
  }

  const page = await fetcher.fetchPage(url, fetchOptions);
  if (!page.ok) {
    return targets.map((target) => failed(target, page.code, page.reason, page.status ?? null, attemptedAt));
  }
  // An unchanged page, read by the same code under the same selector, reads as last time: nothing is
  // parsed. The same bytes are the quick answer; else the page's version, its per-request tokens aside.
  const bytes = page.raw ?? Buffer.from(page.body);
  const bytesHash = sha256(bytes);
  let version: string | undefined;
  const pageHashOf = () => (version ??= pageVersion(bytes));
  const bytesKeyOf = (t: CheckTarget) => readingKey(t, page, `bytes:${bytesHash}`);
  const keyOf = (t: CheckTarget) => readingKey(t, page, pageHashOf());
  const reused = new Map<string, CheckOutcome>();
  for (const t of targets) {
    const last = readings.get(t.productId);
    if (!last || memory.has(t.productId)) continue;
    if (last.bytesKey === bytesKeyOf(t) || last.key === keyOf(t)) reused.set(t.productId, reusedOutcome(t, last));
  }
  const toRead = targets.filter((t) => !reused.has(t.productId));
  if (!toRead.length) return targets.map((t) => reused.get(t.productId)!);

  const pageHash = pageHashOf();
  const reading: Reading = { fetcher: 'static', url: page.url, status: page.status, pageHash, document: parsePage(page.body) };
  const found = new Map(toRead.map((t) => [t.productId, extractPriceFromDocument(reading.document, { selector: t.selector, url: t.url })]));
  // Read statically with no question of the browser: the reading holds while the page is unchanged.
  const settled = (t: CheckTarget) => ({
    ...outcomeOf(t, reading, memory.has(t.productId) ? 'forget' : undefined, found.get(t.productId)),
    reading: { key: keyOf(t), bytesKey: bytesKeyOf(t), pageHash },
  });
  const inOrder = (read: (t: CheckTarget) => CheckOutcome) => targets.map((t) => reused.get(t.productId) ?? read(t));
  // A page without scripts shows in a browser what its HTML says: it is never rendered.
  // A price the user's selector found needs no browser: only the others ask whether the page is scripted.
  const unsettled = toRead.filter((t) => {
    const result = found.get(t.productId)!;
    return !(result.ok && result.source === 'selector');
  });
  const scripted = unsettled.length > 0 && hasScripts(reading.document);
  const shell = scripted && looksScriptRendered(reading.document);
  const needs = scripted ? unsettled.filter((t) => needsRendering(found.get(t.productId)!, shell)) : [];
  if (!needs.length) return inOrder(settled);

  const rendered = await render(needs);
  return inOrder((t) => {
    const statically = found.get(t.productId)!;
    if (!needs.includes(t)) return settled(t);
    if (!rendered.ok) {
      // A price the static page stated (a shell's script state) beats no price.
      if (statically.ok) return outcomeOf(t, reading, undefined, statically);
      return failed(t, rendered.code, rendered.reason, rendered.status ?? null, attemptedAt, statically.availability);
    }
    const again = extractPriceFromDocument(rendered.document, { selector: t.selector, url: t.url });
    // Remembered only when the browser gave the price the static page did not.
    if (renderHelped(statically, again, shell)) return outcomeOf(t, rendered, 'remember', again);
    // The browser did not help: the static reading (with its stated or price block's price, if any) stands.
    return statically.ok ? outcomeOf(t, reading, memory.has(t.productId) ? 'forget' : undefined, statically) : outcomeOf(t, rendered, undefined, again);
  });
}

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

/**
 * What a reading depends on: the page (its version, or `bytes:` and the hash of its very bytes),
 * the code that reads, the product's address and selector, where the fetch ended and how, and the
 * charset the page is decoded with.
 */
export function readingKey(
  target: Pick<CheckTarget, 'url' | 'selector'>,
  fetched: { url: string; status: number; contentType: string | null },
  page: string,
): string {
  return sha256(JSON.stringify([readingVersion(), target.url, target.selector, fetched.url, fetched.status, fetched.contentType, page]));
}

/** The last reading again, at this check's time and with the page version it was read at (the one it repeats may be older). */
function reusedOutcome(target: CheckTarget, last: ReadingMemory): CheckOutcome {
  const observation = {
    ...last.observation,
    productId: target.productId,
    userId: target.userId,
    observedAt: new Date().toISOString(),
    pageHash: last.pageHash,
  };
  return {
    target,
    event: { type: 'PriceObserved', data: observation },
    ...(last.selectorFailure ? { selectorFailure: last.selectorFailure } : {}),
    reused: true,
  };
}

async function renderFor(
  renderer: Renderer,
  url: string,
  targets: readonly CheckTarget[],
  fetcher: Fetcher,
  fetchOptions: FetchOptions,
): Promise<(Reading & { ok: true }) | RenderFailure> {
  // Done once every product's selector holds a price (checked on the live HTML as checks read it).
  const isReady = (html: string) => {
    const document = parsePage(html);
    return targets.every((t) => selectorReadsPrice(document, t.selector, t.url));
  };
  // The render takes its turn as the first product's owner (one page read serves them all).
  const rendered = await renderer.render({ url, fetchOptions, isReady, fetcher: fetcher.fetchResource ? fetcher : sharedFetcher, owner: targets[0]?.userId });
  if (!rendered.ok) return rendered;
  return { ok: true, fetcher: 'browser', url: rendered.url, status: rendered.status, pageHash: pageVersion(rendered.html), document: parsePage(rendered.html) };
}

/** What the last checks of the targets learnt (render memory, last reading): carried by claimed jobs, else looked up. */
async function checkMemory(
  targets: readonly CheckTarget[],
  sql: Sql | undefined,
): Promise<{ memory: Map<string, RenderMemory>; readings: Map<string, ReadingMemory> }> {
  const memory = new Map<string, RenderMemory>();
  const readings = new Map<string, ReadingMemory>();
  for (const t of targets) {
    if (t.render) memory.set(t.productId, t.render);
    if (t.reading) readings.set(t.productId, t.reading);
  }
  const unknown = targets.filter((t) => t.render === undefined);
  if (sql && unknown.length) {
    const rows = await sql<{ product_id: string; url: string; renders_since_static: number; static_checked_at: Date }[]>`
      SELECT product_id, url, renders_since_static, static_checked_at FROM check_render WHERE product_id = ANY(${unknown.map((t) => t.productId)}::text[])`;
    for (const row of rows) {
      const target = unknown.find((t) => t.productId === row.product_id);
      if (target && target.url === row.url)
        memory.set(row.product_id, { rendersSinceStatic: row.renders_since_static, staticCheckedAt: new Date(row.static_checked_at) });
    }
  }
  const unread = targets.filter((t) => t.reading === undefined).map((t) => t.productId);
  if (sql && unread.length) for (const [id, reading] of await lastReadings(sql, unread)) readings.set(id, reading);
  return { memory, readings };
}

function outcomeOf(target: CheckTarget, reading: Reading, render: CheckOutcome['render'], found?: ExtractionResult): CheckOutcome {
  found ??= extractPriceFromDocument(reading.document, { selector: target.selector, url: target.url });
  const observedAt = new Date().toISOString();
  // A sold-out page often shows no price; its availability is still news.
  if (!found.ok) return { ...failed(target, found.code, found.reason, reading.status, observedAt, found.availability), ...(render ? { render } : {}) };
  const imageUrl = openGraphImage(reading.document, reading.url);
  return {
    target,
    ...(render ? { render } : {}),
    ...(found.selectorFailure ? { selectorFailure: found.selectorFailure } : {}),
    event: {
      type: 'PriceObserved',
      data: {
        productId: target.productId,
        userId: target.userId,
        price: found.price,
        currency: found.currency,
        source: found.source,
        selector: found.selector,
        matchedText: found.matchedText.slice(0, MAX_MATCHED_TEXT),
        url: target.url,
        httpStatus: reading.status,
        pageHash: reading.pageHash,
        identifiers: found.identifiers,
        variant: observedVariant(found.variant),
        regularPrice: found.regularPrice ?? null,
        observedAt,
        ...(imageUrl ? { imageUrl } : {}),
        availability: found.availability,
        fetcher: reading.fetcher,
      },
    },
  };
}

/** The variant as recorded: its identity and options (its address is the product's own). */
const observedVariant = (variant: OfferVariant | null | undefined) =>
  variant ? { id: variant.id, sku: variant.sku, gtin: variant.gtin, options: variant.options } : null;

function failed(
  target: CheckTarget,
  code: string,
  reason: string,
  httpStatus: number | null,
  attemptedAt: string,
  availability: Availability | null = null,
  render?: CheckOutcome['render'],
): CheckOutcome {
  return {
    target,
    ...(render ? { render } : {}),
    event: {
      type: 'PriceCheckFailed',
      data: { productId: target.productId, userId: target.userId, code, reason, httpStatus, url: target.url, attemptedAt, availability },
    },
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
export async function recordOutcomes(
  ctx: Pick<AppContext, 'sql' | 'store'>,
  outcomes: readonly CheckOutcome[],
): Promise<{ recorded: CheckOutcome[]; checkpoint: Checkpoint | null }> {
  if (!outcomes.length) return { recorded: [], checkpoint: null };
  return appendingTransaction(ctx.sql, async (tx) => {
    const owned = await finishJobs(
      tx,
      outcomes.map(({ target }) => target),
    );
    const ids = outcomes.map((o) => o.target.productId).filter((id) => owned.has(id));
    const live = new Set((await tx<{ id: string }[]>`SELECT id FROM products WHERE id = ANY(${ids}::text[])`).map((r) => r.id));
    // A fixed order of streams keeps two writers from waiting on each other.
    const recorded = outcomes.filter((o) => live.has(o.target.productId)).sort((a, b) => (a.target.productId < b.target.productId ? -1 : 1));
    const repeated = await repeatsOfLastObservation(tx, recorded);
    const toAppend = recorded.filter((o) => !repeated.has(o));
    // Sent without waiting for each answer: postgres.js pipelines them on the transaction's connection.
    const appended = await Promise.all(toAppend.map((o) => ctx.store.append(productStream(o.target.productId), 'any', [o.event], tx)));
    const repeats = await ctx.store.appendRepeats([...repeated.values()], tx);
    await rememberRendering(tx, recorded);
    // A reading is remembered as the observation in the log that it reads as: the one appended, or the one repeated.
    const positions = new Map<CheckOutcome, number>([
      ...[...repeated].map(([o, r]) => [o, r.repeats] as const),
      ...toAppend.map((o, i) => [o, appended[i]!.lastPosition] as const),
    ]);
    await rememberReadings(
      tx,
      recorded.flatMap((o) =>
        o.reading && !o.reused && o.event.type === 'PriceObserved'
          ? [{ productId: o.target.productId, ...o.reading, position: positions.get(o)!, selectorFailure: o.selectorFailure ?? null }]
          : [],
      ),
    );
    const checkpoints = appended.map((a) => checkpointOf({ transactionId: a.transactionId, position: a.lastPosition }));
    if (repeats) checkpoints.push(repeats);
    const last = checkpoints.reduce<Checkpoint | null>((a, b) => (!a || b.position > a.position ? b : a), null);
    return { recorded, checkpoint: last };
  });
}

/**
 * The observations that only repeat their product's last one (repeatsObservation), with what
 * is kept of each: the position of that observation, the time and the page version.
 */
async function repeatsOfLastObservation(tx: Sql, outcomes: readonly CheckOutcome[]): Promise<Map<CheckOutcome, RepeatedCheck>> {
  const observed = outcomes.filter((o) => o.event.type === 'PriceObserved');
  const repeats = new Map<CheckOutcome, RepeatedCheck>();
  if (!observed.length) return repeats;
  const last = await tx<{ stream_id: string; position: string; type: string; schema_version: number; data: Record<string, unknown> }[]>`
    SELECT s.stream_id, e.global_position AS position, e.type, e.schema_version, e.data
    FROM unnest(${observed.map((o) => productStream(o.target.productId))}::text[]) AS s(stream_id)
    CROSS JOIN LATERAL (SELECT global_position, type, schema_version, data FROM events
                        WHERE stream_id = s.stream_id ORDER BY stream_version DESC LIMIT 1) AS e`;
  const byStream = new Map(last.map((r) => [r.stream_id, r]));
  for (const o of observed) {
    const previous = byStream.get(productStream(o.target.productId));
    if (previous?.type !== 'PriceObserved') continue;
    const next = validateForAppend('PriceObserved', o.event.data);
    if (previous.schema_version !== next.schemaVersion || !repeatsObservation(previous.data, next.data as Record<string, unknown>)) continue;
    const { observedAt, pageHash } = o.event.data as EventOf<'PriceObserved'>['data'];
    repeats.set(o, { repeats: Number(previous.position), observedAt, pageHash });
  }
  return repeats;
}

/** Writes what the recorded checks learnt about rendering; static pages have nothing to write. */
async function rememberRendering(tx: Sql, outcomes: readonly CheckOutcome[]): Promise<void> {
  const remember = outcomes.filter((o) => o.render === 'remember');
  const count = outcomes.filter((o) => o.render === 'count').map((o) => o.target.productId);
  const forget = outcomes.filter((o) => o.render === 'forget').map((o) => o.target.productId);
  if (remember.length) {
    await tx`
      INSERT INTO check_render (product_id, url, renders_since_static, static_checked_at)
      SELECT product_id, url, 0, now() FROM unnest(${remember.map((o) => o.target.productId)}::text[], ${remember.map((o) => o.target.url)}::text[]) AS r(product_id, url)
      ON CONFLICT (product_id) DO UPDATE SET url = excluded.url, renders_since_static = 0, static_checked_at = now()`;
  }
  if (count.length) await tx`UPDATE check_render SET renders_since_static = renders_since_static + 1 WHERE product_id = ANY(${count}::text[])`;
  if (forget.length) await tx`DELETE FROM check_render WHERE product_id = ANY(${forget}::text[])`;
}
