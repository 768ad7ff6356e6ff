import { describe, expect, test } from 'bun:test';
import { parsePriceText, readPrice } from './price-text.ts';
import { findPriceMentions } from './price-mentions.ts';
import { decimalSeparatorFor } from './locale-formats.ts';
import { readNumber } from './written-numbers.ts';
import type { PriceTextOptions } from './price-text-types.ts';

const NBSP = '\u00a0';
const NNBSP = '\u202f';
const RLM = '\u200f';

/** [locale, text, amount, currency]; null amount: no price. The locale is passed as the page's language. */
type Case = [string | null, string, number | null, string | null];

const CASES: Case[] = [
  // English: United Kingdom, United States, Ireland, Canada, Australia, New Zealand, India, South Africa...
  ['en-GB', '£24.99', 24.99, 'GBP'],
  ['en-GB', 'Was £30 Now £24', 24, 'GBP'],
  ['en-GB', 'was £30.00, now £24.00', 24, 'GBP'],
  ['en-GB', '£100.00 (£120.00 inc VAT)', 120, 'GBP'],
  ['en-GB', '£120.00 inc. VAT £100.00 ex. VAT', 120, 'GBP'],
  ['en-GB', '£100.00 ex VAT', 100, 'GBP'],
  ['en-GB', '£.50', 0.5, 'GBP'],
  ['en-GB', '£24.99 Free delivery', 24.99, 'GBP'],
  ['en-GB', '£0.00', 0, 'GBP'],
  ['en-GB', 'FREE', 0, null],
  ['en-GB', '£1,299', 1299, 'GBP'],
  ['en-IE', '€82.64 excl. VAT €100.00 incl. VAT', 100, 'EUR'],
  ['en-IE', '€1,299.00', 1299, 'EUR'],
  ['en-US', '$1,299.99 USD', 1299.99, 'USD'],
  ['en-US', 'US $12.99', 12.99, 'USD'],
  ['en-US', '$.99', 0.99, 'USD'],
  ['en-US', '.99', 0.99, null],
  ['en-US', 'from $9.99', 9.99, 'USD'],
  ['en-US', '$9.99 - $19.99', 9.99, 'USD'],
  ['en-US', 'Sale price$24.99Regular price$30.00', 24.99, 'USD'],
  ['en-US', '23,450', 23450, null],
  ['en-US', '$23,450', 23450, 'USD'],
  ['en-US', '$3.459', 3.459, 'USD'],
  ['en-US', '$24.99 $30.00', 24.99, 'USD'],
  ['en-US', 'Free', 0, null],
  ['en-CA', 'C$ 49.99', 49.99, 'CAD'],
  ['en-CA', '$49.99', 49.99, 'CAD'],
  ['en-AU', '$49.95', 49.95, 'AUD'],
  ['en-AU', 'A$1,299.00', 1299, 'AUD'],
  ['en-NZ', '$25.00', 25, 'NZD'],
  ['en-IN', '₹1,29,999.00', 129999, 'INR'],
  ['en-IN', 'Rs. 2,499', 2499, 'INR'],
  ['en-IN', '₹ 499', 499, 'INR'],
  ['en-ZA', 'R 1 299.00', 1299, 'ZAR'],
  ['en-ZA', 'R1,299', 1299, 'ZAR'],
  ['en-NG', '₦12,500', 12500, 'NGN'],
  ['en-KE', 'KSh 1,200', 1200, 'KES'],
  ['en-KE', 'Ksh 1,200.00', 1200, 'KES'],
  ['en-GH', 'GH₵ 250.00', 250, 'GHS'],
  ['en-SG', 'S$12.90', 12.9, 'SGD'],
  ['en-SG', '$12.90', 12.9, 'SGD'],
  ['en-HK', 'HK$ 99.90', 99.9, 'HKD'],
  ['en-PH', '₱1,299.00', 1299, 'PHP'],
  ['en-MY', 'RM 129.00', 129, 'MYR'],
  ['en-PK', 'Rs 2,499', 2499, 'PKR'],
  ['en-LK', 'Rs. 2,499.00', 2499, 'LKR'],
  // German: Germany, Austria, Switzerland
  ['de-DE', '99,00 € inkl. MwSt.', 99, 'EUR'],
  ['de-DE', 'Statt 39,99 € jetzt 29,99 €', 29.99, 'EUR'],
  ['de-DE', '1.234,00 € (netto 1.037,00 €)', 1234, 'EUR'],
  ['de-DE', '49,95 €*', 49.95, 'EUR'],
  ['de-DE', 'ab 19,99 €', 19.99, 'EUR'],
  ['de-DE', '23.450', 23450, null],
  ['de-DE', '23.450 €', 23450, 'EUR'],
  ['de-DE', '1,299 €', 1.299, 'EUR'],
  ['de-DE', '12, 99 €', 12.99, 'EUR'],
  ['de-DE', 'Kostenlos', 0, null],
  ['de-DE', '€ 24,99 € 29,99', 24.99, 'EUR'],
  ['de-DE', 'UVP 39,99 € 29,99 €', 29.99, 'EUR'],
  ['de-DE', 'Niedrigster Preis der letzten 30 Tage: 34,99 € 29,99 €', 29.99, 'EUR'],
  ['de-DE', '29,99 € Niedrigster Preis der letzten 30 Tage: 34,99 €', 29.99, 'EUR'],
  ['de-DE', '49,– €', 49, 'EUR'],
  ['de-DE', '$1,299.00', 1299, 'USD'],
  ['de-AT', '€ 1.299,00', 1299, 'EUR'],
  ['de-CH', "CHF 1'299.–", 1299, 'CHF'],
  ['de-CH', 'CHF 49.90', 49.9, 'CHF'],
  ['de-CH', 'Fr. 49.90', 49.9, 'CHF'],
  ['de-CH', 'SFr. 49.90', 49.9, 'CHF'],
  ['de-CH', '1.299', 1.299, null],
  // French: France, Belgium, Canada, Switzerland
  ['fr-FR', 'Avant 20 € Maintenant 15 €', 15, 'EUR'],
  ['fr-FR', '1 299,00 €', 1299, 'EUR'],
  ['fr-FR', `1${NNBSP}299,00${NBSP}€`, 1299, 'EUR'],
  ['fr-FR', 'Prix : 1 299,00 € TTC', 1299, 'EUR'],
  ['fr-FR', '99,90 € HT 119,88 € TTC', 119.88, 'EUR'],
  ['fr-FR', 'Gratuit', 0, null],
  ['fr-FR', 'Livraison gratuite', null, null],
  ['fr-FR', '19,99 €', 19.99, 'EUR'],
  ['fr-BE', '€ 19,99', 19.99, 'EUR'],
  ['fr-CA', '49,99 $', 49.99, 'CAD'],
  ['fr-CH', 'CHF 49.90', 49.9, 'CHF'],
  // Spanish: Spain, Mexico, Chile, Argentina, Colombia, Peru, Guatemala, Uruguay, Bolivia, Paraguay
  ['es-ES', '19,99 €', 19.99, 'EUR'],
  ['es-ES', 'Antes 29,99 € Ahora 19,99 €', 19.99, 'EUR'],
  ['es-ES', '1.299,00 € IVA incluido', 1299, 'EUR'],
  ['es-ES', 'Gratis', 0, null],
  ['es-MX', '$1,299.00', 1299, 'MXN'],
  ['es-MX', 'Antes $500 Ahora $400', 400, 'MXN'],
  ['es-MX', '$23,450', 23450, 'MXN'],
  ['es-CL', '$23.450', 23450, 'CLP'],
  ['es-CL', '23.450', 23450, null],
  ['es-CL', '$ 1.299.990', 1299990, 'CLP'],
  ['es-AR', '$ 1.299,99', 1299.99, 'ARS'],
  ['es-AR', '$23.450', 23450, 'ARS'],
  ['es-CO', '$ 23.450', 23450, 'COP'],
  ['es-CO', '$23,450', 23450, 'COP'],
  ['es-PE', 'S/ 49.90', 49.9, 'PEN'],
  ['es-PE', 'S/. 49.90', 49.9, 'PEN'],
  ['es-GT', 'Q 125.00', 125, 'GTQ'],
  ['es-GT', 'Q125.00', 125, 'GTQ'],
  ['es-UY', '$U 1.290', 1290, 'UYU'],
  ['es-BO', 'Bs 120,00', 120, 'BOB'],
  ['es-VE', 'Bs. 120,00', 120, 'VES'],
  ['es-PY', 'Gs. 150.000', 150000, 'PYG'],
  ['es-PY', '₲ 150.000', 150000, 'PYG'],
  // Portuguese: Brazil, Portugal
  ['pt-BR', 'R$ 1.759,99', 1759.99, 'BRL'],
  ['pt-BR', 'R$ 1.299,00 ou 12x de R$ 108,25', 1299, 'BRL'],
  ['pt-BR', 'De R$ 199,90 por R$ 149,90', 149.9, 'BRL'],
  ['pt-BR', 'Grátis', 0, null],
  ['pt-BR', 'Frete grátis R$ 99,90', 99.9, 'BRL'],
  ['pt-BR', 'R$ 23.450', 23450, 'BRL'],
  ['pt-PT', '19,99 €', 19.99, 'EUR'],
  // Italian, Dutch, Nordic
  ['it-IT', '1.299,00 €', 1299, 'EUR'],
  ['it-IT', 'Prima 29,99 € Adesso 19,99 €', 19.99, 'EUR'],
  ['it-IT', '€ 19,99 IVA inclusa', 19.99, 'EUR'],
  ['nl-NL', '€ 24,95', 24.95, 'EUR'],
  ['nl-NL', '€ 1.299,-', 1299, 'EUR'],
  ['nl-NL', 'Van €29,99 voor €19,99', 19.99, 'EUR'],
  ['nl-BE', '24,95 €', 24.95, 'EUR'],
  ['sv-SE', '1 299 kr', 1299, 'SEK'],
  ['sv-SE', '1 299,00 kr', 1299, 'SEK'],
  ['sv-SE', '299:-', 299, null],
  ['nb-NO', 'kr 1 299,-', 1299, 'NOK'],
  ['nb-NO', '1 299,- kr', 1299, 'NOK'],
  ['da-DK', '1.299,00 kr.', 1299, 'DKK'],
  ['da-DK', 'DKK 1.299', 1299, 'DKK'],
  ['fi-FI', '24,90 €', 24.9, 'EUR'],
  ['is-IS', '12.990 kr.', 12990, 'ISK'],
  // Central and Eastern Europe
  ['pl-PL', '1 234,56 zł', 1234.56, 'PLN'],
  ['pl-PL', '1234,56 zł', 1234.56, 'PLN'],
  ['pl-PL', '49,99 zł z VAT', 49.99, 'PLN'],
  ['cs-CZ', '12 900 Kč', 12900, 'CZK'],
  ['cs-CZ', '999,- Kč', 999, 'CZK'],
  ['cs-CZ', '1.299 Kč', 1299, 'CZK'],
  ['sk-SK', '19,99 €', 19.99, 'EUR'],
  ['hu-HU', '12 990 Ft', 12990, 'HUF'],
  ['hu-HU', '12.990 Ft', 12990, 'HUF'],
  ['ro-RO', '129,99 lei', 129.99, 'RON'],
  ['ro-RO', '129,99 Lei', 129.99, 'RON'],
  ['ro-RO', '1.299,99 LEI', 1299.99, 'RON'],
  ['bg-BG', '49,99 лв.', 49.99, 'BGN'],
  ['hr-HR', '99,99 kn', 99.99, 'HRK'],
  ['hr-HR', '99,99 Kn', 99.99, 'HRK'],
  ['sr-RS', '1.299 дин.', 1299, 'RSD'],
  ['sr-RS', '1.299,00 RSD', 1299, 'RSD'],
  ['sr-Latn-RS', '1.299 din.', 1299, 'RSD'],
  ['hr-HR', 'Besplatna dostava 99,99 kn', 99.99, 'HRK'],
  ['mk-MK', '1.299 ден', 1299, 'MKD'],
  ['el-GR', '19,99 €', 19.99, 'EUR'],
  ['sl-SI', '19,99 €', 19.99, 'EUR'],
  // Cyrillic: Russia, Ukraine, Belarus, Kazakhstan, Kyrgyzstan
  ['ru-RU', '1 990 ₽', 1990, 'RUB'],
  ['ru-RU', '120руб.', 120, 'RUB'],
  ['ru-RU', '1 990 руб.', 1990, 'RUB'],
  ['ru-RU', '1 990 р.', 1990, 'RUB'],
  ['ru-RU', '1990 рублей', 1990, 'RUB'],
  ['ru-RU', 'Бесплатно', 0, null],
  ['uk-UA', '1 299 грн.', 1299, 'UAH'],
  ['uk-UA', '1 299 ₴', 1299, 'UAH'],
  ['be-BY', '49,90 Br', 49.9, 'BYN'],
  ['be-BY', '49,90 бел. руб.', 49.9, 'BYN'],
  ['be-BY', '49,90 р.', 49.9, 'BYN'],
  ['kk-KZ', '12 990 ₸', 12990, 'KZT'],
  ['kk-KZ', '12 990 тг', 12990, 'KZT'],
  ['ky-KG', '1 200 сом', 1200, 'KGS'],
  // Turkish, Greek, Caucasus, Mongolia
  ['tr-TR', '12.345,67 TL', 12345.67, 'TRY'],
  ['tr-TR', '₺12.345,67', 12345.67, 'TRY'],
  ['tr-TR', '1.299 TL', 1299, 'TRY'],
  ['ka-GE', '49,90 ₾', 49.9, 'GEL'],
  ['ka-GE', '49.90 GEL', 49.9, 'GEL'],
  ['hy-AM', '12 900 ֏', 12900, 'AMD'],
  ['hy-AM', '12900 AMD', 12900, 'AMD'],
  ['az-AZ', '49,90 ₼', 49.9, 'AZN'],
  ['mn-MN', '₮12,900', 12900, 'MNT'],
  // Arabic and Persian
  ['ar-SA', '99 ر.س', 99, 'SAR'],
  ['ar-SA', '99ر.س', 99, 'SAR'],
  ['ar-SA', '١٢٣٫٤٥ ر.س', 123.45, 'SAR'],
  ['ar-SA', `${RLM}ر.س${RLM} 1,299.00`, 1299, 'SAR'],
  ['ar-SA', '1,299 ريال', 1299, 'SAR'],
  ['ar-AE', '1,299 د.إ', 1299, 'AED'],
  ['ar-AE', 'د.إ.‏ 99.00', 99, 'AED'],
  ['ar-AE', '99 درهم', 99, 'AED'],
  ['ar-EG', '1,299 ج.م', 1299, 'EGP'],
  ['ar-EG', '1,299 جنيه', 1299, 'EGP'],
  ['ar-KW', '12.500 د.ك', 12.5, 'KWD'],
  ['ar-KW', 'KWD 12.500', 12.5, 'KWD'],
  ['ar-QA', '99 ر.ق', 99, 'QAR'],
  ['ar-BH', '9.500 د.ب', 9.5, 'BHD'],
  ['ar-OM', '9.500 ر.ع.', 9.5, 'OMR'],
  ['ar-JO', '9.500 د.أ', 9.5, 'JOD'],
  ['ar-LB', '1,500,000 ل.ل', 1500000, 'LBP'],
  ['ar-MA', '99,00 د.م.', 99, 'MAD'],
  ['fa-IR', '۱۲۳٬۴۵۰ ریال', 123450, 'IRR'],
  ['fa-IR', '۱۲۳٬۴۵۰ تومان', 1234500, 'IRR'],
  ['fa-IR', '123,450 ریال', 123450, 'IRR'],
  // Hebrew
  ['he-IL', '₪ 199.90', 199.9, 'ILS'],
  ['he-IL', '199.90 ש"ח', 199.9, 'ILS'],
  ['he-IL', '199.90 ש״ח', 199.9, 'ILS'],
  // South Asia
  ['hi-IN', '₹1,299', 1299, 'INR'],
  ['hi-IN', 'रु 1,299', 1299, 'INR'],
  ['ne-NP', 'रु 1,299', 1299, 'NPR'],
  ['ne-NP', 'रु. 1,299', 1299, 'NPR'],
  ['ne-NP', 'रु. १,२९९', 1299, 'NPR'],
  ['bn-BD', '৳ 1,299', 1299, 'BDT'],
  ['bn-BD', 'Tk 1,299', 1299, 'BDT'],
  ['si-LK', 'රු 2,499.00', 2499, 'LKR'],
  ['ur-PK', 'Rs. 2,499', 2499, 'PKR'],
  // East Asia
  ['ja-JP', '¥1,280(税込)', 1280, 'JPY'],
  ['ja-JP', '1.280円（税込）', 1280, 'JPY'],
  ['ja-JP', '1,280円', 1280, 'JPY'],
  ['ja-JP', '￥1,280', 1280, 'JPY'],
  ['ja-JP', '無料', 0, null],
  ['ja-JP', '送料無料', null, null],
  ['ja-JP', '１，２８０円', 1280, 'JPY'],
  ['ja-JP', '1,164円(税抜) 1,280円(税込)', 1280, 'JPY'],
  ['zh-CN', '¥128.00', 128, 'CNY'],
  ['zh-CN', '￥1,280', 1280, 'CNY'],
  ['zh-CN', '128元', 128, 'CNY'],
  ['zh-CN', '免费', 0, null],
  ['zh-TW', 'NT$1,280', 1280, 'TWD'],
  ['zh-TW', '$1,280', 1280, 'TWD'],
  ['zh-TW', '1,280元', 1280, 'TWD'],
  ['zh-HK', 'HK$ 99.90', 99.9, 'HKD'],
  ['ko-KR', '12,900원', 12900, 'KRW'],
  ['ko-KR', '12,900 원', 12900, 'KRW'],
  ['ko-KR', '₩12,900', 12900, 'KRW'],
  ['ko-KR', '무료', 0, null],
  ['ko-KR', '12.900원', 12900, 'KRW'],
  // South-East Asia
  ['th-TH', '฿1,290', 1290, 'THB'],
  ['th-TH', '1,290 บาท', 1290, 'THB'],
  ['th-TH', '1,290บาท', 1290, 'THB'],
  ['vi-VN', '1.250.000 ₫', 1250000, 'VND'],
  ['vi-VN', '1.250.000đ', 1250000, 'VND'],
  ['vi-VN', '250.000 ₫', 250000, 'VND'],
  ['id-ID', 'Rp 1.250.000', 1250000, 'IDR'],
  ['id-ID', 'Rp 125.000', 125000, 'IDR'],
  ['id-ID', 'Rp125.000', 125000, 'IDR'],
  ['ms-MY', 'RM 1,299.00', 1299, 'MYR'],
  ['fil-PH', '₱1,299.00', 1299, 'PHP'],
  ['lo-LA', '₭ 120,000', 120000, 'LAK'],
  ['km-KH', '៛ 40,000', 40000, 'KHR'],
  ['my-MM', '12,000 Ks', 12000, 'MMK'],
  // Unknown locale: the text alone decides
  [null, '23.450', 23450, null],
  [null, '23,450', 23450, null],
  [null, 'EUR 12,99', 12.99, 'EUR'],
  [null, '12,99 EUR', 12.99, 'EUR'],
  [null, '12. 99', 12.99, null],
  [null, '$.99', 0.99, 'USD'],
  [null, 'HK$ 99.90', 99.9, 'HKD'],
  [null, 'NT$1,280', 1280, 'TWD'],
  [null, '¥1,280(税込)', 1280, 'JPY'],
  [null, '12,900원', 12900, 'KRW'],
  [null, '120руб.', 120, 'RUB'],
  [null, '99ر.س', 99, 'SAR'],
];

