import type { Module } from '../module.ts';
import { SESSIONS_DDL } from './sessions.ts';
import { OAUTH_STATE_DDL } from './oauth-state.ts';
import { authRoutes } from './routes.ts';
import { usersProjection } from '../../projections/users.ts';

/** Signing in with Google (or the demo account), sessions and the user's profile. */
export const authModule = {
  name: 'auth',
  ddl: [SESSIONS_DDL, OAUTH_STATE_DDL],
  projections: [usersProjection],
  routes: authRoutes,
  jobs: [
    {
      // Expired sessions and abandoned sign-ins are cleaned up hourly.
      name: 'cleanup',
      roles: ['server'],
      cron: '17 * * * *',
      async run(ctx) {
        await ctx.sql`DELETE FROM sessions WHERE expires_at < now()`;
        await ctx.sql`DELETE FROM oauth_states WHERE created_at < now() - interval '1 hour'`;
      },
    },
  ],
} satisfies Module;
