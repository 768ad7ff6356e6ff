/**
 * The file the import dialog offers as a start: the header and one example row (CRLF, as RFC
 * 4180 writes). Plain text, so the site can offer it without loading the CSV code.
 */
export const PRODUCTS_CSV_TEMPLATE =
  'name,url,selector,threshold,notes\r\n' +
  'Espresso machine,https://shop.example.com/espresso-machine,.price,-10,Columns after threshold are ignored\r\n';
