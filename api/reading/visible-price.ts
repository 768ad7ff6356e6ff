/**
 * The visible price of a product page, found without a selector: every element whose text (or
 * price attribute) reads as a price is a candidate, scored by what the page says about it: the
 * structured-data price it shows, known price markup of shop platforms, its distance from the
 * product title and the add-to-cart button, its names (itemprop, class, id, data attributes) and
 * emphasis; was/RRP, per-unit, instalment, delivery, saving and related-product prices are pushed
 * down. Pure: a parsed page in, ranked candidates out. Price checks without a selector and
 * AI Detect both read pages through it.
 */
import { PRICE_ATTRIBUTES, priceTextOf, STRUCK_TAGS } from './element-text.ts';
import { attr, bodyOf, childElements, descendants, isElement, parentOf, type Document, type Element } from './page.ts';
import { readPrice } from './price-text.ts';
import { findPriceMentions } from './price-mentions.ts';
import { labelBefore } from './price-labels.ts';
import { mayMentionMoney } from './currency-signs.ts';
import type { PriceMention } from './price-text-types.ts';
import type { StructuredPrice } from './structured-values.ts';
import { closest, contains, MAX_NODES_READ, ogType, shortTextOf, signature, subtreeOf, treeDistance } from './element-tree.ts';
import { isHidden, isMicrodataPrice, SKIPPED_TAGS, analysePage, type Page } from './page-analysis.ts';
import {
  EMPHASIS_WORDS,
  INSTALMENT_WORDS,
  inPageChrome,
  inRelatedBlock,
  namedRelated,
  nameWords,
  PRICE_WORDS,
  REGULAR_WORDS,
  SALE_WORDS,
  SAVING_WORDS,
  SELLING_WORDS,
  SHIPPING_WORDS,
  UNIT_WORDS,
  WAS_WORDS,
} from './markup-words.ts';

/** Below this a candidate is not taken for the page's main price: listings and price-less pages offer nothing. */
export const MIN_SCORE = 22;
const MAX_CANDIDATE_TEXT = 160;
/**
 * The most elements read as prices on a page, the first met. Reading a price is the costly step,
 * and a hostile page of 50,000 prices held the process for half a minute; the real pages of
 * bench/corpus read at most about 420, so none is cut short.
 */
export const MAX_PRICE_READS = 2_000;

// ---------------------------------------------------------------------------------------------
// Candidates and their scores

export type Candidate = {
  element: Element;
  amount: number;
  currency: string | null;
  mention: PriceMention;
  /** The element's text as a price reader sees it ('' for a meta element). */
  text: string;
  score: number;
  /** What the score is made of, for explaining and testing it. */
  reasons: string[];
  nearTitle: boolean;
  nearBuy: boolean;
  inBuyForm: boolean;
  /** Named a sale price, or shown beside a was price (worked out when asked: only descriptions need it). */
  readonly sale: boolean;
  matchesReference: boolean;
};

const DISTRACTING_ROLES = new Set<PriceMention['role']>(['shipping', 'instalment', 'unit', 'period', 'saving', 'threshold', 'multibuy', 'estimate']);

/** What extraction would read from the element alone: its text, else a price attribute. */
function readElement(element: Element, currency: string | null): { amount: number; currency: string | null; mention: PriceMention; text: string } | null {
  const text = isMicrodataPrice(element) && element.name === 'meta' ? '' : priceTextOf(element);
  const tries = text && text.length <= MAX_CANDIDATE_TEXT && /\d/.test(text) ? [text] : [];
  for (const attribute of PRICE_ATTRIBUTES) {
    const value = attr(element, attribute)?.trim();
    if (value && /\d/.test(value) && value.length <= 40) tries.push(value);
  }
  for (const written of tries) {
    const reading = readPrice(written, { currencyHint: currency });
    if (reading.ok) return { amount: reading.amount, currency: reading.currency, mention: reading.mention, text };
  }
  return null;
}

