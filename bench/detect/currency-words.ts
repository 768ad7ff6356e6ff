/**
 * Writes api/reading/currency-words.json: the currency signs, abbreviations and one-word names
 * that CLDR (through Bun's Intl) writes next to amounts in the world's languages, each with the
 * currencies it names. Price reading looks words up in it besides its own hand-made table.
 *
 *   bun bench/detect/currency-words.ts
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REGION_CURRENCY } from '../../api/reading/region-currencies.ts';
import { LOCALES } from './locale-sample.ts';

const LANGUAGES = (
  'af am ar as az be bg bn bo bs ca cs cy da de dz el en es et eu fa fi fil fo fr ga gl gu ha he hi hr hu hy id ig is it ja ka kk km kn ko ' +
  'ky lb lo lt lv mk ml mn mr ms mt my nb ne nl nn om or pa pl ps pt ro ru sd si sk sl so sq sr sv sw ta te tg th ti tk tr ug uk ur uz vi ' +
  'yo zh zu xh'
).split(' ');
const locales = [...new Set([...Intl.NumberFormat.supportedLocalesOf(LANGUAGES), ...LOCALES, 'sr-Latn', 'uz-Cyrl', 'az-Cyrl', 'bs-Cyrl', 'zh-Hant'])];
const currencies = [...new Set(REGION_CURRENCY.values())].sort();
/** Amounts whose plural forms a language's names take: one, few, many, other. */
const PLURAL_SAMPLES = [1, 2, 5, 1.5, 21, 100];

const words = new Map<string, Set<string>>();
const add = (word: string, currency: string) => {
  // As price reading sees text: invisible marks dropped, every space one plain space.
  const clean = word
    .replace(/[\u200b-\u200f\u061c]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  // Codes are read as codes; a word with a digit is never a sign.
  if (!clean || /\d/.test(clean) || /^[A-Z]{3}$/.test(clean)) return;
  if (!words.has(clean)) words.set(clean, new Set());
  words.get(clean)!.add(currency);
};
for (const locale of locales) {
  for (const currency of currencies) {
    for (const currencyDisplay of ['symbol', 'narrowSymbol'] as const) {
      const parts = new Intl.NumberFormat(locale, { style: 'currency', currency, currencyDisplay }).formatToParts(1);
      add(parts.find((part) => part.type === 'currency')!.value, currency);
    }
    // Names of one word ("euros", "人民币", "米ドル"); longer ones are phrases shops do not write.
    const named = new Intl.NumberFormat(locale, { style: 'currency', currency, currencyDisplay: 'name' });
    for (const amount of PLURAL_SAMPLES) {
      const name = named
        .formatToParts(amount)
        .filter((part) => part.type === 'currency')
        .map((part) => part.value)
        .join('')
        .trim();
      if (!/\s/.test(name)) add(name, currency);
    }
  }
}
const table = Object.fromEntries([...words].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([word, named]) => [word, [...named].sort().join(' ')]));
const file = join(import.meta.dir, '../../api/reading/currency-words.json');
writeFileSync(file, `${JSON.stringify(table, null, 0)}\n`);
console.log(`${Object.keys(table).length} words from ${locales.length} locales and ${currencies.length} currencies -> ${file}`);
