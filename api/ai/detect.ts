/**
 * Suggests CSS selectors for the selling price of a product page. Pure: a parsed page in,
 * suggestions out.
 *
 * Candidates are the elements whose text (or price attribute) reads as a price. Each is scored
 * by what the page says about it: the structured-data price it shows (JSON-LD, microdata,
 * OpenGraph), known price markup of shop platforms, its distance from the product title and the
 * add-to-cart button, its names (itemprop, class, id, data attributes) and emphasis; was/RRP,
 * per-unit, instalment, delivery, saving and related-product prices are pushed down. The page's
 * main price is the best candidate's; every offered selector is stable, unique on the page, and
 * verified by the extraction code price checks run, returning exactly that price.
 */
import { extractPriceFromDocument } from '../reading/extract.ts';
import type { StructuredPrice } from '../reading/structured-values.ts';
import { attr, childElements, descendants, matches, parentOf, queryAll, type Document, type Element } from '../reading/page.ts';
import { mainPrice, MIN_SCORE, samePrice, scoreCandidates, visiblePrice, type Candidate } from '../reading/visible-price.ts';
import { analysePage, type Page } from '../reading/page-analysis.ts';
import { classList } from '../reading/element-tree.ts';
import type { PlatformPattern } from '../reading/platform-markup.ts';

export type SelectorSuggestion = { selector: string; description: string; confidence: number };

/** A suggestion with what its selector returned when it was verified. */
export type DetectedSelector = SelectorSuggestion & { price: number; currency: string | null; matchedText: string };

export type DetectOptions = { url?: string; limit?: number };

const MAX_SUGGESTIONS = 3;
/** Candidates per page whose selectors are built and verified, best first. */
const MAX_VERIFIED = 12;

export function detectPriceSelectors(document: Document, opts: DetectOptions = {}): DetectedSelector[] {
  const page = analysePage(document, opts.url);
  const candidates = scoreCandidates(page);
  const main = mainPrice(page, candidates);
  const limit = opts.limit ?? MAX_SUGGESTIONS;
  if (main !== null) {
    // Alternatives must make the bar too: a related product can cost the same.
    const shortlist = candidates.filter((c) => samePrice(c.amount, main) && c.score >= MIN_SCORE).slice(0, MAX_VERIFIED);
    // A name of its own first; else a name the price shares with copies of itself (variants, sticky
    // bars), which checks read as one price; positions only where the page names nothing.
    let found = verify(page, shortlist, main, opts.url, limit, 'own-name');
    if (found.length === 0) found = verify(page, shortlist, main, opts.url, limit, 'shared-name');
    if (found.length === 0) found = verify(page, shortlist, main, opts.url, limit, 'position');
    if (found.length > 0) return found;
  }
  // A page that states its price only for machines: the statement itself is what checks follow.
  const stated = page.reference && (main === null || samePrice(main, page.reference.amount)) ? statedPriceSelector(page, opts.url) : [];
  return stated.length > 0 ? stated : whereExtractionReads(page, opts.url);
}

/**
 * The last resort, and a promise: when extraction without a selector finds a price, detection
 * offers at least the place it read it from, so a check that follows the suggestion reads the
 * same price. Never an empty list while the page has a price Pricewatch can read.
 */
function whereExtractionReads(page: Page, url: string | undefined): DetectedSelector[] {
  const found = extractPriceFromDocument(page.document, { url });
  if (!found.ok) return [];
  const element = found.source === 'page' ? visiblePrice(page.document, { url })?.element : undefined;
  const selectors = element
    ? [element, parentOf(element)].flatMap((e) =>
        e
          ? [
              stableSelector(page.document, e),
              stableSelector(page.document, e, undefined, MAX_COPIES),
              positionalSelector(page.document, e),
              pathFromBody(page.document, e),
            ]
          : [],
      )
    : (STATED_PRICE_SELECTORS[found.source as StructuredPrice['source']] ?? []);
  for (const selector of new Set(selectors)) {
    if (!selector) continue;
    const result = extractPriceFromDocument(page.document, { selector, url });
    if (!result.ok || result.source !== 'selector' || !samePrice(result.price, found.price)) continue;
    const where = element
      ? 'where Pricewatch reads the price on this page'
      : `the page's ${SOURCE_NAMES[found.source as StructuredPrice['source']] ?? 'structured data'}`;
    return [
      {
        selector,
        description: `Price ${result.matchedText} from ${where}; no better-named place was found, so check that it is the product's price`,
        confidence: 50,
        price: result.price,
        currency: result.currency,
        matchedText: result.matchedText,
      },
    ];
  }
  return [];
}

