import { z } from 'zod';
import { DomainError } from '../../events/decider.ts';

/**
 * Input is checked with zod, in one of two places, and refused the same way from both: 400
 * `{ message: "<field>: <reason>", field }`, naming the first field that is wrong.
 * - A route's `body`, `query` or `params` option: Elysia checks it before the route runs (and
 *   before `signedIn`); errorHandling answers its refusal with `invalidInput`.
 * - `parseInput` in the route: for rules that come after something else the route checks first
 *   (signed in, on a paid plan, the user's own channel), so that that answer stays the first.
 */

/** One refused input: the first issue (a `/`- or `.`-separated path and a reason) and what it was found on. */
export function invalidInput(issue: { path?: string; message?: string } | undefined, on?: string): DomainError {
  const field = issue?.path?.replace(/^\//, '').replace(/\//g, '.') || undefined;
  const message = issue?.message ? `${field ?? on ?? 'request'}: ${issue.message}` : 'The request is not valid.';
  return new DomainError(message, 400, field);
}

/** The path Elysia gives a zod issue: its keys joined by dots, "root" for the value itself. */
const pathOf = (issue: z.core.$ZodIssue) => issue.path.join('.') || 'root';

/** The value as `schema` gives it, or a 400 DomainError naming the first field that is wrong. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  throw invalidInput(issue && { path: pathOf(issue), message: issue.message });
}

/**
 * A query parameter sent more than once counts once, by its last value, as Elysia reads a
 * parameter its route does not describe.
 */
export const queryParam = <S extends z.ZodType>(schema: S) => z.preprocess((value) => (Array.isArray(value) ? value.at(-1) : value), schema);

/** Text of at most `max` characters, refused in the words the API has always used for it. */
export const textUpTo = (max: number) => z.string().max(max, `Expected string length less or equal to ${max}`);
