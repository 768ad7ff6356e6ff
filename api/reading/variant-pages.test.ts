/**
 * Product pages of the platforms that sell variants (bench/corpus/variant-pages, labelled per
 * address): a check of an address reads the variant that address selects, its price, stock and
 * regular price; the address written for a variant selects that variant again.
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractPrice } from './extract.ts';
import { parsePage } from './page.ts';
import { pickOffer, readOffers, variantAddress, type PageOffer } from './offers.ts';

const DIR = join(import.meta.dir, '../../bench/corpus/variant-pages');

type Case = {
  file: string;
  url: string;
  price: number;
  currency: string;
  availability: string;
  regularPrice: number | null;
  variant: { id: string | null; sku: string | null; options: Record<string, string> } | null;
};
type Page = { page: string; platform: string | null; modelledOn: string; cases: Case[] };

const { pages } = JSON.parse(readFileSync(join(DIR, 'labels.json'), 'utf8')) as { pages: Page[] };
const html = (file: string) => readFileSync(join(DIR, file), 'utf8');
const offersAt = (file: string, url: string) => readOffers(parsePage(html(file)), url);
const variantOf = (offer: PageOffer | null) => (offer?.variant ? { id: offer.variant.id, sku: offer.variant.sku, options: offer.variant.options } : null);

describe('labelled variant pages', () => {
  test('every platform is there, each with a non-default variant and a sold-out one among them', () => {
    expect(pages.map((p) => p.page)).toEqual([
      'shopify',
      'woocommerce',
      'magento2',
      'prestashop17',
      'prestashop16',
      'sfcc',
      'bigcommerce',
      'shopware6',
      'jsonld-productgroup',
      'jsonld-aggregateoffer',
    ]);
    for (const { cases } of pages) expect(cases.length).toBeGreaterThanOrEqual(2);
    const soldOutBesideStock = pages.filter(({ cases }) => cases[0]!.availability === 'InStock' && cases.some((c) => c.availability === 'OutOfStock'));
    expect(soldOutBesideStock.length).toBeGreaterThanOrEqual(5);
  });

  for (const { page, cases } of pages) {
    describe(page, () => {
      for (const label of cases) {
        const name = `${label.file} at ${label.url.replace(/^https?:\/\/[^/]+/, '')}`;
        test(`a check reads the labelled price, currency and stock: ${name}`, () => {
          const read = extractPrice(html(label.file), { url: label.url });
          expect(read).toMatchObject({ ok: true, price: label.price, currency: label.currency, availability: label.availability });
        });

        test(`the offer the address selects is the labelled variant: ${name}`, () => {
          const offers = offersAt(label.file, label.url);
          const offer = pickOffer(offers, label.url);
          expect(variantOf(offer)).toEqual(label.variant);
          expect(offer?.regularPrice ?? null).toBe(label.regularPrice);
          if (offer) expect(offer).toMatchObject({ price: label.price, currency: label.currency, availability: label.availability });
        });

        test(`the variant's address selects it again: ${name}`, () => {
          const offers = offersAt(label.file, label.url);
          const offer = pickOffer(offers, label.url);
          if (!offer) return;
          const address = variantAddress(label.url, offers, offer);
          expect(address).not.toBeNull();
          expect(pickOffer(offersAt(label.file, address!), address!)).toEqual(offer);
        });
      }

      // Platforms that render one variant per address: the address written from one variant's page
      // for another variant picks that one among both pages' offers.
      const files = [...new Set(cases.map((c) => c.file))];
      if (files.length > 1) {
        test('from the first page, the address of the other page’s variant selects it among both', () => {
          const [first, other] = [cases.find((c) => c.file === files[0])!, cases.find((c) => c.file === files[1])!];
          const mine = offersAt(first.file, first.url);
          const theirs = offersAt(other.file, other.url);
          const address = variantAddress(first.url, [...mine, ...theirs], theirs[0]!);
          expect(address).not.toBeNull();
          expect(variantOf(pickOffer([...mine, ...theirs], address!))).toEqual(other.variant);
          expect(variantOf(pickOffer([...mine, ...theirs], first.url))).toEqual(first.variant);
        });
      }
    });
  }
});
