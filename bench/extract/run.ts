/**
 * Price extraction on a ~100 KB product page: median and p95 per extraction.
 * Target: median <= 3 ms. Run: bun bench/extract/run.ts [runs]
 */
import { parseHTML } from 'linkedom';
import { extractPrice } from '../../api/checks/extract.ts';
import { productPage } from './product-page.ts';

const RUNS = Number(process.argv[2] ?? 300);
const WARM_UP = 30;
const html = productPage();

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

function measure(label: string, work: () => unknown) {
  for (let i = 0; i < WARM_UP; i++) work();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    work();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  console.log(`${label.padEnd(44)} median ${percentile(times, 50).toFixed(2)} ms   p95 ${percentile(times, 95).toFixed(2)} ms`);
}

const scenarios: [string, { selector?: string; url?: string }][] = [
  ['selector (price block)', { selector: '#price-template--product .price' }],
  ['no selector (JSON-LD)', {}],
  ['variant url (JSON-LD offer for the url)', { url: 'https://shop.example/products/kettle?variant=4203' }],
  ['selector matching nothing (fallback)', { selector: '.no-such-price' }],
];

console.log(`page: ${(html.length / 1024).toFixed(1)} KB, ${RUNS} runs after ${WARM_UP} warm-up runs`);
for (const [label, opts] of scenarios) {
  const result = extractPrice(html, opts);
  if (!result.ok) throw new Error(`${label}: ${result.reason}`);
  measure(`${label} → ${result.price} ${result.currency}`, () => extractPrice(html, opts));
}
measure('linkedom parseHTML alone', () => parseHTML(html));
