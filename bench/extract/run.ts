/**
 * Price extraction on real product pages (bench/corpus, about 600 KB each): price F1 without a
 * selector and availability F1 (the benchmark's own scoring, beside three other systems), and
 * the time per page to parse, and to parse and extract as a check does, beside the floor of
 * merely tokenising the page with htmlparser2, measured in the same run.
 *
 *   bun bench/extract/run.ts [rounds]
 */
import os from 'node:os';
import { Parser } from 'htmlparser2';
import { detectPriceSelectors } from '../../api/ai/detect.ts';
import { extractPrice, extractPriceFromDocument } from '../../api/reading/extract.ts';
import { parsePage } from '../../api/reading/page.ts';
import { exactly, f1, loadCorpus, loadPredictions, score } from '../corpus/corpus.ts';

const ROUNDS = Number(process.argv[2] ?? 5);
const pages = loadCorpus();

// Accuracy ------------------------------------------------------------------------------------
const ours = pages.map((page) => ({ page, result: extractPrice(page.html, { url: page.url }) }));
const priceF1 = f1(ours.map(({ page, result }) => score(page.prices, result.ok ? result.price : null)));
const availabilityF1 = f1(ours.map(({ page, result }) => score(page.availability, result.availability, exactly)));
const soldOut = ours.filter(({ page }) => page.availability.includes('OutOfStock'));
console.log(
  `${pages.length} real product pages from ${new Set(pages.map((p) => p.host)).size} sites, ${(pages.reduce((a, p) => a + p.html.length, 0) / pages.length / 1024).toFixed(0)} KB on average`,
);
console.log(`\n${'system'.padEnd(28)} price F1   availability F1`);
console.log(
  `${'Pricewatch (no selector)'.padEnd(28)} ${priceF1.toFixed(3)}      ${availabilityF1.toFixed(3)}   (sold-out pages flagged: ${soldOut.filter(({ result }) => result.availability === 'OutOfStock').length}/${soldOut.length})`,
);
for (const system of ['Zyte', 'Diffbot', 'extruct'] as const) {
  const predictions = loadPredictions(system);
  const price = f1(pages.map((page) => score(page.prices, predictions[page.key]?.price ?? null)));
  const availability = f1(pages.map((page) => score(page.availability, predictions[page.key]?.availability ?? null, exactly)));
  console.log(`${system.padEnd(28)} ${price.toFixed(3)}      ${availability.toFixed(3)}`);
}

// Speed -----------------------------------------------------------------------------------------
// A check with a selector: the selector AI Detect suggests for the page (pages without one are left out).
const selectors = new Map(pages.map((page) => [page.key, detectPriceSelectors(parsePage(page.html), { url: page.url })[0]?.selector ?? null]));
const withSelector = pages.filter((page) => selectors.get(page.key));

function median(work: (page: (typeof pages)[number]) => unknown, set = pages): number {
  for (const page of set.slice(0, 10)) work(page);
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const page of set) {
      const start = performance.now();
      work(page);
      times.push(performance.now() - start);
    }
  }
  times.sort((a, b) => a - b);
  return times[times.length >> 1]!;
}

const tokenise = (page: (typeof pages)[number]) => new Parser({}).end(page.html);
const floor = median(tokenise);
const rows: [string, number][] = [
  ['tokenise only (htmlparser2, the floor)', floor],
  ['parse (htmlparser2 + domhandler)', median((page) => parsePage(page.html))],
  [
    'parse + extract with a selector (a check)',
    median((page) => extractPriceFromDocument(parsePage(page.html), { selector: selectors.get(page.key)!, url: page.url }), withSelector),
  ],
  ['  tokenise only, same pages', median(tokenise, withSelector)],
  ['parse + extract without a selector', median((page) => extractPrice(page.html, { url: page.url }))],
];
console.log(`\nmedian per page over ${ROUNDS} rounds, load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores`);
for (const [label, ms] of rows) console.log(`${label.padEnd(44)} ${ms.toFixed(2).padStart(6)} ms   ${(ms / floor).toFixed(2)}x the tokeniser`);
