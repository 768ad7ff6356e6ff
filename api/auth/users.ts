import type { Sql } from '../db.ts';

/** The signed-in user as GET /api/auth/user answers it. */
export type CurrentUser = {
  id: string;
  email: string;
  firstName: string | null;
  lastName: string | null;
  profileImageUrl: string | null;
  plan: string;
  subscriptionPlan: string | null;
  authProvider: 'google' | 'demo';
};

export async function findUser(sql: Sql, id: string): Promise<CurrentUser | null> {
  const [row] = await sql<CurrentUser[]>`
    SELECT id, email, first_name AS "firstName", last_name AS "lastName", profile_image_url AS "profileImageUrl",
           plan, subscription_plan AS "subscriptionPlan", auth_provider AS "authProvider"
    FROM users WHERE id = ${id}`;
  return row ?? null;
}
