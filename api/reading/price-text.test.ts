import { describe, expect, test } from 'bun:test';
import { parsePriceText, readPrice } from './price-text.ts';
import { findPriceMentions } from './price-mentions.ts';

const NBSP = '\u00a0';
const NARROW_NBSP = '\u202f';
const THIN = '\u2009';

function expectPrice(text: string, amount: number, currency: string | null, hint?: string) {
  expect(parsePriceText(text, hint ? { currencyHint: hint } : undefined)).toEqual({ amount, currency });
}

describe('parsePriceText: symbols and codes before or after the number', () => {
  const cases: [string, number, string | null][] = [
    ['£24.99', 24.99, 'GBP'],
    ['£1,299.99', 1299.99, 'GBP'],
    ['$1,299', 1299, 'USD'],
    ['US$ 49.00', 49, 'USD'],
    ['€19,99', 19.99, 'EUR'],
    ['19,99 €', 19.99, 'EUR'],
    ['1.299,00 €', 1299, 'EUR'],
    ['1.299,00€', 1299, 'EUR'],
    ['€ 1.299,00', 1299, 'EUR'],
    ['EUR 1.299,00', 1299, 'EUR'],
    ['1 299,00 zł', 1299, 'PLN'],
    [`1${NBSP}299,00${NBSP}zł`, 1299, 'PLN'],
    [`1${NARROW_NBSP}299,00${NBSP}€`, 1299, 'EUR'],
    [`1${THIN}299,00 €`, 1299, 'EUR'],
    ["CHF 1'299.–", 1299, 'CHF'],
    ["CHF 1'299.-", 1299, 'CHF'],
    ['CHF 1’299.50', 1299.5, 'CHF'],
    ['Fr. 49.90', 49.9, 'CHF'],
    ['₹1,29,999', 129999, 'INR'],
    ['₹ 1,29,999.00', 129999, 'INR'],
    ['Rs. 2,499', 2499, 'INR'],
    ['¥12,800', 12800, 'JPY'],
    ['￥12,800', 12800, 'JPY'],
    ['12,800円', 12800, 'JPY'],
    ['¥128.50', 128.5, 'JPY'],
    ['R$ 1.299,90', 1299.9, 'BRL'],
    ['A$49.95', 49.95, 'AUD'],
    ['C$ 19.99', 19.99, 'CAD'],
    ['CA$19.99', 19.99, 'CAD'],
    ['NZ$25.00', 25, 'NZD'],
    ['HK$388', 388, 'HKD'],
    ['S$12.90', 12.9, 'SGD'],
    ['1 299 kr', 1299, null],
    ['1.299,- kr.', 1299, null],
    ['499,- Kč', 499, 'CZK'],
    ['12 990 Ft', 12990, 'HUF'],
    ['129,99 lei', 129.99, 'RON'],
    ['₩39,000', 39000, 'KRW'],
    ['1 990 ₽', 1990, 'RUB'],
    ['₺1.499,99', 1499.99, 'TRY'],
    ['₪ 199.90', 199.9, 'ILS'],
    ['฿1,290', 1290, 'THB'],
    ['₱1,499.00', 1499, 'PHP'],
    ['RM 129.00', 129, 'MYR'],
    ['Rp 1.250.000', 1250000, 'IDR'],
    ['R 1 299.00', 1299, 'ZAR'],
    ['KWD 12.500', 12.5, 'KWD'],
    ['99.00 USD', 99, 'USD'],
    ['USD99.00', 99, 'USD'],
    ['GBP 24.99', 24.99, 'GBP'],
    ['24.99 GBP', 24.99, 'GBP'],
    ['SEK 1 299', 1299, 'SEK'],
    ['1,234,567.89 $', 1234567.89, 'USD'],
    ['1.234.567,89 €', 1234567.89, 'EUR'],
    ['99p', 0.99, 'GBP'],
    ['49¢', 0.49, 'USD'],
    ['£0.50', 0.5, 'GBP'],
  ];
  for (const [text, amount, currency] of cases) {
    test(text, () => expectPrice(text, amount, currency));
  }
});

