import { describe, expect, test } from 'bun:test';
import {
  CsvFileError,
  MAX_IMPORT_ROWS,
  productsCsv,
  readProductsCsv,
  thresholdRule,
  thresholdText,
  validateRows,
  withoutDuplicates,
  type ValidRow,
} from './csv.ts';
import { PRODUCTS_CSV_TEMPLATE } from './csv-file.ts';

const HEADER = 'name,url,selector,threshold';
const noRefusal = () => null;

function fileError(text: string): CsvFileError {
  try {
    readProductsCsv(text);
  } catch (err) {
    if (err instanceof CsvFileError) return err;
    throw err;
  }
  throw new Error('the file was accepted');
}

describe('reading a products CSV', () => {
  test('quoted fields keep commas, quotes and line breaks; a record is reported on the line it starts', () => {
    const rows = readProductsCsv(
      `${HEADER}\n"Kettle, steel","https://a.example/k",".price","-10"\n"The ""big""\nbox",https://a.example/b,.p,any\nLast,https://a.example/l,.p,`,
    );
    expect(rows).toEqual([
      { line: 2, name: 'Kettle, steel', url: 'https://a.example/k', selector: '.price', threshold: '-10' },
      { line: 3, name: 'The "big"\nbox', url: 'https://a.example/b', selector: '.p', threshold: 'any' },
      { line: 5, name: 'Last', url: 'https://a.example/l', selector: '.p', threshold: '' },
    ]);
  });

  test('a BOM, CRLF, empty lines and lines of empty cells are fine; line numbers still count them', () => {
    const rows = readProductsCsv(`\uFEFF${HEADER}\r\n\r\nA,https://a.example/a,.p,none\r\n,,,\r\n  \r\nB,https://a.example/b,.p,-5\r\n`);
    expect(rows.map((r) => [r.line, r.name])).toEqual([
      [3, 'A'],
      [6, 'B'],
    ]);
  });

  test('columns are found by name in any order and case; extra columns are ignored; short rows read as empty cells', () => {
    const rows = readProductsCsv('Notes,THRESHOLD,Selector,url,name,more\nhello,-20,.p,https://a.example/a,A,x\nbye,any');
    expect(rows).toEqual([
      { line: 2, name: 'A', url: 'https://a.example/a', selector: '.p', threshold: '-20' },
      { line: 3, name: '', url: '', selector: '', threshold: 'any' },
    ]);
  });

  test('a missing or doubled column, an empty file and broken quotes refuse the file, naming what is wrong', () => {
    expect(fileError('name,url,threshold\nA,https://a.example,-5').errors).toEqual([{ line: 1, column: 'selector', message: 'Missing column "selector"' }]);
    expect(fileError('name,url,selector,name,threshold\n').message).toBe('The column "name" is named twice in the first line.');
    expect(fileError('').message).toStartWith('The file is empty.');
    expect(fileError('\n\n').message).toStartWith('The file is empty.');
    expect(fileError(`${HEADER}\nA,https://a.example/a,.p,none\n"B,https://a.example/b,.p,none\n`).errors).toEqual([
      { line: 3, column: null, message: expect.stringContaining('not valid CSV') },
    ]);
    expect(readProductsCsv(`${HEADER}\nA 12" pan,https://a.example/a,div[data-x="1"],none`)[0]).toMatchObject({
      name: 'A 12" pan',
      selector: 'div[data-x="1"]',
    });
    expect(readProductsCsv(`${HEADER}\n`)).toEqual([]);
  });

  test(`more than ${MAX_IMPORT_ROWS} rows refuse the file; exactly ${MAX_IMPORT_ROWS} do not`, () => {
    const row = (i: number) => `P${i},https://a.example/${i},.p,none`;
    const rows = (n: number) => [HEADER, ...Array.from({ length: n }, (_, i) => row(i))].join('\n');
    expect(readProductsCsv(rows(MAX_IMPORT_ROWS))).toHaveLength(MAX_IMPORT_ROWS);
    expect(fileError(rows(MAX_IMPORT_ROWS + 1)).message).toContain('more than 5,000 products');
  });
});