function options(locale: string | null): PriceTextOptions | undefined {
  return locale ? { locale } : undefined;
}

describe('parsePriceText across locales', () => {
  for (const [locale, text, amount, currency] of CASES) {
    test(`${locale ?? '(no locale)'} ${text}`, () => {
      const expected = amount === null ? null : { amount, currency };
      expect(parsePriceText(text, options(locale))).toEqual(expected);
    });
  }
  test('the table covers at least 150 strings and 30 locales', () => {
    expect(CASES.length).toBeGreaterThanOrEqual(150);
    expect(new Set(CASES.map(([locale]) => locale)).size).toBeGreaterThanOrEqual(30);
  });
});

describe('decimalSeparatorFor', () => {
  const cases: [string | null, string | null, '.' | ',' | null][] = [
    ['de-DE', null, ','],
    ['de', null, ','],
    ['fr', 'EUR', ','],
    ['es-CL', null, ','],
    ['es-AR', null, ','],
    ['es-CO', null, ','],
    ['es-MX', null, '.'],
    ['pt-BR', null, ','],
    ['en', null, '.'],
    ['en-IN', null, '.'],
    ['ja', null, '.'],
    ['zh-Hant-TW', null, '.'],
    ['he', null, '.'],
    ['de-CH', null, '.'],
    ['fr-CH', null, '.'],
    ['en_GB', null, '.'],
    ['ar-MA', null, ','],
    ['ar-SA', null, '.'],
    [null, 'BRL', ','],
    [null, 'usd', '.'],
    [null, 'EUR', null],
    [null, null, null],
    ['xx', null, null],
    ['en', 'BRL', '.'],
  ];
  for (const [locale, currency, separator] of cases) {
    test(`${locale} ${currency}`, () => expect(decimalSeparatorFor(locale, currency)).toBe(separator));
  }
});

