import { afterAll, beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { SETUP_TIMEOUT, testContext } from '../testing/database.ts';
import { readDashboardStats } from './routes.ts';

setDefaultTimeout(60_000);

// The dashboard reads alerts from the alerts read model (user_id, is_read, created_at) once it
// exists; a database of its own, so the table is there before the first read.
let ctx: Awaited<ReturnType<typeof testContext>>;
beforeAll(async () => {
  ctx = await testContext();
  await ctx.sql`CREATE TABLE IF NOT EXISTS alerts (id text PRIMARY KEY, user_id text NOT NULL, is_read boolean NOT NULL, created_at timestamptz NOT NULL)`;
}, SETUP_TIMEOUT);
afterAll(() => ctx.close(), SETUP_TIMEOUT);

test('active alerts are the unread ones; new today counts from the user\'s midnight', async () => {
  const userId = crypto.randomUUID();
  const now = new Date('2026-06-10T12:00:00Z'); // 13:00 in London
  const alert = (id: string, user: string, isRead: boolean, createdAt: string) => ({ id, user_id: user, is_read: isRead, created_at: new Date(createdAt) });
  await ctx.sql`INSERT INTO alerts ${ctx.sql([
    alert('a1', userId, false, '2026-06-10T08:00:00Z'),
    alert('a2', userId, false, '2026-06-09T22:30:00Z'), // 23:30 in London: yesterday
    alert('a3', userId, true, '2026-06-10T09:00:00Z'),
    alert('a4', 'someone else', false, '2026-06-10T09:00:00Z'),
  ])}`;
  const stats = await readDashboardStats(ctx.sql, userId, now);
  expect(stats.alertsCount).toBe(2);
  expect(stats.trends.alertsCount).toEqual({ newToday: 2 });
  const nobody = await readDashboardStats(ctx.sql, crypto.randomUUID(), now);
  expect(nobody.alertsCount).toBe(0);
  expect(nobody.trends.alertsCount).toEqual({ newToday: 0 });
});
