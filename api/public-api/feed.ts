import { START, checkpointOf, type Checkpoint, type EventStore, type RecordedEvent } from '../../events/store.ts';

/**
 * A user's own events (every event names its user in `data.userId`: their user, product,
 * subscription and alert streams) in the log's commit-safe order. The cursor is the opaque pair
 * (transaction id, position) of the last event seen: a page after it never skips an event that
 * commits later, nor repeats one.
 */
export type FeedEvent = {
  cursor: string;
  position: number;
  stream: string;
  version: number;
  type: string;
  data: Record<string, unknown>;
  recordedAt: string;
};

export const encodeCursor = (c: Checkpoint) => Buffer.from(`${c.transactionId}.${c.position}`).toString('base64url');

/** Null for anything this API did not give: a transaction id beyond xid8 or a position beyond a safe integer included. */
export function decodeCursor(cursor: string): Checkpoint | null {
  const m = /^(\d{1,20})\.(\d{1,16})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!m || BigInt(m[1]!) >= 2n ** 64n || !Number.isSafeInteger(Number(m[2]))) return null;
  return { transactionId: m[1]!, position: Number(m[2]) };
}

export const toFeedEvent = (e: RecordedEvent): FeedEvent => ({
  cursor: encodeCursor(checkpointOf(e)),
  position: e.position,
  stream: e.streamId,
  version: e.streamVersion,
  type: e.type,
  data: e.data as Record<string, unknown>,
  recordedAt: e.recordedAt.toISOString(),
});

/** Up to `limit` events after `after`, and the cursor to ask for the next ones (the same when there are none yet). */
export async function userEvents(store: EventStore, userId: string, after: Checkpoint = START, limit = 100) {
  const events = await store.readAll(after, limit, { userId });
  const last = events[events.length - 1];
  return { events: events.map(toFeedEvent), next: encodeCursor(last ? checkpointOf(last) : after), hasMore: events.length === limit };
}
