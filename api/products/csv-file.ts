/**
 * What a products file may be, and the file the import dialog offers as a start. Plain values
 * without imports, so the site can use them without loading the CSV code.
 */
export const MAX_IMPORT_ROWS = 5_000;
export const MAX_IMPORT_BYTES = 2 * 1024 * 1024;

/** The header and one example row, with CRLF as RFC 4180 writes it. */
export const PRODUCTS_CSV_TEMPLATE =
  'name,url,selector,threshold,notes\r\n' + 'Espresso machine,https://shop.example.com/espresso-machine,.price,-10,Columns after threshold are ignored\r\n';
