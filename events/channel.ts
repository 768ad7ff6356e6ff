import type { CHANNEL_TYPES, EventOf } from './catalogue.ts';
import { ALERT_TYPES } from '../domain/alerts.ts';
import { DomainError, type Decider } from './decider.ts';
import type { AlertType } from './alert.ts';

/**
 * An alert channel: somewhere beyond e-mail that a user's alerts are delivered to (a signed
 * webhook, Slack, Discord, Telegram). Stream `channel-<channelId>`; its deliveries are in
 * `deliveries-<channelId>`, so deciding about a channel never reads its whole delivery history.
 */

export type ChannelType = (typeof CHANNEL_TYPES)[number];
export type ChannelEvent = EventOf<'ChannelAdded'> | EventOf<'ChannelChanged'> | EventOf<'ChannelRemoved'>;

export const channelStream = (channelId: string) => `channel-${channelId}`;
export const deliveriesStream = (channelId: string) => `deliveries-${channelId}`;

export const CHANNEL_NOT_FOUND = 'Channel not found';
/** Channels a user may have at once: enough for every team and system, few enough to deliver promptly. */
export const MAX_CHANNELS = 10;
/** Failed attempts in a row, across the channel's messages, after which Pricewatch turns a channel off. */
export const DISABLE_AFTER_FAILURES = 15;

export type ChannelState =
  | { status: 'none' }
  | { status: 'removed'; userId: string }
  | {
      status: 'active';
      channelId: string;
      userId: string;
      type: ChannelType;
      name: string;
      enabled: boolean;
      alertTypes: AlertType[];
      disabledReason: string | null;
    };

export type ChannelCommand =
  | { type: 'AddChannel'; channelId: string; userId: string; channelType: ChannelType; name: string; target: string; alertTypes: AlertType[] }
  | { type: 'ChangeChannel'; userId: string; name?: string; enabled?: boolean; alertTypes?: AlertType[] }
  /** Pricewatch turning a channel off after repeated failures; nothing when it is already off. */
  | { type: 'DisableChannel'; reason: string }
  | { type: 'RemoveChannel'; userId: string };

/** Alert types in their canonical order, each once. */
export const normaliseAlertTypes = (types: readonly AlertType[]): AlertType[] => ALERT_TYPES.filter((t) => types.includes(t));

export const channelDecider: Decider<ChannelState, ChannelCommand, ChannelEvent> = {
  initialState: () => ({ status: 'none' }),

  evolve(state, event) {
    switch (event.type) {
      case 'ChannelAdded': {
        const { channelId, userId, type, name, alertTypes } = event.data;
        return { status: 'active', channelId, userId, type, name, enabled: true, alertTypes, disabledReason: null };
      }
      case 'ChannelChanged':
        if (state.status !== 'active') return state;
        return { ...state, name: event.data.name, enabled: event.data.enabled, alertTypes: event.data.alertTypes, disabledReason: event.data.disabledReason };
      case 'ChannelRemoved':
        return state.status === 'active' ? { status: 'removed', userId: state.userId } : state;
    }
  },

  decide(command, state) {
    if (command.type === 'AddChannel') {
      if (state.status !== 'none') throw new DomainError('This channel already exists.', 409);
      const { channelId, userId, channelType, name, target } = command;
      return [{ type: 'ChannelAdded', data: { channelId, userId, type: channelType, name, target, alertTypes: normaliseAlertTypes(command.alertTypes) } }];
    }
    if (state.status !== 'active') {
      if (command.type === 'DisableChannel') return [];
      throw new DomainError(CHANNEL_NOT_FOUND, 404);
    }
    // Someone else's channel reads as not found.
    if ('userId' in command && command.userId !== state.userId) throw new DomainError(CHANNEL_NOT_FOUND, 404);
    const base = { channelId: state.channelId, userId: state.userId };
    switch (command.type) {
      case 'RemoveChannel':
        return [{ type: 'ChannelRemoved', data: base }];
      case 'DisableChannel':
        if (!state.enabled) return [];
        return [{ type: 'ChannelChanged', data: { ...base, name: state.name, alertTypes: state.alertTypes, enabled: false, disabledReason: command.reason } }];
      case 'ChangeChannel': {
        const name = command.name ?? state.name;
        const alertTypes = command.alertTypes ? normaliseAlertTypes(command.alertTypes) : state.alertTypes;
        const enabled = command.enabled ?? state.enabled;
        // Switching a channel on (again) clears why it was turned off.
        const disabledReason = enabled ? null : state.disabledReason;
        const same =
          name === state.name && enabled === state.enabled && disabledReason === state.disabledReason && alertTypes.join() === state.alertTypes.join();
        return same ? [] : [{ type: 'ChannelChanged', data: { ...base, name, alertTypes, enabled, disabledReason } }];
      }
    }
  },
};
