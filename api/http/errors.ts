import { Elysia } from 'elysia';
import { DomainError } from '../../events/decider.ts';
import { ConcurrencyError } from '../../events/store.ts';

/** A JSON error answer: a sentence for people and, for bad input, the field it is about. */
export type ApiError = { message: string; field?: string };

export class HttpError extends Error {
  constructor(readonly status: number, message: string, readonly field?: string) { super(message); }
}

/**
 * Maps every failure to a JSON answer: bad input 400 naming the field, domain refusals with
 * their status, races 409, and only real faults 500 (logged, never leaking internals).
 */
export const errorHandling = new Elysia({ name: 'error-handling' }).onError({ as: 'global' }, ({ code, error: thrown, set }) => {
  // A refusal thrown while a body is read arrives wrapped as a parse failure.
  const error = code === 'PARSE' && (thrown as Error).cause instanceof HttpError ? (thrown as Error).cause : thrown;
  const reply = (status: number, body: ApiError) => { set.status = status; set.headers['content-type'] = 'application/json'; return body; };
  switch (code) {
    case 'VALIDATION': {
      const first = (error as any).all?.[0] as { path?: string; message?: string } | undefined;
      const field = first?.path?.replace(/^\//, '').replace(/\//g, '.') || undefined;
      const on = (error as any).type as string | undefined;
      const message = first?.message ? `${field ?? on ?? 'request'}: ${first.message}` : 'The request is not valid.';
      return reply(400, { message, ...(field ? { field } : {}) });
    }
    case 'PARSE':
      if (error instanceof HttpError) break;
      return reply(400, { message: 'The request body is not valid JSON.' });
    case 'NOT_FOUND':
      return; // handled by the site (404 page) or the API's own 404
  }
  if (error instanceof HttpError) return reply(error.status, { message: error.message, ...(error.field ? { field: error.field } : {}) });
  if (error instanceof DomainError) return reply(error.status, { message: error.message, ...(error.field ? { field: error.field } : {}) });
  if (error instanceof ConcurrencyError) return reply(409, { message: 'Someone else changed this at the same moment. Please try again.' });
  console.error(error);
  return reply(500, { message: 'Something went wrong on our side. Please try again.' });
});