describe('parsePriceText: separators', () => {
  test('a single comma or dot followed by three digits groups thousands', () => {
    expectPrice('£1,000', 1000, 'GBP');
    expectPrice('1.000 €', 1000, 'EUR');
  });
  test('a single comma or dot followed by one or two digits is the decimal separator', () => {
    expectPrice('12.5 €', 12.5, 'EUR');
    expectPrice('12,5 €', 12.5, 'EUR');
    expectPrice('€0,99', 0.99, 'EUR');
  });
  test('a leading zero means decimals even with three digits', () => {
    expectPrice('KWD 0.750', 0.75, 'KWD');
    expectPrice('$0.125', 0.125, 'USD');
  });
  test('Nordic and German ",-" means no cents', () => {
    expectPrice('kr 499,-', 499, null);
    expectPrice('49,– €', 49, 'EUR');
  });
  test('bare numbers are prices when the text has nothing else', () => {
    expectPrice('24.99', 24.99, null);
    expectPrice('  1,299.00 ', 1299, null);
    expectPrice('1299', 1299, null);
  });
  test('dates, phone numbers and odd groupings are not prices', () => {
    expect(parsePriceText('12.05.2024')).toBeNull();
    expect(parsePriceText('0800 123 456')).toBeNull();
    expect(parsePriceText('£1,2,3')).toBeNull();
  });
});

describe('parsePriceText: currency hint', () => {
  test('a bare number takes the hinted currency', () => {
    expectPrice('24.99', 24.99, 'GBP', 'GBP');
  });
  test('the hint settles an ambiguous symbol', () => {
    expectPrice('$19.99', 19.99, 'CAD', 'CAD');
    expectPrice('¥128', 128, 'CNY', 'CNY');
    expectPrice('1 299 kr', 1299, 'SEK', 'SEK');
    expectPrice('kr 499,-', 499, 'NOK', 'NOK');
  });
  test('an explicit currency wins over the hint', () => {
    expectPrice('£24.99', 24.99, 'GBP', 'EUR');
    expectPrice('$19.99', 19.99, 'USD', 'EUR');
  });
});

describe('parsePriceText: whitespace and odd characters', () => {
  test('non-breaking and thin spaces between symbol and number', () => {
    expectPrice(`£${NBSP}24.99`, 24.99, 'GBP');
    expectPrice(`24,99${NARROW_NBSP}€`, 24.99, 'EUR');
  });
  test('line breaks and tabs from markup', () => {
    expectPrice('\n\t\t£\n\t\t24.99\n\t', 24.99, 'GBP');
  });
  test('zero-width characters and direction marks', () => {
    expectPrice('\u200e£24.99\u200f', 24.99, 'GBP');
    expectPrice('\ufeff19,99\u200b €', 19.99, 'EUR');
  });
  test('labels around the price', () => {
    expectPrice('Price: £24.99', 24.99, 'GBP');
    expectPrice('Now only £24.99 inc. VAT', 24.99, 'GBP');
    expectPrice('From £9.99', 9.99, 'GBP');
    expectPrice('ab 9,99 € inkl. MwSt.', 9.99, 'EUR');
    expectPrice('Prix : 1 299,00 € TTC', 1299, 'EUR');
  });
  test('numbers that are not money are ignored when a price is written with a currency', () => {
    expectPrice('Only 3 left! £24.99', 24.99, 'GBP');
    expectPrice('Pack of 6 — £12.00 (500 ml)', 12, 'GBP');
    expectPrice('4.5 out of 5 stars (1,203 reviews) $39.99', 39.99, 'USD');
    expectPrice('Save 20% — £24.99', 24.99, 'GBP');
  });
});

describe('parsePriceText: numbers next to a price', () => {
  test('a sign between two numbers goes to the one it is written with', () => {
    expectPrice('Size 10 £25', 25, 'GBP');
    expect(findPriceMentions('19,99 € 24,99 €').map((m) => [m.amount, m.currency])).toEqual([
      [19.99, 'EUR'],
      [24.99, 'EUR'],
    ]);
  });
  test('a dash used as a separator is not a minus sign', () => {
    expectPrice('Add to basket - £24.99', 24.99, 'GBP');
  });
  test('a weight after a price is not part of it', () => {
    expectPrice('£1.50 100g', 1.5, 'GBP');
  });
});

describe('parsePriceText: no price', () => {
  for (const text of ['', '   ', 'FREE delivery', 'Free shipping', 'Out of stock', 'Call for price', '-£5.00', '-£0.00', '£', 'Sold out', 'Gluten free', '0']) {
    test(JSON.stringify(text), () => expect(parsePriceText(text)).toBeNull());
  }
});

