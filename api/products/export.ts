import { Elysia } from 'elysia';
import type { AppContext } from '../context.ts';
import { authentication } from '../auth/plugin.ts';
import type { Sql } from '../../db/index.ts';
import type { AlertRule } from '../../events/catalogue.ts';
import { DEFAULT_SETTINGS } from '../../events/settings.ts';
import { productsCsv, type ExportProduct } from './csv.ts';

/** Rows read from the database per chunk of the download. */
const PAGE = 500;

type Row = {
  id: string;
  name: string;
  url: string;
  selector: string;
  alert_rule: AlertRule;
  current_price: number | null;
  currency: string;
  last_checked: Date | null;
  last_check_status: 'ok' | 'failed' | null;
  /** created_at as PostgreSQL writes it: to the microsecond, which a JavaScript date would round off. */
  created_key: string;
};
type After = { createdKey: string; id: string };

/** The user's products oldest first (the order they were added, so an import of the file adds them in it again), a page after `after`. */
async function page(sql: Sql, userId: string, after: After | null): Promise<Row[]> {
  return sql<Row[]>`
    SELECT p.id, p.name, p.url, p.selector, p.alert_rule, p.current_price, p.last_checked, p.last_check_status, p.created_at::text AS created_key,
           coalesce(p.currency, s.currency, ${DEFAULT_SETTINGS.currency}) AS currency
    FROM products p LEFT JOIN user_settings s ON s.user_id = p.user_id
    WHERE p.user_id = ${userId} ${after ? sql`AND (p.created_at, p.id) > (${after.createdKey}::timestamptz, ${after.id})` : sql``}
    ORDER BY p.created_at, p.id
    LIMIT ${PAGE}`;
}

const exported = (row: Row): ExportProduct => ({
  name: row.name,
  url: row.url,
  selector: row.selector,
  alertRule: row.alert_rule,
  currentPrice: row.current_price,
  currency: row.currency,
  lastChecked: row.last_checked?.toISOString() ?? null,
  checkStatus: row.last_check_status === null ? 'pending' : row.last_check_status === 'ok' ? 'ok' : 'failing',
});

/**
 * GET /api/products/export.csv: the signed-in user's products as a CSV download (columns in
 * csv.ts), streamed a page of rows at a time, so a large catalogue is never one string in memory.
 */
export function productExportRoutes(ctx: AppContext) {
  return new Elysia({ prefix: '/api/products' }).use(authentication(ctx)).get(
    '/export.csv',
    ({ userId }) => {
      const encoder = new TextEncoder();
      let after: After | null = null;
      let header = true;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const rows = await page(ctx.sql, userId, after);
          // The header goes out even with no products, so the file is still a template.
          if (rows.length || header) controller.enqueue(encoder.encode(productsCsv(rows.map(exported), header)));
          header = false;
          const last = rows.at(-1);
          if (rows.length < PAGE || !last) controller.close();
          else after = { createdKey: last.created_key, id: last.id };
        },
      });
      const day = new Date().toISOString().slice(0, 10);
      return new Response(body, {
        headers: {
          'content-type': 'text/csv; charset=utf-8',
          'content-disposition': `attachment; filename="pricewatch-products-${day}.csv"`,
          'cache-control': 'no-store',
        },
      });
    },
    { signedIn: true },
  );
}