/** Where each kind of statement lives, as a selector extraction can follow. */
const STATED_PRICE_SELECTORS: Partial<Record<StructuredPrice['source'], string[]>> = {
  'json-ld': ['script[type="application/ld+json"]'],
  microdata: ['[itemprop="price"]', '[itemprop="lowPrice"]'],
  rdfa: ['[property="schema:price"]', '[property="price"]', '[property="lowPrice"]'],
  opengraph: ['meta[property="product:sale_price:amount"]', 'meta[property="product:price:amount"]', 'meta[property="og:price:amount"]'],
  meta: ['meta[name="price"]', 'meta[name="twitter:data1"]', 'meta[name="twitter:data2"]'],
  // Inline state (window.__INITIAL_STATE__ = ...) has no name of its own: every inline script, the state among them.
  'script-state': ['script#__NEXT_DATA__', 'script[data-product-json]', 'script[id^="ProductJson-"]', 'script[type="application/json"]', 'script:not([src])'],
};

function statedPriceSelector(page: Page, url: string | undefined): DetectedSelector[] {
  const reference = page.reference!;
  for (const selector of STATED_PRICE_SELECTORS[reference.source] ?? []) {
    const result = extractPriceFromDocument(page.document, { selector, url });
    if (!result.ok || result.source !== 'selector' || !samePrice(result.price, reference.amount)) continue;
    return [
      {
        selector,
        description: `Price ${result.matchedText} from the page's ${SOURCE_NAMES[reference.source]}, which the page does not show as text; checks read it from there`,
        confidence: 70,
        price: result.price,
        currency: result.currency,
        matchedText: result.matchedText,
      },
    ];
  }
  return [];
}

type SelectorKind = 'own-name' | 'shared-name' | 'position';
/** How many elements a shared name may match: the price and a few copies of it, never a list. */
const MAX_COPIES = 4;

function verify(page: Page, shortlist: Candidate[], main: number, url: string | undefined, limit: number, kind: SelectorKind): DetectedSelector[] {
  const found: DetectedSelector[] = [];
  const seen = new Set<string>();
  const byPosition = kind === 'position';
  for (const candidate of shortlist) {
    const selector = byPosition
      ? positionalSelector(page.document, candidate.element)
      : stableSelector(page.document, candidate.element, page.patternOf(candidate.element) ?? undefined, kind === 'shared-name' ? MAX_COPIES : 1);
    if (!selector || seen.has(selector)) continue;
    seen.add(selector);
    const result = extractPriceFromDocument(page.document, { selector, url });
    if (!result.ok || result.source !== 'selector' || !samePrice(result.price, main)) continue;
    found.push({
      selector,
      description: describe(candidate, page) + (byPosition ? ' (found by its position on the page, so a redesign may move it)' : ''),
      // A selector by position breaks more easily than one by name.
      confidence: confidenceOf(byPosition ? candidate.score - 20 : candidate.score),
      price: result.price,
      currency: result.currency,
      matchedText: result.matchedText,
    });
    if (found.length >= limit) break;
  }
  return found;
}

/** Every price-reading element with its score and the reasons for it, best first (tests, tuning). */
export function rankPriceCandidates(document: Document, opts: { url?: string } = {}) {
  return scoreCandidates(analysePage(document, opts.url)).map(({ element, amount, currency, score, reasons }) => ({
    element,
    amount,
    currency,
    score,
    reasons,
  }));
}

function confidenceOf(score: number): number {
  return Math.max(1, Math.min(99, Math.round(100 * (1 - Math.exp(-score / 45)))));
}

