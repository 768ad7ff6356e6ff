import type { Projection } from './projection.ts';
import { usersProjection } from './users.ts';
import { settingsProjection } from './settings.ts';
import { productsProjection } from './products.ts';
import { readVersionsProjection } from './read-versions.ts';
import { pricePointDaysProjection } from './price-point-days.ts';
import { billingProjection } from './billing.ts';
import { alertsProjection } from './alerts.ts';
import { checkHealthProjection } from './check-health.ts';
import { channelsProjection } from './channels.ts';

/**
 * Every read model of the product, in the order they are caught up. Read versions come first:
 * a user's cached answers must miss before the read models they come from change.
 */
export const projections: readonly Projection[] = [readVersionsProjection, usersProjection, settingsProjection, productsProjection, pricePointDaysProjection, billingProjection, alertsProjection, checkHealthProjection, channelsProjection];
