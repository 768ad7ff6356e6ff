// A Google Merchant Center product feed: RSS 2.0 or Atom with the g: namespace, or the
// tab-separated form with a header row. One item per entry; entries sharing an item_group_id
// are variants of one product, named by their size and colour.
//
// XML is read with saxes, which never expands entities declared in a DOCTYPE (an undeclared one
// is an error), and a DOCTYPE that declares any is refused outright: a billion-laughs file cannot
// grow in memory, and the owner is told why the feed was refused.

import { parse as parseTsv } from 'csv-parse/sync';
import { SaxesParser, type SaxesTagNS } from 'saxes';
import { availabilityOf } from '../../reading/structured-values.ts';
import {
  describeAnswer,
  fetchSourceDocument,
  ItemCollector,
  looksLikeHtml,
  MAX_SOURCE_ITEMS,
  type SourceFailure,
  sourceAddress,
  sourceFailures,
  type SourceRead,
  webUrl,
} from './item.ts';
import type { SourceDeps } from './item.ts';

/** Feeds carry descriptions of up to 5,000 characters, so 20,000 items can pass 20 MB. */
export const FEED_BYTES = 40 * 1024 * 1024;
const GOOGLE_NS = 'http://base.google.com/ns/1.0';
const ATOM_NS = 'http://www.w3.org/2005/Atom';
const PLATFORM = 'a Google Merchant Center feed';
const FEED_ADDRESS_HINT = "Use the feed's own address, as your shop's feed app or plugin shows it, or the address of the file you give Merchant Center.";

/** An entry's fields by name without prefix: `g` from the Google namespace (and every TSV column), `plain` from RSS or Atom. */
type Entry = { g: Record<string, string>; plain: Record<string, string> };
/** `where` names the feed in reasons; `base` resolves relative links. */
type Context = { collector: ItemCollector; where: string; base: string; fallbackCurrency: string; now: number };

class Refusal extends Error {
  constructor(readonly failure: SourceFailure) {
    super(failure.reason);
  }
}

export async function readMerchantFeed(feedUrl: string, deps: SourceDeps): Promise<SourceRead> {
  const address = sourceAddress(feedUrl);
  if (!('href' in address)) return address;
  const doc = await fetchSourceDocument(address.href, deps, FEED_BYTES);
  if ('ok' in doc) return doc;
  // Named without its query, which often carries the feed's access token.
  const bare = `${address.origin}${address.pathname}`;
  const where = bare.length > 100 ? `${bare.slice(0, 99)}…` : bare;
  if (looksLikeHtml(doc))
    return sourceFailures.notACatalogue(where, PLATFORM, `it sent ${describeAnswer(doc)}, not a product feed. ${FEED_ADDRESS_HINT}`, doc.status);
  const text = doc.text.replace(/^\uFEFF/, '');
  const context: Context = { collector: new ItemCollector(), where, base: doc.url, fallbackCurrency: deps.fallbackCurrency, now: Date.now() };
  const start = text.trimStart();
  let failure: SourceFailure | null;
  if (start.startsWith('<')) failure = readXml(text, context);
  else if (/^[^\n]*\t/.test(start)) failure = readTsv(text, context);
  else
    failure = sourceFailures.notACatalogue(
      where,
      PLATFORM,
      `it is neither an XML feed (RSS or Atom) nor a tab-separated file (it sent ${describeAnswer(doc)}). ${FEED_ADDRESS_HINT}`,
      doc.status,
    );
  return failure ?? context.collector.result();
}

// ---------------------------------------------------------------------------------------
// XML: RSS 2.0 <rss><channel><item>, Atom <feed><entry>