// ---------------------------------------------------------------------------------------------
// Descriptions

const SOURCE_NAMES = {
  'json-ld': 'JSON-LD offer',
  microdata: 'microdata offer',
  rdfa: 'RDFa offer',
  opengraph: 'OpenGraph price',
  meta: 'price meta tag',
  'script-state': 'page script data',
} as const;

/** What was matched, in a sentence: "Sale price £24.99 from the product form, matching the page's JSON-LD offer". */
function describe(candidate: Candidate, page: Page): string {
  const evidence =
    candidate.matchesReference && page.reference
      ? `, matching the page's ${SOURCE_NAMES[page.reference.source]}`
      : page.patternOf(candidate.element)
        ? `, in ${page.patternOf(candidate.element)!.platform}'s price markup`
        : '';
  if (candidate.element.name === 'meta') return `Microdata price ${candidate.mention.text}, not shown on the page itself`;
  const kind = candidate.sale ? 'Sale price' : 'Price';
  const where = candidate.inBuyForm
    ? 'from the product form'
    : candidate.nearBuy
      ? 'next to the add-to-cart button'
      : candidate.nearTitle
        ? 'under the product title'
        : 'in the product details';
  return `${kind} ${candidate.mention.text} ${where}${evidence}`;
}

// ---------------------------------------------------------------------------------------------
// Stable selectors

const IDENT = /^-?[A-Za-z_][A-Za-z0-9_-]*$/;
/** Layout utilities (Tailwind, Bootstrap) are shared by unrelated elements and restyled often. */
const UTILITY =
  /^(?:text|font|leading|tracking|m[trblxyse]?|p[trblxyse]?|-?m[trblxy]?|w|h|min|max|flex|grid|items|justify|content|self|gap|space|bg|border|rounded|shadow|opacity|col|row|d|align|float|order|block|inline|relative|absolute|sticky|fixed|overflow|z|top|left|right|bottom|sm|md|lg|xl|xxl|uppercase|lowercase|capitalize|truncate|whitespace|underline|italic|visually|sr|screen|clearfix|container|wrapper|inner|outer)(?:-|$)/;

/**
 * True for names a build tool or framework generated (they change with every deploy or page view):
 * css-1x2y3z, sc-bdVaJa, ember123, product-price-1234, Price_price__3kX9a, x1a2b3c.
 */
export function isGeneratedName(name: string): boolean {
  if (!IDENT.test(name) || name.length > 48) return true;
  if (/\d{3,}/.test(name)) return true;
  if (
    /^(?:css|sc|jsx|svelte|emotion|styled|astro|tw|chakra|mui|jss|ember|ext-gen|yui|ui-id|react|vue|ng)[-_]/i.test(name) &&
    /[\d]|[a-z][A-Z]|[A-Z][a-z]*[A-Z]/.test(name.replace(/^[a-z]+[-_]/i, ''))
  )
    return true;
  if (/^(?:ember|react|ng|vue)\d/.test(name)) return true;
  return name.split(/[-_]+/).some((segment) => {
    const digitsAndLetters = /\d/.test(segment) && /[A-Za-z]/.test(segment) && segment.length >= 4;
    const scrambledCase = segment.length >= 4 && segment.length <= 8 && /[A-Z][a-z]*[A-Z]|[a-z][A-Z][a-z]*[A-Z]/.test(segment.slice(1));
    return digitsAndLetters || scrambledCase;
  });
}

/** Classes that come and go with the state of the page ("on-sale" leaves when the sale ends). */
const STATE =
  /^(?:is|has|with)[-_]|^no-js|(?:^|[-_])on-?sale$|^(?:sale|active|selected|current|disabled|loading|loaded|visible|hidden|open|closed|discounted|reduced|in-stock|out-of-stock|sold-out|available|unavailable)$/i;

const usableClass = (name: string) => !isGeneratedName(name) && !UTILITY.test(name) && !STATE.test(name);
const TEST_ATTRIBUTE =
  /^data-(?:[\w-]*(?:price|amount|cost)[\w-]*|testid|test-id|test|qa|cy|automation(?:-id)?|hook|role|price-type|component|element|selector|target)$/;

