import { Elysia } from 'elysia';
import { DomainError } from '../../events/decider.ts';
import { ConcurrencyError } from '../../events/store.ts';
import { invalidInput } from './validation.ts';

/** A JSON error answer: a sentence for people and, for bad input, the field it is about. */
export type ApiError = { message: string; field?: string };

/**
 * Maps every failure to a JSON answer: bad input 400 naming the field, domain refusals with
 * their status, races 409, and only real faults 500 (logged, never leaking internals).
 */
export const errorHandling = new Elysia({ name: 'error-handling' }).onError({ as: 'global' }, ({ code, error: thrown, set }) => {
  // A refusal thrown while a body is read arrives wrapped as a parse failure.
  const error = code === 'PARSE' && (thrown as Error).cause instanceof DomainError ? (thrown as Error).cause : thrown;
  const reply = (status: number, body: ApiError) => {
    set.status = status;
    set.headers['content-type'] = 'application/json';
    return body;
  };
  const refuse = (refusal: DomainError) => reply(refusal.status, { message: refusal.message, ...(refusal.field ? { field: refusal.field } : {}) });
  switch (code) {
    case 'VALIDATION': // a route's body, query or params schema: the first issue, as parseInput answers it
      return refuse(invalidInput((error as any).all?.[0] as { path?: string; message?: string } | undefined, (error as any).type as string | undefined));
    case 'PARSE':
      if (error instanceof DomainError) break;
      return reply(400, { message: 'The request body is not valid JSON.' });
    case 'NOT_FOUND':
      return; // handled by the site (404 page) or the API's own 404
  }
  if (error instanceof DomainError) return refuse(error);
  if (error instanceof ConcurrencyError) return reply(409, { message: 'Someone else changed this at the same moment. Please try again.' });
  console.error(error);
  return reply(500, { message: 'Something went wrong on our side. Please try again.' });
});
