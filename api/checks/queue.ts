import { transaction, type Sql } from '../../db/index.ts';
import type { Config } from '../config.ts';
import { PLAN_MINUTES, nextCheckAt, type CheckFrequencySetting } from './schedule.ts';
import { CHECK_FREQUENCY_MINUTES } from '../../events/settings.ts';
import { PLANS } from '../billing/plans.ts';
import { demoShopPrefix, isDemoShopUrl } from '../demo-shop/address.ts';
import { hostOf } from '../../domain/shops.ts';
import { staggerByHost } from './stagger.ts';
import { chooseJobs, type ClaimCandidate } from './fair-share.ts';
import { MAX_FETCHES_PER_HOST } from '../fetching/fetcher.ts';
import { productsBeyondPlan } from '../products/beyond-plan.ts';
import { events, upcastAndValidate, type EventOf } from '../../events/catalogue.ts';
import type { ExtractionFailureCode } from '../reading/extract.ts';

/**
 * The check queue: an operational table, not events (the results are events).
 *
 * One row per product (the primary key), so a product has at most one job waiting or running.
 * Workers claim rows with FOR UPDATE SKIP LOCKED, so any number of worker processes share the
 * queue without taking the same job. A claim is a lease: a job whose worker died is claimed
 * again once `claimed_at` is older than the lease. A finished job is deleted in the same
 * transaction that appends its result, and only by the holder of its current lease.
 */
export const CHECK_JOBS_DDL = `
CREATE TABLE IF NOT EXISTS check_jobs (
  product_id  text PRIMARY KEY,
  url         text NOT NULL,
  run_at      timestamptz NOT NULL DEFAULT now(),
  lease       uuid,
  claimed_by  text,
  claimed_at  timestamptz,
  attempts    integer NOT NULL DEFAULT 0
);
-- The host rests together when the shop turns checks away (host_backoff); set on enqueue.
ALTER TABLE check_jobs ADD COLUMN IF NOT EXISTS host text;
-- Whose check it is: claims take turns between users (fair-share.ts). Set on enqueue. Jobs queued
-- before the column existed are dropped: the next tick queues again every product that is due.
ALTER TABLE check_jobs ADD COLUMN IF NOT EXISTS user_id text;
DELETE FROM check_jobs WHERE user_id IS NULL;
-- Each user's line, in claim order: oldest first, and pages sharing a url together (one fetch
-- serves them) while different pages of one shop are spread out.
CREATE INDEX IF NOT EXISTS check_jobs_user_line ON check_jobs (user_id, run_at, hashtext(url));
DROP INDEX IF EXISTS check_jobs_claim_order;
-- Pages being fetched, counted per shop by every claim.
CREATE INDEX IF NOT EXISTS check_jobs_in_flight ON check_jobs (host) WHERE lease IS NOT NULL;
-- Products whose page (at this url) shows its price only once rendered: later checks go straight
-- to the browser, and static is tried again every few renders or once a day (see check.ts).
-- Operational, like the jobs: a row outlives its jobs, so it is a table of its own.
CREATE TABLE IF NOT EXISTS check_render (
  product_id           text PRIMARY KEY,
  url                  text NOT NULL,
  renders_since_static integer NOT NULL DEFAULT 0,
  static_checked_at    timestamptz NOT NULL DEFAULT now()
);
-- Each product's last static reading, reused while its page is unchanged (check.ts): the keys it
-- holds under (the code, the address, the selector, and the page's version or its very bytes),
-- the page's version, and the position of the observation in the log that it reads as.
CREATE TABLE IF NOT EXISTS check_reading (
  product_id       text PRIMARY KEY,
  reading_key      text NOT NULL,
  bytes_key        text NOT NULL,
  page_hash        text NOT NULL,
  observation      bigint NOT NULL,
  selector_failure text
);
`;

