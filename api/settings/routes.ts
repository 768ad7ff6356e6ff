import { Elysia } from 'elysia';
import { Settings } from '../../events/catalogue.ts';
import { handleCommand } from '../../events/decider.ts';
import { userDecider, userStream } from '../../events/user.ts';
import { checkpointOf } from '../../events/store.ts';
import type { AppContext } from '../context.ts';
import { authentication } from '../auth/plugin.ts';
import { HttpError } from '../http/errors.ts';

export async function readSettings(ctx: AppContext, userId: string): Promise<Settings | null> {
  const [row] = await ctx.sql<Settings[]>`
    SELECT email_notifications AS "emailNotifications", price_drop_alerts AS "priceDropAlerts", weekly_reports AS "weeklyReports",
           check_frequency AS "checkFrequency", currency, timezone
    FROM user_settings WHERE user_id = ${userId}`;
  return row ?? null;
}

/** GET answers 404 until the user saves once (the screen then shows the defaults); PUT records SettingsChanged. */
export function settingsRoutes(ctx: AppContext) {
  return new Elysia({ prefix: '/api/settings' })
    .use(authentication(ctx))
    .get('/', async ({ userId }) => {
      const settings = await readSettings(ctx, userId);
      if (!settings) throw new HttpError(404, 'No settings saved yet; the defaults apply.');
      return settings;
    }, { signedIn: true })
    .put('/', async ({ userId, body }) => {
      const result = await handleCommand(ctx.store, userStream(userId), userDecider, { type: 'ChangeSettings', userId, settings: body });
      if (result.appended) await ctx.projections.waitFor(checkpointOf({ transactionId: result.appended.transactionId, position: result.appended.lastPosition }));
      return body;
    }, { signedIn: true, body: Settings });
}
