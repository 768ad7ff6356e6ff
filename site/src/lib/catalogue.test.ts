import { describe, expect, test } from 'bun:test';
import { bulkToast, describeError, importToast, keepExisting, looksLikeCsv, previewSummary, TEMPLATE_HREF } from './catalogue';

describe('catalogue rules', () => {
  test('the template link carries the header and an example row', () => {
    const text = decodeURIComponent(TEMPLATE_HREF.slice(TEMPLATE_HREF.indexOf(',') + 1));
    expect(text.split('\r\n')[0]).toBe('name,url,selector,threshold,notes');
    expect(text.split('\r\n')[1]).toStartWith('Espresso machine,https://');
  });

  test('files taken: .csv by name or a CSV type', () => {
    expect(looksLikeCsv({ name: 'products.CSV', type: '' })).toBe(true);
    expect(looksLikeCsv({ name: 'export', type: 'text/csv' })).toBe(true);
    expect(looksLikeCsv({ name: 'products.xlsx', type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet' })).toBe(false);
  });

  test('errors, preview and toasts read as sentences', () => {
    expect(describeError({ line: 3, column: 'url', message: 'Please enter a valid URL' })).toBe('Line 3, url: Please enter a valid URL');
    expect(describeError({ line: 7, column: null, message: 'Not valid CSV' })).toBe('Line 7: Not valid CSV');
    expect(previewSummary({ created: 2, skipped: 1 })).toBe('2 products will be added. 1 row will be skipped: already tracked or repeated in the file.');
    expect(previewSummary({ created: 0, skipped: 0 })).toBe('Nothing new to add.');
    expect(importToast({ created: 1200, skipped: 0 })).toEqual({ title: 'Import complete', description: '1,200 products added.' });
    expect(bulkToast({ action: 'delete', count: 1 }).description).toBe('1 product no longer monitored.');
    expect(bulkToast({ action: 'check-now', count: 3, queued: 3, paused: 1, beyondPlan: 0 }).description).toBe(
      '3 products will be checked shortly, one page at a time per shop. 1 product waits for a shop that asked us to slow down.',
    );
    expect(bulkToast({ action: 'check-now', count: 5, queued: 3, paused: 0, beyondPlan: 2 }).description).toBe(
      "3 products will be checked shortly, one page at a time per shop. 2 products beyond your plan's limit are paused and not checked.",
    );
  });

  test('the selection keeps only products still listed', () => {
    expect([...keepExisting(new Set(['a', 'b']), [{ id: 'b' }, { id: 'c' }])]).toEqual(['b']);
  });
});
