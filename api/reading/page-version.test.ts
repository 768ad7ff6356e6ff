import { describe, expect, test } from 'bun:test';
import { pageVersion } from './page-version.ts';

const page = (parts: { head?: string; script?: string; price?: string; form?: string } = {}) =>
  `<!doctype html><html><head><title>Kettle</title>${parts.head ?? ''}<script>${parts.script ?? 'var shop = {"currency":"GBP"};'}</script></head>` +
  `<body><h1>Kettle</h1><p class="price">£${parts.price ?? '39.99'}</p><form action="/cart">${parts.form ?? ''}<button>Add to basket</button></form></body></html>`;

describe('the version of a page as its reading sees it', () => {
  test('what changes on every load and is never read leaves it alone', () => {
    const base = pageVersion(page());
    const loads = [
      page({ head: '<!-- generated 2026-11-27 03:15:32 in 0.21 s -->' }),
      page({ head: '<meta name="csrf-token" content="b9a1f0c2d3e4">' }),
      page({ form: '<input type="hidden" name="authenticity_token" value="Zx81kQ==">' }),
      page({ form: '<input type="hidden" name="form_key" value="aB12cD34">' }),
      page({ script: 'var shop = {"currency":"GBP"}; window.ctx = {"requestId":"7f3a","csrfToken":\'x1\',timestamp: 1795000000123};' }),
      page().replace('<script>', '<script nonce="r4nd0m" integrity="sha384-abc">'),
    ];
    const again = [
      page({ head: '<!-- generated 2026-11-28 09:00:01 in 0.35 s -->' }),
      page({ head: '<meta name="csrf-token" content="0000">' }),
      page({ form: '<input type="hidden" name="authenticity_token" value="other">' }),
      page({ form: '<input type="hidden" name="form_key" value="zz">' }),
      page({ script: 'var shop = {"currency":"GBP"}; window.ctx = {"requestId":"9c1d","csrfToken":\'y2\',timestamp: 1795000999999};' }),
      page().replace('<script>', '<script nonce="0ther" integrity="sha384-def">'),
    ];
    expect(loads.map(pageVersion)).toEqual(again.map(pageVersion));
    expect(pageVersion(page().replace('<script>', '<script nonce="x">'))).toBe(base);
  });

  test('anything a reading may look at changes it', () => {
    const base = pageVersion(page());
    const changed = [
      page({ price: '34.99' }),
      page({ script: 'var shop = {"currency":"EUR"};' }),
      // Script text that looks like a comment is script text.
      page({ script: '<!-- var shop = {"currency":"GBP"}; //-->' }),
      page({ form: '<input type="hidden" name="variant_id" value="4401">' }),
      page({ head: '<meta name="description" content="A kettle">' }),
      page().replace('<button>', '<button disabled>'),
    ];
    for (const html of changed) expect(pageVersion(html)).not.toBe(base);
    expect(new Set(changed.map(pageVersion)).size).toBe(changed.length);
  });

  test('a long run of letters in a script costs no backtracking', () => {
    const blob = `var token = "${'A'.repeat(2_000_000)}"; var nonce_${'b'.repeat(1_000_000)}`;
    const started = performance.now();
    pageVersion(page({ script: blob }));
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
