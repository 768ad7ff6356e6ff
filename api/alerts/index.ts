import type { Module } from '../module.ts';
import { alertRoutes } from './routes.ts';
import { alertRulesReactor } from './reactor.ts';
import { emailOutboxReactor, OUTBOX_DDL } from './outbox.ts';
import { createMailer } from './mailer.ts';
import { createOutboxSender } from './sender.ts';
import { queueWeeklyReports } from './weekly.ts';
import { alertsProjection } from '../../projections/alerts.ts';

/** Alerts raised by each product's rule, in the app and by e-mail, and the weekly report. */
export const alertsModule = {
  name: 'alerts',
  ddl: [OUTBOX_DDL],
  projections: [alertsProjection],
  // Alerts are raised before e-mails (and, in the channels module, channel messages) are queued from them.
  reactors: (store) => [alertRulesReactor(store), emailOutboxReactor],
  routes: alertRoutes,
  jobs: [
    // Weekly reports go out on Monday from 08:00 in each user's time zone; a minute's look finds them.
    { name: 'weekly-reports', roles: ['server'], cron: '* * * * *', run: (ctx) => queueWeeklyReports(ctx) },
    {
      name: 'email-sender',
      roles: ['server'],
      async loop(ctx, signal) {
        const mailer = createMailer(ctx.config);
        try {
          await createOutboxSender(ctx, mailer).run(signal);
        } finally {
          mailer.close();
        }
      },
    },
  ],
} satisfies Module;
