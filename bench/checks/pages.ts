/**
 * Every labelled page the product is tuned and tested on, as a check meets it: the real pages of
 * bench/corpus, the platform pages of bench/detect, the variant pages (one per labelled variant
 * address) and the kinds of page of api/reading/fixtures.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCorpus } from '../corpus/corpus.ts';

export type CheckedPage = { name: string; url: string; html: string };

const ROOT = join(import.meta.dir, '..', '..');
const json = <T>(path: string): T => JSON.parse(readFileSync(join(ROOT, path), 'utf8')) as T;
const file = (dir: string, name: string) => readFileSync(join(ROOT, dir, name), 'utf8');

export function checkedPages(): CheckedPage[] {
  const corpus = loadCorpus().map((p) => ({ name: `corpus/${p.key}`, url: p.url, html: p.html }));
  const platforms = json<{ file: string; url: string }[]>('bench/detect/cases.json').map((c) => ({
    name: `platform/${c.file}`,
    url: c.url,
    html: file('bench/detect/fixtures', c.file),
  }));
  const variants = json<{ pages: { page: string; cases: { file: string; url: string }[] }[] }>('bench/corpus/variant-pages/labels.json').pages.flatMap((p) =>
    p.cases.map((c) => ({ name: `variant/${p.page} ${c.url}`, url: c.url, html: file('bench/corpus/variant-pages', c.file) })),
  );
  const kinds = json<{ file: string; url: string }[]>('api/reading/fixtures/labels.json').map((c) => ({
    name: `kind/${c.file}`,
    url: c.url,
    html: file('api/reading/fixtures', c.file),
  }));
  return [...corpus, ...platforms, ...variants, ...kinds];
}
