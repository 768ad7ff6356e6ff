/**
 * Price extraction on a ~100 KB product page: median and p95 per extraction.
 * Target: median <= 3 ms. Run: bun bench/extract/run.ts [runs]
 */
import os from 'node:os';
import { parseHTML } from 'linkedom';
import { extractPrice } from '../../api/checks/extract.ts';
import { productPage } from './product-page.ts';

const RUNS = Number(process.argv[2] ?? 300);
const WARM_UP = 30;
const html = productPage();

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))];
}

/** Wall time, and this process's CPU time, which other busy processes on the machine barely change. */
function measure(label: string, work: () => unknown) {
  for (let i = 0; i < WARM_UP; i++) work();
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const cpuStart = process.cpuUsage();
    const start = performance.now();
    work();
    wall.push(performance.now() - start);
    const used = process.cpuUsage(cpuStart);
    cpu.push((used.user + used.system) / 1000);
  }
  wall.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  const ms = (value: number) => `${value.toFixed(2)} ms`.padStart(9);
  console.log(
    `${label.padEnd(48)} median ${ms(percentile(wall, 50))}  p95 ${ms(percentile(wall, 95))}   cpu median ${ms(percentile(cpu, 50))}  p95 ${ms(percentile(cpu, 95))}`,
  );
}

const scenarios: [string, { selector?: string; url?: string }][] = [
  ['selector (price block)', { selector: '#price-template--product .price' }],
  ['no selector (JSON-LD)', {}],
  ['variant url (JSON-LD offer for the url)', { url: 'https://shop.example/products/kettle?variant=4203' }],
  ['selector matching nothing (fallback)', { selector: '.no-such-price' }],
];

console.log(`page: ${(html.length / 1024).toFixed(1)} KB, ${RUNS} runs after ${WARM_UP} warm-up runs, load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores`);
for (const [label, opts] of scenarios) {
  const result = extractPrice(html, opts);
  if (!result.ok) throw new Error(`${label}: ${result.reason}`);
  measure(`${label} → ${result.price} ${result.currency}`, () => extractPrice(html, opts));
}
measure('linkedom parseHTML alone', () => parseHTML(html));
