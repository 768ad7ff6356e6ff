/**
 * What a check costs in the log: N Check Nows of one product on a loopback shop whose page changes
 * on every visit (a token and a time, as real pages do), first while the price stays at £149.00,
 * then while it moves on every check. Prints the bytes the log (events, price_checks and streams:
 * tables and indexes) grew by per check, after a hundred uncounted checks of each kind, on the
 * configured database (DATABASE_URL, else PGlite). A first run on an empty table also pays for its
 * first pages and maps; the last figure, 20,000 unchanged checks recorded as the workers do, is
 * the steady cost.
 * Prints figures; it is not a test. Usage: bun bench/checks/log-bytes.ts [--checks N]
 */
import { createApp } from '../../api/server.ts';
import { testContext } from '../../api/testing/database.ts';
import { signInDemo } from '../../api/testing/sign-in.ts';
import { checkPage, recordOutcomes, type CheckOutcome } from '../../api/checks/check.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const CHECKS = arg('checks', 400);
const ORIGIN = 'http://localhost:3000';

// A product page of a realistic size (about 60 kB of markup) around the price.
const filler = Array.from({ length: 400 }, (_, i) => `<li class="spec"><span>Feature ${i}</span> <span>Value ${i * 7}</span></li>`).join('');
let price = '149.00';
const shop = Bun.serve({
  hostname: '127.0.0.1',
  port: 0,
  fetch: () =>
    new Response(
      `<!doctype html><html><head><title>Espresso Grinder</title><meta name="csrf" content="${crypto.randomUUID()}"></head>
     <body><h1>Espresso Grinder</h1><p class="price">£${price}</p><p>Rendered at ${new Date().toISOString()}</p><ul>${filler}</ul></body></html>`,
      { headers: { 'content-type': 'text/html; charset=utf-8' } },
    ),
});

const ctx = await testContext({ PUBLIC_URL: ORIGIN, CHECK_ALLOW_PRIVATE: 'true' });
const app = createApp(ctx);
const user = await signInDemo(app, ORIGIN);
const post = async (path: string, body?: unknown) => {
  const res = await app.handle(
    new Request(`${ORIGIN}${path}`, {
      method: 'POST',
      headers: { cookie: user.cookie, origin: ORIGIN, 'content-type': 'application/json' },
      body: body ? JSON.stringify(body) : undefined,
    }),
  );
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<any>;
};
const { id } = await post('/api/products', { name: 'Espresso Grinder', url: `http://127.0.0.1:${shop.port}/grinder`, selector: '.price', threshold: 'any' });
await post(`/api/products/${id}/check-price`);

const LOG_TABLES = ['events', 'price_checks', 'streams'];
/** Bytes of each log table: its rows (main fork), its free space and visibility maps, its indexes. */
async function logSizes(): Promise<Map<string, number>> {
  const rows = await ctx.sql<{ part: string; bytes: string }[]>`
    SELECT t || ' ' || part AS part, bytes FROM unnest(${LOG_TABLES}::text[]) AS t, LATERAL (VALUES
      ('rows', pg_relation_size(t::regclass)),
      ('maps', pg_relation_size(t::regclass, 'fsm') + pg_relation_size(t::regclass, 'vm')),
      ('indexes', pg_indexes_size(t::regclass))) AS s(part, bytes)`;
  return new Map(rows.map((r) => [r.part, Number(r.bytes)]));
}
const total = (sizes: Map<string, number>) => [...sizes.values()].reduce((a, b) => a + b, 0);

async function perCheck(label: string, nextPrice: (i: number) => string) {
  // A first hundred checks, not counted, give the tables their first pages and their free space and visibility maps.
  for (let i = 0; i < 100; i++) {
    price = nextPrice(i);
    await post(`/api/products/${id}/check-price`);
  }
  const before = await logSizes();
  const t = performance.now();
  for (let i = 0; i < CHECKS; i++) {
    price = nextPrice(i);
    const answer = await post(`/api/products/${id}/check-price`);
    if (!answer.success) throw new Error(`check ${i}: ${JSON.stringify(answer)}`);
  }
  const ms = (performance.now() - t) / CHECKS;
  const after = await logSizes();
  const bytes = total(after) - total(before);
  const grew = [...after]
    .filter(([part, n]) => n !== before.get(part))
    .map(([part, n]) => `${part} +${n - before.get(part)!}`)
    .join(', ');
  console.log(
    `${label.padEnd(30)} ${(bytes / CHECKS).toFixed(0).padStart(5)} bytes of log per check (${bytes.toLocaleString('en-GB')} bytes for ${CHECKS}: ${grew}), ${ms.toFixed(1)} ms per Check Now`,
  );
}

console.log(
  `${CHECKS} Check Nows each, ${process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded PGlite'}; log = ${LOG_TABLES.join(', ')} (tables and indexes)`,
);
await perCheck('price unchanged (£149.00)', () => '149.00');
await perCheck('price changing on every check', (i) => (150 + (i % 50)).toFixed(2));
// At scale: unchanged checks recorded as the workers record them (batches of 100 per transaction),
// page versions all different, on tables past their first pages.
const SCALE_CHECKS = arg('scale-checks', 20_000);
const [owned] = await ctx.sql<{ user_id: string; url: string }[]>`SELECT user_id, url FROM products WHERE id = ${id}`;
price = '149.00';
const template = (await checkPage(ctx.config, owned!.url, [{ productId: id, userId: owned!.user_id, url: owned!.url, selector: '.price', lease: null }]))[0]!;
/** Records `count` checks in batches of 100, the price moving or not; answers the log bytes per check and how fast they read back. */
async function atScale(label: string, count: number, moving: boolean) {
  const before = await logSizes();
  const from = await ctx.store.head();
  for (let i = 0; i < count; i += 100) {
    const batch = Array.from({ length: 100 }, (_, j) => {
      const data = { ...template.event.data, observedAt: new Date().toISOString(), pageHash: crypto.randomUUID().replaceAll('-', '').repeat(2) };
      if (moving) Object.assign(data, { price: 150 + ((i + j) % 50), matchedText: `£${150 + ((i + j) % 50)}.00` });
      return { ...template, event: { ...template.event, data } } as CheckOutcome;
    });
    await recordOutcomes(ctx, batch);
  }
  const bytes = total(await logSizes()) - total(before);
  const t = performance.now();
  let read = 0;
  for (let after = from; ; ) {
    const page = await ctx.store.readAll(after, 2000);
    read += page.length;
    if (page.length < 2000) break;
    after = { transactionId: page.at(-1)!.transactionId, position: page.at(-1)!.position };
  }
  const perSecond = read / ((performance.now() - t) / 1000);
  console.log(
    `${label.padEnd(30)} ${(bytes / count).toFixed(0).padStart(5)} bytes of log per check (${count.toLocaleString('en-GB')} checks recorded in batches of 100); read back at ${Math.round(perSecond).toLocaleString('en-GB')} events/s`,
  );
}
await atScale('unchanged, at scale', SCALE_CHECKS, false);
await atScale('changing, at scale', SCALE_CHECKS, true);

const [rows] = await ctx.sql<
  { repeats: number; events: number }[]
>`SELECT (SELECT count(*)::int FROM price_checks) AS repeats, (SELECT count(*)::int FROM events) AS events`;
console.log(`rows: ${rows!.events} events, ${rows!.repeats} repeated checks`);
await ctx.close();
shop.stop(true);
