/**
 * What the shared API-key rate limit costs per request: the one statement that refills and takes
 * a token in PostgreSQL, for one key taken by 16 callers at once (every request of one client
 * queues on its bucket's row) and for 1,000 keys. On the configured database (DATABASE_URL,
 * else PGlite). Prints figures; it is not a test. Usage: bun bench/api/rate-limit.ts [--requests N]
 */
import { testDatabase } from '../../api/testing/database.ts';
import { createRateLimiter, RATE_LIMIT_DDL } from '../../api/public-api/rate-limit.ts';

const i = process.argv.indexOf('--requests');
const REQUESTS = i > 0 ? Number(process.argv[i + 1]) : 20_000;
const CALLERS = 16;

const db = await testDatabase({ max: CALLERS });
await db.sql.unsafe(RATE_LIMIT_DDL);
// A bucket that never runs dry, so every request does the whole refill-and-take.
const take = createRateLimiter(db.sql, { capacity: 1e12, perSecond: 1e9 });

async function run(label: string, keyOf: (n: number) => string) {
  const ms: number[] = [];
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      while (next < REQUESTS) {
        const n = next++;
        const s = performance.now();
        await take(keyOf(n));
        ms.push(performance.now() - s);
      }
    }),
  );
  const seconds = (performance.now() - t) / 1000;
  ms.sort((a, b) => a - b);
  console.log(
    `${label.padEnd(22)} ${Math.round(REQUESTS / seconds)
      .toLocaleString('en-GB')
      .padStart(7)} takes/s, p50 ${ms[Math.floor(ms.length / 2)]!.toFixed(2)} ms, p99 ${ms[Math.floor(ms.length * 0.99)]!.toFixed(2)} ms`,
  );
}

console.log(
  `${REQUESTS.toLocaleString('en-GB')} requests from ${CALLERS} callers at once, ${process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded PGlite'}`,
);
await run('one key', () => 'key-1');
await run('1,000 keys', (n) => `key-${n % 1000}`);
await db.close();
