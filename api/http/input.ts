import { Elysia } from 'elysia';
import { DomainError } from '../../events/decider.ts';

/**
 * What any request may send the API: JSON bodies up to 1 MB, and text PostgreSQL can store.
 * Bad input is refused here, before anything reads more than it must or reaches the database.
 */

export const MAX_JSON_BODY = 1024 * 1024;

const megabytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;
const tooLarge = (limit: number) => new DomainError(`The request body is too large (at most ${megabytes(limit)}).`, 413);

/**
 * The body as text, refused (413) past `limit` bytes: before reading when its length is
 * declared, and as soon as the count passes it when it is sent in chunks of unknown length.
 */
export async function readBody(request: Request, limit = MAX_JSON_BODY): Promise<string> {
  return new TextDecoder().decode(await readBodyBytes(request, limit));
}

/** The body's bytes, refused (413) past `limit` bytes as `readBody` does. */
export async function readBodyBytes(request: Request, limit = MAX_JSON_BODY): Promise<Uint8Array> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit);
  if (!request.body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** PostgreSQL refuses NUL in text and jsonb, and JSON text with an unpaired surrogate. */
export const isStorableText = (text: string) => !text.includes('\u0000') && text.isWellFormed();

/** Years 1 to 9999: what a JavaScript date and a PostgreSQL timestamp both write and read alike. */
const EARLIEST = Date.parse('0001-01-01T00:00:00Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');
export const isStorableTime = (ms: number) => ms >= EARLIEST && ms <= LATEST;

/** Deeper than any body the API takes; deeper ones are refused before anything walks them. */
const MAX_DEPTH = 32;

type Step = { value: unknown; key: string | null; parent: Step | null; depth: number };

const pathOf = (step: Step) => {
  const keys: string[] = [];
  for (let s: Step | null = step; s; s = s.parent) if (s.key !== null) keys.unshift(s.key);
  return keys.join('.');
};

/** 400 naming the field of the first string (value or key) the database cannot store, or when nested too deep. */
function refuseUnstorable(value: unknown) {
  const refuse = (field: string) => {
    throw new DomainError(`${field || 'body'}: must not contain NUL characters or unpaired surrogates`, 400, field || undefined);
  };
  // A stack rather than recursion, and paths only when needed: a hostile body is walked in linear time.
  const stack: Step[] = [{ value, key: null, parent: null, depth: 0 }];
  while (stack.length) {
    const step = stack.pop()!;
    if (typeof step.value === 'string') {
      if (!isStorableText(step.value)) refuse(pathOf(step));
      continue;
    }
    if (!step.value || typeof step.value !== 'object') continue;
    if (step.depth >= MAX_DEPTH) throw new DomainError(`The request body is nested too deeply (at most ${MAX_DEPTH} levels).`, 400);
    for (const [key, child] of Object.entries(step.value)) {
      if (!isStorableText(key)) refuse(pathOf(step));
      stack.push({ value: child, key, parent: step, depth: step.depth + 1 });
    }
  }
}

/**
 * Every route added after this plugin takes JSON only: another content type is 415, a body over
 * 1 MB is 413 before it is read, a body nested deeper than any the API takes is 400, and so is a
 * string the database cannot store, naming the field (in the body or the query; in the path it
 * is 404). Requests without a body are left alone. A route that reads its body itself, in its
 * own format, is added before this plugin.
 */
export const jsonInput = new Elysia({ name: 'json-input' })
  .onParse({ as: 'global' }, async ({ request }, contentType) => {
    if (!request.body) return;
    if (contentType.trim().toLowerCase() !== 'application/json') {
      throw new DomainError('Send the request body as JSON (Content-Type: application/json).', 415);
    }
    const body: unknown = JSON.parse(await readBody(request)); // not JSON: a parse failure, 400
    refuseUnstorable(body);
    return body;
  })
  .onTransform({ as: 'global' }, ({ path, query, params }) => {
    if (!path.startsWith('/api/')) return;
    // An address naming something that cannot exist (or cannot even be decoded: null) is simply not found.
    if (Object.values(params ?? {}).some((v) => typeof v !== 'string' || !isStorableText(v))) throw new DomainError('Not found', 404);
    refuseUnstorable(query);
  });

/**
 * An uploaded CSV file as text: 415 for another content type, 413 past `limit` bytes before
 * reading more, 400 for bytes that are not UTF-8 (a spreadsheet's other encodings).
 */
export async function readCsvUpload(request: Request, limit: number): Promise<string> {
  if (!/^\s*(text\/csv|application\/csv)\s*(;|$)/i.test(request.headers.get('content-type') ?? '')) {
    throw new DomainError('Send the file as CSV (Content-Type: text/csv).', 415);
  }
  const bytes = await readBodyBytes(request, limit);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new DomainError('The file is not UTF-8 text. Save it as "CSV UTF-8" and try again.', 400);
  }
}
