import { Elysia } from 'elysia';
import type { AppContext } from '../context.ts';

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cross-site request forgery guard: a state-changing request must come from our own origin.
 * Browsers send Origin (and Sec-Fetch-Site) with such requests; a foreign one is refused with 403.
 * Requests without either (server-to-server, e.g. payment webhooks) carry no cookies of ours to abuse
 * and are authenticated on their own.
 */
export function originCheck(ctx: AppContext) {
  return new Elysia({ name: 'origin-check' }).onRequest(({ request, set }) => {
    if (SAFE.has(request.method)) return;
    const origin = request.headers.get('origin');
    const site = request.headers.get('sec-fetch-site');
    // The request's own origin comes from its Host header, which the sender chooses: trust it
    // only when PUBLIC_URL does not say where we are.
    const own = ctx.config.publicOrigin ?? new URL(request.url).origin;
    const allowed = origin === null ? site === null || site === 'same-origin' || site === 'none' : origin === own;
    if (!allowed) {
      set.status = 403;
      return Response.json({ message: 'Cross-site request refused.' }, { status: 403 });
    }
  });
}
