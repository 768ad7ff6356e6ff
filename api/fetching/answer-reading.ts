// Reading a shop's answer: its status and redirect, its type and size checked, and its body
// decompressed and read up to a limit, then decoded to text with the charset it names.

import type http from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import zlib from 'node:zlib';
import { FetchError, failures } from '../../domain/check-failures.ts';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const HTML_CONTENT_TYPES = new Set(['text/html', 'application/xhtml+xml']);
// Enough of an error page to recognise a bot challenge.
export const ERROR_SAMPLE_BYTES = 64 * 1024;

export type Answer = { url: URL; status: number; headers: http.IncomingHttpHeaders; body: Buffer };

export function isRedirect({ status, headers }: Pick<Answer, 'status' | 'headers'>): boolean {
  return REDIRECT_STATUSES.has(status) && Boolean(headers.location);
}

/** A page's resource: any status and type, redirects handed back, at most `maxBytes`. */
export async function readResource(url: URL, response: http.IncomingMessage, maxBytes: number): Promise<Answer> {
  const status = response.statusCode ?? 0;
  const { headers } = response;
  if (isRedirect({ status, headers })) {
    response.destroy();
    return { url, status, headers, body: Buffer.alloc(0) };
  }
  if (Number(headers['content-length']) > maxBytes) {
    response.destroy();
    throw new FetchError(failures.tooLarge(maxBytes));
  }
  return { url, status, headers, body: await readBody(response, maxBytes, 'fail') };
}

export async function readAnswer(url: URL, response: http.IncomingMessage, maxBytes: number, anyType = false): Promise<Answer> {
  const status = response.statusCode ?? 0;
  const { headers } = response;
  const answer = (body: Buffer): Answer => ({ url, status, headers, body });
  if (isRedirect({ status, headers })) {
    response.destroy();
    return answer(Buffer.alloc(0));
  }
  if (status < 200 || status >= 300) return answer(await readBody(response, ERROR_SAMPLE_BYTES, 'truncate'));

  const mediaType = headers['content-type']?.split(';')[0].trim().toLowerCase();
  if (mediaType && !anyType && !HTML_CONTENT_TYPES.has(mediaType)) {
    response.destroy();
    throw new FetchError(failures.notHtml(mediaType));
  }
  if (Number(headers['content-length']) > maxBytes) {
    response.destroy();
    throw new FetchError(failures.tooLarge(maxBytes));
  }
  return answer(await readBody(response, maxBytes, 'fail'));
}

/** Reads and decompresses at most `limit` bytes, then stops the download. */
async function readBody(response: http.IncomingMessage, limit: number, overflow: 'fail' | 'truncate'): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of decompressed(response)) {
      const room = limit - size;
      if (chunk.length > room) {
        if (overflow === 'fail') throw new FetchError(failures.tooLarge(limit));
        chunks.push(chunk.subarray(0, room));
        size = limit;
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } finally {
    response.destroy();
  }
  return Buffer.concat(chunks, size);
}

function decompressed(response: http.IncomingMessage): Readable {
  const encoding = String(response.headers['content-encoding'] ?? 'identity')
    .trim()
    .toLowerCase();
  if (encoding === 'identity' || encoding === '') return response;
  const createDecoder = DECODERS[encoding];
  if (!createDecoder) throw new FetchError(failures.network(`The shop sent the page in an encoding Pricewatch cannot read (${encoding}).`));
  // pipeline passes a broken download on to the decoder, so the reader sees the error.
  return pipeline(response, createDecoder(), () => {});
}

const DECODERS: Record<string, () => zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress> = {
  gzip: () => zlib.createGunzip(),
  'x-gzip': () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};

/** Decodes with the charset of the byte order mark, the Content-Type, or a meta tag, in that order. */
export function decodeText(body: Uint8Array, contentType: string | null): string {
  const label = charsetFromByteOrderMark(body) ?? charsetParameter(contentType) ?? metaCharset(body) ?? 'utf-8';
  try {
    return new TextDecoder(label).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

function charsetFromByteOrderMark(body: Uint8Array): string | undefined {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  return undefined;
}

function charsetParameter(value: string | null | undefined): string | undefined {
  return value?.match(/charset\s*=\s*["']?\s*([\w.:-]+)/i)?.[1];
}

/**
 * The `<meta charset>` or `<meta http-equiv="Content-Type">` in the first kilobyte, as browsers
 * look for it, or an XML declaration's encoding (a product feed).
 */
function metaCharset(body: Uint8Array): string | undefined {
  const head = Buffer.from(body.subarray(0, 1024)).toString('latin1');
  return head.match(/^\s*<\?xml[^>]*\bencoding\s*=\s*["']([\w.:-]+)["']/)?.[1] ?? head.match(/<meta[^>]*charset\s*=\s*["']?\s*([\w.:-]+)/i)?.[1];
}
