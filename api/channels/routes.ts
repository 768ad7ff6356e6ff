import { Elysia } from 'elysia';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import type { Sql } from '../../db/index.ts';
import { authentication } from '../auth/plugin.ts';
import { idOf } from '../http/ids.ts';
import { parseInput } from '../http/validation.ts';
import { effectivePlan } from '../products/limit.ts';
import { sharedFetcher, type Fetcher } from '../fetching/fetcher.ts';
import { appendingTransaction, type AppendResult } from '../../events/store.ts';
import { DomainError, handleCommand } from '../../events/decider.ts';
import type { AlertType } from '../../events/alert.ts';
import {
  CHANNEL_NOT_FOUND,
  channelDecider,
  channelStream,
  deliveriesStream,
  MAX_CHANNELS,
  type ChannelCommand,
  type ChannelType,
} from '../../events/channel.ts';
import { describeEndpoint, newWebhookSecret, type Endpoint } from './messages.ts';
import { ChannelChangesInput, newChannelInput } from './input.ts';
import { attemptEvent, send } from './deliverer.ts';

/** A channel as Settings > Notifications shows it: its endpoint only described, never its secrets. */
export type ChannelItem = {
  id: string;
  type: ChannelType;
  name: string;
  enabled: boolean;
  alertTypes: AlertType[];
  target: string;
  disabledReason: string | null;
  createdAt: string;
  lastDelivery: { at: string; delivered: boolean; status: number | null; error: string | null } | null;
};

export type DeliveryItem = {
  id: string;
  at: string;
  alertId: string | null;
  productName: string | null;
  test: boolean;
  delivered: boolean;
  status: number | null;
  error: string | null;
  attempt: number;
  retryAt: string | null;
};

export const DELIVERIES_LISTED = 50;

// The shapes the routes take, checked before anything else; what each field may hold is checked
// in the route (input.ts, with reasons), after the plan and the channel are.
// zod rather than Elysia's own schemas: those turn a body that is not an object into {}.
const NOT_AN_OBJECT = 'Send the channel as a JSON object.';
const text = z.string().max(4000).nullish();
const alertTypes = z.array(z.string().max(40)).max(20).nullish();
const NewChannelBody = z.object(
  {
    type: z.string().max(40),
    url: text,
    botToken: text,
    chatId: z.union([z.string().max(100), z.number()]).optional(),
    name: text,
    alertTypes,
  },
  { error: NOT_AN_OBJECT },
);
const ChannelChangesBody = z.object({ name: text, enabled: z.boolean().optional(), alertTypes }, { error: NOT_AN_OBJECT });
export const PAID_PLANS_ONLY =
  'Alert channels (webhooks, Slack, Discord and Telegram) come with paid plans; the Free plan has e-mail and in-app alerts. Upgrade to add one.';

type ChannelRow = {
  id: string;
  type: ChannelType;
  name: string;
  enabled: boolean;
  alert_types: AlertType[];
  target: string;
  disabled_reason: string | null;
  created_at: Date;
  last_delivery: ChannelItem['lastDelivery'];
};

async function listChannels(sql: Sql, userId: string, channelId?: string): Promise<ChannelItem[]> {
  const rows = await sql<ChannelRow[]>`
    SELECT c.*, (SELECT json_build_object('at', d.at, 'delivered', d.delivered, 'status', d.status, 'error', d.error)
                 FROM channel_deliveries d WHERE d.channel_id = c.id ORDER BY d.at DESC, d.id LIMIT 1) AS last_delivery
    FROM channels c WHERE c.user_id = ${userId} ${channelId ? sql`AND c.id = ${channelId}` : sql``}
    ORDER BY c.created_at, c.id`;
  return rows.map((r) => ({
    id: r.id,
    type: r.type,
    name: r.name,
    enabled: r.enabled,
    alertTypes: r.alert_types,
    target: r.target,
    disabledReason: r.disabled_reason,
    createdAt: r.created_at.toISOString(),
    lastDelivery: r.last_delivery && { ...r.last_delivery, at: new Date(r.last_delivery.at).toISOString() },
  }));
}

