import type { EventStore } from '../../events/store.ts';
import type { Projection } from '../../projections/projection.ts';
import { alertRulesReactor } from './reactor.ts';
import { emailOutboxReactor } from './outbox.ts';
import { channelOutboxReactor } from '../channels/outbox.ts';

/**
 * Reactors: modules shaped like projections whose batches act (raise alerts, queue e-mails) in the
 * transaction of their checkpoint. Run by their own runner, with their own checkpoints, and never
 * rebuilt: rebuilding would act again. Alerts are raised before e-mails and channel messages are queued from them.
 */
export const reactors = (store: EventStore): readonly Projection[] => [alertRulesReactor(store), emailOutboxReactor, channelOutboxReactor];
