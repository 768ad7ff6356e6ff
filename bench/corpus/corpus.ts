/**
 * Real product pages saved from real shops, annotated by people (see real-product-pages/README.md),
 * and the benchmark's own scoring: per page, a returned value equal to an accepted one is a true
 * positive, any other returned value a false positive (and a false negative when the page has a
 * value), nothing returned where a value exists a false negative.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

export const CORPUS_DIR = join(import.meta.dir, 'real-product-pages');

export type CorpusPage = {
  key: string;
  url: string;
  host: string;
  html: string;
  /** Accepted prices as written by the annotators ("87.11"); empty when the page has none. */
  prices: string[];
  availability: string[];
};

type Truth = { url: string; price?: string[]; availability?: string[] };

export function loadCorpus(): CorpusPage[] {
  const truth: Record<string, Truth> = JSON.parse(readFileSync(join(CORPUS_DIR, 'ground-truth.json'), 'utf8'));
  const files = new Set(readdirSync(join(CORPUS_DIR, 'html')));
  return Object.entries(truth)
    .filter(([key]) => files.has(`${key}.html.gz`))
    .map(([key, t]) => ({
      key,
      url: t.url,
      host: new URL(t.url).hostname.replace(/^www\./, ''),
      html: gunzipSync(readFileSync(join(CORPUS_DIR, 'html', `${key}.html.gz`))).toString('utf8'),
      prices: t.price ?? [],
      availability: t.availability ?? [],
    }));
}

/** Another system's answers for the same pages: { key: { price, availability } }. */
export function loadPredictions(system: 'Zyte' | 'Diffbot' | 'extruct'): Record<string, { price?: string; availability?: string }> {
  return JSON.parse(readFileSync(join(CORPUS_DIR, `predictions-${system}.json`), 'utf8'));
}

export type Tally = { tp: number; fp: number; fn: number };

/** One page's (tp, fp, fn) for a returned value against the accepted ones. */
export function score(accepted: string[], returned: string | number | null | undefined, equal = priceEqual): Tally {
  if (returned === null || returned === undefined) return { tp: 0, fp: 0, fn: accepted.length > 0 ? 1 : 0 };
  if (accepted.some((value) => equal(value, returned))) return { tp: 1, fp: 0, fn: 0 };
  return { tp: 0, fp: 1, fn: accepted.length > 0 ? 1 : 0 };
}

export function priceEqual(accepted: string, returned: string | number): boolean {
  return Math.abs(Number(accepted) - Number(returned)) < 1e-9;
}

export const exactly = (accepted: string, returned: string | number) => accepted === String(returned);

export function f1(tallies: Tally[]): number {
  const { tp, fp, fn } = tallies.reduce((a, t) => ({ tp: a.tp + t.tp, fp: a.fp + t.fp, fn: a.fn + t.fn }), { tp: 0, fp: 0, fn: 0 });
  if (fp === 0 && fn === 0) return 1;
  const precision = tp + fp === 0 ? 0 : tp / (tp + fp);
  const recall = tp + fn === 0 ? 0 : tp / (tp + fn);
  return precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
}