describe('a lone "." or "," before three digits', () => {
  test('groups thousands when nothing says otherwise', () => {
    expect(parsePriceText('23.450')).toEqual({ amount: 23450, currency: null });
    expect(parsePriceText('23,450')).toEqual({ amount: 23450, currency: null });
  });
  test('is the decimal separator of the locale', () => {
    expect(parsePriceText('23.450', { locale: 'en-US' })).toEqual({ amount: 23.45, currency: null });
    expect(parsePriceText('23,450', { locale: 'de-DE' })).toEqual({ amount: 23.45, currency: null });
    expect(parsePriceText('23,450', { locale: 'en-US' })).toEqual({ amount: 23450, currency: null });
    expect(parsePriceText('23.450', { locale: 'es-CL' })).toEqual({ amount: 23450, currency: null });
  });
  test('groups thousands in a zero-decimal currency whatever the locale', () => {
    expect(parsePriceText('¥1.280', { locale: 'en' })).toEqual({ amount: 1280, currency: 'JPY' });
    expect(parsePriceText('1,280', { locale: 'de', currencyHint: 'JPY' })).toEqual({ amount: 1280, currency: 'JPY' });
    expect(parsePriceText('$23.450', { locale: 'en', currencyHint: 'CLP' })).toEqual({ amount: 23450, currency: 'CLP' });
    expect(parsePriceText('Rp 23.450', { locale: 'en' })).toEqual({ amount: 23450, currency: 'IDR' });
  });
  test('keeps the thousands reading when the currency written is at home with the other separator', () => {
    expect(parsePriceText('R$ 1.299', { locale: 'en' })).toEqual({ amount: 1299, currency: 'BRL' });
    expect(parsePriceText('$1,299', { locale: 'de' })).toEqual({ amount: 1299, currency: 'USD' });
  });
  test('three-decimal currencies read "." as decimal', () => {
    expect(parsePriceText('KWD 12.500', { locale: 'ar' })).toEqual({ amount: 12.5, currency: 'KWD' });
    expect(parsePriceText('12.500 د.ك', { locale: 'de' })).toEqual({ amount: 12.5, currency: 'KWD' });
  });
  test("the caller's decimal separator wins over every guess", () => {
    expect(parsePriceText('23.450', { decimalSeparator: '.' })).toEqual({ amount: 23.45, currency: null });
    expect(parsePriceText('23.450', { decimalSeparator: '.', locale: 'de-DE' })).toEqual({ amount: 23.45, currency: null });
    expect(parsePriceText('23,450', { decimalSeparator: '.', locale: 'de-DE' })).toEqual({ amount: 23450, currency: null });
    expect(parsePriceText('¥1.280', { decimalSeparator: '.' })).toEqual({ amount: 1.28, currency: 'JPY' });
    expect(parsePriceText('1.299,00 €', { decimalSeparator: '.' })).toEqual({ amount: 1299, currency: 'EUR' });
  });
  test('readNumber takes the same options', () => {
    expect(readNumber('23.450')).toBe(23450);
    expect(readNumber('23.450', null, { locale: 'en' })).toBe(23.45);
    expect(readNumber('23.450', 'CLP', { locale: 'en' })).toBe(23450);
    expect(readNumber('23,450', null, { decimalSeparator: ',' })).toBe(23.45);
    expect(readNumber('.99')).toBe(0.99);
    expect(readNumber('12, 99')).toBe(12.99);
  });
});

