import type { Sql } from '../api/db.ts';
import type { EventType } from '../events/catalogue.ts';
import type { RecordedEvent } from '../events/store.ts';

/**
 * A read model: its tables, the event types it reads, and how one event changes it.
 *
 * `apply` runs inside the runner's transaction, together with the checkpoint update, so an event
 * is applied exactly once. The runner pipelines the statements of a whole batch on one connection:
 * `apply` must issue its statements without awaiting reads (upserts whose SQL does the arithmetic),
 * so that every statement of one event is queued before those of the next.
 */
export type Projection = {
  name: string;
  /** Tables owned by this projection, truncated on rebuild and compared by tests. */
  tables: readonly string[];
  /** CREATE ... IF NOT EXISTS statements. */
  ddl: string;
  handles: readonly EventType[];
  apply: (tx: Sql, event: RecordedEvent) => unknown;
};
