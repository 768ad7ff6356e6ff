import { normaliseGtin } from '../../domain/gtin.ts';
import { OwnProductDetails } from '../../events/catalogue.ts';
import { isStorableText } from '../http/input.ts';
import { MAX_IMPORT_ROWS } from '../products/csv-file.ts';
import { unneutralised } from '../products/csv.ts';
import { readCsvTable } from '../http/csv-table.ts';

export { CsvFileError } from '../http/csv-table.ts';
import type { IncomingItem } from './sync.ts';

/**
 * The owner's catalogue as a CSV file (RFC 4180), for import. Pure: text in, rows and errors out.
 *
 * The header names the columns: `sku,title,price,currency` are required, `gtin,mpn,brand,cost,url`
 * optional, in any order; other columns are ignored. The SKU is the product's key: a file imported
 * again updates the products it names rather than adding them twice. Text cells are read back from
 * the spreadsheet-safe form the products export writes (see api/products/csv.ts).
 */

export const REQUIRED_COLUMNS = ['sku', 'title', 'price', 'currency'] as const;
export const OPTIONAL_COLUMNS = ['gtin', 'mpn', 'brand', 'cost', 'url'] as const;
const COLUMNS = [...REQUIRED_COLUMNS, ...OPTIONAL_COLUMNS] as const;
export type CatalogueColumn = (typeof COLUMNS)[number];

/** Line numbers count from the header (line 1); a record spanning lines is reported where it starts. */
export type CatalogueCsvError = { line: number; column: CatalogueColumn | null; message: string };
/** A row as read: every cell trimmed, empty when the column is absent. */
export type CatalogueCsvRow = { line: number } & Record<CatalogueColumn, string>;
export type CatalogueRow = { line: number; item: IncomingItem };

const LIMITS = { sku: 100, title: 300, mpn: 100, brand: 100, url: 2000 } as const;
const LABELS: Record<CatalogueColumn, string> = {
  sku: 'SKU',
  title: 'Title',
  price: 'Price',
  currency: 'Currency',
  gtin: 'GTIN',
  mpn: 'MPN',
  brand: 'Brand',
  cost: 'Cost',
  url: 'URL',
};

/**
 * The rows of a file, with the line each starts on. Empty lines are skipped; a leading BOM, CRLF
 * or LF are all fine. Refuses the file (CsvFileError) without a header naming every required
 * column, or with more than MAX_IMPORT_ROWS rows.
 */
export function readCatalogueCsv(text: string): CatalogueCsvRow[] {
  return readCsvTable(text, { required: REQUIRED_COLUMNS, optional: OPTIONAL_COLUMNS }, MAX_IMPORT_ROWS, 'products').map((row) => {
    const read = { line: row.line } as CatalogueCsvRow;
    for (const column of COLUMNS) read[column] = unneutralised(row[column]).trim();
    return read;
  });
}

const DECIMAL = /^\d+(\.\d+)?$/;

/** A non-negative amount written with a dot for decimals, or the reason it is not one. */
function amount(text: string, label: string): number | string {
  if (DECIMAL.test(text)) {
    const value = Number(text);
    if (Number.isFinite(value)) return value;
    return `${label} "${text}" is too large`;
  }
  if (/^-\s*\d/.test(text)) return `${label} cannot be negative`;
  return `${label} must be a number such as 12.50: digits with a dot for decimals, no currency sign, spaces or thousands separators`;
}

const isWebAddress = (text: string) => {
  if (!URL.canParse(text)) return false;
  const { protocol, hostname } = new URL(text);
  // Whatever the own-product events take, so a row that passes here always records.
  return (protocol === 'http:' || protocol === 'https:') && hostname !== '' && OwnProductDetails.shape.url.safeParse(text).success;
};

/**
 * Checks every row: answers the items to import and an error per bad cell, so a file can be fixed
 * in one go. A SKU already on an earlier line is an error on the later one: which of the two
 * should win is the owner's call, not ours.
 */
export function validateCatalogueRows(rows: readonly CatalogueCsvRow[]): { valid: CatalogueRow[]; errors: CatalogueCsvError[] } {
  const valid: CatalogueRow[] = [];
  const errors: CatalogueCsvError[] = [];
  const skuLines = new Map<string, number>();
  for (const row of rows) {
    const rowErrors: CatalogueCsvError[] = [];
    const fail = (column: CatalogueColumn, message: string) => {
      if (!rowErrors.some((e) => e.column === column)) rowErrors.push({ line: row.line, column, message });
    };
    for (const column of COLUMNS) {
      if (!isStorableText(row[column])) fail(column, 'Contains characters that cannot be stored (NUL or broken Unicode)');
    }
    for (const column of REQUIRED_COLUMNS) {
      if (!row[column]) fail(column, `${LABELS[column]} is required`);
    }
    for (const column of ['sku', 'title', 'mpn', 'brand', 'url'] as const) {
      if (row[column].length > LIMITS[column]) fail(column, `${LABELS[column]} must be at most ${LIMITS[column]} characters`);
    }

    if (row.sku) {
      const earlier = skuLines.get(row.sku);
      if (earlier !== undefined) fail('sku', `SKU "${row.sku}" is already on line ${earlier}; each SKU may appear once`);
      else skuLines.set(row.sku, row.line);
    }
    const price = row.price ? amount(row.price, 'Price') : null;
    if (typeof price === 'string') fail('price', price);
    const currency = row.currency.toUpperCase();
    if (row.currency && !/^[A-Z]{3}$/.test(currency)) fail('currency', 'Currency must be a three-letter ISO 4217 code, such as GBP, EUR or USD');
    const gtin = row.gtin ? normaliseGtin(row.gtin) : null;
    if (row.gtin && !gtin) fail('gtin', `GTIN "${row.gtin}" is not a valid GTIN-8/12/13/14 (check its length and last digit)`);
    const cost = row.cost ? amount(row.cost, 'Cost') : null;
    if (typeof cost === 'string') fail('cost', cost);
    if (row.url && !isWebAddress(row.url)) fail('url', 'URL must be a full web address starting with http:// or https://');

    if (rowErrors.length || typeof price !== 'number' || typeof cost === 'string') {
      errors.push(...rowErrors);
      continue;
    }
    valid.push({
      line: row.line,
      item: {
        externalId: row.sku,
        title: row.title,
        variant: null,
        sku: row.sku,
        gtin,
        mpn: row.mpn || null,
        brand: row.brand || null,
        price,
        currency,
        regularPrice: null,
        cost,
        url: row.url || null,
        imageUrl: null,
        availability: null,
      },
    });
  }
  return { valid, errors };
}