describe('checking rows', () => {
  const row = (line: number, cells: Partial<Record<'name' | 'url' | 'selector' | 'threshold', string>>) => ({
    line,
    name: 'A',
    url: 'https://a.example/a',
    selector: '.price',
    threshold: '',
    ...cells,
  });

  test("the add dialog's rules and messages, every bad cell of every row at once", () => {
    const { valid, errors } = validateRows(
      [
        row(2, { name: '  Kettle ', threshold: '-10' }),
        row(3, { name: ' ', url: 'notaurl' }),
        row(4, { selector: '', threshold: '7' }),
        row(5, { selector: 'div[', threshold: '-101' }),
        row(6, { name: 'a\u0000b' }),
      ],
      noRefusal,
    );
    expect(valid).toEqual([{ line: 2, name: 'Kettle', url: 'https://a.example/a', selector: '.price', alertRule: { kind: 'drop', percent: 10 } }]);
    expect(errors).toEqual([
      { line: 3, column: 'name', message: 'Product name is required' },
      { line: 3, column: 'url', message: 'Please enter a valid URL' },
      { line: 4, column: 'selector', message: 'CSS selector is required' },
      { line: 4, column: 'threshold', message: expect.stringContaining('Threshold must be') },
      { line: 5, column: 'selector', message: 'CSS selector is not valid' },
      { line: 5, column: 'threshold', message: expect.stringContaining('Threshold must be') },
      { line: 6, column: 'name', message: expect.stringContaining('cannot be stored') },
    ]);
  });

  test('an address the checker refuses (private, credentials) is an error on its url', () => {
    const { errors } = validateRows([row(2, { url: 'http://10.0.0.1/p' })], (url) => (url.includes('10.0.0.1') ? 'private address' : null));
    expect(errors).toEqual([{ line: 2, column: 'url', message: 'private address' }]);
  });

  test('thresholds: empty and none, any, and any drop from 0 to 100 percent, written back the same', () => {
    for (const [text, rule] of [
      ['', { kind: 'none' }],
      ['none', { kind: 'none' }],
      [' NONE ', { kind: 'none' }],
      ['any', { kind: 'any' }],
      ['-5', { kind: 'drop', percent: 5 }],
      ['-7.5', { kind: 'drop', percent: 7.5 }],
      ['-0', { kind: 'drop', percent: 0 }],
      ['-100', { kind: 'drop', percent: 100 }],
    ] as const)
      expect(thresholdRule(text)).toEqual(rule);
    for (const text of ['5', '-101', '-', '-1e2', 'ten', '--5', '-5%']) expect(thresholdRule(text)).toBeNull();
    for (const text of ['none', 'any', '-5', '-7.5', '-0', '-100']) expect(thresholdText(thresholdRule(text)!)).toBe(text);
  });

  test('the template imports as one valid product', () => {
    const { valid, errors } = validateRows(readProductsCsv(PRODUCTS_CSV_TEMPLATE), noRefusal);
    expect(errors).toEqual([]);
    expect(valid).toHaveLength(1);
  });
});

describe('duplicates', () => {
  const valid = (line: number, url: string): ValidRow => ({ line, name: 'A', url, selector: '.p', alertRule: { kind: 'none' } });

  test('addresses already tracked and repeated in the file are skipped, compared as the add dialog compares them', () => {
    const { create, duplicates } = withoutDuplicates(
      [
        valid(2, 'https://a.example/a'),
        valid(3, 'HTTPS://A.example/a#top'),
        valid(4, 'https://a.example/b?utm_source=x'),
        valid(5, 'https://a.example/c'),
        valid(6, 'https://a.example/a?colour=red'),
      ],
      ['https://a.example/b'],
    );
    expect(create.map((r) => r.line)).toEqual([2, 5, 6]);
    expect(duplicates).toEqual([
      { line: 3, url: 'HTTPS://A.example/a#top', reason: 'repeated' },
      { line: 4, url: 'https://a.example/b?utm_source=x', reason: 'tracked' },
    ]);
  });
});

