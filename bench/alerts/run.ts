/**
 * Alert latency: from a PriceObserved committed to the log to the e-mail that reports it accepted
 * by an SMTP server on loopback, and to the signed webhook that carries it accepted by a receiver
 * on loopback (each user has one webhook channel), through the whole pipeline as the server runs
 * it (projections and reactors polling, the e-mail sender and the channel deliverer with their
 * production settings).
 *
 *   bun bench/alerts/run.ts [--users 100] [--alerts 1000] [--rate 100]
 *
 * Each of `users` users has alerts/users products alerting on any change, each priced once; then
 * every product drops once, written the way the check worker writes results: a transaction of 10
 * observations every 10/rate seconds, products in random order. Uses DATABASE_URL (a scratch
 * database is created and dropped), else the embedded PGlite.
 */
import postgres from 'postgres';
import { loadConfig } from '../../api/config.ts';
import { createContext } from '../../api/create-context.ts';
import { openDatabase, transaction, type Database } from '../../db/index.ts';
import { createMailer } from '../../api/alerts/mailer.ts';
import { createOutboxSender } from '../../api/alerts/sender.ts';
import { startSmtp } from '../../api/testing/smtp.ts';
import { observed } from '../../api/testing/prices.ts';
import { startReceivers } from '../../api/testing/fake-channels.ts';
import { createChannelDeliverer } from '../../api/channels/deliverer.ts';
import { describeEndpoint, newWebhookSecret } from '../../api/channels/messages.ts';
import { ALERT_TYPES } from '../../domain/alerts.ts';
import type { NewEvent } from '../../events/store.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};

const users = arg('users', 100);
const alerts = arg('alerts', 1000);
const rate = arg('rate', 100);
const perUser = Math.ceil(alerts / users);
const WRITE_BATCH = 10;

