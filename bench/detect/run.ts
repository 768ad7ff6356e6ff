/**
 * Price selector detection on product pages modelled on real shop platforms: does the top
 * suggestion return the page's selling price, and are pages without a price left without one?
 * The top selector is checked the way a price check would use it: extraction on the raw html.
 *
 *   bun bench/detect/run.ts [--verbose]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePage } from '../../api/checks/page.ts';
import { detectPriceSelectors } from '../../api/ai/detect.ts';
import { extractPrice } from '../../api/checks/extract.ts';

type Case = { file: string; platform: string; url: string; price: number | null };

const dir = import.meta.dir;
const cases: Case[] = JSON.parse(readFileSync(join(dir, 'cases.json'), 'utf8'));
const verbose = process.argv.includes('--verbose');

let pricedRight = 0, priced = 0, emptyRight = 0, empty = 0;
const started = performance.now();
for (const c of cases) {
  const html = readFileSync(join(dir, 'fixtures', c.file), 'utf8');
  const suggestions = detectPriceSelectors(parsePage(html), { url: c.url });
  const top = suggestions[0];
  const found = top ? extractPrice(html, { selector: top.selector, url: c.url }) : null;
  const got = found?.ok && found.source === 'selector' ? found.price : null;
  let ok: boolean;
  if (c.price === null) {
    empty++;
    ok = suggestions.length === 0;
    if (ok) emptyRight++;
  } else {
    priced++;
    ok = got !== null && Math.abs(got - c.price) < 0.005;
    if (ok) pricedRight++;
  }
  const shown = top ? `${top.selector}  ->  ${got ?? 'no price'}  (${top.confidence}%)` : 'no suggestion';
  console.log(`${ok ? 'ok  ' : 'MISS'}  ${c.file.padEnd(36)} expected ${String(c.price ?? 'no price').padEnd(9)} ${shown}`);
  if (verbose || !ok) for (const s of suggestions) console.log(`        ${s.confidence}%  ${s.selector}  ${s.description}`);
}
const percent = (a: number, b: number) => (b ? ((a / b) * 100).toFixed(1) : '100.0');
console.log(`\nPages with a price: ${pricedRight}/${priced} top suggestions return the selling price (${percent(pricedRight, priced)}%; target >= 90%)`);
console.log(`Pages without a price: ${emptyRight}/${empty} offered no suggestion (target: all)`);
console.log(`${cases.length} pages in ${Math.round(performance.now() - started)} ms`);