describe('the locale settles shared signs, the hint wins over it', () => {
  test('"$" "kr" "¥"', () => {
    expect(parsePriceText('$23.450', { locale: 'es-CL' })).toEqual({ amount: 23450, currency: 'CLP' });
    expect(parsePriceText('1 299 kr', { locale: 'sv' })).toEqual({ amount: 1299, currency: 'SEK' });
    expect(parsePriceText('¥128', { locale: 'zh-CN' })).toEqual({ amount: 128, currency: 'CNY' });
    expect(parsePriceText('$19.99', { locale: 'en-CA', currencyHint: 'USD' })).toEqual({ amount: 19.99, currency: 'USD' });
  });
  test('a locale without a country leaves "$" a guess', () => {
    expect(readPrice('$19.99', { locale: 'en' })).toMatchObject({ ok: true, currency: 'USD', mention: { currencyCertain: false } });
    expect(readPrice('$19.99', { locale: 'en-US' })).toMatchObject({ ok: true, currency: 'USD', mention: { currencyCertain: true } });
  });
});

describe('spaces and points around the decimals', () => {
  test('a space after the decimal separator', () => {
    expect(parsePriceText('12, 99 €')).toEqual({ amount: 12.99, currency: 'EUR' });
    expect(parsePriceText('€12, 99')).toEqual({ amount: 12.99, currency: 'EUR' });
    expect(parsePriceText('12. 99')).toEqual({ amount: 12.99, currency: null });
  });
  test('not in a list of sizes or counts', () => {
    expect(parsePriceText('Sizes 10, 12 £25')).toEqual({ amount: 25, currency: 'GBP' });
    expect(parsePriceText('10, 12')).toBeNull();
    expect(parsePriceText('1, 299 €')).toEqual({ amount: 299, currency: 'EUR' });
    expect(parsePriceText('£5, 10 items')).toEqual({ amount: 5, currency: 'GBP' });
    expect(parsePriceText('Save £5, 10% off £24.99')).toEqual({ amount: 24.99, currency: 'GBP' });
  });
  test('a leading decimal point needs a currency or the text to itself', () => {
    expect(parsePriceText('£.50')).toEqual({ amount: 0.5, currency: 'GBP' });
    expect(parsePriceText('.99')).toEqual({ amount: 0.99, currency: null });
    expect(parsePriceText('v.99 £5')).toEqual({ amount: 5, currency: 'GBP' });
    expect(parsePriceText('Item .99 £5')).toEqual({ amount: 5, currency: 'GBP' });
  });
});

