import { stringify } from 'csv-stringify/sync';
import { readCsvTable } from '../http/csv-table.ts';

export { CsvFileError } from '../http/csv-table.ts';
import type { AlertRule } from '../../events/catalogue.ts';
import { isStorableText } from '../http/input.ts';
import { AddProductBody } from './schemas.ts';
import { normaliseAddress } from './address.ts';
import { MAX_IMPORT_ROWS } from './csv-file.ts';

/**
 * Products as a CSV file (RFC 4180), for import and export. Pure: text in, rows and errors out.
 *
 * The header names the columns; `name,url,selector,threshold` are required, in any order, and
 * other columns (notes, ...) are ignored. Rows are checked by the add dialog's rules
 * (AddProductBody). The threshold is written as the add dialog sends it: empty or `none`,
 * `any`, or a drop in percent such as `-10`; any drop the edit dialog allows (0 to 100,
 * decimals too) is taken, so every product exports in a form that imports back the same.
 *
 * Spreadsheets run a cell that starts with =, +, -, @, a tab or a carriage return as a formula, so
 * the export writes text that users and shop pages control (name, url, selector, currency) with a
 * leading ' (OWASP's advice; spreadsheets show the cell without it), and the import takes it off.
 * Numbers (price, threshold) are written as they are.
 */

export const IMPORT_COLUMNS = ['name', 'url', 'selector', 'threshold'] as const;
export const EXPORT_COLUMNS = [...IMPORT_COLUMNS, 'currentPrice', 'currency', 'lastChecked', 'checkStatus'] as const;
export type ImportColumn = (typeof IMPORT_COLUMNS)[number];

export { MAX_IMPORT_BYTES, MAX_IMPORT_ROWS } from './csv-file.ts';

/** Line numbers count from the header (line 1); a record spanning lines is reported where it starts. */
export type CsvError = { line: number; column: ImportColumn | null; message: string };
export type CsvRow = { line: number; name: string; url: string; selector: string; threshold: string };
export type ValidRow = { line: number; name: string; url: string; selector: string; alertRule: AlertRule };

const THRESHOLD_MESSAGE = 'Threshold must be empty, none, any, or a drop in percent from -0 to -100 (such as -10)';

/** The alert rule a threshold cell means, or null when it means nothing. */
export function thresholdRule(text: string): AlertRule | null {
  const cell = text.trim().toLowerCase();
  if (cell === '' || cell === 'none') return { kind: 'none' };
  if (cell === 'any') return { kind: 'any' };
  if (!/^-\d+(\.\d+)?$/.test(cell)) return null;
  const percent = -Number(cell);
  return percent >= 0 && percent <= 100 ? { kind: 'drop', percent } : null;
}

/** A rule as a threshold cell: the inverse of `thresholdRule`. */
export function thresholdText(rule: AlertRule): string {
  return rule.kind === 'drop' ? `-${rule.percent}` : rule.kind;
}

// Quotes already before such a character get one more, so taking one off on import gives every cell back.
const FORMULA_START = /^'*[=+\-@\t\r]/;
const NEUTRALISED = /^'+[=+\-@\t\r]/;

/** A text cell as the export writes it: never a formula to a spreadsheet. */
export const neutralised = (text: string) => (FORMULA_START.test(text) ? `'${text}` : text);

/** A text cell as the import reads it: the inverse of `neutralised`. */
export const unneutralised = (text: string) => (NEUTRALISED.test(text) ? text.slice(1) : text);

/**
 * The rows of a file, with the line each starts on. Empty lines (and lines of empty cells) are
 * skipped; a leading BOM, CRLF or LF are all fine. Refuses the file (CsvFileError) without a
 * header naming every required column, or with more than MAX_IMPORT_ROWS rows.
 */
export function readProductsCsv(text: string): CsvRow[] {
  return readCsvTable(text, { required: IMPORT_COLUMNS }, MAX_IMPORT_ROWS, 'products').map((row) => ({
    line: row.line,
    name: unneutralised(row.name),
    url: unneutralised(row.url),
    selector: unneutralised(row.selector),
    threshold: row.threshold,
  }));
}

