/**
 * Kinds of page and price text that unseen shops write, each on pages made for these tests
 * (api/reading/fixtures, labelled in labels.json): prices with local currency words, WooCommerce
 * sale blocks, ranges, net and gross prices, structured data that disagrees with the page,
 * sold-out pages, cents in <sup>, prices kept only in script state. Extraction without a
 * selector and AI Detect's top suggestion must both read the labelled price.
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { detectPriceSelectors } from '../ai/detect.ts';
import { extractPrice } from './extract.ts';
import { parsePage } from './page.ts';
import { readPrice } from './price-text.ts';
import { regionCurrency } from './page-currency.ts';
import { LOCALES, localeStrings } from '../../bench/detect/locale-sample.ts';

type Label = { file: string; url: string; price: number; currency: string; availability: string };

const FIXTURES = join(import.meta.dir, 'fixtures');
const labels: Label[] = JSON.parse(readFileSync(join(FIXTURES, 'labels.json'), 'utf8'));

describe('pages of each kind', () => {
  for (const label of labels) {
    const html = readFileSync(join(FIXTURES, label.file), 'utf8');
    test(`${label.file}: ${label.price} ${label.currency}, ${label.availability}`, () => {
      const read = extractPrice(html, { url: label.url });
      expect(read.ok ? { price: read.price, currency: read.currency } : read).toEqual({ price: label.price, currency: label.currency });
      expect(read.availability).toBe(label.availability as never);
      const [top] = detectPriceSelectors(parsePage(html), { url: label.url });
      expect(top?.price).toBe(label.price);
      const checked = extractPrice(html, { url: label.url, selector: top!.selector });
      expect(checked.ok && checked.source === 'selector' ? checked.price : null).toBe(label.price);
    });
  }
});

describe('currency words next to amounts', () => {
  const cases: [string | null, string, number, string | null][] = [
    ['ru', '1 299 руб.–', 1299, 'RUB'],
    ['kk', '12 990 тг', 12990, 'KZT'],
    ['az', '45,90 man.', 45.9, 'AZN'],
    ['uz', '150 000 сум', 150000, 'UZS'],
    ['uz', '150 000 soʻm', 150000, 'UZS'],
    ['tg', '19,99 сом.', 19.99, 'TJS'],
    ['ky', '1 234,50 сом', 1234.5, 'KGS'],
    ['sq', '1234,50 Lekë', 1234.5, 'ALL'],
    ['bs', '19,99 KM', 19.99, 'BAM'],
    ['fr-SN', '1 235 F CFA', 1235, 'XOF'],
    ['ro-MD', '19,99 L', 19.99, 'MDL'],
    ['ar-TN', '19,990 د.ت.', 19.99, 'TND'],
    ['my', '၁,၂၃၄.၅၀ K', 1234.5, 'MMK'],
    ['zh-CN', '7.00人民币', 7, 'CNY'],
    ['ja', '1,234.50ユーロ', 1234.5, 'EUR'],
    [null, '25 000원', 25000, 'KRW'],
    ['sv', '199 kr', 199, 'SEK'],
  ];
  for (const [locale, text, amount, currency] of cases) {
    test(`${locale ?? '(no locale)'} ${text}`, () => {
      const reading = readPrice(text, { locale });
      expect(reading.ok ? { amount: reading.amount, currency: reading.currency } : reading.code).toEqual({ amount, currency });
    });
  }
  test('short Latin words are money only where the page pays in them: "5 L" is five litres', () => {
    expect(readPrice('5 L').ok).toBe(false);
    expect(readPrice('5 L', { locale: 'ro-MD' }).ok).toBe(true);
  });
  test('"ALL", "TOP" and "CUP" before a number are words, not currencies', () => {
    const reading = readPrice('TOP 10');
    expect(reading.ok ? reading.mention.currency : 'no price').toBe(null);
  });
});

test('a page in Swedish settles "kr" as kronor', () => {
  const page = (lang: string) => parsePage(`<html lang="${lang}"><body><p>199 kr</p></body></html>`);
  expect(regionCurrency(page('sv'), undefined)).toBe('SEK');
  expect(regionCurrency(page('nb'), undefined)).toBe('NOK');
  expect(regionCurrency(page('da-DK'), undefined)).toBe('DKK');
  // A language of many countries does not say which.
  expect(regionCurrency(page('en'), undefined)).toBe(null);
});

test('cents in <sup>, with or without their separator', () => {
  const read = (price: string) => extractPrice(`<html><body><h1>Lamp</h1><div class="price">${price}</div><button>Add to cart</button></body></html>`);
  for (const [html, amount] of [
    ['£19<sup>99</sup>', 19.99],
    ['19<sup>,99</sup> €', 19.99],
    ['1.299<sup>99</sup> €', 1299.99],
  ] as const) {
    const result = read(html);
    expect(result.ok && result.price).toBe(amount);
  }
});

test('prices as Intl.NumberFormat writes them in the world’s locales read back: 99.5% of amounts', () => {
  const samples = localeStrings(LOCALES);
  const right = samples.filter((sample) => {
    const reading = readPrice(sample.text, { locale: sample.locale });
    return reading.ok && Math.abs(reading.amount - sample.amount) < 1e-9;
  });
  expect(right.length / samples.length).toBeGreaterThanOrEqual(0.995);
});
