import { transaction, type Sql } from '../db.ts';
import type { Config } from '../config.ts';
import { PLAN_MINUTES, FREQUENCY_MINUTES, isDue, type CheckFrequencySetting } from './schedule.ts';
import { PLANS } from '../billing/plans.ts';
import { demoShopPrefix, isDemoShopUrl } from '../demo-shop/address.ts';
import { hostOf } from './host-backoff.ts';
import { staggerByHost } from './stagger.ts';

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
-- Claim order: products sharing a url sit together (one fetch serves them), while different
-- pages of one shop are spread out, so a batch does not queue up behind one host's politeness limit.
CREATE INDEX IF NOT EXISTS check_jobs_claim_order ON check_jobs (run_at, hashtext(url));
-- The host rests together when the shop turns checks away (host_backoff); set on enqueue.
ALTER TABLE check_jobs ADD COLUMN IF NOT EXISTS host text;
-- Products whose page (at this url) shows its price only once rendered: later checks go straight
-- to the browser, and static is tried again every few renders or once a day (see check.ts).
-- Operational, like the jobs: a row outlives its jobs, so it is a table of its own.
CREATE TABLE IF NOT EXISTS check_render (
  product_id           text PRIMARY KEY,
  url                  text NOT NULL,
  renders_since_static integer NOT NULL DEFAULT 0,
  static_checked_at    timestamptz NOT NULL DEFAULT now()
);
`;

/** What a check remembers of a page that needed the browser. */
export type RenderMemory = { rendersSinceStatic: number; staticCheckedAt: Date };

/** A worker that holds a job this long without finishing is presumed dead. */
export const LEASE_SECONDS = 300;
/** A job claimed this many times without finishing is given up (recorded as a failed check). */
export const MAX_ATTEMPTS = 3;

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
};

/**
 * Claims up to `limit` due jobs, oldest first and grouped by url (see the claim order index).
 * Jobs of products removed meanwhile are dropped. Jobs of a resting host (host_backoff) stay
 * where they are until the rest ends.
 */
/**
 * `lane`: 'browser' claims only products remembered as needing the browser, 'static' only the
 * others, so a worker keeps static checks flowing while renders take their time; both when absent.
 */
export async function claimJobs(sql: Sql, opts: { workerId: string; limit: number; leaseSeconds?: number; lane?: 'static' | 'browser' }): Promise<ClaimedJob[]> {
  const lease = crypto.randomUUID();
  const rows = await sql<{ productId: string; userId: string | null; url: string | null; selector: string | null; attempts: number; rendersSinceStatic: number | null; staticCheckedAt: Date | null }[]>`
    WITH picked AS (
      SELECT product_id FROM check_jobs
      WHERE run_at <= now() AND (claimed_at IS NULL OR claimed_at <= now() - make_interval(secs => ${opts.leaseSeconds ?? LEASE_SECONDS}))
        AND NOT EXISTS (SELECT 1 FROM host_backoff b WHERE b.host = check_jobs.host AND b.until > now())
        AND (${opts.lane ?? null}::text IS NULL
          OR (${opts.lane ?? null}::text = 'browser') = EXISTS (SELECT 1 FROM check_render r WHERE r.product_id = check_jobs.product_id))
      ORDER BY run_at, hashtext(url)
      LIMIT ${opts.limit}
      FOR UPDATE SKIP LOCKED
    )
    UPDATE check_jobs j SET lease = ${lease}, claimed_by = ${opts.workerId}, claimed_at = now(), attempts = j.attempts + 1
    FROM picked LEFT JOIN products p ON p.id = picked.product_id
      LEFT JOIN check_render r ON r.product_id = picked.product_id AND r.url = p.url
    WHERE j.product_id = picked.product_id
    RETURNING j.product_id AS "productId", p.user_id AS "userId", p.url, p.selector, j.attempts,
      r.renders_since_static AS "rendersSinceStatic", r.static_checked_at AS "staticCheckedAt"`;
  const gone = rows.filter((r) => r.userId === null).map((r) => r.productId);
  if (gone.length) {
    await sql`DELETE FROM check_jobs WHERE product_id = ANY(${gone}::text[]) AND lease = ${lease}`;
    await sql`DELETE FROM check_render WHERE product_id = ANY(${gone}::text[])`;
  }
  return rows.filter((r) => r.userId !== null).map(({ rendersSinceStatic, staticCheckedAt, ...r }) => ({
    ...r, userId: r.userId!, url: r.url!, selector: r.selector!, lease,
    render: rendersSinceStatic === null ? null : { rendersSinceStatic, staticCheckedAt: new Date(staticCheckedAt!) },
  }));
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
  id: string; url: string; plan: string | null; check_frequency: CheckFrequencySetting | null;
  last_check_at: Date | null; consecutive_failures: number; updated_at: Date;
};

/**
 * The cron tick: enqueues every product that is due and has no job yet. An advisory lock makes
 * a tick that overlaps another (several API replicas, or a slow tick) do nothing.
 * The database narrows the candidates with each product's normal interval; `isDue` decides,
 * with backoff for failing products.
 */
export async function enqueueDueChecks(ctx: { sql: Sql; config: Config }, now = new Date()): Promise<number> {
  const rules = { demoCheckMinutes: ctx.config.demoCheckMinutes };
  const demoPrefix = demoShopPrefix(ctx.config);
  return transaction(ctx.sql, async (tx) => {
    const [lock] = await tx<{ ok: boolean }[]>`SELECT pg_try_advisory_xact_lock(hashtext('checks:enqueue')) AS ok`;
    if (!lock?.ok) return 0;
    const candidates = await tx<Candidate[]>`
      WITH plan_minutes AS (SELECT * FROM unnest(${PLAN_MINUTES.map(([id]) => id)}::text[], ${PLAN_MINUTES.map(([, m]) => m)}::int[]) AS t(plan, minutes)),
           frequency_minutes AS (SELECT * FROM unnest(${Object.keys(FREQUENCY_MINUTES)}::text[], ${Object.values(FREQUENCY_MINUTES)}::int[]) AS t(frequency, minutes))
      SELECT p.id, p.url, coalesce(u.subscription_plan, u.plan) AS plan, s.check_frequency, p.last_check_at, p.consecutive_failures, p.updated_at
      FROM products p
      LEFT JOIN users u ON u.id = p.user_id
      LEFT JOIN user_settings s ON s.user_id = p.user_id
      LEFT JOIN plan_minutes pm ON pm.plan = coalesce(u.subscription_plan, u.plan)
      LEFT JOIN frequency_minutes fm ON fm.frequency = s.check_frequency
      WHERE NOT EXISTS (SELECT 1 FROM check_jobs j WHERE j.product_id = p.id)
        AND (p.last_check_at IS NULL OR p.updated_at > p.last_check_at
             OR p.last_check_at <= ${now} - make_interval(mins => CASE
                  WHEN ${demoPrefix ?? ''} <> '' AND starts_with(p.url, ${demoPrefix ?? ''}) THEN ${rules.demoCheckMinutes}
                  ELSE greatest(coalesce(pm.minutes, ${PLANS.free.checkIntervalMinutes}), coalesce(fm.minutes, 0)) END))`;
    const due = candidates.filter((c) => isDue({
      plan: c.plan, checkFrequency: c.check_frequency, demoShop: isDemoShopUrl(ctx.config, c.url),
      lastCheckAt: c.last_check_at, consecutiveFailures: c.consecutive_failures, editedAt: c.updated_at,
    }, now, rules));
    if (!due.length) return 0;
    const inserted = await tx`
      INSERT INTO check_jobs (product_id, url, host)
      SELECT * FROM unnest(${due.map((c) => c.id)}::text[], ${due.map((c) => c.url)}::text[], ${due.map((c) => hostOf(c.url))}::text[])
      ON CONFLICT (product_id) DO NOTHING
      RETURNING product_id`;
    return inserted.length;
  });
}

/** Puts a product's check in the queue now (for tools and tests); false when one is already queued. */
export async function enqueueCheck(sql: Sql, productId: string, url: string): Promise<boolean> {
  const rows = await sql`INSERT INTO check_jobs (product_id, url, host) VALUES (${productId}, ${url}, ${hostOf(url)}) ON CONFLICT DO NOTHING RETURNING product_id`;
  return rows.length > 0;
}

/**
 * A new product, or a product at a new address, is checked at once rather than at the next cron
 * tick, so its first price shows within seconds. A job already waiting (not yet claimed) takes the
 * new address. This process's idle workers are woken; workers elsewhere find the job at their next
 * look (a second at most). Call it once the product is in the read models: a worker drops a job
 * whose product it cannot find.
 */
export async function checkSoon(sql: Sql, productId: string, url: string): Promise<void> {
  await sql`
    INSERT INTO check_jobs (product_id, url, host) VALUES (${productId}, ${url}, ${hostOf(url)})
    ON CONFLICT (product_id) DO UPDATE SET url = EXCLUDED.url, host = EXCLUDED.host WHERE check_jobs.lease IS NULL`;
  wakeWorkers();
}

/**
 * Queues checks of many products (a CSV import's first checks, a bulk "Check now") politely:
 * each shop's pages one after another (staggerByHost), after the checks it already has waiting.
 * A job already waiting keeps the earlier of its time and the new one; a running one is left
 * alone. A resting host (host_backoff) is not asked before its rest ends: claims skip it.
 * Call it once the products are in the read models, like `checkSoon`. Answers how many were queued.
 */
export async function queueChecksPolitely(sql: Sql, products: readonly { productId: string; url: string }[], now = new Date()): Promise<number> {
  if (!products.length) return 0;
  const hosts = [...new Set(products.map((p) => hostOf(p.url)).filter((h): h is string => h !== null))];
  const queued = await sql<{ host: string; last: Date }[]>`
    SELECT host, max(run_at) AS last FROM check_jobs WHERE host = ANY(${hosts}::text[]) AND run_at > ${now} GROUP BY host`;
  const checks = staggerByHost(products, now, new Map(queued.map((q) => [q.host, new Date(q.last)])));
  const rows = await sql`
    INSERT INTO check_jobs (product_id, url, host, run_at)
    SELECT * FROM unnest(${checks.map((c) => c.productId)}::text[], ${checks.map((c) => c.url)}::text[],
      ${checks.map((c) => c.host)}::text[], ${checks.map((c) => c.runAt.toISOString())}::timestamptz[])
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
  return () => { sleepers.delete(wake); };
}