export function scoreCandidates(page: Page): Candidate[] {
  const referenceDigits = page.reference ? String(Math.trunc(page.reference.amount)) : null;
  const read: Omit<Candidate, 'score' | 'reasons' | 'nearTitle' | 'nearBuy' | 'inBuyForm' | 'sale' | 'matchesReference'>[] = [];
  let reads = 0;
  for (const element of page.elements) {
    const shortWithDigits = (page.textLength.get(element) ?? 0) <= MAX_CANDIDATE_TEXT * 4 && page.withDigits.has(element);
    const inMarkup = isMicrodataPrice(element) || hasPriceAttribute(element);
    if ((!shortWithDigits && !inMarkup) || subtreeOf(element).nodes > MAX_NODES_READ) continue;
    if (!inMarkup && !mayBeMoney(shortTextOf(element), referenceDigits)) continue;
    if (++reads > MAX_PRICE_READS) break;
    // The title is never the price, nor is a block around it ("EOS R50" reads as 50 rand).
    // (A price element inside the title, as classified ads write it, is fine: it has a currency sign.)
    if (page.title && contains(element, page.title)) continue;
    const found = readElement(element, page.currency);
    // A bare number ("2-Group", a quantity, an id) is a price only where structured data says so.
    if (found && found.amount > 0 && (hasCurrencySign(found.mention) || samePrice(found.amount, page.reference?.amount ?? NaN)))
      read.push({ element, ...found });
  }
  // The stated price counts as shown when the page shows it as a selling price, not only crossed out or in markup.
  const referenceShown = page.reference !== null && read.some((c) => samePrice(c.amount, page.reference!.amount) && shownAsSellingPrice(c.element, c.mention));
  page.referenceShown = referenceShown;
  // Repeated markup with different prices is a list of products, not this product.
  const bySignature = new Map<string, Set<number>>();
  for (const c of read) {
    const key = signature(c.element);
    if (!bySignature.has(key)) bySignature.set(key, new Set());
    // Only selling prices count: rows of one price table ("RRP", "Our price", "3 payments of") are not products.
    if (c.mention.role === 'price' && !struckThrough(c.element)) bySignature.get(key)!.add(c.amount);
  }
  const buyForm = page.buy ? closest(page.buy, 'form') : null;

  const scored = read.map((c): Candidate => {
    const { element } = c;
    const reasons: string[] = [];
    let score = 0;
    const add = (points: number, why: string) => {
      score += points;
      if (points !== 0) reasons.push(`${points > 0 ? '+' : ''}${points} ${why}`);
    };
    // "with-list-price", "has-compare-price" describe a sale price that has a was price beside it.
    const state = /\b(?:with|has)\s+(?:list|compare|old|was|original|regular)(?:\s+(?:at\s+)?price)?\b/g;
    const own = nameWords(element).replace(state, '');
    const near = ancestorWords(element, 3).replace(state, '');
    const label = `${own} ${near}`;

    const matchesReference = referenceShown && samePrice(c.amount, page.reference!.amount);
    if (matchesReference) add(30, `shows the ${page.reference!.source} price`);
    else if (referenceShown) add(-25, `differs from the ${page.reference!.source} price`);
    if (/(?:^|\s)price(?:\s|$)/.test(attr(element, 'itemprop') ?? '')) add(20, 'itemprop price');
    const pattern = page.patternOf(element);
    if (pattern) add(15, `${pattern.platform} price markup`);

    if (PRICE_WORDS.test(own)) add(10, 'named price');
    else if (PRICE_WORDS.test(near)) add(4, 'inside a price block');
    if (SELLING_WORDS.test(own)) add(8, 'named sale/now/final');
    else if (SELLING_WORDS.test(near)) add(3, 'inside a sale/now/final block');
    if (EMPHASIS_WORDS.test(own) || isEmphasised(element)) add(5, 'emphasised');

    if (WAS_WORDS.test(label)) add(-35, 'named was/old/RRP');
    else if (struckThrough(element)) add(-35, 'struck through');
    else if (REGULAR_WORDS.test(own)) add(-12, 'named regular');
    if (UNIT_WORDS.test(label)) add(-25, 'named per-unit');
    if (INSTALMENT_WORDS.test(label)) add(-30, 'named instalment/finance');
    if (SHIPPING_WORDS.test(label)) add(-30, 'named delivery');
    if (SAVING_WORDS.test(own)) add(-25, 'named saving');
    const text = c.text || c.mention.text;
    if (c.mention.role !== 'price') add(-15, `reads as a ${c.mention.role} price`);
    if (findPriceMentions(text).some((mention) => DISTRACTING_ROLES.has(mention.role))) add(-10, 'next to a delivery, instalment, unit or saving amount');

    if (inRelatedBlock(element) || namedRelated(element)) add(-40, 'among other products');
    if (inPageChrome(element)) add(-30, 'in the page header, navigation or footer');
    if (bySignature.get(signature(element))!.size >= 3) add(-25, 'repeated markup with other prices');
    else if (inListItem(element)) add(-40, 'one of a list of products');

    const titleDistance = page.title ? treeDistance(element, page.title, page.depth) : Infinity;
    const buyDistance = page.buy ? treeDistance(element, page.buy, page.depth) : Infinity;
    add(Math.max(0, 24 - titleDistance), 'near the title');
    add(Math.max(0, 18 - buyDistance), 'near the add-to-cart button');
    if (page.buy && contains(element, page.buy)) add(-15, 'holds the add-to-cart button');
    const inBuyForm = !!buyForm && contains(buyForm, element);
    if (inBuyForm) add(6, 'in the product form');
    if (page.productArea)
      add(contains(page.productArea, element) ? 10 : -10, contains(page.productArea, element) ? 'in the product block' : 'outside the product block');
    if (page.title && followsClosely(page, element)) add(6, 'right after the title');

    if (inRunningText(element)) add(-15, 'in running text');
    if (element.name === 'meta' || isHidden(element)) add(-25, 'not shown');
    // The tightest element around the price makes the sturdiest selector; wide blocks lose points.
    add(Math.round((12 * c.mention.text.length) / Math.max(text.length, c.mention.text.length)) - 6, 'tightness');
    add(-Math.min(15, Math.max(0, descendants(element, 19).length - 4)), 'nested elements');
    // Labels are looked for only where the price could still lead (or be a close rival): reading them for every price costs.
    if (c.mention.role === 'price' && score >= MIN_SCORE - 12) {
      // "Price: 12 990 тг", "Цена: 1 299 ₽": the page says which amount is the price.
      if (labelBefore(text.slice(0, c.mention.start))?.role === 'price') add(6, 'labelled as the price');
      // A label beside the element rather than in it: "<span>€ 495,04</span> <span>excl. BTW</span>", "<th>Was</th><td>£30</td>".
      const role = roleInBlock(element, c.amount);
      if (role === 'range-end') add(-20, 'the upper end of a price range');
      else if (role) add(-15, `labelled as a ${role} price beside it`);
    }

    return {
      ...c,
      score,
      reasons,
      nearTitle: titleDistance <= 12,
      nearBuy: buyDistance <= 10,
      inBuyForm,
      get sale() {
        return SALE_WORDS.test(label) || besideWasPrice(element);
      },
      matchesReference,
    };
  });
  // Ties go to the element seen first, then to the innermost (its selector is the tightest).
  return scored.sort((a, b) => b.score - a.score || page.order.get(a.element)! - page.order.get(b.element)!);
}

