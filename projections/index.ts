import type { Projection } from './projection.ts';
import { usersProjection } from './users.ts';
import { settingsProjection } from './settings.ts';
import { productsProjection } from './products.ts';

/** Every read model of the product, in the order they are caught up. */
export const projections: readonly Projection[] = [usersProjection, settingsProjection, productsProjection];
