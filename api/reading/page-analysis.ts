/**
 * The page as the visible-price reader sees it: its elements in order, the product title, the
 * add-to-cart button, the product's own block and the price its structured data states.
 */
import { attr, bodyOf, hasAttr, isElement, parentOf, queryAll, queryOne, textOf, wordsOf, type Document, type Element } from './page.ts';
import { regionCurrency } from './page-currency.ts';
import { structuredDataPrices } from './structured-data.ts';
import type { StructuredPrice } from './structured-values.ts';
import { commonAncestor, depthOf, shortTextOf, signature, treeDistance } from './element-tree.ts';
import { inPageChrome, inRelatedBlock } from './markup-words.ts';
import { platformPatterns, type PlatformPattern } from './platform-markup.ts';
import { BUY_NAME, isBuyLabel } from './buy-words.ts';

export type Page = {
  document: Document;
  elements: Element[];
  order: Map<Element, number>;
  depth: Map<Element, number>;
  /** Length of each element's visible text, and the elements whose text has a digit. */
  textLength: Map<Element, number>;
  withDigits: Set<Element>;
  title: Element | null;
  buy: Element | null;
  /** The smallest element holding both the title and the button: the product's own block. */
  productArea: Element | null;
  reference: StructuredPrice | null;
  /** Whether the page shows the reference price as a selling price (set when candidates are scored). */
  referenceShown: boolean;
  currency: string | null;
  /** A quantity field, or an address shaped like one product's ("/product/…", "/p/…", "/dp/…"): signs the page sells one. */
  productSigns: boolean;
  /** The platform price markup an element matches, if any (asked of price candidates only). */
  patternOf: (element: Element) => PlatformPattern | null;
};

export const SKIPPED_TAGS = new Set(['head', 'script', 'style', 'template', 'noscript', 'select', 'option', 'svg', 'iframe', 'object', 'textarea', 'title']);
const HIDDEN_CLASS = /(?:^|\s)(?:hidden|d-none|is-hidden|hide|u-hidden|display-none|invisible)(?=\s|$)/;

export function isHidden(element: Element): boolean {
  if (hasAttr(element, 'hidden')) return true;
  if (element.name === 'input' && attr(element, 'type') === 'hidden') return true;
  if (/(?:display\s*:\s*none|visibility\s*:\s*hidden)/i.test(attr(element, 'style') ?? '')) return true;
  return HIDDEN_CLASS.test(attr(element, 'class') ?? '');
}

/** A microdata price kept in an attribute of an invisible element: still what extraction reads. */
export function isMicrodataPrice(element: Element): boolean {
  return /(?:^|\s)(?:price|lowPrice)(?:\s|$)/.test(attr(element, 'itemprop') ?? '') && hasAttr(element, 'content');
}

export function analysePage(document: Document, url: string | undefined, structured = structuredDataPrices(document, { url })): Page {
  const elements: Element[] = [];
  const order = new Map<Element, number>();
  const depth = new Map<Element, number>();
  const textLength = new Map<Element, number>();
  const withDigits = new Set<Element>();
  // One pass in document order; text lengths and digits come back up, so no block's text is built to learn it is too long.
  // A stack of its own (an element is met once going down and once coming back up): a call per level would overflow on deep pages.
  const root = bodyOf(document);
  const stack: { element: Element; level: number; up?: boolean }[] = root ? [{ element: root, level: depthOf(root) }] : [];
  while (stack.length > 0) {
    const { element, level, up } = stack.pop()!;
    if (up) {
      const parent = parentOf(element);
      const length = textLength.get(element)!;
      if (parent && element !== root) {
        textLength.set(parent, textLength.get(parent)! + length);
        if (withDigits.has(element)) withDigits.add(parent);
      }
      continue;
    }
    if (SKIPPED_TAGS.has(element.name)) continue;
    const hidden = isHidden(element);
    if (hidden && !isMicrodataPrice(element)) continue;
    order.set(element, order.size);
    depth.set(element, level);
    elements.push(element);
    let length = 0;
    if (!hidden) {
      for (const child of element.children) {
        if (child.type !== 'text') continue;
        length += child.data.length;
        if (/\d/.test(child.data)) withDigits.add(element);
      }
    }
    textLength.set(element, length);
    stack.push({ element, level, up: true });
    if (hidden) continue;
    for (let i = element.children.length - 1; i >= 0; i--) {
      const child = element.children[i]!;
      if (isElement(child)) stack.push({ element: child, level: level + 1 });
    }
  }
  // Microdata in <head> or hidden blocks is read by extraction too.
  for (const meta of queryAll(document, 'meta[itemprop]')) {
    if (!order.has(meta) && isMicrodataPrice(meta)) {
      order.set(meta, order.size);
      depth.set(meta, depthOf(meta));
      elements.push(meta);
    }
  }

  const title = findTitle(document, elements);
  const buy = findBuyButton(elements, title, depth, textLength);
  const page: Page = {
    document,
    elements,
    order,
    depth,
    textLength,
    withDigits,
    title,
    buy,
    productArea: title && buy ? commonAncestor(title, buy) : null,
    reference: structured[0] ?? null,
    referenceShown: false,
    currency: structured.find((price) => price.currency)?.currency ?? regionCurrency(document, url),
    productSigns: productAddress(url) || elements.some(isQuantityField),
    patternOf: platformPatterns(),
  };
  if (page.productArea && /^(?:html|body)$/.test(page.productArea.name)) page.productArea = null;
  return page;
}

