import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import nodemailer from 'nodemailer';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../server.ts';
import { transaction } from '../../db/index.ts';
import { SETUP_TIMEOUT, testContext, usingPostgresServer } from '../testing/database.ts';
import { client, observe, ORIGIN, settle } from '../testing/alerts.ts';
import { startSmtp, type TestSmtp } from '../testing/smtp.ts';
import { failCheck, observed } from '../testing/prices.ts';
import { createMailer, type Mailer } from './mailer.ts';
import { createOutboxSender, type SenderOptions } from './sender.ts';
import { queueWeeklyReports } from './weekly.ts';

// A real SMTP server on loopback; the sender talks to it through nodemailer, as in production.
let smtp: TestSmtp;
let ctx: Awaited<ReturnType<typeof testContext>>;
let api: ReturnType<typeof client>;
const mailers: Mailer[] = [];

beforeAll(async () => {
  smtp = await startSmtp();
  ctx = await testContext({ PUBLIC_URL: ORIGIN, SMTP_URL: smtp.url, MAIL_FROM: 'Pricewatch <alerts@pricewatch.test>' });
  api = client(createApp(ctx));
}, SETUP_TIMEOUT);
afterAll(async () => {
  for (const m of mailers) m.close();
  await smtp.stop();
  await ctx.close();
}, SETUP_TIMEOUT);

const FAST: SenderOptions = { quietMs: 50, maxHoldMs: 500, retryBaseMs: 100, retryMaxMs: 400, leaseMs: 5_000 };

function senderFor(smtpUrl = smtp.url, options: SenderOptions = {}) {
  const mailer = createMailer({ ...ctx.config, smtpUrl });
  mailers.push(mailer);
  return createOutboxSender(ctx, mailer, { ...FAST, ...options });
}

