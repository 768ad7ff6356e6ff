import type { Sql } from '../db/index.ts';
import type { EventType } from '../events/catalogue.ts';
import type { RecordedEvent } from '../events/store.ts';

/**
 * A read model: its tables, the event types it reads, and how one event changes it.
 *
 * `apply` gets a batch of events in commit order and runs inside the runner's transaction, together
 * with the checkpoint update, so every event is applied exactly once. Applying a batch with a few
 * set-based statements (fold in memory, then multi-row upserts) is what makes rebuilds fast.
 */
export type Projection = {
  name: string;
  /** Tables owned by this projection, truncated on rebuild and compared by tests. */
  tables: readonly string[];
  /** CREATE ... IF NOT EXISTS statements. */
  ddl: string;
  handles: readonly EventType[];
  apply: (tx: Sql, events: RecordedEvent[]) => Promise<unknown>;
  /** Whether applying may append events (reactors): the runner then takes the append lock first. */
  appends?: boolean;
};