/** What a check remembers of a page that needed the browser. */
export type RenderMemory = { rendersSinceStatic: number; staticCheckedAt: Date };
/**
 * What a reading holds under: the page's version (`key`) or its very bytes (`bytesKey`), with
 * everything else it read by (check.ts); and the version itself, which a reuse records.
 */
export type ReadingKeys = { key: string; bytesKey: string; pageHash: string };
/** A product's last static reading: reused while one of its keys still holds. */
export type ReadingMemory = ReadingKeys & { observation: EventOf<'PriceObserved'>['data']; selectorFailure: ExtractionFailureCode | null };
/** The last reading's row with its observation as the log holds it (null once archived). */
type ReadingRow = {
  readingKey: string | null;
  bytesKey: string | null;
  pageHash: string | null;
  observation: unknown;
  schemaVersion: number | null;
  selectorFailure: ExtractionFailureCode | null;
};

/** The last reading, with its observation read as today's schema reads it; null when there is none to reuse. */
function readingOf(row: ReadingRow): ReadingMemory | null {
  if (row.readingKey === null || row.bytesKey === null || row.pageHash === null || row.observation === null || row.schemaVersion === null) return null;
  try {
    // Validated when it was appended; only an older schema's observation is read again.
    const observation = (
      row.schemaVersion === events.PriceObserved.version ? row.observation : upcastAndValidate('PriceObserved', row.schemaVersion, row.observation)
    ) as ReadingMemory['observation'];
    return { key: row.readingKey, bytesKey: row.bytesKey, pageHash: row.pageHash, observation, selectorFailure: row.selectorFailure };
  } catch {
    return null;
  }
}

/** A worker that holds a job this long without finishing is presumed dead. */
export const LEASE_SECONDS = 300;
/**
 * A job claimed this many times without finishing is given up (recorded as a failed check): its
 * page may be what stopped the worker, and trying it once more would stop the next one.
 */
export const MAX_ATTEMPTS = 2;

/** A claimed job with the product's current url and selector. */
export type ClaimedJob = {
  productId: string;
  userId: string;
  url: string;
  selector: string;
  lease: string;
  attempts: number;
  /** Set when the page needed the browser last time. */
  render: RenderMemory | null;
  reading: ReadingMemory | null;
};

/** Where the next claim in this process starts its round of the users (in id order). */
let lastUserLookedAt = '';
/** A claim that found nothing to take in one round of users looks at the next ones, this many times in all. */
const ROUNDS_PER_CLAIM = 4;
/** How far down a user's line (in claims' limits) a claim looks for jobs of shops not already busy. */
const LOOK_AHEAD = 4;

/**
 * Claims up to `limit` due jobs, fairly and politely across every worker process:
 *
 * - Users take turns (fair-share.ts): a claim looks at the lines of the next `limit` users with
 *   due jobs, going round the users in id order, and takes every user's first job before anyone's
 *   second. So one user's backlog cannot hold up another user's checks, and the claim's cost does
 *   not grow with the jobs waiting.
 * - A shop gets a page only while fewer than `perHost` (MAX_FETCHES_PER_HOST) of its pages are
 *   being fetched under live leases, by any worker. Claims take turns on a transaction-level
 *   advisory lock, taken before they count, so two claims never both see the same free fetch.
 * - Jobs of a resting host (host_backoff) stay where they are until the rest ends. Jobs of
 *   products removed meanwhile are dropped.
 *
 * `lane`: 'browser' claims only products remembered as needing the browser, 'static' only the
 * others, so a worker keeps static checks flowing while renders take their time; both when absent.
 */