export function channelRoutes(ctx: AppContext, opts: { fetcher?: Fetcher } = {}) {
  const fetcher = opts.fetcher ?? sharedFetcher;
  const NewChannelInput = newChannelInput({ production: ctx.config.production, allowPrivate: ctx.config.checkAllowPrivate });

  async function caughtUp(appended: AppendResult | null) {
    if (appended) await ctx.projections.waitFor({ transactionId: appended.transactionId, position: appended.lastPosition });
  }

  async function assertPaid(userId: string) {
    if ((await effectivePlan(ctx.sql, userId)).id === 'free') throw new DomainError(PAID_PLANS_ONLY, 403);
  }

  async function channelOf(userId: string, id: string): Promise<ChannelItem> {
    const [channel] = await listChannels(ctx.sql, userId, idOf(id, CHANNEL_NOT_FOUND));
    if (!channel) throw new DomainError(CHANNEL_NOT_FOUND, 404);
    return channel;
  }

  /** The channel's command and its endpoint's row in one transaction; the decider refuses others' channels (404). */
  async function command(channelId: string, cmd: ChannelCommand, alsoInTx?: (tx: Sql) => Promise<unknown>) {
    const appended = await appendingTransaction(ctx.sql, async (tx) => {
      const result = await handleCommand(ctx.store, channelStream(channelId), channelDecider, cmd, { tx });
      await alsoInTx?.(tx);
      return result.appended;
    });
    await caughtUp(appended);
  }

  async function endpointOf(userId: string, channelId: string): Promise<Endpoint> {
    const [row] = await ctx.sql<{ endpoint: Endpoint }[]>`SELECT endpoint FROM channel_endpoints WHERE channel_id = ${channelId} AND user_id = ${userId}`;
    if (!row) throw new DomainError(CHANNEL_NOT_FOUND, 404);
    return row.endpoint;
  }

  return (
    new Elysia({ prefix: '/api/channels' })
      .use(authentication(ctx))
      // Listed on every plan: channels kept from a paid period can still be seen and removed.
      .get('/', ({ userId }) => listChannels(ctx.sql, userId), { signedIn: true })

      .post(
        '/',
        async ({ userId, body, set }) => {
          await assertPaid(userId);
          const channel = parseInput(NewChannelInput, body);
          const channelId = crypto.randomUUID();
          await command(
            channelId,
            {
              type: 'AddChannel',
              channelId,
              userId,
              channelType: channel.type,
              name: channel.name,
              target: describeEndpoint(channel.endpoint),
              alertTypes: channel.alertTypes,
            },
            async (tx) => {
              // Counted under the user's lock, so two adds together cannot pass the limit.
              await tx`SELECT pg_advisory_xact_lock(hashtext(${'channels:' + userId}))`;
              const [{ n }] = await tx<{ n: number }[]>`SELECT count(*)::int AS n FROM channel_endpoints WHERE user_id = ${userId}`;
              if (n >= MAX_CHANNELS) throw new DomainError(`You can have at most ${MAX_CHANNELS} alert channels. Remove one to add another.`, 403);
              await tx`INSERT INTO channel_endpoints (channel_id, user_id, endpoint) VALUES (${channelId}, ${userId}, ${tx.json(channel.endpoint as never)})`;
            },
          );
          set.status = 201;
          // The signing secret is shown this once; only its holder can verify deliveries.
          return { ...(await channelOf(userId, channelId)), ...(channel.endpoint.type === 'webhook' ? { secret: channel.endpoint.secret } : {}) };
        },
        { signedIn: true, body: NewChannelBody },
      )

      .patch(
        '/:id',
        async ({ userId, params, body }) => {
          const channel = await channelOf(userId, params.id);
          const changes = parseInput(ChannelChangesInput, body);
          if (changes.enabled && !channel.enabled) await assertPaid(userId);
          await command(channel.id, { type: 'ChangeChannel', userId, ...changes }, async (tx) => {
            if (changes.enabled === undefined) return;
            // Switched on again: a fresh start for the run of failures that may have turned it off.
            await tx`UPDATE channel_endpoints SET enabled = ${changes.enabled}, failures_in_a_row = CASE WHEN ${changes.enabled} THEN 0 ELSE failures_in_a_row END
                 WHERE channel_id = ${channel.id}`;
          });
          return channelOf(userId, channel.id);
        },
        { signedIn: true, body: ChannelChangesBody },
      )

      .delete(
        '/:id',
        async ({ userId, params }) => {
          const channel = await channelOf(userId, params.id);
          await command(channel.id, { type: 'RemoveChannel', userId }, async (tx) => {
            await tx`DELETE FROM channel_endpoints WHERE channel_id = ${channel.id}`;
            await tx`DELETE FROM channel_outbox WHERE channel_id = ${channel.id}`;
          });
          return { success: true };
        },
        { signedIn: true },
      )

      // Sends a test message now and answers what the receiver said; recorded in the delivery log.
      .post(
        '/:id/test',
        async ({ userId, params }) => {
          const channel = await channelOf(userId, params.id);
          await assertPaid(userId);
          const endpoint = await endpointOf(userId, channel.id);
          const messageId = `msg_test_${crypto.randomUUID().replace(/-/g, '')}`;
          const outcome = await send(ctx, fetcher, endpoint, channel.id, { kind: 'test', channelName: channel.name }, messageId);
          const attempt = { channelId: channel.id, userId, messageId, alertId: null, productName: null, attempt: 1 };
          const appended = await appendingTransaction(ctx.sql, async (tx) => {
            if (outcome.delivered) await tx`UPDATE channel_endpoints SET failures_in_a_row = 0 WHERE channel_id = ${channel.id}`;
            return ctx.store.append(deliveriesStream(channel.id), 'any', [attemptEvent(attempt, outcome, null)], tx);
          });
          await caughtUp(appended);
          return { delivered: outcome.delivered, status: outcome.status, error: outcome.error };
        },
        { signedIn: true },
      )

      // A new signing secret for a webhook, shown once; the old one stops verifying at once.
      .post(
        '/:id/rotate-secret',
        async ({ userId, params }) => {
          const channel = await channelOf(userId, params.id);
          if (channel.type !== 'webhook') throw new DomainError('Only webhook channels have a signing secret.', 400);
          const secret = newWebhookSecret();
          await ctx.sql`UPDATE channel_endpoints SET endpoint = jsonb_set(endpoint, '{secret}', to_jsonb(${secret}::text)) WHERE channel_id = ${channel.id}`;
          return { secret };
        },
        { signedIn: true },
      )

      .get(
        '/:id/deliveries',
        async ({ userId, params }): Promise<DeliveryItem[]> => {
          const channel = await channelOf(userId, params.id);
          const rows = await ctx.sql<
            {
              id: string;
              at: Date;
              alert_id: string | null;
              product_name: string | null;
              delivered: boolean;
              status: number | null;
              error: string | null;
              attempt: number;
              retry_at: Date | null;
            }[]
          >`
        SELECT id, at, alert_id, product_name, delivered, status, error, attempt, retry_at FROM channel_deliveries
        WHERE channel_id = ${channel.id} ORDER BY at DESC, id DESC LIMIT ${DELIVERIES_LISTED}`;
          return rows.map((r) => ({
            id: r.id,
            at: r.at.toISOString(),
            alertId: r.alert_id,
            productName: r.product_name,
            test: r.alert_id === null,
            delivered: r.delivered,
            status: r.status,
            error: r.error,
            attempt: r.attempt,
            retryAt: r.retry_at?.toISOString() ?? null,
          }));
        },
        { signedIn: true },
      )
  );
}
