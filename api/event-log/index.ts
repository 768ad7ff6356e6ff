import type { Module } from '../module.ts';
import { aborted } from '../jobs.ts';
import { EVENT_STORE_DDL } from '../../events/store.ts';
import { EVENT_ARCHIVES_DDL } from '../../events/archive.ts';
import { ensurePartitions, reportPartitionFailure } from '../../events/partitions.ts';
import { readVersionsProjection } from '../../projections/read-versions.ts';

/**
 * The log every other module writes to and reads from, and what keeps it: its read models'
 * runners, and its monthly partitions made ahead (by workers too, so they are made when no server runs).
 */
export const eventLogModule = {
  name: 'event-log',
  ddl: [EVENT_STORE_DDL, EVENT_ARCHIVES_DDL],
  // First of all read models: a user's cached answers must miss before the read models they come from change.
  projections: [readVersionsProjection],
  jobs: [
    {
      name: 'read-models',
      roles: ['server'],
      async loop(ctx, signal) {
        ctx.projections.start();
        ctx.reactors.start();
        await aborted(signal);
      },
    },
    { name: 'partitions-ahead', roles: ['server', 'worker'], cron: '0 * * * *', run: (ctx) => ensurePartitions(ctx.sql).catch(reportPartitionFailure) },
  ],
} satisfies Module;
