import { expect } from 'bun:test';
import { observe, settle, type client } from './alerts.ts';
import type { testContext } from './database.ts';

type Under = { ctx: Awaited<ReturnType<typeof testContext>>; api: ReturnType<typeof client> };

/**
 * The alerts API as the alerts tests call it: lists, counts, and users set up with alerts. `under()`
 * gives the context and client, which the tests' beforeAll makes.
 */
export function alertsApi(under: () => Under) {
  const json = async (res: Response) => ({ status: res.status, body: await res.json() });
  const alertsOf = async (cookie: string) => (await under().api.request('/api/alerts', { cookie })).json();
  const notificationsOf = async (cookie: string) => (await under().api.request('/api/notifications', { cookie })).json();
  const eventsOf = async (type: string) => (await under().ctx.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM events WHERE type = ${type}`)[0]!.n;

  async function userWithProduct(threshold: string, name = 'Kettle') {
    const user = await under().api.signIn();
    const productId = await under().api.addProduct(user.cookie, { name, threshold });
    return { ...user, productId };
  }

  /** A user with a product and `n` unread alerts of it, newest first. */
  async function userWithAlerts(n: number) {
    const u = await userWithProduct('any');
    for (let i = 0; i <= n; i++) await observe(under().ctx, u.productId, u.userId, 100 - i);
    await settle(under().ctx);
    const alerts = await alertsOf(u.cookie);
    expect(alerts).toHaveLength(n);
    return { ...u, ids: alerts.map((a: { id: string }) => a.id) as string[] };
  }

  /** Every alert id the user's read events name, once per naming: a read recorded twice shows twice. */
  async function alertIdsRead(userId: string): Promise<string[]> {
    const { events } = await under().ctx.store.readStream(`alerts-${userId}`);
    return events.flatMap((e) =>
      e.type === 'AllNotificationsRead'
        ? (e.data as { alertIds: string[] }).alertIds
        : e.type === 'AlertRead' || e.type === 'NotificationRead'
          ? [(e.data as { alertId: string }).alertId]
          : [],
    );
  }

  return { json, alertsOf, notificationsOf, eventsOf, userWithProduct, userWithAlerts, alertIdsRead };
}
