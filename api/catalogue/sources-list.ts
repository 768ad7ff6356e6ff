import type { Sql } from '../../db/index.ts';
import type { SourceKind } from '../../events/catalogue-source.ts';

/** A connected store as the catalogue's header shows it: when it was read, what came of it, why it fails. */
export type SourceListItem = {
  id: string;
  kind: SourceKind;
  url: string;
  createdAt: string;
  /** The last read that changed something, or the first. */
  syncedAt: string | null;
  nextSyncAt: string | null;
  products: number;
  lastSync: { imported: number; changed: number; removed: number; skipped: number } | null;
  /** While reads fail: the reason, as for a failing price check. */
  failure: { code: string; reason: string; at: string } | null;
};

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString());

export async function readSources(sql: Sql, userId: string): Promise<SourceListItem[]> {
  const rows = await sql<
    {
      id: string;
      kind: SourceKind;
      url: string;
      created_at: Date;
      synced_at: Date | null;
      next_sync_at: Date | null;
      products: number;
      imported: number | null;
      changed: number | null;
      removed: number | null;
      skipped: number | null;
      failure_code: string | null;
      failure_reason: string | null;
      failed_at: Date | null;
    }[]
  >`
    SELECT s.*, c.next_sync_at, (SELECT count(*)::int FROM own_products o WHERE o.source_id = s.id) AS products
    FROM catalogue_sources s LEFT JOIN catalogue_source_schedule c ON c.source_id = s.id
    WHERE s.user_id = ${userId} ORDER BY s.created_at, s.id`;
  return rows.map((r) => ({
    id: r.id,
    kind: r.kind,
    url: r.url,
    createdAt: iso(r.created_at)!,
    syncedAt: iso(r.synced_at),
    nextSyncAt: iso(r.next_sync_at),
    products: r.products,
    lastSync: r.imported === null ? null : { imported: r.imported, changed: r.changed ?? 0, removed: r.removed ?? 0, skipped: r.skipped ?? 0 },
    failure: r.failure_code && r.failure_reason ? { code: r.failure_code, reason: r.failure_reason, at: iso(r.failed_at)! } : null,
  }));
}