function readXml(text: string, context: Context): SourceFailure | null {
  const refuse = (detail: string) => new Refusal(sourceFailures.notACatalogue(context.where, PLATFORM, detail));
  // Feeds that use g: without declaring it are common enough to read anyway.
  const parser = new SaxesParser({ xmlns: true, additionalNamespaces: { g: GOOGLE_NS } });
  let depth = 0;
  let format: 'rss' | 'atom' | null = null;
  let entryDepth = -1;
  let entry: Entry = { g: {}, plain: {} };
  let field: string | null = null;

  parser.on('doctype', (doctype) => {
    if (/<!ENTITY/i.test(doctype))
      throw refuse(
        'it declares its own XML entities (<!ENTITY> in a DOCTYPE), which Pricewatch refuses because they can make a small file expand beyond any limit. A product feed needs no DOCTYPE: export it without one.',
      );
  });
  parser.on('opentag', (tag) => {
    depth++;
    if (depth === 1) {
      if (tag.local === 'rss' && tag.uri === '') format = 'rss';
      else if (tag.local === 'feed' && (tag.uri === ATOM_NS || tag.uri === '')) format = 'atom';
      else throw refuse(`its XML starts with <${tag.name}>, not with an RSS (<rss>) or Atom (<feed>) feed. ${FEED_ADDRESS_HINT}`);
      return;
    }
    if (entryDepth < 0) {
      if (isEntry(tag, format)) {
        entryDepth = depth;
        entry = { g: {}, plain: {} };
      }
      return;
    }
    if (depth !== entryDepth + 1) return;
    field = '';
    // Atom gives the product's address as <link href="..."/>.
    if (format === 'atom' && tag.local === 'link' && tag.uri !== GOOGLE_NS) {
      const rel = tag.attributes.rel?.value;
      const href = tag.attributes.href?.value;
      if (href && (!rel || rel === 'alternate')) entry.plain.link ??= href;
    }
  });
  const onText = (chunk: string) => {
    if (field !== null && depth === entryDepth + 1) field += chunk;
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', (tag) => {
    if (field !== null && depth === entryDepth + 1) {
      const fields = tag.uri === GOOGLE_NS ? entry.g : entry.plain;
      // The first of a repeated field counts (additional_image_link and the like are not read).
      if (field.trim()) fields[tag.local] ??= field;
      field = null;
    } else if (depth === entryDepth) {
      entryDepth = -1;
      addEntry(entry, context);
      if (context.collector.overLimit) throw new Refusal(sourceFailures.tooManyItems());
    }
    depth--;
  });

  try {
    parser.write(text).close();
  } catch (error) {
    if (error instanceof Refusal) return error.failure;
    const message = error instanceof Error ? error.message : String(error);
    return sourceFailures.notACatalogue(context.where, PLATFORM, `it is not well-formed XML (${xmlErrorText(message)}).`);
  }
  return null;
}

function isEntry(tag: SaxesTagNS, format: 'rss' | 'atom' | null): boolean {
  if (format === 'rss') return tag.local === 'item' && tag.uri === '';
  return tag.local === 'entry' && (tag.uri === ATOM_NS || tag.uri === '');
}

/** saxes says "12:5: undefined entity."; the owner reads "line 12, column 5: undefined entity". */
function xmlErrorText(message: string): string {
  const [, line, column, rest] = message.match(/^(?:[^:]*:)?(\d+):(\d+): (.*)$/s) ?? [];
  const what = (rest ?? message).replace(/\.$/, '').slice(0, 120);
  return line ? `line ${line}, column ${column}: ${what}` : what;
}

// ---------------------------------------------------------------------------------------
// Tab-separated: a header row naming the columns, one product per row

function readTsv(text: string, context: Context): SourceFailure | null {
  let rows: string[][];
  try {
    // One row past the limit is enough to know the feed is too long.
    rows = parseTsv(text, { delimiter: '\t', relax_quotes: true, relax_column_count: true, skip_empty_lines: true, to: MAX_SOURCE_ITEMS + 2 });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return sourceFailures.notACatalogue(context.where, PLATFORM, `its tab-separated rows cannot be read (${message.slice(0, 120)}).`);
  }
  const header = (rows[0] ?? []).map((name) =>
    name
      .trim()
      .toLowerCase()
      .replace(/^g:/, '')
      .replace(/[\s-]+/g, '_'),
  );
  if (!header.includes('id') || !header.includes('title') || !header.includes('price'))
    return sourceFailures.notACatalogue(
      context.where,
      PLATFORM,
      `its first row does not name the id, title and price columns (it names ${header.slice(0, 8).join(', ') || 'nothing'}). ${FEED_ADDRESS_HINT}`,
    );
  if (rows.length - 1 > MAX_SOURCE_ITEMS) return sourceFailures.tooManyItems();
  for (let index = 1; index < rows.length; index++) {
    const g: Record<string, string> = {};
    for (const [column, name] of header.entries()) {
      const value = rows[index][column];
      if (name && value?.trim() && !(name in g)) g[name] = value;
    }
    addEntry({ g, plain: {} }, context);
  }
  return null;
}

