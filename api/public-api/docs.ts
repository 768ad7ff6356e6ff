import { Elysia } from 'elysia';
import { openapi } from '@elysiajs/openapi';
import { createRequire } from 'node:module';
import { KEY_PREFIX } from './keys.ts';
import { DEFAULT_RATE_LIMIT } from './rate-limit.ts';

const { capacity, perSecond } = DEFAULT_RATE_LIMIT;

const TITLE = 'Pricewatch API';
const SPEC_PATH = '/api/docs/json';

/**
 * The reference page: Swagger UI, served from the product itself, so it works offline and under a
 * strict Content-Security-Policy (no inline script, no other origin). swagger-ui-dist is the
 * viewer's built files alone; the Scalar viewer's package would bring some 300 packages.
 */
const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${TITLE}</title>
  <link rel="icon" type="image/svg+xml" href="/favicon.svg">
  <link rel="stylesheet" href="/api/docs/swagger-ui.css">
  <style>
    body { margin: 0; }
    @media (prefers-color-scheme: dark) {
      body { background: #1b1b1b; }
      .swagger-ui { filter: invert(92%) hue-rotate(180deg); }
      .swagger-ui .microlight { filter: invert(100%) hue-rotate(180deg); }
    }
  </style>
</head>
<body>
  <div id="swagger-ui" data-spec="${SPEC_PATH}"></div>
  <script src="/api/docs/swagger-ui-bundle.js"></script>
  <script src="/api/docs/viewer.js"></script>
</body>
</html>
`;

// validatorUrl null: Swagger UI would otherwise have swagger.io's validator fetch the document.
const viewer = `const root = document.getElementById('swagger-ui');
window.ui = SwaggerUIBundle({ url: root.dataset.spec, domNode: root, deepLinking: true, validatorUrl: null });
`;

const viewerFile = (name: string) => Bun.file(createRequire(import.meta.url).resolve(`swagger-ui-dist/${name}`));
// The viewer's files change only with the package version: browsers may keep them for a day.
const asset = (body: Blob | string, type: string) => new Response(body, { headers: { 'content-type': type, 'cache-control': 'public, max-age=86400' } });

const openapiDocument = () =>
  openapi({
    provider: null, // the page above
    specPath: SPEC_PATH,
    exclude: { paths: [/^(?!\/api\/v1\/)/] },
    documentation: {
      info: {
        title: TITLE,
        version: '1.0.0',
        description: `Read your tracked products, price histories, your own catalogue and where you stand, alerts and events from your own tools. The API comes with the Pro plan.

Authenticate with your API key (Settings > API Access; keys start with \`${KEY_PREFIX}\`): \`Authorization: Bearer <key>\`.
An unknown or revoked key answers 401; a key whose owner is no longer on Pro answers 403.

Each key may make ${capacity} requests at once and ${perSecond * 60} a minute after that; more answer 429 with a Retry-After header (seconds).
Errors are JSON: \`{"message": "...", "field": "..."}\` (field for bad input).`,
      },
      tags: [
        { name: 'Products', description: 'Tracked competitor products and their prices.' },
        { name: 'Catalogue', description: 'The products you sell, and where your prices stand against the competitors you track.' },
        { name: 'Alerts', description: 'Price alerts.' },
        { name: 'Events', description: 'The event log of your account: every fact recorded about it, in order.' },
      ],
      components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: `An API key (${KEY_PREFIX}…).` } } },
    },
  });

/**
 * The public API's OpenAPI 3.1 document, generated from the /api/v1 routes and their zod
 * schemas: the reference page at /api/docs and the JSON at /api/docs/json. Nothing outside
 * /api/v1 is described.
 */
export const apiDocs = () =>
  new Elysia({ name: 'api-docs' })
    .get('/api/docs', () => new Response(page, { headers: { 'content-type': 'text/html; charset=utf-8' } }))
    .get('/api/docs/swagger-ui.css', () => asset(viewerFile('swagger-ui.css'), 'text/css; charset=utf-8'))
    .get('/api/docs/swagger-ui-bundle.js', () => asset(viewerFile('swagger-ui-bundle.js'), 'text/javascript; charset=utf-8'))
    .get('/api/docs/viewer.js', () => asset(viewer, 'text/javascript; charset=utf-8'))
    .use(openapiDocument());