const waiting = async (userId: string) => (await ctx.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM email_outbox WHERE user_id = ${userId}`)[0]!.n;

/** Queues the e-mails of every new alert, then sends until the user has none waiting. */
async function deliverAll(userId: string, sender = senderFor(), timeoutMs = 15_000) {
  await settle(ctx);
  const deadline = Date.now() + timeoutMs;
  while ((await waiting(userId)) > 0) {
    if (Date.now() > deadline) throw new Error('e-mails still waiting');
    await sender.deliverDue();
    await Bun.sleep(20);
  }
}

const mailsTo = (email: string) => smtp.received.filter((m) => m.to.includes(email));
const recorded = async (userId: string, type: 'EmailSent' | 'EmailFailed') =>
  (await ctx.store.readStream(`emails-${userId}`)).events.filter((e) => e.type === type).map((e) => e.data as Record<string, any>);

async function userWithDrop(opts: { name?: string; from?: number; to?: number; threshold?: string } = {}) {
  const user = await api.signIn();
  const productId = await api.addProduct(user.cookie, { name: opts.name ?? 'Steel Kettle', threshold: opts.threshold ?? 'any' });
  await observe(ctx, productId, user.userId, opts.from ?? 20);
  await observe(ctx, productId, user.userId, opts.to ?? 18);
  return { ...user, productId };
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await Bun.sleep(10);
  }
}

describe('price alert e-mails', () => {
  test('an observed drop sends exactly one e-mail with the prices, the change and the links', async () => {
    const u = await userWithDrop({ name: 'Steel <Kettle> 1.7L' });
    await deliverAll(u.userId);
    await senderFor().deliverDue(); // nothing left to send

    const mails = mailsTo(u.email);
    expect(mails).toHaveLength(1);
    const [mail] = mails;
    expect(mail!.subject).toBe('Price drop: Steel <Kettle> 1.7L is now £18.00 (-10.0%)');
    expect(mail!.headers.from).toBe('Pricewatch <alerts@pricewatch.test>');
    expect(mail!.messageId).toMatch(/^<alerts\.[0-9a-f]{32}@localhost>$/);
    for (const line of [
      'Steel <Kettle> 1.7L (Price Drop)',
      '  Price dropped 10.0% from £20.00 to £18.00',
      '  Previous price: £20.00',
      '  Current price:  £18.00',
      '  Change:         -10.0% (-£2.00)',
      '  Product page:   https://shop.example.com/kettle',
      `See all your alerts: ${ORIGIN}/alerts`,
    ])
      expect(mail!.text).toContain(line);
    expect(mail!.html).toContain('Steel &lt;Kettle&gt; 1.7L');
    expect(mail!.html).toContain('£20.00');
    expect(mail!.html).toContain('£18.00');
    expect(mail!.html).toContain('-10.0% (-£2.00)');
    expect(mail!.html).toContain('href="https://shop.example.com/kettle"');
    expect(mail!.html).toContain(`href="${ORIGIN}/alerts"`);

    const [sent] = await recorded(u.userId, 'EmailSent');
    const [alert] = await (await api.request('/api/alerts', { cookie: u.cookie })).json();
    expect(sent).toMatchObject({ kind: 'alerts', alertIds: [alert.id], to: u.email, messageId: mail!.messageId });
    expect(sent!.response).toMatch(/^250 OK: queued as test-\d+$/);
  });

  test('alerts of one user waiting together go out as one e-mail; another user gets their own', async () => {
    const u = await api.signIn();
    const other = await api.signIn();
    const ids: string[] = [];
    for (const name of ['Kettle', 'Toaster', 'Blender'])
      ids.push(await api.addProduct(u.cookie, { name, url: `https://shop.example.com/${name.toLowerCase()}` }));
    const theirs = await api.addProduct(other.cookie, { name: 'Mixer' });
    for (const id of ids) await observe(ctx, id, u.userId, 50);
    await observe(ctx, theirs, other.userId, 50);
    await settle(ctx);
    // One check's results, written in one transaction as the worker writes them.
    await transaction(ctx.sql, async (tx) => {
      for (const [i, id] of ids.entries()) await ctx.store.append(`product-${id}`, 'any', [observed(id, u.userId, 40 + i, new Date())], tx);
      await ctx.store.append(`product-${theirs}`, 'any', [observed(theirs, other.userId, 60, new Date())], tx);
    });
    await deliverAll(u.userId);
    await deliverAll(other.userId);

    const [mail, ...more] = mailsTo(u.email);
    expect(more).toHaveLength(0);
    expect(mail!.subject).toBe('3 price alerts: Kettle and 2 more');
    for (const name of ['Kettle', 'Toaster', 'Blender']) expect(mail!.text).toContain(`${name} (Price Drop)`);
    expect((await recorded(u.userId, 'EmailSent'))[0]!.alertIds).toHaveLength(3);
    expect(mailsTo(other.email).map((m) => m.subject)).toEqual(['Price increase: Mixer is now £60.00 (+20.0%)']);
  });

  test('e-mail notifications off: the alert shows in the app, no e-mail is sent', async () => {
    const u = await api.signIn();
    const put = await api.request('/api/settings', {
      method: 'PUT',
      cookie: u.cookie,
      body: JSON.stringify({
        emailNotifications: false,
        priceDropAlerts: true,
        weeklyReports: false,
        checkFrequency: 'daily',
        currency: 'GBP',
        timezone: 'Europe/London',
      }),
    });
    expect(put.status).toBe(200);
    const productId = await api.addProduct(u.cookie);
    await observe(ctx, productId, u.userId, 20);
    await observe(ctx, productId, u.userId, 10);
    await deliverAll(u.userId);
    await senderFor().deliverDue();
    expect(await (await api.request('/api/alerts', { cookie: u.cookie })).json()).toHaveLength(1);
    expect(mailsTo(u.email)).toHaveLength(0);
    expect(await recorded(u.userId, 'EmailSent')).toEqual([]);
  });

  test('price drop alerts off: no alert, so no e-mail', async () => {
    const u = await api.signIn();
    await api.request('/api/settings', {
      method: 'PUT',
      cookie: u.cookie,
      body: JSON.stringify({
        emailNotifications: true,
        priceDropAlerts: false,
        weeklyReports: false,
        checkFrequency: 'daily',
        currency: 'GBP',
        timezone: 'Europe/London',
      }),
    });
    const productId = await api.addProduct(u.cookie);
    await observe(ctx, productId, u.userId, 20);
    await observe(ctx, productId, u.userId, 10);
    await deliverAll(u.userId);
    expect(await (await api.request('/api/alerts', { cookie: u.cookie })).json()).toEqual([]);
    expect(mailsTo(u.email)).toHaveLength(0);
  });
});