// ---------------------------------------------------------------------------------------
// One entry as an item

function addEntry({ g, plain }: Entry, context: Context): void {
  const position = context.collector.count + 1;
  const price = feedPrice(g.price);
  const sale = saleInEffect(g, context.now) ? feedPrice(g.sale_price) : null;
  const sameCurrency = !sale?.currency || !price?.currency || sale.currency === price.currency;
  const onSale = sale !== null && price !== null && sameCurrency && sale.amount < price.amount;
  const current = onSale ? sale : (price ?? sale);
  // The owner's cost, when the feed states it in the price's currency (or none).
  const cost = feedPrice(g.cost_of_goods_sold);
  const costInCurrency = cost && (!cost.currency || !current?.currency || cost.currency === current.currency) ? cost.amount : null;
  const variant = g.item_group_id
    ? [g.size, g.color]
        .map((value) => value?.trim())
        .filter(Boolean)
        .join(' / ') || null
    : null;
  context.collector.add(
    {
      externalId: g.id,
      title: g.title ?? plain.title,
      variant,
      gtin: g.gtin,
      mpn: g.mpn,
      brand: g.brand,
      price: current?.amount ?? null,
      priceText: g.price ?? g.sale_price ?? null,
      currency: current?.currency ?? price?.currency ?? context.fallbackCurrency,
      regularPrice: onSale ? (price?.amount ?? null) : null,
      cost: costInCurrency,
      url: webUrl(g.link ?? plain.link, context.base),
      imageUrl: webUrl(g.image_link, context.base),
      availability: availabilityOf(g.availability),
    },
    `item ${position}`,
  );
}

const PRICE = /^\s*(?:([A-Za-z]{3})\s*)?(\d[\d.,'\s\u00a0]*?)\s*(?:([A-Za-z]{3}))?\s*$/;

/** "15.00 GBP", "GBP 15.00", "15,00 EUR", "1,299.00 USD", "1.299,00 EUR", "15" (the owner's currency). */
export function feedPrice(text: string | undefined): { amount: number; currency: string | null } | null {
  const match = text ? PRICE.exec(text) : null;
  if (!match || (match[1] && match[3])) return null;
  const amount = decimalNumber(match[2].replace(/[\s\u00a0']/g, ''));
  return amount === null ? null : { amount, currency: (match[1] ?? match[3])?.toUpperCase() ?? null };
}

/**
 * With both separators the later one is the decimal mark. A lone "." is decimal, as Google asks
 * feeds to write prices; a lone "," is decimal before one or two digits ("15,00") and groups
 * thousands before three ("1,299").
 */
function decimalNumber(written: string): number | null {
  const dot = written.lastIndexOf('.');
  const comma = written.lastIndexOf(',');
  let plain: string;
  if (dot >= 0 && comma >= 0) plain = dot > comma ? written.replaceAll(',', '') : written.replaceAll('.', '').replace(',', '.');
  else if (comma >= 0) {
    const groups = written.split(',');
    const thousands = groups.length > 2 || groups[1].length === 3;
    plain = thousands ? groups.join('') : written.replace(',', '.');
  } else plain = written;
  return /^\d+(?:\.\d+)?$/.test(plain) ? Number(plain) : null;
}

/** A sale price counts only within its sale_price_effective_date ("start/end", ISO 8601), when one is given. */
function saleInEffect(g: Record<string, string>, now: number): boolean {
  const range = g.sale_price_effective_date?.split('/');
  if (range?.length !== 2) return true;
  // "2024-02-24T11:07+0100": Date.parse wants the offset written with a colon.
  const [start, end] = range.map((part) => Date.parse(part.trim().replace(/([+-]\d{2})(\d{2})$/, '$1:$2')));
  if (Number.isNaN(start) || Number.isNaN(end)) return true;
  return start <= now && now < end;
}
