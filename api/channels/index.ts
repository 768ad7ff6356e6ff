import type { Module } from '../module.ts';
import { channelRoutes } from './routes.ts';
import { channelOutboxReactor, CHANNELS_DDL } from './outbox.ts';
import { createChannelDeliverer } from './deliverer.ts';
import { channelsProjection } from '../../projections/channels.ts';

/** Alerts delivered to a user's own webhooks, Slack, Discord and Telegram. */
export const channelsModule = {
  name: 'channels',
  ddl: [CHANNELS_DDL],
  projections: [channelsProjection],
  reactors: () => [channelOutboxReactor],
  routes: channelRoutes,
  jobs: [{ name: 'channel-deliverer', roles: ['server'], loop: (ctx, signal) => createChannelDeliverer(ctx).run(signal) }],
} satisfies Module;
