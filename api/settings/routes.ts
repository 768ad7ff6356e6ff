import { Elysia } from 'elysia';
import { DEFAULT_SETTINGS, Settings } from '../../events/catalogue.ts';
import { handleCommand } from '../../events/decider.ts';
import { userDecider, userStream } from '../../events/user.ts';
import { checkpointOf } from '../../events/store.ts';
import type { AppContext } from '../context.ts';
import type { Sql } from '../../db/index.ts';
import { authentication } from '../auth/plugin.ts';
import { effectivePlan } from '../products/limit.ts';

/** The user's settings: the ones they saved, else the defaults. */
export async function readSettings(sql: Sql, userId: string): Promise<Settings> {
  const [row] = await sql<Settings[]>`
    SELECT email_notifications AS "emailNotifications", price_drop_alerts AS "priceDropAlerts", weekly_reports AS "weeklyReports",
           check_frequency AS "checkFrequency", currency, timezone
    FROM user_settings WHERE user_id = ${userId}`;
  return row ?? { ...DEFAULT_SETTINGS };
}

/**
 * GET answers the saved settings, or the defaults until the user saves once (200 either way: a
 * 404 would be an error in every browser console; the screen still takes one as the defaults).
 * PUT records SettingsChanged; a check frequency faster than the plan checks is refused (400,
 * `checkFrequency`). A faster one saved before a downgrade still reads back as saved: the schedule
 * runs it at the plan's pace, and the screen says so.
 */
export function settingsRoutes(ctx: AppContext) {
  return new Elysia({ prefix: '/api/settings' })
    .use(authentication(ctx))
    .get('/', ({ userId }) => readSettings(ctx.sql, userId), { signedIn: true })
    .put(
      '/',
      async ({ userId, body }) => {
        const plan = await effectivePlan(ctx.sql, userId);
        const result = await handleCommand(ctx.store, userStream(userId), userDecider, { type: 'ChangeSettings', userId, settings: body, plan });
        if (result.appended)
          await ctx.projections.waitFor(checkpointOf({ transactionId: result.appended.transactionId, position: result.appended.lastPosition }));
        return body;
      },
      { signedIn: true, body: Settings },
    );
}