describe('stock alert e-mails', () => {
  test('out of stock from a page without a price, and back: each e-mailed once, under the e-mail notifications setting', async () => {
    const u = await api.signIn();
    const productId = await api.addProduct(u.cookie, { name: 'Stand Mixer', threshold: 'none' });
    await observe(ctx, productId, u.userId, 24.99, new Date(), 'InStock');
    await failCheck(ctx, productId, u.userId, new Date(), 'OutOfStock');
    await deliverAll(u.userId);
    await observe(ctx, productId, u.userId, 22.5, new Date(), 'InStock');
    await deliverAll(u.userId);
    await senderFor().deliverDue();

    const mails = mailsTo(u.email);
    expect(mails.map((m) => m.subject)).toEqual(['Out of stock: Stand Mixer', 'Back in stock: Stand Mixer at £22.50']);
    expect(mails[0]!.text).toContain('Stand Mixer (Out of Stock)\n  Out of stock\n  Last known price: £24.99');
    expect(mails[1]!.text).toContain('Back in stock at £22.50');
    expect(mails[1]!.html).toContain('Back in Stock');

    const quiet = await api.signIn();
    await api.request('/api/settings', {
      method: 'PUT',
      cookie: quiet.cookie,
      body: JSON.stringify({
        emailNotifications: false,
        priceDropAlerts: true,
        weeklyReports: false,
        checkFrequency: 'daily',
        currency: 'GBP',
        timezone: 'Europe/London',
      }),
    });
    const theirs = await api.addProduct(quiet.cookie, { threshold: 'none' });
    await observe(ctx, theirs, quiet.userId, 10, new Date(), 'InStock');
    await observe(ctx, theirs, quiet.userId, 10, new Date(), 'OutOfStock');
    await deliverAll(quiet.userId);
    expect((await (await api.request('/api/alerts', { cookie: quiet.cookie })).json()).map((a: { type: string }) => a.type)).toEqual(['out_of_stock']);
    expect(mailsTo(quiet.email)).toHaveLength(0);
  });
});

