import { Elysia } from 'elysia';
import type { AppContext } from '../context.ts';
import { authentication } from '../auth/plugin.ts';
import { DomainError } from '../../events/decider.ts';
import { effectivePlan } from '../products/limit.ts';
import { issueKey, keyStatus, NOT_PRO, revokeKey } from './keys.ts';

/**
 * Settings > API Access: the signed-in user's key. GET shows it masked (and whether the plan
 * includes the API, and why not); POST creates or rotates it and answers the full key, once;
 * DELETE revokes it. Only Pro users can create a key; anyone can revoke theirs.
 */
export function apiKeyRoutes(ctx: AppContext) {
  return new Elysia({ prefix: '/api/settings/api-key' })
    .use(authentication(ctx))
    .get('/', ({ userId }) => keyStatus(ctx.sql, userId), { signedIn: true })
    .post(
      '/',
      async ({ userId, set }) => {
        const plan = await effectivePlan(ctx.sql, userId);
        if (!plan.apiAccess) throw new DomainError(NOT_PRO(plan), 403);
        const { key, status } = await issueKey(ctx.sql, userId);
        set.headers['cache-control'] = 'no-store';
        return { ...status, key };
      },
      { signedIn: true },
    )
    .delete(
      '/',
      async ({ userId }) => {
        await revokeKey(ctx.sql, userId);
        return keyStatus(ctx.sql, userId);
      },
      { signedIn: true },
    );
}