describe('tax-inclusive and ex-tax prices side by side', () => {
  test('the lower unlabelled one is the ex-tax price', () => {
    expect(findPriceMentions('£100.00 (£120.00 inc VAT)').map((m) => [m.amount, m.role])).toEqual([
      [100, 'excl-tax'],
      [120, 'price'],
    ]);
  });
  test('"Excl. VAT" before an amount is not undone by "Incl. VAT" after it', () => {
    expect(parsePriceText('Excl. VAT: £8.33 Incl. VAT: £10.00')).toEqual({ amount: 10, currency: 'GBP' });
  });
  test('not when the amounts are too far apart to be the same price with tax', () => {
    expect(readPrice('£50.00 £120.00 inc VAT')).toMatchObject({ ok: false, code: 'ambiguous' });
  });
});

describe('two unlabelled prices side by side', () => {
  test('a higher price right after the price is its was price', () => {
    expect(findPriceMentions('€ 24,99 € 29,99').map((m) => m.role)).toEqual(['price', 'was']);
    expect(findPriceMentions('£24.99£24.99 £30.00£30.00').map((m) => m.role)).toEqual(['price', 'price', 'was', 'was']);
  });
  test('a higher price first may be two products', () => {
    expect(readPrice('£30.00 £24.99')).toMatchObject({ ok: false, code: 'ambiguous' });
  });
  test('not with words between, three prices or two currencies', () => {
    expect(readPrice('£24.99 Blue £29.99')).toMatchObject({ ok: false, code: 'ambiguous' });
    expect(readPrice('£24.99 £19.99 £9.99')).toMatchObject({ ok: false, code: 'ambiguous' });
    expect(readPrice('£24.99 €29.99')).toMatchObject({ ok: false, code: 'ambiguous' });
  });
});

describe('signs that must not match inside words or model numbers', () => {
  const cases: [string, number | null, string | null][] = [
    ['AMD 5950X £299.99', 299.99, 'GBP'],
    ['Samsung Q60 £499', 499, 'GBP'],
    ['Q60', null, null],
    ['Q1 2024', 2024, null],
    ['QE55Q60D £499', 499, 'GBP'],
    ['Brand 12', 12, null],
    ['Lenovo 500', 500, null],
    ['12 ft £30', 30, 'GBP'],
    ['Kilo 12,90 €', 12.9, 'EUR'],
    ['12 рублей', 12, 'RUB'],
    ['원피스 12,900원', 12900, 'KRW'],
  ];
  for (const [text, amount, currency] of cases) {
    test(text, () => expect(parsePriceText(text)).toEqual(amount === null ? null : { amount, currency }));
  }
});