describe('delivery exactly once', () => {
  test('SMTP down, then up: retried with backoff and delivered once', async () => {
    const spare = await startSmtp();
    const port = spare.port;
    await spare.stop(); // nothing listens there now
    const sender = senderFor(`smtp://127.0.0.1:${port}`);
    const u = await userWithDrop();
    await settle(ctx);
    await until(async () => (await sender.deliverDue()) > 0);
    const [row] = await ctx.sql`SELECT attempts, last_error, lease_token FROM email_outbox WHERE user_id = ${u.userId}`;
    expect(row).toMatchObject({ attempts: 1, lease_token: null });
    expect(row!.last_error).toBeTruthy();
    expect(await recorded(u.userId, 'EmailSent')).toEqual([]);

    const revived = await startSmtp(port);
    try {
      await deliverAll(u.userId, sender);
      await sender.deliverDue();
      expect(revived.received.filter((m) => m.to.includes(u.email))).toHaveLength(1);
      const sent = await recorded(u.userId, 'EmailSent');
      expect(sent).toHaveLength(1);
      expect(revived.received[0]!.messageId).toBe(sent[0]!.messageId);
    } finally {
      await revived.stop();
    }
  });

  test('a restart during delivery finishes the e-mail in hand and sends it once', async () => {
    const u = await userWithDrop();
    await settle(ctx);
    let held = false;
    smtp.hold(() => {
      held = true;
    });
    const stop = new AbortController();
    const running = senderFor().run(stop.signal);
    await until(() => held);
    stop.abort(); // shutdown starts while the server has not answered yet
    await Bun.sleep(100);
    smtp.release();
    await running;
    await deliverAll(u.userId); // the restarted process finds nothing left
    expect(mailsTo(u.email)).toHaveLength(1);
    expect(await recorded(u.userId, 'EmailSent')).toHaveLength(1);
  });

  test('a sender that dies before the server answered: the lease runs out and the e-mail goes once', async () => {
    const u = await userWithDrop();
    await settle(ctx);
    await Bun.sleep(FAST.quietMs! + 20); // due, so the first look claims it
    // A process that dies mid-delivery: its connection drops and it never records anything.
    const crash = new AbortController();
    const transport = nodemailer.createTransport({ url: smtp.url, pool: true } as never);
    const dying: Mailer = {
      send: (mail) => {
        transport.sendMail({ ...mail, from: ctx.config.mailFrom, signal: crash.signal } as never).catch(() => {});
        return new Promise(() => {});
      },
      close: () => transport.close(),
    };
    mailers.push(dying);
    let held = false;
    smtp.hold(() => {
      held = true;
    });
    void createOutboxSender(ctx, dying, { ...FAST, leaseMs: 500 }).deliverDue();
    await until(() => held);
    crash.abort();
    await Bun.sleep(200); // the server sees the connection close
    smtp.release();
    expect(mailsTo(u.email)).toHaveLength(0);

    await Bun.sleep(400); // the dead sender's lease runs out
    await deliverAll(u.userId);
    expect(mailsTo(u.email)).toHaveLength(1);
    expect(await recorded(u.userId, 'EmailSent')).toHaveLength(1);
  });

  // Another process on the same database, killed (SIGKILL) while the server holds the message.
  test.skipIf(!usingPostgresServer())('a sender process killed mid-delivery: after its lease the e-mail goes once', async () => {
    const u = await userWithDrop();
    await settle(ctx);
    await Bun.sleep(FAST.quietMs! + 20);
    let held = false;
    smtp.hold(() => {
      held = true;
    });
    const url = (ctx.database as { url?: string }).url!;
    const child = Bun.spawn(
      [
        process.execPath,
        '-e',
        `
      const { loadConfig } = await import(${JSON.stringify(`${import.meta.dir}/../config.ts`)});
      const { createContext } = await import(${JSON.stringify(`${import.meta.dir}/../create-context.ts`)});
      const { openDatabase } = await import(${JSON.stringify(`${import.meta.dir}/../../db/index.ts`)});
      const { createMailer } = await import(${JSON.stringify(`${import.meta.dir}/mailer.ts`)});
      const { createOutboxSender } = await import(${JSON.stringify(`${import.meta.dir}/sender.ts`)});
      const config = loadConfig({ DATABASE_URL: ${JSON.stringify(url)}, SMTP_URL: ${JSON.stringify(smtp.url)}, PUBLIC_URL: ${JSON.stringify(ORIGIN)} });
      const ctx = await createContext(config, { database: await openDatabase({ url: config.databaseUrl, max: 2 }) });
      await createOutboxSender(ctx, createMailer(config), { quietMs: 50, leaseMs: 1000 }).deliverDue();`,
      ],
      { stdout: 'ignore', stderr: 'inherit' },
    );
    try {
      await until(() => held, 20_000);
    } finally {
      child.kill('SIGKILL');
      await child.exited;
    }
    await Bun.sleep(200); // the server sees the connection close
    smtp.release();
    expect(mailsTo(u.email)).toHaveLength(0);
    await Bun.sleep(1_000); // the killed process's lease runs out
    await deliverAll(u.userId);
    expect(mailsTo(u.email)).toHaveLength(1);
    expect(await recorded(u.userId, 'EmailSent')).toHaveLength(1);
  });

  test('a sender that dies after the server answered, before recording: sent again with the same Message-ID', async () => {
    const u = await userWithDrop();
    await settle(ctx);
    const crashing = senderFor(smtp.url, {
      leaseMs: 300,
      afterSend: () => {
        throw new Error('process killed');
      },
    });
    const error = console.error;
    console.error = () => {};
    try {
      await until(async () => (await crashing.deliverDue()) > 0);
    } finally {
      console.error = error;
    }
    expect(mailsTo(u.email)).toHaveLength(1);
    expect(await recorded(u.userId, 'EmailSent')).toEqual([]);
    await Bun.sleep(350);
    await deliverAll(u.userId);
    // The documented edge: two copies, one Message-ID, so the recipient's mail system shows one.
    const mails = mailsTo(u.email);
    expect(mails).toHaveLength(2);
    expect(mails[1]!.messageId).toBe(mails[0]!.messageId!);
    expect(await recorded(u.userId, 'EmailSent')).toHaveLength(1);
  });

  test('senders working in parallel send each e-mail once', async () => {
    const users = [];
    for (let i = 0; i < 12; i++) users.push(await userWithDrop());
    await settle(ctx);
    await Bun.sleep(FAST.quietMs! + 20);
    const senders = [senderFor(), senderFor(), senderFor()];
    for (let round = 0; round < 50 && (await Promise.all(users.map((u) => waiting(u.userId)))).some((n) => n > 0); round++) {
      await Promise.all(senders.map((s) => s.deliverDue()));
    }
    for (const u of users) {
      expect(mailsTo(u.email)).toHaveLength(1);
      expect(await recorded(u.userId, 'EmailSent')).toHaveLength(1);
    }
  });

  test('a permanent refusal is recorded as EmailFailed at once', async () => {
    const u = await userWithDrop();
    smtp.refuse({ code: 550, message: 'No such user here' });
    const error = console.error;
    console.error = () => {};
    try {
      await deliverAll(u.userId);
    } finally {
      smtp.refuse(null);
      console.error = error;
    }
    const [failed] = await recorded(u.userId, 'EmailFailed');
    expect(failed).toMatchObject({ kind: 'alerts', attempts: 1, to: u.email });
    expect(failed!.error).toContain('No such user here');
    expect(await recorded(u.userId, 'EmailSent')).toEqual([]);
  });

  test('a server that stays down: given up after the bounded time, with EmailFailed', async () => {
    const spare = await startSmtp();
    await spare.stop();
    const u = await userWithDrop();
    const error = console.error;
    console.error = () => {};
    try {
      await deliverAll(u.userId, senderFor(`smtp://127.0.0.1:${spare.port}`, { giveUpMs: 600 }));
    } finally {
      console.error = error;
    }
    const [failed] = await recorded(u.userId, 'EmailFailed');
    expect(failed!.attempts).toBeGreaterThan(1);
    expect(await recorded(u.userId, 'EmailSent')).toEqual([]);
  });
});