/** Simple selectors naming the element by itself, most telling first. */
function ownParts(element: Element): string[] {
  const parts: string[] = [];
  const id = attr(element, 'id');
  if (id && !isGeneratedName(id)) parts.push(`#${id}`);
  const itemprop = attr(element, 'itemprop')?.trim();
  if (itemprop && /^[A-Za-z]+$/.test(itemprop)) parts.push(`[itemprop="${itemprop}"]`);
  for (const [name, written] of Object.entries(element.attribs)) {
    if (!TEST_ATTRIBUTE.test(name) || isGeneratedName(name.slice(5))) continue;
    const value = written.trim();
    // A value with digits is the price itself or an id: only the attribute's presence is stable.
    if (!value || /\d/.test(value)) parts.push(`[${name}]`);
    else if (/^[\w -]{1,40}$/.test(value) && !isGeneratedName(value.replace(/ /g, '-'))) parts.push(`[${name}="${value}"]`);
  }
  for (const name of classList(element)) if (usableClass(name)) parts.push(`.${name}`);
  return parts;
}
/** Simple selectors naming an ancestor, for "ancestor descendant" selectors. */
function ancestorParts(element: Element): string[] {
  const parts = ownParts(element).filter((part) => !part.startsWith('[itemprop="price"]'));
  if (/^(?:form|main|article|ins|del|h1|h2|h3|dl|dd|table)$/.test(element.name)) parts.push(element.name);
  return parts;
}

const MAX_SELECTOR_TRIES = 60;

/**
 * The shortest stable selector that matches this element and at most `maxMatches` elements in
 * all (by default nothing else), or null. Positional selectors (nth-child) are never used: they
 * break when a shop adds a banner.
 */
export function stableSelector(document: Document, element: Element, pattern?: PlatformPattern, maxMatches = 1): string | null {
  // Ranks: the element's own names, then qualified by an ancestor, then an ancestor and its tag,
  // then by two ancestors. Within a rank, shortest first.
  const options = new Map<string, number>();
  const add = (selector: string, rank: number) => {
    if (!options.has(selector)) options.set(selector, rank);
  };
  const own = ownParts(element);
  const tag = element.name;
  for (const part of own) add(part, 0);
  for (const part of own) if (!part.startsWith('#')) add(`${tag}${part}`, 0);
  const classes = own.filter((part) => part.startsWith('.'));
  for (let i = 0; i < classes.length; i++) for (let j = i + 1; j < classes.length; j++) add(`${classes[i]}${classes[j]}`, 0);
  if (pattern) add(pattern.selector, 1);
  const ancestors: string[][] = [];
  for (let parent = parentOf(element), level = 0; parent && level < 4; parent = parentOf(parent), level++) {
    if (/^(?:html|body)$/.test(parent.name)) break;
    ancestors.push(ancestorParts(parent));
  }
  for (const parts of ancestors) for (const part of parts) for (const target of own) add(`${part} ${target}`, 1);
  for (const parts of ancestors) for (const part of parts) add(`${part} ${tag}`, 2);
  for (let i = 0; i < ancestors.length; i++) {
    for (let j = i + 1; j < ancestors.length; j++) {
      for (const outer of ancestors[j]!.slice(0, 3))
        for (const inner of ancestors[i]!.slice(0, 3))
          for (const target of [...own.slice(0, 2), tag]) {
            add(`${outer} ${inner} ${target}`, 3);
          }
    }
  }

  const sorted = [...options].sort(([a, rankA], [b, rankB]) => rankA - rankB || a.length - b.length).map(([selector]) => selector);
  let tries = 0;
  for (const selector of sorted) {
    if (++tries > MAX_SELECTOR_TRIES) break;
    if (matchesAtMost(document, element, selector, maxMatches)) return selector;
  }
  return null;
}

