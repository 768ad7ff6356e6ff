/**
 * Precision and recall of the suggested matches (domain/matching.ts) on the labelled set
 * (bench/catalogue/matching-set.ts): per reason and overall, and the title threshold in use.
 * A reason's recall is over the true pairs left to it once the stronger reasons have had theirs.
 * Then title precision and recall across thresholds, to choose TITLE_THRESHOLD by.
 * Prints figures; it is not a test. Usage: bun bench/catalogue/matching.ts [--misses]
 */
import { type MatchReason, suggestMatches, TITLE_THRESHOLD } from '../../domain/matching.ts';
import { listings, own } from './matching-set.ts';

const truth = new Set(listings.filter((l) => l.of).map((l) => `${l.of} ${l.productId}`));
const started = performance.now();
const suggestions = suggestMatches(own, listings, () => false);
const ms = performance.now() - started;

const pct = (n: number, d: number) => (d === 0 ? '   -  ' : (n / d).toFixed(3).padStart(6));
const row = (label: string, suggested: number, hits: number, relevant: number) =>
  console.log(`${label.padEnd(8)} ${String(suggested).padStart(11)} ${String(hits).padStart(14)} ${pct(hits, suggested)}    ${pct(hits, relevant)}`);

console.log(`${own.length} own products, ${listings.length} listings, ${truth.size} true pairs; title threshold ${TITLE_THRESHOLD}; ${ms.toFixed(1)} ms`);
console.log('reason   suggestions true-positives precision recall');
let found = 0;
for (const reason of ['gtin', 'mpn', 'title'] as MatchReason[]) {
  const mine = suggestions.filter((s) => s.reason === reason);
  const hits = mine.filter((s) => truth.has(`${s.ownProductId} ${s.productId}`)).length;
  row(reason, mine.length, hits, truth.size - found);
  found += hits;
}
row('overall', suggestions.length, found, truth.size);

const leftToTitle = truth.size - suggestions.filter((s) => s.reason !== 'title' && truth.has(`${s.ownProductId} ${s.productId}`)).length;
console.log('\ntitle threshold  suggestions  precision recall');
for (let t = 0.3; t <= 0.801; t += 0.05) {
  const title = suggestMatches(own, listings, () => false, { titleThreshold: t }).filter((s) => s.reason === 'title');
  const hits = title.filter((s) => truth.has(`${s.ownProductId} ${s.productId}`)).length;
  console.log(`${t.toFixed(2).padStart(15)} ${String(title.length).padStart(12)}     ${pct(hits, title.length)} ${pct(hits, leftToTitle)}`);
}

if (process.argv.includes('--misses')) {
  const name = new Map(listings.map((l) => [l.productId, l.name]));
  const title = new Map(own.map((o) => [o.id, `${o.title} ${o.variant ?? ''}`]));
  const suggested = new Set(suggestions.map((s) => `${s.ownProductId} ${s.productId}`));
  console.log('\nfalse positives:');
  for (const s of suggestions.filter((s) => !truth.has(`${s.ownProductId} ${s.productId}`)))
    console.log(`  ${s.reason} ${s.confidence}  ${title.get(s.ownProductId)}  ~  ${name.get(s.productId)}`);
  console.log('\nmissed:');
  for (const pair of [...truth].filter((t) => !suggested.has(t))) {
    const [o, c] = pair.split(' ');
    console.log(`  ${title.get(o!)}  ~  ${name.get(c!)}`);
  }
}
