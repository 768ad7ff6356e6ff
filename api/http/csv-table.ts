import { parse } from 'csv-parse/sync';

/**
 * An uploaded CSV file (RFC 4180) as a table: the header names the columns, in any order, and
 * other columns are ignored. Pure: text in, rows out, or the whole file refused with the reason.
 * Empty lines (and lines of empty cells) are skipped; a leading BOM, CRLF or LF are all fine.
 */

/** Line numbers count from the header (line 1); a record spanning lines is reported where it starts. */
export type CsvProblem = { line: number; column: string | null; message: string };

/** The whole file is refused: no header, a missing column, too many rows, text that is not CSV. */
export class CsvFileError extends Error {
  constructor(
    message: string,
    readonly errors: CsvProblem[] = [],
  ) {
    super(message);
  }
}

/** Line breaks inside a record's cells: where it starts is the parser's line count minus these. */
const lineBreaks = (text: string) => text.match(/\r\n|\r|\n/g)?.length ?? 0;

/** Where csv-parse says a malformed record is; it counts lines from 1 like we do. */
const parserLine = (err: unknown) => {
  const lines = (err as { lines?: unknown }).lines;
  return typeof lines === 'number' && lines > 0 ? lines : 1;
};

/**
 * Each row's cells by column as written (empty for an optional column the file lacks), with the
 * line the row starts on. Refuses a file without a header naming every required column, naming
 * one twice, or with more than `maxRows` rows of `what` ("products").
 */
export function readCsvTable<C extends string>(
  text: string,
  columns: { required: readonly C[]; optional?: readonly C[] },
  maxRows: number,
  what: string,
): ({ line: number } & Record<C, string>)[] {
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, {
      bom: true,
      info: true,
      relax_column_count: true,
      skip_records_with_empty_values: true,
      // A quote inside an unquoted cell (12" pan, div[data-x="1"]) is kept as written, as spreadsheets read it.
      relax_quotes: true,
      record_delimiter: ['\r\n', '\n', '\r'],
      // The header, the rows allowed, and one more to know the file has too many.
      to: maxRows + 2,
    }) as unknown as typeof records;
  } catch (err) {
    const line = parserLine(err);
    throw new CsvFileError(`Line ${line} is not valid CSV: ${(err as Error).message.split(':')[0]}. Check its quotes.`, [
      { line, column: null, message: 'This line is not valid CSV (a quote opened and not closed, or text after a closing quote).' },
    ]);
  }
  const optional = columns.optional ?? [];
  const expected = `Its first line must name the columns: ${columns.required.join(',')}${optional.length ? ` (and optionally ${optional.join(',')})` : ''}.`;
  const [header, ...rest] = records;
  if (!header) throw new CsvFileError(`The file is empty. ${expected}`);
  const names = header.record.map((cell) => cell.trim().toLowerCase());
  const at = new Map<C, number>();
  for (const column of [...columns.required, ...optional]) {
    const index = names.indexOf(column);
    if (index === -1) {
      if (optional.includes(column)) continue;
      throw new CsvFileError(`The file has no "${column}" column. ${expected}`, [{ line: 1, column, message: `Missing column "${column}"` }]);
    }
    if (names.indexOf(column, index + 1) !== -1) {
      throw new CsvFileError(`The column "${column}" is named twice in the first line.`, [{ line: 1, column, message: `Column "${column}" named twice` }]);
    }
    at.set(column, index);
  }
  if (rest.length > maxRows) {
    const most = maxRows.toLocaleString('en-GB');
    throw new CsvFileError(`The file has more than ${most} ${what}. Split it into files of at most ${most} rows.`);
  }
  return rest.map(({ record, info }) => {
    const row = { line: info.lines - lineBreaks(record.join('')) } as { line: number } & Record<C, string>;
    for (const [column, index] of at) (row as Record<C, string>)[column] = record[index] ?? '';
    for (const column of optional) (row as Record<C, string>)[column] ??= '';
    return row;
  });
}
