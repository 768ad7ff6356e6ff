/**
 * How long a claim takes with 100,000 jobs waiting:
 *
 *   bun bench/checks/claim.ts
 *
 * Needs a PostgreSQL server (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres); a
 * scratch database is created and dropped. Only the queue is seeded (no products), so every claimed
 * job counts as a removed product's and is dropped: the claim does that work too.
 *
 * Cases: one user with 100,000 due jobs on 20 shops beside 200 users with one each; the same with
 * every one of those 20 shops at its limit (being fetched by other workers); 10,000 users with 10
 * due jobs each on 500 shops. Prints the median and 95th percentile of 200 claims of 32 jobs, and
 * EXPLAIN ANALYZE of the claim's two look-ups (the users in turn, their lines).
 */
import postgres from 'postgres';
import { loadConfig } from '../../api/config.ts';
import { createContext } from '../../api/create-context.ts';
import { openDatabase, type Sql } from '../../db/index.ts';
import { claimJobs } from '../../api/checks/queue.ts';
import { MAX_FETCHES_PER_HOST } from '../../api/fetching/fetcher.ts';

const CLAIMS = 200;
const LIMIT = 32;

async function main() {
  const serverUrl = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `pricewatch_bench_claim_${Date.now().toString(36)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const ctx = await createContext(loadConfig({ DATABASE_URL: url.toString() }), { database: await openDatabase({ url: url.toString(), max: 2 }) });
  try {
    console.log(`claims of ${LIMIT} jobs, ${CLAIMS} in a row | median ms | p95 ms | EXPLAIN ANALYZE: users in turn, their lines (ms)`);
    await seed(
      ctx.sql,
      `
      SELECT 'heavy-' || i, 'heavy', 'https://shop-' || (i % 20) || '.example/p/' || i, 'shop-' || (i % 20) || '.example', now() - interval '1 hour'
      FROM generate_series(1, 100000) i
      UNION ALL
      SELECT 'light-' || i, 'light-' || i, 'https://small-' || i || '.example/p', 'small-' || i || '.example', now() - interval '1 minute'
      FROM generate_series(1, 200) i`,
    );
    await report(ctx.sql, 'one user with 100,000 due, 200 users with one');

    await ctx.sql`
      UPDATE check_jobs SET lease = gen_random_uuid(), claimed_by = 'elsewhere', claimed_at = now()
      WHERE product_id IN (SELECT product_id FROM (
        SELECT product_id, row_number() OVER (PARTITION BY host ORDER BY product_id) AS n FROM check_jobs WHERE user_id = 'heavy') t
        WHERE n <= ${MAX_FETCHES_PER_HOST})`;
    await report(ctx.sql, 'the same, its 20 shops all busy');

    await seed(
      ctx.sql,
      `
      SELECT 'p-' || i, 'user-' || (i % 10000), 'https://shop-' || (i % 500) || '.example/p/' || i, 'shop-' || (i % 500) || '.example', now() - (i % 600) * interval '1 second'
      FROM generate_series(1, 100000) i`,
    );
    await report(ctx.sql, '10,000 users with 10 due each');
  } finally {
    await ctx.close();
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

async function seed(sql: Sql, rows: string) {
  await sql`DELETE FROM check_jobs`;
  await sql.unsafe(`INSERT INTO check_jobs (product_id, user_id, url, host, run_at) ${rows}`);
  await sql`VACUUM ANALYZE check_jobs`;
}

async function report(sql: Sql, label: string) {
  const times: number[] = [];
  for (let i = 0; i < CLAIMS; i++) {
    const started = performance.now();
    await claimJobs(sql, { workerId: 'bench', limit: LIMIT, lane: 'static' });
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const [users, lines] = await explained(sql);
  console.log(
    `${label.padEnd(48)} | ${times[CLAIMS / 2]!.toFixed(2).padStart(6)} | ${times[Math.floor(CLAIMS * 0.95)]!.toFixed(2).padStart(6)} | ${users}, ${lines}`,
  );
}

/** Execution times of the claim's look-ups as EXPLAIN ANALYZE reports them (the statements of claimJobs). */
async function explained(sql: Sql): Promise<[string, string]> {
  const time = (plan: { 'QUERY PLAN': string }[]) =>
    plan
      .map((r) => r['QUERY PLAN'])
      .find((l) => l.startsWith('Execution Time'))!
      .replace(/[^\d.]/g, '');
  const waiting = `j.run_at <= now() AND (j.claimed_at IS NULL OR j.claimed_at <= now() - make_interval(secs => 300))`;
  const users = await sql.unsafe(`EXPLAIN ANALYZE
    WITH RECURSIVE turn(user_id, n) AS (
      SELECT ''::text, 0
      UNION ALL
      SELECT coalesce(
        (SELECT j.user_id FROM check_jobs j WHERE j.user_id > t.user_id AND ${waiting} ORDER BY j.user_id LIMIT 1),
        (SELECT j.user_id FROM check_jobs j WHERE ${waiting} ORDER BY j.user_id LIMIT 1)), t.n + 1
      FROM turn t WHERE t.user_id IS NOT NULL AND t.n < ${LIMIT}
    )
    SELECT user_id FROM turn WHERE n > 0 AND user_id IS NOT NULL ORDER BY n`);
  const ids = (await sql.unsafe(`SELECT DISTINCT user_id FROM check_jobs ORDER BY user_id LIMIT ${LIMIT}`)).map((r) => r.user_id as string);
  const lines = await sql.unsafe(
    `EXPLAIN ANALYZE
    SELECT j.product_id, j.user_id, j.host, j.url, j.run_at
    FROM unnest($1::text[]) AS u(user_id) CROSS JOIN LATERAL (
      SELECT * FROM (
        SELECT * FROM check_jobs j
        WHERE j.user_id = u.user_id AND ${waiting}
          AND NOT EXISTS (SELECT 1 FROM host_backoff b WHERE b.host = j.host AND b.until > now())
          AND NOT EXISTS (SELECT 1 FROM check_render r WHERE r.product_id = j.product_id)
        ORDER BY j.run_at, hashtext(j.url)
        LIMIT ${LIMIT * 4}
      ) j
      WHERE j.host IS NULL OR j.host <> ALL(ARRAY(SELECT DISTINCT host FROM check_jobs WHERE lease IS NOT NULL))
      ORDER BY j.run_at, hashtext(j.url)
      LIMIT ${LIMIT}
    ) j
    ORDER BY j.user_id, j.run_at, hashtext(j.url)`,
    [ids],
  );
  return [time(users as never), time(lines as never)];
}

await main();