describe('parsePriceText: zero and "Free" are what the text says', () => {
  const cases: [string, number, string | null][] = [
    ['£0.00', 0, 'GBP'],
    ['0,00 €', 0, 'EUR'],
    ['Free', 0, null],
    ['FREE', 0, null],
    ['Gratis', 0, null],
    ['Gratuit', 0, null],
    ['Kostenlos', 0, null],
    ['免费', 0, null],
    ['無料', 0, null],
    ['무료', 0, null],
    ['Price: Free', 0, null],
    ['Was £10.00 Now FREE', 0, null],
    ['£24.99 Free delivery', 24.99, 'GBP'],
    ['Free delivery £24.99', 24.99, 'GBP'],
    ['£24.99 Free', 24.99, 'GBP'],
    ['£24.99 Delivery: Free', 24.99, 'GBP'],
    ['Livraison gratuite 19,99 €', 19.99, 'EUR'],
    ['19,99 € Versand kostenlos', 19.99, 'EUR'],
    ['Kostenloser Versand 19,99 €', 19.99, 'EUR'],
    ['Darmowa dostawa 49,99 zł', 49.99, 'PLN'],
    ['Envío gratis 19,99 €', 19.99, 'EUR'],
    ['送料無料 ¥1,280', 1280, 'JPY'],
    ['£0.00 £24.99', 24.99, 'GBP'],
  ];
  for (const [text, amount, currency] of cases) {
    test(text, () => expectPrice(text, amount, currency));
  }
  test('"Free delivery" is a delivery charge of 0', () => {
    expect(findPriceMentions('£24.99 Free delivery').map((m) => [m.amount, m.role])).toEqual([
      [24.99, 'price'],
      [0, 'shipping'],
    ]);
    expect(readPrice('Free returns')).toMatchObject({ ok: false, code: 'no-price' });
  });
  test('a hint gives "Free" its currency', () => {
    expectPrice('Free', 0, 'GBP', 'GBP');
  });
});

describe('parsePriceText: ranges take the first (lowest) price', () => {
  test('hyphen, dashes and "to"', () => {
    expectPrice('£10 - £20', 10, 'GBP');
    expectPrice('£10–£20', 10, 'GBP');
    expectPrice('£10.00 — £20.00', 10, 'GBP');
    expectPrice('$10 to $20', 10, 'USD');
    expectPrice('10,00 € – 20,00 €', 10, 'EUR');
    expectPrice('From £10 to £20', 10, 'GBP');
    expectPrice('from $9.99 - $19.99', 9.99, 'USD');
  });
});

describe('parsePriceText: distractors are not taken when a selling price is present', () => {
  const cases: [string, number, string][] = [
    ['Was £30.00 Now £24.99', 24.99, 'GBP'],
    ['£24.99 was £30.00', 24.99, 'GBP'],
    ['RRP £30.00 £24.99', 24.99, 'GBP'],
    ['£30.00 RRP £24.99', 24.99, 'GBP'],
    ['£24.99 RRP £30.00', 24.99, 'GBP'],
    ['£24.99 (RRP £30.00)', 24.99, 'GBP'],
    ['Our price £24.99 RRP: £30.00 Save £5.01 (17%)', 24.99, 'GBP'],
    ['£24.99 You save £5.01', 24.99, 'GBP'],
    ['£5 off £24.99', 24.99, 'GBP'],
    ['Compare at $30.00 $24.99', 24.99, 'USD'],
    ['List Price: $39.99 Price: $29.99', 29.99, 'USD'],
    ['Regular price £30.00 Sale price £24.99', 24.99, 'GBP'],
    ['statt 39,99 € jetzt 29,99 €', 29.99, 'EUR'],
    ['UVP 39,99 € 29,99 €', 29.99, 'EUR'],
    ['29,99 € UVP 39,99 €', 29.99, 'EUR'],
    ['Original price was: £30.00. Current price is: £24.99.', 24.99, 'GBP'],
    ['£2.50 (£1.25/kg)', 2.5, 'GBP'],
    ['£2.50 £1.25 per kg', 2.5, 'GBP'],
    ['£1.80 (£0.36 per 100g)', 1.8, 'GBP'],
    ['£1.80 36p/100g', 1.8, 'GBP'],
    ['2,49 € (4,98 €/1 l)', 2.49, 'EUR'],
    ['Grundpreis: 12,45 €/kg 2,49 €', 2.49, 'EUR'],
    ['Unit price £1.25 / kg £2.50', 2.5, 'GBP'],
    ['£499.00 or 4 interest-free payments of £124.75 with Klarna', 499, 'GBP'],
    ['£499.00 or £20.79/month', 499, 'GBP'],
    ['$1,199.00 or $49.96/mo. for 24 mo.', 1199, 'USD'],
    ['Pay in 3 instalments of £8.33 £24.99', 24.99, 'GBP'],
    ['£24.99 + £3.99 delivery', 24.99, 'GBP'],
    ['£24.99 Delivery: £3.99', 24.99, 'GBP'],
    ['£24.99 Free delivery on orders over £50', 24.99, 'GBP'],
    ['£10.00 inc VAT £8.33 ex VAT', 10, 'GBP'],
    ['£8.33 ex VAT £10.00 inc VAT', 10, 'GBP'],
    ['Excl. VAT: £8.33 Incl. VAT: £10.00', 10, 'GBP'],
    ['£3.00 2 for £5.00', 3, 'GBP'],
    ['£24.99£24.99', 24.99, 'GBP'],
    ['R$ 1.299,00 ou 12x de R$ 108,25', 1299, 'BRL'],
    ['Free shipping over $35. $24.99', 24.99, 'USD'],
    ['£24.99 (3 for £60)', 24.99, 'GBP'],
    ['£2.00 (£0.33 each)', 2, 'GBP'],
    ['Sale £24.99 Regular price £30.00', 24.99, 'GBP'],
  ];
  for (const [text, amount, currency] of cases) {
    test(text, () => expectPrice(text, amount, currency));
  }
});

