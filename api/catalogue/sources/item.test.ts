import { describe, expect, test } from 'bun:test';
import { cleanText, ItemCollector, MAX_SOURCE_ITEMS, sourceAddress, webUrl } from './item.ts';

describe('text and addresses', () => {
  test('cleanText trims, collapses whitespace and caps the length', () => {
    expect(cleanText('  Tea\n\t and  cake \u0000 ', 300)).toBe('Tea and cake');
    expect(cleanText('   ', 300)).toBeNull();
    expect(cleanText(12345, 300)).toBe('12345');
    expect(cleanText('x'.repeat(400), 300)).toHaveLength(300);
    // A cut never splits a surrogate pair.
    expect(cleanText(`${'x'.repeat(299)}😀`, 300)).toBe('x'.repeat(299));
  });

  test('webUrl keeps absolute http(s) addresses only', () => {
    expect(webUrl('/p/1', 'https://shop.example/feed.xml')).toBe('https://shop.example/p/1');
    expect(webUrl('javascript:alert(1)')).toBeNull();
    expect(webUrl('not a url')).toBeNull();
    expect(webUrl(`https://shop.example/${'a'.repeat(2000)}`)).toBeNull();
  });

  test('sourceAddress adds https:// when the owner left it out', () => {
    expect(String(sourceAddress('myshop.com'))).toBe('https://myshop.com/');
    expect(String(sourceAddress('http://myshop.com/shop'))).toBe('http://myshop.com/shop');
    expect(sourceAddress('ftp://myshop.com/')).toMatchObject({ ok: false, code: 'bad-url', httpStatus: null });
  });
});

describe('ItemCollector', () => {
  const draft = { externalId: 'A', title: 'Kettle', price: 20, currency: 'gbp' };

  test('keeps a regular price only when it is higher than the price', () => {
    const collector = new ItemCollector();
    collector.add({ ...draft, externalId: 'A', regularPrice: 25 }, 'a');
    collector.add({ ...draft, externalId: 'B', regularPrice: 20 }, 'b');
    collector.add({ ...draft, externalId: 'C', regularPrice: 15 }, 'c');
    expect(collector.items.map((item) => [item.regularPrice, item.currency])).toEqual([
      [25, 'GBP'],
      [null, 'GBP'],
      [null, 'GBP'],
    ]);
  });

  test('keeps a GTIN as 14 digits, and no GTIN that fails its check digit', () => {
    const collector = new ItemCollector();
    collector.add({ ...draft, externalId: 'A', gtin: '4006381333931' }, 'a');
    collector.add({ ...draft, externalId: 'B', gtin: '4006381333932' }, 'b');
    expect(collector.items.map((item) => item.gtin)).toEqual(['04006381333931', null]);
  });

  test('skips a repeated id, a zero price and a currency that is no code, with the reasons', () => {
    const collector = new ItemCollector();
    collector.add(draft, 'first');
    collector.add(draft, 'second');
    collector.add({ ...draft, externalId: 'Z', price: 0 }, 'zero');
    collector.add({ ...draft, externalId: 'Q', currency: '£' }, 'pound sign');
    collector.add({ ...draft, externalId: null, title: null }, 'item 5');
    expect(collector.items).toHaveLength(1);
    expect(collector.skipped).toEqual([
      { id: 'A', reason: 'Its id is listed more than once; the first one was kept.' },
      { id: 'Z', reason: 'Its price is 0, which cannot be compared with other shops.' },
      { id: 'Q', reason: 'Its currency is not stated as a currency code (such as GBP).' },
      { id: 'item 5', reason: 'It has no id.' },
    ]);
  });

  test('counts kept and skipped entries against the limit', () => {
    const collector = new ItemCollector();
    for (let i = 0; i < MAX_SOURCE_ITEMS; i++) collector.skip(i, 'x');
    expect(collector.overLimit).toBe(false);
    collector.add(draft, 'one more');
    expect(collector.overLimit).toBe(true);
  });
});
