import type { Sql } from '../../db/index.ts';
import type { Projection } from '../../projections/projection.ts';

/**
 * Every row of every table of the given read models in `schema`, as sorted JSON lines per
 * table, for comparing two builds. Transaction ids (xid8) are left out: they name transactions
 * of one database and differ in a copy of the log.
 */
export async function readModelSnapshot(sql: Sql, projections: readonly Projection[], schema = 'public'): Promise<Record<string, string[]>> {
  const snapshot: Record<string, string[]> = {};
  for (const table of projections.flatMap((p) => p.tables)) {
    const columns = await sql<{ name: string }[]>`
      SELECT column_name AS name FROM information_schema.columns
      WHERE table_schema = ${schema} AND table_name = ${table} AND data_type <> 'xid8' ORDER BY ordinal_position`;
    if (!columns.length) throw new Error(`No table ${schema}.${table}`);
    const rows = await sql.unsafe<{ row: string }[]>(
      `SELECT json_build_array(${columns.map((c) => `"${c.name}"`).join(', ')})::text AS row FROM ${schema}.${table}`,
    );
    snapshot[table] = rows.map((r) => r.row).sort();
  }
  return snapshot;
}
