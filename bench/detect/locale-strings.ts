/**
 * Price texts in the world's locales, written by Intl.NumberFormat (Bun's CLDR data) in every
 * currency display, read back with readPrice and the locale as the page's language. Prints how
 * many read back right: the amount, and the currency wherever the text and locale settle it.
 *
 *   bun bench/detect/locale-strings.ts [--failures]
 */
import { readPrice } from '../../api/reading/price-text.ts';
import { LOCALES, localeStrings } from './locale-sample.ts';

const showFailures = process.argv.includes('--failures');
let amountRight = 0;
let strictRight = 0;
let total = 0;
const failures: string[] = [];
for (const sample of localeStrings(LOCALES)) {
  total++;
  const reading = readPrice(sample.text, { locale: sample.locale });
  const amountOk = reading.ok && Math.abs(reading.amount - sample.amount) < 1e-9;
  // A sign several currencies share, outside their home, may be read as any of them.
  const currencyOk = reading.ok && (reading.currency === sample.currency || !sample.settled);
  if (amountOk) amountRight++;
  if (amountOk && currencyOk) strictRight++;
  else
    failures.push(
      `${sample.locale.padEnd(8)} ${sample.display.padEnd(12)} ${sample.currency} ${JSON.stringify(sample.text).padEnd(40)} -> ${reading.ok ? `${reading.amount} ${reading.currency}` : reading.code}`,
    );
}
if (showFailures) for (const line of failures) console.log(line);
const percent = (n: number) => ((100 * n) / total).toFixed(1);
console.log(
  `${total} strings from ${LOCALES.length} locales: amount right ${amountRight} (${percent(amountRight)}%), amount and currency right ${strictRight} (${percent(strictRight)}%)`,
);