function shownAsSellingPrice(element: Element, mention: PriceMention): boolean {
  if (element.name === 'meta' || isHidden(element) || mention.role !== 'price' || struckThrough(element)) return false;
  return !WAS_WORDS.test(`${nameWords(element)} ${ancestorWords(element, 2)}`);
}

/**
 * A quick look before the full reading: a currency next to the digits, or the stated price's
 * digits (a bare number counts only then). Reading every number on a page costs the most.
 */
function mayBeMoney(text: string, referenceDigits: string | null): boolean {
  if (mayMentionMoney(text)) return true;
  return referenceDigits !== null && text.replace(/\D+/g, '').includes(referenceDigits);
}

/** Inside one of several alike items (cards of a listing), each with its own link or heading and figures. */
function inListItem(element: Element): boolean {
  for (let item = element, level = 0; parentOf(item) && level < 6; item = parentOf(item)!, level++) {
    if (isListItem(item)) return true;
  }
  return false;
}

/** Per parent: its children grouped by tag and classes, and the answer for each group asked about. */
const listItemCache = new WeakMap<Element, { groups: Map<string, Element[]>; answers: Map<string, boolean> }>();

const markupOf = (element: Element) => `${element.name}.${attr(element, 'class') ?? ''}`;

/** Three or more siblings of the same tag and classes, each with a link or heading (a[href], h2-h4) and figures. */
function isListItem(item: Element): boolean {
  const parent = parentOf(item)!;
  let known = listItemCache.get(parent);
  if (!known) {
    // Grouped once a parent, each group looked at once: a long list of unlike siblings was gone through for each.
    const groups = new Map<string, Element[]>();
    for (const child of childElements(parent)) {
      const group = groups.get(markupOf(child));
      if (group) group.push(child);
      else groups.set(markupOf(child), [child]);
    }
    listItemCache.set(parent, (known = { groups, answers: new Map() }));
  }
  const key = markupOf(item);
  let answer = known.answers.get(key);
  if (answer === undefined) {
    const sameMarkup = known.groups.get(key)!;
    // Fewer than three alike need no look inside, and three are enough.
    let alike = 0;
    if (sameMarkup.length >= 3) {
      for (const sibling of sameMarkup) if (subtreeOf(sibling).linkOrHeading && subtreeOf(sibling).digit && ++alike === 3) break;
    }
    known.answers.set(key, (answer = alike >= 3));
  }
  return answer;
}

