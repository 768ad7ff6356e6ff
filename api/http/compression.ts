import { Elysia, StatusMap } from 'elysia';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

export type Encoding = 'br' | 'gzip';

/** The encodings a request accepts, best first (q=0 refuses one; `*` stands for any not named). */
export function acceptedEncodings(header: string | null): Encoding[] {
  const q = new Map<string, number>();
  for (const part of (header ?? '').toLowerCase().split(',')) {
    const [name, ...params] = part.trim().split(';');
    if (!name) continue;
    const weight = params.map((p) => p.trim().match(/^q=([\d.]+)$/)?.[1]).find(Boolean);
    q.set(name, weight === undefined ? 1 : Number(weight));
  }
  return (['br', 'gzip'] as const).filter((e) => (q.get(e) ?? q.get('*') ?? 0) > 0);
}

/** Text worth compressing; event streams are left alone, since compression would hold events back. */
const COMPRESSIBLE = /^(text\/(html|css|javascript|plain|csv|xml)|application\/(json|javascript|xml|manifest\+json)|image\/svg\+xml)\b/;
/** Below this a body goes as it is: compressing it would save less than it costs. */
const MIN_BYTES = 1024;

const plain = (value: unknown): value is string | object =>
  typeof value === 'string' || (value !== null && typeof value === 'object' && (Array.isArray(value) || Object.getPrototypeOf(value) === Object.prototype));

/**
 * Compresses what is made at request time (API JSON, the API reference page and its viewer) with
 * a fast setting: brotli level 4 is about as fast as gzip's default and smaller. The static site
 * is compressed once at build time (scripts/precompress.ts) and arrives here with its
 * Content-Encoding set, so it passes untouched.
 */
export const compression = new Elysia({ name: 'compression' }).mapResponse({ as: 'global' }, async ({ responseValue: value, request, set }) => {
  const encoding = acceptedEncodings(request.headers.get('accept-encoding'))[0];
  if (!encoding || request.method === 'HEAD') return;
  let body: Uint8Array;
  let headers: Headers;
  let status: number;
  if (value instanceof Response) {
    if (value.headers.has('content-encoding') || !value.body || !COMPRESSIBLE.test(value.headers.get('content-type') ?? '')) return;
    if (isDownload(value)) return compressedStream(value, request.headers.get('accept-encoding'));
    headers = new Headers(value.headers);
    status = value.status;
    body = new Uint8Array(await value.arrayBuffer());
  } else if (plain(value)) {
    const type =
      (set.headers['content-type'] as string | undefined) ?? (typeof value === 'string' ? 'text/plain;charset=utf-8' : 'application/json;charset=utf-8');
    if (!COMPRESSIBLE.test(type)) return;
    body = new TextEncoder().encode(typeof value === 'string' ? value : JSON.stringify(value));
    if (body.length < MIN_BYTES) return; // Elysia answers it as usual
    headers = new Headers({ 'content-type': type });
    status = typeof set.status === 'number' ? set.status : (StatusMap[set.status as keyof typeof StatusMap] ?? 200);
  } else {
    return;
  }
  if (!/accept-encoding/i.test(headers.get('vary') ?? '')) headers.append('vary', 'Accept-Encoding');
  if (body.length >= MIN_BYTES) {
    headers.set('content-encoding', encoding);
    headers.delete('content-length');
    body =
      encoding === 'br'
        ? brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 4, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
        : gzipSync(body);
  }
  // Elysia adds the headers and cookies the handler set.
  return new Response(body as Uint8Array<ArrayBuffer>, { status, headers });
});

/** A download (Content-Disposition: attachment) is streamed as it is made; it must not be read whole first. */
const isDownload = (response: Response) => /^\s*attachment\b/i.test(response.headers.get('content-disposition') ?? '');

/** Gzips a streamed body as it goes (the web's CompressionStream), or leaves it as it is when gzip is not accepted. */
function compressedStream(response: Response, acceptEncoding: string | null): Response | undefined {
  if (!acceptedEncodings(acceptEncoding).includes('gzip')) return;
  const headers = new Headers(response.headers);
  headers.set('content-encoding', 'gzip');
  headers.delete('content-length');
  if (!/accept-encoding/i.test(headers.get('vary') ?? '')) headers.append('vary', 'Accept-Encoding');
  return new Response(response.body!.pipeThrough(new CompressionStream('gzip')), { status: response.status, headers });
}
