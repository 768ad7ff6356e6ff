import { DomainError } from '../../events/decider.ts';

/** Product and alert ids are lower-case UUIDs (alert ids are derived in that shape too). */
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const isId = (text: string) => ID.test(text);

/** An id from a request: anything that cannot be one of ours is simply not found, without a query. */
export function idOf(id: string, notFound: string): string {
  if (!isId(id)) throw new DomainError(notFound, 404);
  return id;
}
