/**
 * AI Detect on the labelled platform variant pages (bench/corpus/variant-pages): its top suggestion,
 * followed by a check of the same address, reads the labelled variant's price and stock.
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractPrice } from '../reading/extract.ts';
import { parsePage } from '../reading/page.ts';
import { detectPriceSelectors } from './detect.ts';
import { addressVariantFirst, detectVariants } from './variants.ts';

const DIR = join(import.meta.dir, '../../bench/corpus/variant-pages');
type Case = { file: string; url: string; price: number; availability: string };
const { pages } = JSON.parse(readFileSync(join(DIR, 'labels.json'), 'utf8')) as { pages: { page: string; cases: Case[] }[] };

describe('AI Detect, then a check, on variant pages', () => {
  for (const { page, cases } of pages) {
    test(page, () => {
      for (const label of cases) {
        const html = readFileSync(join(DIR, label.file), 'utf8');
        const document = parsePage(html);
        const [top] = addressVariantFirst(detectPriceSelectors(document, { url: label.url }), detectVariants(document, label.url));
        expect(top, label.url).toBeDefined();
        const checked = extractPrice(html, { selector: top!.selector, url: label.url });
        expect(checked, `${label.url} with ${top!.selector}`).toMatchObject({ ok: true, price: label.price, availability: label.availability });
      }
    });
  }
});
