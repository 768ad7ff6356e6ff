/** Pure rules of the Products screen's CSV import and export and its bulk actions. */
import { MAX_IMPORT_BYTES, PRODUCTS_CSV_TEMPLATE } from '../../../api/products/csv-file';
import type { ImportAnswer } from '../../../api/products/import';
import type { BulkAnswer } from '../../../api/products/bulk';
import type { CsvError } from '../../../api/products/csv';

export type { ImportAnswer, BulkAnswer, CsvError };

export const EXPORT_HREF = '/api/products/export.csv';
/** A file past the server's cap is refused before it is sent. */
export { MAX_IMPORT_BYTES };

/** The template as a link target: the header and one example row. */
export const TEMPLATE_HREF = `data:text/csv;charset=utf-8,${encodeURIComponent(PRODUCTS_CSV_TEMPLATE)}`;
export const TEMPLATE_FILENAME = 'pricewatch-products-template.csv';

const plural = (n: number, word: string) => `${n.toLocaleString('en-GB')} ${word}${n === 1 ? '' : 's'}`;

/** True for a file the import takes: named .csv, or typed as CSV by the browser. */
export function looksLikeCsv(file: { name: string; type: string }): boolean {
  return /\.csv$/i.test(file.name) || /^(text|application)\/(csv|vnd\.ms-excel)$/i.test(file.type);
}

/** "Line 3, url: Please enter a valid URL"; a problem with the whole line has no column. */
export function describeError(error: { line: number; column: string | null; message: string }): string {
  return `Line ${error.line}${error.column ? `, ${error.column}` : ''}: ${error.message}`;
}

/** What the dialog says a dry run found, before anything is imported. */
export function previewSummary(answer: { created: number; skipped: number }): string {
  const skipped = answer.skipped ? ` ${plural(answer.skipped, 'row')} will be skipped: already tracked or repeated in the file.` : '';
  return answer.created ? `${plural(answer.created, 'product')} will be added.${skipped}` : `Nothing new to add.${skipped}`;
}

/** The toast after an import. */
export function importToast(answer: { created: number; skipped: number }): { title: string; description: string } {
  const skipped = answer.skipped ? ` ${plural(answer.skipped, 'duplicate')} skipped.` : '';
  return { title: 'Import complete', description: `${plural(answer.created, 'product')} added.${skipped}` };
}

/** The toast after a bulk action. */
export function bulkToast(answer: BulkAnswer): { title: string; description: string } {
  switch (answer.action) {
    case 'delete':
      return { title: 'Products deleted', description: `${plural(answer.count, 'product')} no longer monitored.` };
    case 'set-threshold':
      return { title: 'Alert threshold set', description: `${plural(answer.count, 'product')} updated.` };
    case 'check-now': {
      const paused = answer.paused ? ` ${plural(answer.paused, 'product')} wait${answer.paused === 1 ? 's' : ''} for a shop that asked us to slow down.` : '';
      const beyond = answer.beyondPlan
        ? ` ${plural(answer.beyondPlan, 'product')} beyond your plan's limit ${answer.beyondPlan === 1 ? 'is' : 'are'} paused and not checked.`
        : '';
      return {
        title: 'Checks queued',
        description: `${plural(answer.queued, 'product')} will be checked shortly, one page at a time per shop.${paused}${beyond}`,
      };
    }
  }
}

/** The bulk threshold choices, as the add dialog offers them, in the form the bulk call takes (the edit dialog's). */
export const BULK_THRESHOLDS = [
  { value: 'none', label: 'No alerts', threshold: 'none' },
  { value: '5', label: '5% decrease', threshold: 5 },
  { value: '10', label: '10% decrease', threshold: 10 },
  { value: '15', label: '15% decrease', threshold: 15 },
  { value: '20', label: '20% decrease', threshold: 20 },
  { value: 'any', label: 'Any change', threshold: 'any' },
] as const;
export type BulkThreshold = (typeof BULK_THRESHOLDS)[number]['value'];

/** The ids still selected once the list has changed (deleted products drop out). */
export function keepExisting(selected: ReadonlySet<string>, products: readonly { id: string }[]): Set<string> {
  const ids = new Set(products.map((p) => p.id));
  return new Set([...selected].filter((id) => ids.has(id)));
}
