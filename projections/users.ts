import type { Projection } from './projection.ts';
import { lastBy } from './batch.ts';
import type { Sql } from '../db/index.ts';
import type { RecordedEvent } from '../events/store.ts';
import { PLAN_EVENTS, planAfter, type SubscriptionEvent } from '../events/subscription.ts';

/** Users as the app shows them: profile and plan. */
export const usersProjection: Projection = {
  name: 'users',
  tables: ['users'],
  ddl: `
    CREATE TABLE IF NOT EXISTS users (
      id                text PRIMARY KEY,
      email             text NOT NULL,
      first_name        text,
      last_name         text,
      profile_image_url text,
      auth_provider     text NOT NULL,
      plan              text NOT NULL DEFAULT 'free',
      subscription_plan text,
      signed_up_at      timestamptz NOT NULL
    );`,
  handles: ['UserSignedUp', 'UserProfileUpdated', ...PLAN_EVENTS],
  async apply(tx, events) {
    // A sign-up and later profile changes of one user can share a batch: insert, then overwrite.
    const signUps = events.flatMap((e) =>
      e.type === 'UserSignedUp'
        ? [
            {
              id: e.data.userId,
              email: e.data.email,
              first_name: e.data.firstName,
              last_name: e.data.lastName,
              profile_image_url: e.data.profileImageUrl,
              auth_provider: e.data.provider,
              signed_up_at: e.recordedAt,
            },
          ]
        : [],
    );
    if (signUps.length) await tx`INSERT INTO users ${tx(signUps)} ON CONFLICT (id) DO NOTHING`;
    const updates = lastBy(
      events.flatMap((e) => (e.type === 'UserProfileUpdated' ? [e.data] : [])),
      (d) => d.userId,
    );
    if (updates.length) {
      await tx`
        UPDATE users SET email = u.email, first_name = u.first_name, last_name = u.last_name, profile_image_url = u.profile_image_url
        FROM (SELECT * FROM unnest(${updates.map((u) => u.userId)}::text[], ${updates.map((u) => u.email)}::text[],
                                   ${updates.map((u) => u.firstName) as string[]}::text[], ${updates.map((u) => u.lastName) as string[]}::text[],
                                   ${updates.map((u) => u.profileImageUrl) as string[]}::text[])
              AS t(id, email, first_name, last_name, profile_image_url)) AS u
        WHERE users.id = u.id`;
    }
    await applyPlans(tx, events);
  },
};

/** subscription_plan: the plan a subscription gives access to (trialing, active, past due, or cancelled until the period ends), else null. */
async function applyPlans(tx: Sql, events: RecordedEvent[]) {
  const changes = events.filter((e) => (PLAN_EVENTS as readonly string[]).includes(e.type)) as unknown as SubscriptionEvent[];
  if (!changes.length) return;
  const ids = [...new Set(changes.map((e) => e.data.userId))];
  const rows = await tx<{ id: string; subscription_plan: string | null }[]>`SELECT id, subscription_plan FROM users WHERE id = ANY(${ids}::text[])`;
  const plans = new Map(rows.map((r) => [r.id, r.subscription_plan]));
  for (const e of changes) if (plans.has(e.data.userId)) plans.set(e.data.userId, planAfter(plans.get(e.data.userId)!, e));
  if (!plans.size) return;
  await tx`
    UPDATE users SET subscription_plan = t.plan
    FROM unnest(${[...plans.keys()]}::text[], ${[...plans.values()] as string[]}::text[]) AS t(id, plan)
    WHERE users.id = t.id`;
}
