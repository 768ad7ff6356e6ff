import { readCsvUpload } from './input.ts';
import { CsvFileError, type CsvProblem } from './csv-table.ts';
import { MAX_IMPORT_BYTES } from '../products/csv-file.ts';

/** Rows shown back for an import dialog's preview. */
const PREVIEW_ROWS = 5;

export type CsvImportRefusal<R> = { message: string; errors: CsvProblem[]; preview?: R[] };

/**
 * An uploaded CSV import (`?dryRun=1` for a check without writing), read and checked: the rows to
 * import, or the refusal a 400 answers with, naming every bad row by line so a file is fixed in
 * one go (the file refused whole, a header without rows, or rows with errors).
 */
export async function readCsvImport<R, V>(
  request: Request,
  read: (text: string) => R[],
  validate: (rows: R[]) => { valid: V[]; errors: CsvProblem[] },
): Promise<{ ok: true; dryRun: boolean; valid: V[]; preview: R[] } | { ok: false; refusal: CsvImportRefusal<R> }> {
  const dryRun = ['1', 'true'].includes(new URL(request.url).searchParams.get('dryRun') ?? '');
  const text = await readCsvUpload(request, MAX_IMPORT_BYTES);
  let rows: R[];
  try {
    rows = read(text);
  } catch (err) {
    if (err instanceof CsvFileError) return { ok: false, refusal: { message: err.message, errors: err.errors } };
    throw err;
  }
  const preview = rows.slice(0, PREVIEW_ROWS);
  if (!rows.length) return { ok: false, refusal: { message: 'The file has a header but no products.', errors: [], preview } };
  const { valid, errors } = validate(rows);
  if (errors.length) {
    const lines = new Set(errors.map((e) => e.line)).size;
    const outcome = dryRun ? 'Fix them and choose the file again.' : 'Nothing was imported.';
    return { ok: false, refusal: { message: `${lines} row${lines === 1 ? ' has' : 's have'} errors. ${outcome}`, errors, preview } };
  }
  return { ok: true, dryRun, valid, preview };
}