const PRODUCT_PATH =
  /\/(?:products?|produkte?|produits?|productos?|prodotti|prodotto|produto|produtos|artikel|item|items|p|dp|pd|pdp|goods|tovar|товар|urun)\/[^/]+/i;
const QUANTITY_NAME =
  /(?:^|[-_[\s])(?:qty|quantity|quantita|quantité|cantidad|quantidade|menge|anzahl|aantal|ilosc|ilość|mnozstvi|množství|количество|кількість|antal|maara|määrä)(?:$|[-_\]\s])/i;

function productAddress(url: string | undefined): boolean {
  if (!url) return false;
  try {
    return PRODUCT_PATH.test(new URL(url).pathname);
  } catch {
    return false;
  }
}

function isQuantityField(element: Element): boolean {
  return (element.name === 'input' || element.name === 'select') && QUANTITY_NAME.test(`${attr(element, 'name') ?? ''} ${attr(element, 'id') ?? ''}`);
}

/**
 * The product's title: the h1 whose words the page's own title (or og:title) shares most, since
 * shops also put logos, banners and pop-up headings in h1s; else an itemprop name or a
 * product-title class.
 */
function findTitle(document: Document, visible: Element[]): Element | null {
  const headings = visible.filter((element) => element.name === 'h1' && !inPageChrome(element));
  const pageTitle = titleWords(document);
  if (headings.length > 1 && pageTitle.size > 0) {
    const overlap = (element: Element) => [...wordsOf(shortTextOf(element))].filter((word) => pageTitle.has(word)).length;
    const best = headings.reduce((a, b) => (overlap(b) > overlap(a) ? b : a));
    if (overlap(best) > 0) return best;
  }
  if (headings.length > 0) return headings[0]!;
  const named = visible.find((element) => /(?:^|\s)name(?:\s|$)/.test(attr(element, 'itemprop') ?? ''));
  if (named) return named;
  return visible.find((element) => /\bproduct[-_]?(?:title|name)\b/i.test(attr(element, 'class') ?? '')) ?? queryOne(document, 'h2');
}

function titleWords(document: Document): Set<string> {
  const title = queryOne(document, 'head > title, title');
  const og = queryOne(document, 'meta[property="og:title"]');
  return wordsOf(`${title ? textOf(title) : ''} ${og ? (attr(og, 'content') ?? '') : ''}`);
}

export { BUY_NAME, BUY_TEXT } from './buy-words.ts';

/** The add-to-cart button nearest the title; none on a listing where every item has one. */
function findBuyButton(visible: Element[], title: Element | null, depth: Map<Element, number>, textLength: Map<Element, number>): Element | null {
  const buttons = visible.filter((element) => {
    const tag = element.name;
    if (tag !== 'button' && tag !== 'input' && tag !== 'a') return false;
    if ((textLength.get(element) ?? 0) > 80) return false;
    const label = `${shortTextOf(element)} ${attr(element, 'value') ?? ''} ${attr(element, 'aria-label') ?? ''} ${attr(element, 'title') ?? ''}`.replace(
      /\s+/g,
      ' ',
    );
    const names = `${attr(element, 'class') ?? ''} ${attr(element, 'id') ?? ''} ${attr(element, 'name') ?? ''}`;
    return (isBuyLabel(label) || BUY_NAME.test(names)) && !inRelatedBlock(element) && !inPageChrome(element);
  });
  if (buttons.length === 0) return null;
  // Many alike buttons are a listing's; a button with an id of its own is one of a kind.
  const alike = buttons.filter((button) => !attr(button, 'id'));
  if (alike.length >= 3 && new Set(alike.map(signature)).size < alike.length) return null;
  if (!title) return buttons[0]!;
  return buttons.reduce((best, button) => (treeDistance(button, title, depth) < treeDistance(best, title, depth) ? button : best));
}
