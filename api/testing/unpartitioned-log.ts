import type { Sql } from '../../db/index.ts';

/**
 * The event log as releases before time partitions created it (a plain table with an identity
 * column, whose sequence repeated checks share), with the indexes other features put on it: the
 * starting point of the migration in EVENT_STORE_DDL. Frozen on purpose: it is what users' databases hold, not what the code makes now.
 */
export const UNPARTITIONED_LOG_DDL = `
SELECT pg_advisory_xact_lock(1886546275, 0);
CREATE TABLE IF NOT EXISTS streams (
  stream_id   text PRIMARY KEY,
  version     bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
  global_position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  transaction_id  xid8 NOT NULL DEFAULT pg_current_xact_id(),
  stream_id       text NOT NULL,
  stream_version  bigint NOT NULL,
  type            text NOT NULL,
  schema_version  integer NOT NULL,
  data            jsonb NOT NULL,
  metadata        jsonb NOT NULL DEFAULT '{}',
  recorded_at     timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (stream_id, stream_version)
);
CREATE INDEX IF NOT EXISTS events_by_commit_order ON events (transaction_id, global_position);
CREATE OR REPLACE FUNCTION events_take_append_lock() RETURNS void LANGUAGE sql
  AS $$ SELECT pg_advisory_xact_lock_shared(1886546275, 1702260340) $$;
CREATE OR REPLACE FUNCTION events_append_lock() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
    RAISE EXCEPTION 'a transaction that appends events must take the append lock before its first write'
      USING HINT = 'open it with appendingTransaction';
  END IF;
  PERFORM events_take_append_lock();
  PERFORM pg_current_xact_id();
END $$;
CREATE TABLE IF NOT EXISTS price_checks (
  transaction_id  xid8 NOT NULL DEFAULT pg_current_xact_id(),
  global_position bigint NOT NULL DEFAULT nextval('events_global_position_seq'),
  repeats         bigint NOT NULL,
  observed_at     timestamptz NOT NULL,
  page_hash       uuid NOT NULL
);
CREATE INDEX IF NOT EXISTS price_checks_by_commit_order ON price_checks (transaction_id, global_position) WITH (fillfactor = 100);
CREATE INDEX IF NOT EXISTS events_product_lifecycle_by_user ON events ((data->>'userId'), type)
  WHERE type IN ('ProductAdded', 'ProductRemoved');
CREATE INDEX IF NOT EXISTS events_product_details_by_user ON events ((data->>'userId'))
  WHERE type IN ('ProductAdded', 'ProductEdited', 'ProductRemoved');
CREATE INDEX IF NOT EXISTS events_by_billing_customer ON events ((data->>'customerId')) WHERE type = 'BillingCustomerCreated';
CREATE INDEX IF NOT EXISTS events_by_user_in_commit_order ON events ((data->>'userId'), transaction_id, global_position);
`;

export async function createUnpartitionedLog(sql: Sql): Promise<void> {
  await sql.unsafe(UNPARTITIONED_LOG_DDL);
}