async function scratchDatabase(): Promise<{ database: Database; label: string; drop(): Promise<void> }> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) return { database: await openDatabase({ dataDir: null }), label: 'embedded PGlite', drop: async () => {} };
  const name = `pricewatch_bench_alerts_${Date.now().toString(36)}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    database: await openDatabase({ url: url.toString(), max: 10 }),
    label: `PostgreSQL (${url.host})`,
    async drop() {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

async function main() {
  const smtp = await startSmtp();
  const receivers = startReceivers();
  const scratch = await scratchDatabase();
  const ctx = await createContext(
    loadConfig({
      PUBLIC_URL: 'http://localhost:3000',
      SMTP_URL: smtp.url,
      DATA_DIR: '/tmp/pricewatch-bench-alerts',
      CHECK_ALLOW_PRIVATE: 'true',
    }),
    { database: scratch.database },
  );
  const stop = new AbortController();
  const mailer = createMailer(ctx.config);
  try {
    console.log(`Seeding ${users} users with ${perUser} products each on ${scratch.label}...`);
    const products: { id: string; userId: string; name: string }[] = [];
    for (let u = 0; u < users; u++) {
      const userId = crypto.randomUUID();
      await ctx.store.append(`user-${userId}`, 'no_stream', [
        {
          type: 'UserSignedUp',
          data: { userId, provider: 'demo', subject: `bench-${u}`, email: `bench-${u}@example.com`, firstName: null, lastName: null, profileImageUrl: null },
        },
      ]);
      // A paid plan and a webhook channel, as the billing and channels APIs record them.
      const now = Math.floor(Date.now() / 1000),
        channelId = crypto.randomUUID();
      await ctx.store.append(`subscription-${userId}`, 'no_stream', [
        {
          type: 'TrialStarted',
          data: {
            userId,
            subscriptionId: `sub_${u}`,
            provider: 'demo',
            plan: 'growth',
            amount: 4900,
            trialEnd: now + 86_400,
            currentPeriodEnd: now + 86_400,
            created: now,
            at: now,
          },
        },
      ]);
      const endpoint = { type: 'webhook' as const, url: `${receivers.url}/hooks/${u}`, secret: newWebhookSecret() };
      await ctx.sql`INSERT INTO channel_endpoints (channel_id, user_id, endpoint) VALUES (${channelId}, ${userId}, ${ctx.sql.json(endpoint)})`;
      await ctx.store.append(`channel-${channelId}`, 'no_stream', [
        {
          type: 'ChannelAdded',
          data: {
            channelId,
            userId,
            type: 'webhook',
            name: 'Bench hook',
            target: describeEndpoint(endpoint),
            alertTypes: [...ALERT_TYPES],
          },
        },
      ]);
      for (let p = 0; p < perUser && products.length < alerts; p++) {
        const id = crypto.randomUUID(),
          name = `Bench product u${u}-p${p}`;
        await ctx.store.append(`product-${id}`, 'no_stream', [
          {
            type: 'ProductAdded',
            data: { productId: id, userId, name, url: `https://shop.example.com/${id}`, selector: '.price', alertRule: { kind: 'any' }, imageUrl: null },
          },
          observed(id, userId, 100, new Date()),
        ]);
        products.push({ id, userId, name });
      }
    }
    await ctx.reactors.catchUp();
    await ctx.projections.catchUp();

    ctx.projections.start();
    ctx.reactors.start();
    const sender = createOutboxSender(ctx, mailer).run(stop.signal);
    const deliverer = createChannelDeliverer(ctx).run(stop.signal);

    // Drops, in random order, as a worker writes its results.
    const order = [...products].sort(() => Math.random() - 0.5);
    const committedAt = new Map<string, number>();
    console.log(`Dropping ${order.length} prices, ${rate}/s in transactions of ${WRITE_BATCH}...`);
    const started = performance.now();
    for (let i = 0; i < order.length; i += WRITE_BATCH) {
      const batch = order.slice(i, i + WRITE_BATCH);
      const due = started + (i / rate) * 1000;
      if (due > performance.now()) await Bun.sleep(due - performance.now());
      await transaction(ctx.sql, async (tx) => {
        for (const p of batch)
          await ctx.store.append(`product-${p.id}`, 'any', [observed(p.id, p.userId, 90 - Math.random() * 10, new Date()) as NewEvent], tx);
      });
      const now = performance.now();
      for (const p of batch) committedAt.set(p.name, now);
    }

    // Every alert named in an accepted e-mail, and when.
    const latencies = new Map<string, number>();
    const seen = new Map<string, number>();
    const deadline = performance.now() + 120_000;
    let read = 0;
    while (latencies.size < order.length && performance.now() < deadline) {
      for (; read < smtp.received.length; read++) {
        const mail = smtp.received[read]!;
        for (const [, name] of mail.text.matchAll(/^(Bench product u\d+-p\d+) \(/gm)) {
          seen.set(name!, (seen.get(name!) ?? 0) + 1);
          if (!latencies.has(name!)) latencies.set(name!, mail.acceptedAt - committedAt.get(name!)!);
        }
      }
      await Bun.sleep(50);
    }
    // Every alert carried by an accepted webhook, and when.
    const hookLatencies = new Map<string, number>(),
      hookSeen = new Map<string, number>();
    while (receivers.received.length < order.length && performance.now() < deadline) await Bun.sleep(50);
    for (const r of receivers.received) {
      const name = r.json?.data?.productName as string;
      hookSeen.set(name, (hookSeen.get(name) ?? 0) + 1);
      // The receiver's clock is Date.now(); the commit's is performance.now(): both measured from the same start.
      if (!hookLatencies.has(name)) hookLatencies.set(name, r.at - performance.timeOrigin - committedAt.get(name)!);
    }
    const sorted = [...latencies.values()].sort((a, b) => a - b);
    const twice = [...seen.values()].filter((n) => n > 1).length;
    const [{ sent }] = await ctx.sql<{ sent: number }[]>`SELECT count(*)::int AS sent FROM events WHERE type = 'EmailSent'`;

    console.log(`\nPriceObserved committed -> e-mail accepted by the SMTP server (${users} users, ${order.length} alerts)`);
    console.log(`  alerts e-mailed  ${latencies.size} of ${order.length}${twice ? `, ${twice} more than once` : ', each exactly once'}`);
    console.log(
      `  e-mails          ${smtp.received.length} (EmailSent recorded: ${sent}), ${(latencies.size / Math.max(1, smtp.received.length)).toFixed(1)} alerts per e-mail`,
    );
    if (sorted.length) {
      const ms = (n: number) => `${(n / 1000).toFixed(2)} s`;
      console.log(
        `  latency          p50 ${ms(percentile(sorted, 50))}, p90 ${ms(percentile(sorted, 90))}, p99 ${ms(percentile(sorted, 99))}, max ${ms(sorted.at(-1)!)} (target p99 <= 5 s)`,
      );
    }
    const hooks = [...hookLatencies.values()].sort((a, b) => a - b);
    const hooksTwice = [...hookSeen.values()].filter((n) => n > 1).length;
    const [{ delivered }] = await ctx.sql<{ delivered: number }[]>`SELECT count(*)::int AS delivered FROM events WHERE type = 'AlertDelivered'`;
    console.log(`\nPriceObserved committed -> signed webhook accepted by a receiver (${users} channels)`);
    console.log(
      `  alerts delivered ${hookLatencies.size} of ${order.length}${hooksTwice ? `, ${hooksTwice} more than once` : ', each exactly once'} (AlertDelivered recorded: ${delivered})`,
    );
    if (hooks.length) {
      const ms = (n: number) => `${(n / 1000).toFixed(2)} s`;
      console.log(
        `  latency          p50 ${ms(percentile(hooks, 50))}, p90 ${ms(percentile(hooks, 90))}, p99 ${ms(percentile(hooks, 99))}, max ${ms(hooks.at(-1)!)} (target p99 <= 2 s)`,
      );
    }
    stop.abort();
    await sender;
    await deliverer;
  } finally {
    receivers.stop();
    stop.abort();
    mailer.close();
    await ctx.close();
    await scratch.drop();
    await smtp.stop();
  }
}

await main();