describe('weekly report', () => {
  const DAY = 86_400_000;
  // The last Monday before today, 08:00 in Tokyo (23:00 UTC on Sunday).
  const today = new Date();
  const monday = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - ((today.getUTCDay() + 6) % 7) - 7, -1));

  async function reportUser(timezone: string, weeklyReports = true) {
    const u = await api.signIn();
    await api.request('/api/settings', {
      method: 'PUT',
      cookie: u.cookie,
      body: JSON.stringify({ emailNotifications: true, priceDropAlerts: true, weeklyReports, checkFrequency: 'daily', currency: 'GBP', timezone }),
    });
    return u;
  }

  test("queued on Monday from 08:00 in the user's time zone, once a week", async () => {
    const u = await reportUser('Asia/Tokyo');
    const productId = await api.addProduct(u.cookie, { name: 'Espresso Machine', threshold: 'none' });
    for (const [price, daysBefore] of [
      [300, 9],
      [280, 5],
      [260, 3],
      [275, 1],
    ] as const) {
      await observe(ctx, productId, u.userId, price, new Date(monday.getTime() - daysBefore * DAY));
    }
    const off = await reportUser('Asia/Tokyo', false);
    await settle(ctx);
    const queuedFor = async (at: Date) => {
      await queueWeeklyReports(ctx, at);
      return (await ctx.sql`SELECT user_id FROM weekly_reports WHERE user_id IN (${u.userId}, ${off.userId})`).length;
    };
    expect(await queuedFor(new Date(monday.getTime() - 60_000))).toBe(0); // 07:59 in Tokyo
    expect(await queuedFor(monday)).toBe(1);
    expect(await queuedFor(new Date(monday.getTime() + 3_600_000))).toBe(1); // the same week: nothing more
    await deliverAll(u.userId);

    const [mail, ...more] = mailsTo(u.email);
    expect(more).toHaveLength(0);
    expect(mail!.subject).toMatch(/^Your weekly price report, week of \d{1,2} \w+ \d{4}$/);
    expect(mail!.text).toContain('1 of your 1 product changed price in the last 7 days.');
    expect(mail!.text).toContain('Espresso Machine\n  £300.00 -> £275.00 (-8.3%), 3 changes; low £260.00, high £300.00');
    expect(mail!.text).toContain(`Price history: ${ORIGIN}/price-history`);
    expect(mail!.html).toContain('Espresso Machine');
    expect((await recorded(u.userId, 'EmailSent'))[0]).toMatchObject({ kind: 'weekly', alertIds: [] });
  });

  test("not on other days, and London's Monday 08:00 is its own", async () => {
    const london = await reportUser('Europe/London');
    const sunday = new Date(monday.getTime() - DAY);
    await queueWeeklyReports(ctx, sunday);
    await queueWeeklyReports(ctx, monday); // 08:00 in Tokyo is midnight or 23:00 in London
    expect(await ctx.sql`SELECT 1 FROM weekly_reports WHERE user_id = ${london.userId}`).toHaveLength(0);
    await queueWeeklyReports(ctx, new Date(monday.getTime() + 9 * 3_600_000)); // 08:00 or 09:00 in London
    expect(await ctx.sql`SELECT 1 FROM weekly_reports WHERE user_id = ${london.userId}`).toHaveLength(1);
  });
});

test('without SMTP_URL each e-mail is written as an .eml file under DATA_DIR/outbox', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'pricewatch-outbox-'));
  try {
    const mailer = createMailer({ smtpUrl: null, mailFrom: 'Pricewatch <alerts@localhost>', dataDir });
    const log = console.log;
    console.log = () => {};
    const { response } = await mailer
      .send({ to: 'a@example.com', subject: 'Price drop: Kettle', text: 'Now £18.00', html: '<p>Now £18.00</p>', messageId: '<alerts.abc@localhost>' })
      .finally(() => {
        console.log = log;
      });
    const path = join(dataDir, 'outbox', 'alerts.abc@localhost.eml');
    expect(response).toBe(`written to ${path}`);
    expect(existsSync(path)).toBe(true);
    const eml = readFileSync(path, 'utf8');
    expect(eml).toContain('Message-ID: <alerts.abc@localhost>');
    expect(eml).toContain('Subject: Price drop: Kettle');
    expect(eml).toContain('multipart/alternative');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