describe('parsePriceText: weak labels stand in when nothing else is there', () => {
  test('a per-unit price alone is the price (loose goods)', () => {
    expectPrice('£1.25/kg', 1.25, 'GBP');
  });
  test('a per-month price alone is the price (subscriptions)', () => {
    expectPrice('£9.99/month', 9.99, 'GBP');
  });
  test('a regular or list price alone is the price', () => {
    expectPrice('Regular price £30.00', 30, 'GBP');
  });
  test('an ex-VAT price alone is the price', () => {
    expectPrice('£8.33 ex VAT', 8.33, 'GBP');
  });
});

describe('readPrice: reasons', () => {
  test('no number at all', () => {
    const reading = readPrice('Out of stock');
    expect(reading.ok).toBe(false);
    if (!reading.ok) {
      expect(reading.code).toBe('no-price');
      expect(reading.reason).toContain('Out of stock');
    }
  });
  test('only a was price', () => {
    const reading = readPrice('Was £30.00');
    expect(reading).toMatchObject({ ok: false, code: 'no-price' });
    if (!reading.ok) expect(reading.reason).toContain('was');
  });
  test('only an instalment', () => {
    const reading = readPrice('or 4 payments of £6.25');
    expect(reading).toMatchObject({ ok: false, code: 'no-price' });
    if (!reading.ok) expect(reading.reason).toContain('instalment');
  });
  test('several different selling prices', () => {
    const reading = readPrice('£24.99 £19.99 £9.99');
    expect(reading).toMatchObject({ ok: false, code: 'ambiguous' });
    if (!reading.ok) expect(reading.reason).toContain('£19.99');
  });
  test('two currencies are ambiguous unless the hint picks one', () => {
    expect(readPrice('£24.99 (€28.99)')).toMatchObject({ ok: false, code: 'ambiguous' });
    expect(readPrice('£24.99 (€28.99)', { currencyHint: 'EUR' })).toMatchObject({ ok: true, amount: 28.99, currency: 'EUR' });
  });
  test('the chosen mention is reported as written', () => {
    const reading = readPrice('Was £30.00 Now £24.99');
    expect(reading).toMatchObject({ ok: true, mention: { text: '£24.99', role: 'price' } });
  });
});

describe('findPriceMentions', () => {
  test('labels each amount with its role', () => {
    const roles = findPriceMentions('Was £30.00 Now £24.99 Save £5.01 (£2.50/kg) or 3 payments of £8.33').map((m) => [m.amount, m.role]);
    expect(roles).toEqual([
      [30, 'was'],
      [24.99, 'price'],
      [5.01, 'saving'],
      [2.5, 'unit'],
      [8.33, 'instalment'],
    ]);
  });
  test('an amount shown twice in a row keeps its role', () => {
    expect(findPriceMentions('£24.99£24.99 List Price: was £39.99£39.99').map((m) => m.role)).toEqual(['price', 'price', 'was', 'was']);
  });
  test('marks the end of a range', () => {
    expect(findPriceMentions('£10 - £20').map((m) => m.role)).toEqual(['price', 'range-end']);
  });
});
