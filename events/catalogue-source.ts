import type { EventData, EventOf } from './catalogue.ts';
import { DomainError, type Decider } from './decider.ts';

/**
 * A store the owner's catalogue is read from (stream `catalogue-source-<id>`), and the owner's
 * catalogue settings (stream `catalogue-<userId>`).
 */
export type SourceEvent = EventOf<'SourceConnected'> | EventOf<'SourceSynced'> | EventOf<'SourceFailed'> | EventOf<'SourceRemoved'>;
export type SourceKind = EventData<'SourceConnected'>['kind'];

type Connected = {
  status: 'connected';
  sourceId: string;
  userId: string;
  kind: SourceKind;
  url: string;
  synced: boolean;
  /** The failure last recorded, while reads keep failing. */
  failure: { code: string; reason: string } | null;
};
export type SourceState = { status: 'none' } | Connected | { status: 'removed' };

export type SyncCounts = Omit<EventData<'SourceSynced'>, 'sourceId' | 'userId'>;
export type SourceCommand =
  | { type: 'Connect'; sourceId: string; userId: string; kind: SourceKind; url: string }
  | { type: 'RecordSync'; sourceId: string; counts: SyncCounts }
  | { type: 'RecordFailure'; sourceId: string; failure: Omit<EventData<'SourceFailed'>, 'sourceId' | 'userId'> }
  | { type: 'Remove'; sourceId: string; userId: string };

export const sourceStream = (sourceId: string) => `catalogue-source-${sourceId}`;
export const SOURCE_NOT_FOUND = 'Store not found';

export const sourceDecider: Decider<SourceState, SourceCommand, SourceEvent> = {
  initialState: () => ({ status: 'none' }),

  evolve(state, event) {
    switch (event.type) {
      case 'SourceConnected':
        return { status: 'connected', ...event.data, synced: false, failure: null };
      case 'SourceSynced':
        return state.status === 'connected' ? { ...state, synced: true, failure: null } : state;
      case 'SourceFailed':
        return state.status === 'connected' ? { ...state, failure: { code: event.data.code, reason: event.data.reason } } : state;
      case 'SourceRemoved':
        return { status: 'removed' };
    }
  },

  decide(command, state) {
    switch (command.type) {
      case 'Connect': {
        if (state.status !== 'none') throw new DomainError('This store is already connected.', 409);
        const { type: _, ...data } = command;
        return [{ type: 'SourceConnected', data }];
      }
      case 'RecordSync': {
        if (state.status !== 'connected') return [];
        const { imported, changed, removed } = command.counts;
        // A read that changed nothing is not news, unless it is the first or ends a run of failures.
        if (state.synced && !state.failure && imported + changed + removed === 0) return [];
        return [{ type: 'SourceSynced', data: { sourceId: state.sourceId, userId: state.userId, ...command.counts } }];
      }
      case 'RecordFailure': {
        if (state.status !== 'connected') return [];
        const { failure } = command;
        // The same failure again is not news either: the screen shows it from the first one.
        if (state.failure?.code === failure.code && state.failure.reason === failure.reason) return [];
        return [{ type: 'SourceFailed', data: { sourceId: state.sourceId, userId: state.userId, ...failure } }];
      }
      case 'Remove': {
        if (state.status !== 'connected' || state.userId !== command.userId) throw new DomainError(SOURCE_NOT_FOUND, 404);
        return [{ type: 'SourceRemoved', data: { sourceId: state.sourceId, userId: state.userId } }];
      }
    }
  },
};

export type CatalogueSettings = Omit<EventData<'CatalogueSettingsChanged'>, 'userId'>;
export const DEFAULT_CATALOGUE_SETTINGS: CatalogueSettings = { competitivePercent: 5, autoAcceptGtin: false, autoApply: false, dailyChangeCap: 2 };
export const catalogueSettingsStream = (userId: string) => `catalogue-${userId}`;

export const catalogueSettingsDecider: Decider<
  CatalogueSettings,
  { type: 'Change'; userId: string; settings: CatalogueSettings },
  EventOf<'CatalogueSettingsChanged'>
> = {
  initialState: () => DEFAULT_CATALOGUE_SETTINGS,
  evolve: (_, { data: { userId: _userId, ...settings } }) => settings,
  decide({ userId, settings }, state) {
    if ((Object.keys(state) as (keyof CatalogueSettings)[]).every((key) => state[key] === settings[key])) return [];
    return [{ type: 'CatalogueSettingsChanged', data: { userId, ...settings } }];
  },
};
