import { openapi } from '@elysiajs/openapi';
import { KEY_PREFIX } from './keys.ts';
import { DEFAULT_RATE_LIMIT } from './rate-limit.ts';

const { capacity, perSecond } = DEFAULT_RATE_LIMIT;

/**
 * The public API's OpenAPI 3.1 document, generated from the /api/v1 routes and their zod
 * schemas: the reference page at /api/docs (Scalar, loaded from its CDN) and the JSON at
 * /api/docs/json. Nothing outside /api/v1 is described.
 */
export const apiDocs = () => openapi({
  path: '/api/docs',
  specPath: '/api/docs/json',
  exclude: { paths: [/^(?!\/api\/v1\/)/] },
  // The page lives at /api/docs: the plugin's default relative link would point below it.
  scalar: { url: '/api/docs/json' },
  documentation: {
    info: {
      title: 'Pricewatch API',
      version: '1.0.0',
      description: `Read your products, price histories, alerts and events from your own tools. The API comes with the Pro plan.

Authenticate with your API key (Settings > API Access; keys start with \`${KEY_PREFIX}\`): \`Authorization: Bearer <key>\`.
An unknown or revoked key answers 401; a key whose owner is no longer on Pro answers 403.

Each key may make ${capacity} requests at once and ${perSecond * 60} a minute after that; more answer 429 with a Retry-After header (seconds).
Errors are JSON: \`{"message": "...", "field": "..."}\` (field for bad input).`,
    },
    tags: [
      { name: 'Products', description: 'Tracked competitor products and their prices.' },
      { name: 'Alerts', description: 'Price alerts.' },
      { name: 'Events', description: 'The event log of your account: every fact recorded about it, in order.' },
    ],
    components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: `An API key (${KEY_PREFIX}…).` } } },
  },
});