/** True when the selector matches this element and at most `limit` elements in all (1: this one alone). */
function matchesAtMost(document: Document, element: Element, selector: string, limit: number): boolean {
  try {
    if (!matches(element, selector)) return false;
    return (simpleSelectorCount(document, selector) ?? queryAll(document, selector).length) <= limit;
  } catch {
    return false;
  }
}

/** Names on the page and the elements that carry them, so a simple selector is counted without a walk of the page. */
type NameIndex = { byClass: Map<string, Element[]>; byId: Map<string, Element[]>; byAttribute: Map<string, Element[]> };
const nameIndexes = new WeakMap<Document, NameIndex>();

function nameIndexOf(document: Document): NameIndex {
  let index = nameIndexes.get(document);
  if (index) return index;
  index = { byClass: new Map(), byId: new Map(), byAttribute: new Map() };
  const push = (map: Map<string, Element[]>, key: string, element: Element) => {
    const list = map.get(key);
    if (list) list.push(element);
    else map.set(key, [element]);
  };
  for (const element of descendants(document)) {
    for (const [name, value] of Object.entries(element.attribs)) {
      push(index.byAttribute, name, element);
      if (name === 'id') push(index.byId, value, element);
      else if (name === 'class') for (const part of new Set(value.split(/\s+/))) if (part) push(index.byClass, part, element);
    }
  }
  nameIndexes.set(document, index);
  return index;
}

const SIMPLE_SELECTOR = /^([a-z][a-z0-9]*)?((?:[.#][\w-]+|\[[\w-]+(?:="[^"\\]*")?\])+)$/;
const SIMPLE_PART = /[.#][\w-]+|\[([\w-]+)(?:="([^"\\]*)")?\]/g;

/** How many elements a selector of one compound part (tag, classes, id, attributes) matches; null for other selectors. */
function simpleSelectorCount(document: Document, selector: string): number | null {
  const simple = SIMPLE_SELECTOR.exec(selector);
  if (!simple) return null;
  const index = nameIndexOf(document);
  const parts = [...simple[2]!.matchAll(SIMPLE_PART)];
  const [first] = parts;
  const pool =
    first![0][0] === '.'
      ? index.byClass.get(first![0].slice(1))
      : first![0][0] === '#'
        ? index.byId.get(first![0].slice(1))
        : index.byAttribute.get(first![1]!);
  if (!pool) return 0;
  return pool.filter((candidate) => matches(candidate, selector)).length;
}

/**
 * The last resort for pages without names (hand-written HTML): a path of at most three steps by
 * tag and position from the nearest named ancestor, e.g. "#main > p:nth-of-type(2)".
 */
/** The element's path from <body>, for a page that names nothing near its price; null when it is not unique. */
function pathFromBody(document: Document, element: Element): string | null {
  const steps: string[] = [];
  for (let e = element, parent = parentOf(e); parent; e = parent, parent = parentOf(e)) {
    if (e.name === 'body') break;
    const sameTag = childElements(parent).filter((sibling) => sibling.name === e.name);
    steps.unshift(sameTag.length > 1 ? `${e.name}:nth-of-type(${sameTag.indexOf(e) + 1})` : e.name);
  }
  const selector = `body > ${steps.join(' > ')}`;
  try {
    const found = queryAll(document, selector);
    return found.length === 1 && found[0] === element ? selector : null;
  } catch {
    return null;
  }
}

export function positionalSelector(document: Document, element: Element): string | null {
  const steps: string[] = [];
  for (let e = element, parent = parentOf(e), level = 0; parent && level < 3; e = parent, parent = parentOf(e), level++) {
    const sameTag = childElements(parent).filter((sibling) => sibling.name === e.name);
    steps.unshift(sameTag.length > 1 ? `${e.name}:nth-of-type(${sameTag.indexOf(e) + 1})` : e.name);
    const anchor = ancestorParts(parent).find((part) => part.startsWith('#') || part.startsWith('.'));
    if (!anchor) continue;
    const selector = `${anchor} > ${steps.join(' > ')}`;
    try {
      const matches = queryAll(document, selector);
      if (matches.length === 1 && matches[0] === element) return selector;
    } catch {
      return null;
    }
  }
  return null;
}