/**
 * Checks every row by the add dialog's rules; `uncheckableReason` is the fetcher's refusal of
 * an address (private, credentials, ...), which depends on the configuration. Answers the valid
 * rows and an error per bad cell, so a file can be fixed in one go.
 */
export function validateRows(rows: CsvRow[], uncheckableReason: (url: string) => string | null): { valid: ValidRow[]; errors: CsvError[] } {
  const valid: ValidRow[] = [];
  const errors: CsvError[] = [];
  for (const row of rows) {
    const rowErrors: CsvError[] = [];
    for (const column of IMPORT_COLUMNS) {
      if (!isStorableText(row[column]))
        rowErrors.push({ line: row.line, column, message: 'Contains characters that cannot be stored (NUL or broken Unicode)' });
    }
    const parsed = AddProductBody.omit({ threshold: true }).safeParse({ name: row.name, url: row.url, selector: row.selector });
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const column = issue.path[0] as ImportColumn;
        if (!rowErrors.some((e) => e.column === column)) rowErrors.push({ line: row.line, column, message: issue.message });
      }
    }
    const alertRule = thresholdRule(row.threshold);
    if (!alertRule) rowErrors.push({ line: row.line, column: 'threshold', message: THRESHOLD_MESSAGE });
    const reason = parsed.success ? uncheckableReason(parsed.data.url) : null;
    if (reason) rowErrors.push({ line: row.line, column: 'url', message: reason });
    if (rowErrors.length || !parsed.success || !alertRule) errors.push(...rowErrors);
    else valid.push({ line: row.line, name: parsed.data.name, url: parsed.data.url, selector: parsed.data.selector, alertRule });
  }
  return { valid, errors };
}

/** One product as a row of the export, in EXPORT_COLUMNS order. */
export type ExportProduct = {
  name: string;
  url: string;
  selector: string;
  alertRule: AlertRule;
  currentPrice: number | null;
  currency: string;
  lastChecked: string | null;
  checkStatus: string;
};

/** Rows of the export as CSV text (with the header when `header`), quoted as RFC 4180 asks. */
export function productsCsv(products: ExportProduct[], header: boolean): string {
  return stringify(
    products.map((p) => [
      neutralised(p.name),
      neutralised(p.url),
      neutralised(p.selector),
      thresholdText(p.alertRule),
      p.currentPrice === null ? '' : String(p.currentPrice),
      neutralised(p.currency),
      p.lastChecked ?? '',
      p.checkStatus,
    ]),
    {
      header,
      columns: [...EXPORT_COLUMNS],
      record_delimiter: 'windows',
      // The stringifier quotes a cell holding its own record delimiter (CRLF); a lone LF or CR needs quotes too.
      quoted_match: /[\r\n]/,
    },
  );
}

export type Duplicate = { line: number; url: string; reason: 'tracked' | 'repeated' };

/**
 * Splits valid rows into the products to create and the duplicates to skip: an address the user
 * already tracks, or one an earlier row of the file has (addresses compared normalised, as the
 * add dialog compares them).
 */
export function withoutDuplicates(rows: ValidRow[], trackedUrls: readonly string[]): { create: ValidRow[]; duplicates: Duplicate[] } {
  const tracked = new Set(trackedUrls.map(normaliseAddress));
  const seen = new Set<string | null>();
  const create: ValidRow[] = [];
  const duplicates: Duplicate[] = [];
  for (const row of rows) {
    const address = normaliseAddress(row.url);
    if (tracked.has(address)) duplicates.push({ line: row.line, url: row.url, reason: 'tracked' });
    else if (seen.has(address)) duplicates.push({ line: row.line, url: row.url, reason: 'repeated' });
    else {
      seen.add(address);
      create.push(row);
    }
  }
  return { create, duplicates };
}