describe('writing the export', () => {
  test('RFC 4180 quoting, CRLF, thresholds as import takes them; it reads back as the same rows', () => {
    const text = productsCsv(
      [
        {
          name: 'Kettle, "steel"\nlarge',
          url: 'https://a.example/k',
          selector: 'div[data-x="1"] .p',
          alertRule: { kind: 'drop', percent: 7.5 },
          currentPrice: 12.5,
          currency: 'GBP',
          lastChecked: '2026-01-02T10:00:00.000Z',
          checkStatus: 'ok',
        },
        {
          name: 'Lamp',
          url: 'https://a.example/l',
          selector: '.p',
          alertRule: { kind: 'any' },
          currentPrice: null,
          currency: 'EUR',
          lastChecked: null,
          checkStatus: 'pending',
        },
        {
          name: 'Two\nlines',
          url: 'https://a.example/t',
          selector: '.p',
          alertRule: { kind: 'none' },
          currentPrice: 0,
          currency: 'GBP',
          lastChecked: null,
          checkStatus: 'failing',
        },
      ],
      true,
    );
    expect(text).toBe(
      'name,url,selector,threshold,currentPrice,currency,lastChecked,checkStatus\r\n' +
        '"Kettle, ""steel""\nlarge",https://a.example/k,"div[data-x=""1""] .p",-7.5,12.5,GBP,2026-01-02T10:00:00.000Z,ok\r\n' +
        'Lamp,https://a.example/l,.p,any,,EUR,,pending\r\n' +
        '"Two\nlines",https://a.example/t,.p,none,0,GBP,,failing\r\n',
    );
    const { valid } = validateRows(readProductsCsv(text), noRefusal);
    expect(valid.map(({ line: _, ...r }) => r)).toEqual([
      { name: 'Kettle, "steel"\nlarge', url: 'https://a.example/k', selector: 'div[data-x="1"] .p', alertRule: { kind: 'drop', percent: 7.5 } },
      { name: 'Lamp', url: 'https://a.example/l', selector: '.p', alertRule: { kind: 'any' } },
      { name: 'Two\nlines', url: 'https://a.example/t', selector: '.p', alertRule: { kind: 'none' } },
    ]);
  });

  test('text that a spreadsheet would run as a formula gets a leading quote; numbers stay numbers; it reads back the same', () => {
    const product = (name: string, selector = '.p') => ({
      name,
      url: 'https://a.example/f',
      selector,
      alertRule: { kind: 'drop', percent: 10 } as const,
      currentPrice: 12.5,
      currency: 'GBP',
      lastChecked: '2026-01-02T10:00:00.000Z',
      checkStatus: 'ok',
    });
    const names = [
      '=HYPERLINK("http://x")',
      '+44 kettle',
      '-5% off',
      '@SUM(A1)',
      '\tTabbed',
      '\rReturn',
      "'=already quoted",
      "''+twice",
      "It's fine",
      "'quoted'",
    ];
    const text = productsCsv([...names.map((name) => product(name)), product('Selector', '-x')], false);
    const lines = text.split('\r\n');
    expect(lines[0]).toBe(`"'=HYPERLINK(""http://x"")",https://a.example/f,.p,-10,12.5,GBP,2026-01-02T10:00:00.000Z,ok`);
    expect(lines.slice(1, 5).map((l) => l.split(',')[0])).toEqual(["'+44 kettle", "'-5% off", "'@SUM(A1)", "'\tTabbed"]);
    expect(text).toContain(`"'\rReturn",`);
    expect(text).toContain(`''=already quoted,`);
    expect(text).toContain(`'''+twice,`);
    expect(text).toContain(`It's fine,`);
    expect(text).toContain(`'quoted',`);
    expect(text).toContain(`Selector,https://a.example/f,'-x,-10,12.5,`);

    const rows = readProductsCsv(`${HEADER}\r\n${text}`);
    expect(rows.map((r) => r.name)).toEqual([...names, 'Selector']);
    expect(rows.at(-1)!.selector).toBe('-x');
    expect(rows.map((r) => r.threshold)).toEqual(Array(names.length + 1).fill('-10'));
  });
});