export async function claimJobs(
  sql: Sql,
  opts: { workerId: string; limit: number; leaseSeconds?: number; lane?: 'static' | 'browser'; perHost?: number },
): Promise<ClaimedJob[]> {
  const lease = crypto.randomUUID();
  const leaseSeconds = opts.leaseSeconds ?? LEASE_SECONDS;
  const lane = opts.lane ?? null;
  const perHost = opts.perHost ?? MAX_FETCHES_PER_HOST;
  const rows = await transaction(sql, async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(hashtext('checks:claim'))`;
    // Pages being fetched, by shop: one per claim and url, as a worker fetches a url once for its products.
    const fetching = new Map(
      (
        await tx<{ host: string; pages: number }[]>`
      SELECT host, count(DISTINCT (lease, url))::int AS pages FROM check_jobs
      WHERE lease IS NOT NULL AND claimed_at > now() - make_interval(secs => ${leaseSeconds})
      GROUP BY host`
      ).map((f) => [f.host, f.pages]),
    );
    const full = [...fetching].filter(([, pages]) => pages >= perHost).map(([host]) => host);
    let chosen: ClaimCandidate[] = [];
    for (let round = 0; round < ROUNDS_PER_CLAIM && !chosen.length; round++) {
      const users = await usersInTurn(tx, lastUserLookedAt, opts.limit, leaseSeconds);
      if (!users.length) break;
      lastUserLookedAt = users.at(-1)!;
      // The first `limit` claimable jobs of each user's line, in line order, passing over jobs of
      // shops with every fetch taken among the first few (a bounded look, so a long line stays cheap).
      const candidates = (
        await tx<ClaimCandidate[]>`
        SELECT j.product_id AS "productId", j.user_id AS "userId", j.host, j.url, j.run_at AS "runAt"
        FROM unnest(${users}::text[]) AS u(user_id) CROSS JOIN LATERAL (
          SELECT * FROM (
            SELECT * FROM check_jobs j
            WHERE j.user_id = u.user_id AND j.run_at <= now()
              AND (j.claimed_at IS NULL OR j.claimed_at <= now() - make_interval(secs => ${leaseSeconds}))
              AND NOT EXISTS (SELECT 1 FROM host_backoff b WHERE b.host = j.host AND b.until > now())
              AND (${lane}::text IS NULL OR (${lane}::text = 'browser') = EXISTS (SELECT 1 FROM check_render r WHERE r.product_id = j.product_id))
            ORDER BY j.run_at, hashtext(j.url)
            LIMIT ${opts.limit * LOOK_AHEAD}
          ) j
          WHERE j.host IS NULL OR j.host <> ALL(${full}::text[])
          ORDER BY j.run_at, hashtext(j.url)
          LIMIT ${opts.limit}
        ) j
        ORDER BY j.user_id, j.run_at, hashtext(j.url)`
      ).map((c) => ({ ...c, runAt: new Date(c.runAt) }));
      chosen = chooseJobs(candidates, { limit: opts.limit, perHost, fetching });
      // Fewer users than asked for: the round went past every user.
      if (users.length < opts.limit) break;
    }
    if (!chosen.length) return [];
    return tx<
      ({
        productId: string;
        userId: string | null;
        url: string | null;
        selector: string | null;
        attempts: number;
        rendersSinceStatic: number | null;
        staticCheckedAt: Date | null;
      } & ReadingRow)[]
    >`
      WITH picked AS (
        SELECT product_id FROM check_jobs WHERE product_id = ANY(${chosen.map((c) => c.productId)}::text[])
        FOR UPDATE SKIP LOCKED
      )
      UPDATE check_jobs j SET lease = ${lease}, claimed_by = ${opts.workerId}, claimed_at = now(), attempts = j.attempts + 1
      FROM picked LEFT JOIN products p ON p.id = picked.product_id
        LEFT JOIN check_render r ON r.product_id = picked.product_id AND r.url = p.url
        LEFT JOIN check_reading c ON c.product_id = picked.product_id
        LEFT JOIN events e ON e.global_position = c.observation AND e.type = 'PriceObserved' AND e.data->>'productId' = c.product_id
      WHERE j.product_id = picked.product_id
      RETURNING j.product_id AS "productId", p.user_id AS "userId", p.url, p.selector, j.attempts,
        r.renders_since_static AS "rendersSinceStatic", r.static_checked_at AS "staticCheckedAt",
        c.reading_key AS "readingKey", c.bytes_key AS "bytesKey", c.page_hash AS "pageHash", c.selector_failure AS "selectorFailure",
        e.data AS observation, e.schema_version AS "schemaVersion"`;
  });
  const gone = rows.filter((r) => r.userId === null).map((r) => r.productId);
  if (gone.length) {
    await sql`DELETE FROM check_jobs WHERE product_id = ANY(${gone}::text[]) AND lease = ${lease}`;
    await sql`DELETE FROM check_render WHERE product_id = ANY(${gone}::text[])`;
    await sql`DELETE FROM check_reading WHERE product_id = ANY(${gone}::text[])`;
  }
  return rows
    .filter((r) => r.userId !== null)
    .map(({ rendersSinceStatic, staticCheckedAt, readingKey, bytesKey, pageHash, observation, schemaVersion, selectorFailure, ...r }) => ({
      ...r,
      userId: r.userId!,
      url: r.url!,
      selector: r.selector!,
      lease,
      render: rendersSinceStatic === null ? null : { rendersSinceStatic, staticCheckedAt: new Date(staticCheckedAt!) },
      reading: readingOf({ readingKey, bytesKey, pageHash, observation, schemaVersion, selectorFailure }),
    }));
}

/** The products' last static readings (for checks not claimed from the queue: Check Now). */
export async function lastReadings(sql: Sql, productIds: readonly string[]): Promise<Map<string, ReadingMemory>> {
  const rows = await sql<({ productId: string } & ReadingRow)[]>`
    SELECT c.product_id AS "productId", c.reading_key AS "readingKey", c.bytes_key AS "bytesKey", c.page_hash AS "pageHash",
      c.selector_failure AS "selectorFailure",
      e.data AS observation, e.schema_version AS "schemaVersion"
    FROM check_reading c LEFT JOIN events e ON e.global_position = c.observation AND e.type = 'PriceObserved' AND e.data->>'productId' = c.product_id
    WHERE c.product_id = ANY(${productIds}::text[])`;
  return new Map(
    rows.flatMap(({ productId, ...row }) => {
      const reading = readingOf(row);
      return reading ? [[productId, reading]] : [];
    }),
  );
}

/** Remembers the static readings of recorded checks, each as the position of the observation it reads as. */
export async function rememberReadings(
  tx: Sql,
  readings: readonly ({ productId: string; position: number; selectorFailure: ExtractionFailureCode | null } & ReadingKeys)[],
): Promise<void> {
  if (!readings.length) return;
  await tx`
    INSERT INTO check_reading (product_id, reading_key, bytes_key, page_hash, observation, selector_failure)
    SELECT * FROM unnest(${readings.map((r) => r.productId)}::text[], ${readings.map((r) => r.key)}::text[], ${readings.map((r) => r.bytesKey)}::text[],
                         ${readings.map((r) => r.pageHash)}::text[], ${readings.map((r) => r.position)}::bigint[], ${readings.map((r) => r.selectorFailure)}::text[])
    ON CONFLICT (product_id) DO UPDATE
      SET reading_key = excluded.reading_key, bytes_key = excluded.bytes_key, page_hash = excluded.page_hash,
          observation = excluded.observation, selector_failure = excluded.selector_failure`;
}

/**
 * Up to `count` users with a due job nobody holds, the next after `after` in id order, going
 * round to the first ones past the last. Each is found by one look-up in the user lines' index (a
 * skip scan), so the cost does not grow with the jobs waiting.
 */
async function usersInTurn(tx: Sql, after: string, count: number, leaseSeconds: number): Promise<string[]> {
  const waiting = tx`j.run_at <= now() AND (j.claimed_at IS NULL OR j.claimed_at <= now() - make_interval(secs => ${leaseSeconds}))`;
  const rows = await tx<{ userId: string }[]>`
    WITH RECURSIVE turn(user_id, n) AS (
      SELECT ${after}::text, 0
      UNION ALL
      SELECT coalesce(
        (SELECT j.user_id FROM check_jobs j WHERE j.user_id > t.user_id AND ${waiting} ORDER BY j.user_id LIMIT 1),
        (SELECT j.user_id FROM check_jobs j WHERE ${waiting} ORDER BY j.user_id LIMIT 1)), t.n + 1
      FROM turn t WHERE t.user_id IS NOT NULL AND t.n < ${count}
    )
    SELECT user_id AS "userId" FROM turn WHERE n > 0 AND user_id IS NOT NULL ORDER BY n`;
  // Fewer users than asked for: the look-ups went round, and each user counts once.
  return [...new Set(rows.map((r) => r.userId))];
}

/**
 * Hands claimed jobs back unchecked (their host began to rest after the claim): the claim does
 * not count as an attempt, and the jobs are claimed again once the rest is over.
 */
export async function releaseJobs(sql: Sql, jobs: readonly { productId: string; lease: string }[]): Promise<void> {
  if (!jobs.length) return;
  await sql`
    UPDATE check_jobs j SET lease = NULL, claimed_by = NULL, claimed_at = NULL, attempts = greatest(j.attempts - 1, 0)
    FROM unnest(${jobs.map((j) => j.productId)}::text[], ${jobs.map((j) => j.lease)}::uuid[]) AS f(product_id, lease)
    WHERE j.product_id = f.product_id AND j.lease = f.lease`;
}

/**
 * Removes finished jobs inside the caller's transaction and answers the ones that were still
 * this worker's: a job whose lease ran out and was claimed again belongs to the other worker,
 * which records it. A check run by hand (lease null) also takes the product's job if no worker
 * holds it yet, since the product has just been checked.
 */
export async function finishJobs(tx: Sql, jobs: { productId: string; lease: string | null }[]): Promise<Set<string>> {
  const leased = jobs.filter((j) => j.lease !== null);
  const byHand = jobs.filter((j) => j.lease === null).map((j) => j.productId);
  const owned = new Set(byHand);
  if (leased.length) {
    const rows = await tx<{ product_id: string }[]>`
      DELETE FROM check_jobs j USING unnest(${leased.map((j) => j.productId)}::text[], ${leased.map((j) => j.lease!)}::uuid[]) AS f(product_id, lease)
      WHERE j.product_id = f.product_id AND j.lease = f.lease
      RETURNING j.product_id`;
    for (const r of rows) owned.add(r.product_id);
  }
  if (byHand.length) await tx`DELETE FROM check_jobs WHERE product_id = ANY(${byHand}::text[]) AND lease IS NULL`;
  return owned;
}

type Candidate = {
  id: string;
  user_id: string;
  url: string;
  plan: string | null;
  check_frequency: CheckFrequencySetting | null;
  last_check_at: Date | null;
  consecutive_failures: number;
  updated_at: Date;
};

/** How often the server's tick enqueues due checks: each tick also queues those due before the next, for their time. */
export const ENQUEUE_TICK_MS = 60_000;

/**
 * The cron tick: enqueues every product that is due and has no job yet, except products beyond
 * their owner's plan (paused until an upgrade or a removal: products/beyond-plan.ts). An advisory lock makes
 * a tick that overlaps another (several API replicas, or a slow tick) do nothing.
 * `aheadMs`: products due within that time are queued too, to run at their due time (run_at),
 * so a check starts at its slot rather than at the first tick after it.
 * The database narrows the candidates with each product's normal interval, counted from its slot
 * as `nextCheckAt` counts it (the same hash and arithmetic, in 64-bit integers); `nextCheckAt` decides,
 * with backoff for failing products.
 */
export async function enqueueDueChecks(ctx: { sql: Sql; config: Config }, now = new Date(), opts: { aheadMs?: number } = {}): Promise<number> {
  const rules = { demoCheckMinutes: ctx.config.demoCheckMinutes };
  const horizon = new Date(now.getTime() + (opts.aheadMs ?? 0));
  const demoPrefix = demoShopPrefix(ctx.config);
  return transaction(ctx.sql, async (tx) => {
    const [lock] = await tx<{ ok: boolean }[]>`SELECT pg_try_advisory_xact_lock(hashtext('checks:enqueue')) AS ok`;
    if (!lock?.ok) return 0;
    const candidates = await tx<Candidate[]>`
      WITH plan_minutes AS (SELECT * FROM unnest(${PLAN_MINUTES.map(([id]) => id)}::text[], ${PLAN_MINUTES.map(([, m]) => m)}::int[]) AS t(plan, minutes)),
           frequency_minutes AS (SELECT * FROM unnest(${Object.keys(CHECK_FREQUENCY_MINUTES)}::text[], ${Object.values(CHECK_FREQUENCY_MINUTES)}::int[]) AS t(frequency, minutes)),
           waiting AS (
             SELECT p.id, p.user_id, p.url, coalesce(u.subscription_plan, u.plan) AS plan, s.check_frequency, p.last_check_at, p.consecutive_failures, p.updated_at,
               60000::bigint * CASE
                 WHEN ${demoPrefix ?? ''} <> '' AND starts_with(p.url, ${demoPrefix ?? ''}) THEN ${rules.demoCheckMinutes}
                 ELSE greatest(coalesce(pm.minutes, ${PLANS.free.checkIntervalMinutes}), coalesce(fm.minutes, 0)) END AS interval_ms,
               floor(extract(epoch FROM p.last_check_at) * 1000)::bigint AS checked_ms
             FROM products p
             LEFT JOIN users u ON u.id = p.user_id
             LEFT JOIN user_settings s ON s.user_id = p.user_id
             LEFT JOIN plan_minutes pm ON pm.plan = coalesce(u.subscription_plan, u.plan)
             LEFT JOIN frequency_minutes fm ON fm.frequency = s.check_frequency
             WHERE NOT EXISTS (SELECT 1 FROM check_jobs j WHERE j.product_id = p.id)
               AND p.id NOT IN (${productsBeyondPlan(tx, null)})
           )
      SELECT id, user_id, url, plan, check_frequency, last_check_at, consecutive_failures, updated_at FROM waiting w
      WHERE w.last_check_at IS NULL OR w.updated_at > w.last_check_at
        -- Never due before half an interval; past that, due one interval after the slot nearest the last check.
        OR (w.last_check_at <= ${horizon}::timestamptz - make_interval(secs => w.interval_ms / 2000.0)
            AND w.checked_ms + w.interval_ms / 2
                - (w.checked_ms - ((('x' || left(md5(w.id), 8))::bit(32)::bigint * w.interval_ms) >> 32) + w.interval_ms / 2) % w.interval_ms
                + w.interval_ms <= ${horizon.getTime()}::bigint)`;
    const due = candidates
      .map((c) => ({
        ...c,
        at: nextCheckAt(
          {
            productId: c.id,
            plan: c.plan,
            checkFrequency: c.check_frequency,
            demoShop: isDemoShopUrl(ctx.config, c.url),
            lastCheckAt: c.last_check_at,
            consecutiveFailures: c.consecutive_failures,
            editedAt: c.updated_at,
          },
          rules,
        ),
      }))
      .filter((c) => c.at <= horizon);
    if (!due.length) return 0;
    // Due by now: queued to run at once; due before the horizon: at its time.
    const runAt = due.map((c) => (c.at > now ? c.at.toISOString() : null));
    const inserted = await tx`
      INSERT INTO check_jobs (product_id, user_id, url, host, run_at)
      SELECT product_id, user_id, url, host, coalesce(run_at, now())
      FROM unnest(${due.map((c) => c.id)}::text[], ${due.map((c) => c.user_id)}::text[], ${due.map((c) => c.url)}::text[], ${due.map((c) => hostOf(c.url))}::text[],
        ${runAt}::timestamptz[]) AS t(product_id, user_id, url, host, run_at)
      ON CONFLICT (product_id) DO NOTHING
      RETURNING product_id`;
    return inserted.length;
  });
}

/** Puts a product's check in the queue now (for tools and tests); false when one is already queued or the product is unknown. */
export async function enqueueCheck(sql: Sql, productId: string, url: string): Promise<boolean> {
  const rows = await sql`
    INSERT INTO check_jobs (product_id, user_id, url, host)
    SELECT id, user_id, ${url}, ${hostOf(url)} FROM products WHERE id = ${productId}
    ON CONFLICT DO NOTHING RETURNING product_id`;
  return rows.length > 0;
}

/**
 * A new product, or a product at a new address, is checked at once rather than at the next cron
 * tick, so its first price shows within seconds. A job already waiting (not yet claimed) takes the
 * new address. This process's idle workers are woken; workers elsewhere find the job at their next
 * look (a second at most). Call it once the product is in the read models: a worker drops a job
 * whose product it cannot find.
 */
export async function checkSoon(sql: Sql, product: { productId: string; userId: string; url: string }): Promise<void> {
  await sql`
    INSERT INTO check_jobs (product_id, user_id, url, host) VALUES (${product.productId}, ${product.userId}, ${product.url}, ${hostOf(product.url)})
    ON CONFLICT (product_id) DO UPDATE SET url = EXCLUDED.url, host = EXCLUDED.host WHERE check_jobs.lease IS NULL`;
  wakeWorkers();
}

/**
 * Queues checks of many products of one user (a CSV import's first checks, a bulk "Check now")
 * politely: each shop's pages one after another (staggerByHost), after the checks it already has
 * waiting. A job already waiting keeps the earlier of its time and the new one; a running one is
 * left alone. A resting host (host_backoff) is not asked before its rest ends: claims skip it.
 * Call it once the products are in the read models, like `checkSoon`. Answers how many were queued.
 */
export async function queueChecksPolitely(
  sql: Sql,
  userId: string,
  products: readonly { productId: string; url: string }[],
  now = new Date(),
): Promise<number> {
  if (!products.length) return 0;
  const hosts = [...new Set(products.map((p) => hostOf(p.url)).filter((h): h is string => h !== null))];
  const queued = await sql<{ host: string; last: Date }[]>`
    SELECT host, max(run_at) AS last FROM check_jobs WHERE host = ANY(${hosts}::text[]) AND run_at > ${now} GROUP BY host`;
  const checks = staggerByHost(products, now, new Map(queued.map((q) => [q.host, new Date(q.last)])));
  const rows = await sql`
    INSERT INTO check_jobs (product_id, user_id, url, host, run_at)
    SELECT c.product_id, ${userId}, c.url, c.host, c.run_at FROM unnest(${checks.map((c) => c.productId)}::text[], ${checks.map((c) => c.url)}::text[],
      ${checks.map((c) => c.host)}::text[], ${checks.map((c) => c.runAt.toISOString())}::timestamptz[]) AS c(product_id, url, host, run_at)
    ON CONFLICT (product_id) DO UPDATE SET url = EXCLUDED.url, host = EXCLUDED.host, run_at = least(check_jobs.run_at, EXCLUDED.run_at)
      WHERE check_jobs.lease IS NULL
    RETURNING product_id`;
  wakeWorkers();
  return rows.length;
}

const sleepers = new Set<() => void>();

/** Ends the idle pause of this process's workers. */
export function wakeWorkers(): void {
  for (const wake of sleepers) wake();
}

/** Calls `wake` whenever a job is queued in this process, until the returned function is called. */
export function onWake(wake: () => void): () => void {
  sleepers.add(wake);
  return () => {
    sleepers.delete(wake);
  };
}
