import type { Projection } from './projection.ts';

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
  handles: ['UserSignedUp', 'UserProfileUpdated'],
  apply(tx, e) {
    switch (e.type) {
      case 'UserSignedUp': {
        const d = e.data;
        return tx`INSERT INTO users (id, email, first_name, last_name, profile_image_url, auth_provider, signed_up_at)
                  VALUES (${d.userId}, ${d.email}, ${d.firstName}, ${d.lastName}, ${d.profileImageUrl}, ${d.provider}, ${e.recordedAt})
                  ON CONFLICT (id) DO NOTHING`;
      }
      case 'UserProfileUpdated': {
        const d = e.data;
        return tx`UPDATE users SET email = ${d.email}, first_name = ${d.firstName}, last_name = ${d.lastName},
                  profile_image_url = ${d.profileImageUrl} WHERE id = ${d.userId}`;
      }
    }
  },
};