const proseCache = new WeakMap<Element, boolean>();

/** A price mentioned inside a sentence of prose ("usually sells for around <b>£165</b>"). */
function inRunningText(element: Element): boolean {
  const block = parentOf(element);
  if (!block || !/^(?:p|li|blockquote)$/.test(block.name)) return false;
  const around = subtreeOf(block).length - subtreeOf(element).length;
  if (around < 30) return false;
  // Read once a block, however many prices it holds. Three words in a row: `[a-z]{3,}` and a last
  // `[a-z]{2,}` would say the same, but backtrack quadratically through a long run of letters.
  let prose = proseCache.get(block);
  if (prose === undefined) proseCache.set(block, (prose = /[a-z]{3}\s+[a-z]{2,}\s+[a-z]{2}/i.test(shortTextOf(block))));
  return prose;
}

/** Crossed out: by <del>, <s> or <strike> (which extraction reads as "was" only inside a larger block), or by an inline style. */
function struckThrough(element: Element): boolean {
  for (let e: Element | null = element, level = 0; e && level < 3; e = parentOf(e), level++) {
    if (STRUCK_TAGS.has(e.name) || /line-through/i.test(attr(e, 'style') ?? '')) return true;
  }
  return false;
}

function hasCurrencySign(mention: PriceMention): boolean {
  return /[^\d\s.,'’–—-]/.test(mention.text);
}

function hasPriceAttribute(element: Element): boolean {
  return PRICE_ATTRIBUTES.some((attribute) => /\d/.test(attr(element, attribute) ?? ''));
}

function ancestorWords(element: Element, levels: number): string {
  const found: string[] = [];
  for (let parent = parentOf(element), level = 0; parent && level < levels; parent = parentOf(parent), level++) {
    found.push(nameWords(parent));
  }
  return found.join(' ');
}

function isEmphasised(element: Element): boolean {
  if (/^(?:strong|b|h2|h3|h4|big)$/.test(element.name)) return true;
  const style = attr(element, 'style') ?? '';
  const size = /font-size\s*:\s*(\d+(?:\.\d+)?)(px|rem|em)/i.exec(style);
  if (size && Number(size[1]) * (size[2] === 'px' ? 1 : 16) >= 18) return true;
  return /font-weight\s*:\s*(?:bold|[6-9]00)/i.test(style);
}

/** Shown within a few elements after the title, as shops lay out a product. */
function followsClosely(page: Page, element: Element): boolean {
  const distance = page.order.get(element)! - page.order.get(page.title!)!;
  return distance > 0 && distance <= 25;
}

const blockMentions = new WeakMap<Element, PriceMention[]>();
/** A block around a price small enough to be its label and its neighbours, not a section of the page. */
const MAX_BLOCK_TEXT = 200;

/**
 * The role the amount plays in the small block around the element (its parent, else its
 * grandparent): a label written beside it, or the upper end of a range ("£10.00 – £25.00").
 * Null where it is a plain price there too, or the blocks are too long to be its own.
 */
function roleInBlock(element: Element, amount: number): PriceMention['role'] | null {
  let block = parentOf(element);
  for (let level = 0; block && level < 2; level++, block = parentOf(block)) {
    if (subtreeOf(block).length > MAX_BLOCK_TEXT) return null;
    let mentions = blockMentions.get(block);
    if (!mentions) blockMentions.set(block, (mentions = findPriceMentions(priceTextOf(block))));
    const own = mentions.find((mention) => samePrice(mention.amount, amount));
    if (own && own.role !== 'price') return own.role;
    // A block with other amounts in it is the price's whole block: its label would be there.
    if (own && mentions.length > 1) return null;
  }
  return null;
}

/** A crossed-out or "was" price next to it makes it a sale price. */
function besideWasPrice(element: Element): boolean {
  const parent = parentOf(element);
  const container = (parent && parentOf(parent)) ?? parent;
  if (!container) return false;
  const text = priceTextOf(container);
  return text.length <= 300 && findPriceMentions(text).some((mention) => mention.role === 'was');
}

const NO_PRODUCT_PENALTY = 15;

/** Structured data with a price, an add-to-cart button, OpenGraph product, a platform's price markup, a quantity field or a product's address. */
function sellsAProduct(page: Page, candidates: Candidate[]): boolean {
  if (page.reference !== null || page.buy !== null || page.productSigns) return true;
  return candidates.some((c) => page.patternOf(c.element) !== null) || /product/i.test(ogType(page.document));
}

/** Points by which the best candidate must beat one with another price: a tie means the page does not say. */
const MIN_LEAD = 5;

/** The page's main price: the best-scored candidate's, if it clears the bar and leads clearly. */
export function mainPrice(page: Page, candidates: Candidate[]): number | null {
  const best = candidates[0];
  // Without any sign of a product for sale, a price needs stronger evidence of its own.
  if (!best || best.score < MIN_SCORE + (sellsAProduct(page, candidates) ? 0 : NO_PRODUCT_PENALTY)) return null;
  const rival = candidates.find((c) => !samePrice(c.amount, best.amount));
  return rival && best.score - rival.score < MIN_LEAD ? null : best.amount;
}
export const samePrice = (a: number, b: number) => Math.abs(a - b) < 0.005;

/**
 * Where the page shows the stated price as a selling price, if it does: the quick answer for a
 * page whose statement holds, without scoring every price on it. Stops at the first showing.
 */
export function statedPriceShown(document: Document, stated: StructuredPrice): Element | null {
  const body = bodyOf(document);
  if (!body) return null;
  // Innermost first: an element is read once its children are, when its text is known to be short.
  // A stack of its own (each element going down, then back up): a call per level would overflow on deep pages.
  const length = new Map<Element, number>();
  let reads = 0;
  const stack: { element: Element; up?: boolean }[] = [{ element: body }];
  while (stack.length > 0) {
    const { element, up } = stack.pop()!;
    if (!up) {
      if (SKIPPED_TAGS.has(element.name) || isHidden(element)) continue;
      let own = 0;
      for (const child of element.children) if (child.type === 'text') own += child.data.length;
      length.set(element, own);
      stack.push({ element, up: true });
      for (let i = element.children.length - 1; i >= 0; i--) {
        const child = element.children[i]!;
        if (isElement(child)) stack.push({ element: child });
      }
      continue;
    }
    const total = length.get(element)!;
    const parent = parentOf(element);
    if (parent && element !== body) length.set(parent, length.get(parent)! + total);
    if (total === 0 || total > MAX_CANDIDATE_TEXT || !mayMentionMoney(shortTextOf(element))) continue;
    if (++reads > MAX_PRICE_READS) return null;
    const found = readElement(element, stated.currency);
    if (found && samePrice(found.amount, stated.amount) && shownAsSellingPrice(element, found.mention)) return element;
  }
  return null;
}

export type VisiblePrice = { amount: number; currency: string | null; text: string; score: number; element: Element; referenceShown: boolean };

/** The price the page shows for its product, if one clearly leads; `referenceShown`: the stated price is among the page's prices. */
export function visiblePrice(document: Document, opts: { url?: string; structured?: StructuredPrice[] } = {}): VisiblePrice | null {
  const page = analysePage(document, opts.url, opts.structured);
  const candidates = scoreCandidates(page);
  const main = mainPrice(page, candidates);
  const best = main === null ? null : candidates.find((c) => samePrice(c.amount, main))!;
  if (!best) return null;
  return {
    amount: best.amount,
    currency: best.currency,
    text: best.mention.text,
    score: best.score,
    element: best.element,
    referenceShown: page.referenceShown,
  };
}
