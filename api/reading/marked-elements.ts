/**
 * The elements the structured-data readers look at, found in one walk of the page's tree.
 */
import { parentOf, textOf, type AnyNode, type Document, type Element } from './page.ts';
import type { JsonObject } from './structured-values.ts';

/**
 * The elements every reader here looks at, found in one walk and kept per document: checks read
 * prices and availability of the same page several times, and each css-select query is a walk
 * of the whole (600 KB) page.
 */
export interface MarkedElements {
  jsonLd: string[];
  jsonLdNodes?: JsonObject[];
  scripts: Element[];
  /** Elements with an itemprop, in document order. */
  itemprops: Element[];
  /** Elements with a schema.org RDFa property (price, priceCurrency, availability, url). */
  rdfa: Element[];
  /** meta property/name -> content, first one wins. */
  meta: Map<string, string>;
  /** meta name -> content only (a property="price" is RDFa's). */
  metaNames: Map<string, string>;
  h1s: Element[];
  title: Element | null;
  /** Elements keeping a product's data for the page's scripts in `data-product` (PrestaShop's product details). */
  productData: Element[];
  forms: Element[];
}

const documentCache = new WeakMap<Document, MarkedElements>();

export function markedElements(document: Document): MarkedElements {
  const cached = documentCache.get(document);
  if (cached) return cached;
  const marked: MarkedElements = {
    jsonLd: [],
    scripts: [],
    itemprops: [],
    rdfa: [],
    meta: new Map(),
    metaNames: new Map(),
    h1s: [],
    title: null,
    productData: [],
    forms: [],
  };
  let headTitle: Element | null = null;
  const stack: AnyNode[] = [...document.children].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.type !== 'tag' && node.type !== 'script' && node.type !== 'style') continue;
    const element = node as Element;
    const attribs = element.attribs;
    const name = element.name;
    if (name === 'script') {
      marked.scripts.push(element);
      if (/ld\+json/i.test(attribs.type ?? '')) marked.jsonLd.push(textOf(element));
      continue;
    }
    if (attribs.itemprop !== undefined) marked.itemprops.push(element);
    if (attribs['data-product'] !== undefined) marked.productData.push(element);
    if (attribs.property !== undefined) {
      if (RDFA_TERM.test(attribs.property)) marked.rdfa.push(element);
    }
    if (name === 'meta') {
      const content = attribs.content?.trim();
      if (content) {
        for (const key of [attribs.property, attribs.name]) if (key && !marked.meta.has(key)) marked.meta.set(key, content);
        if (attribs.name && !marked.metaNames.has(attribs.name)) marked.metaNames.set(attribs.name, content);
      }
    } else if (name === 'form') {
      marked.forms.push(element);
    } else if (name === 'h1') {
      marked.h1s.push(element);
    } else if (name === 'title') {
      marked.title ??= element;
      if (!headTitle && parentOf(element)?.name === 'head') headTitle = element;
    }
    if (name === 'style') continue;
    for (let i = element.children.length - 1; i >= 0; i--) stack.push(element.children[i]!);
  }
  marked.title = headTitle ?? marked.title;
  documentCache.set(document, marked);
  return marked;
}

const JSON_START = /^\s*[[{]/;

/** The data attribute in which an element keeps JSON (`data-product_variations="[...]"`), if any. */
export function jsonDataAttribute(element: Element): string | null {
  for (const key in element.attribs) if (key.startsWith('data-') && JSON_START.test(element.attribs[key]!)) return key;
  return null;
}

export const keepsJsonData = (element: Element): boolean => jsonDataAttribute(element) !== null;

/**
 * RDFa terms of schema.org: bare ("price", under vocab="http://schema.org/"), prefixed
 * ("schema:price") or in full. OpenGraph's "product:price:amount" is not one of them.
 */
const RDFA_TERM = /(?:^|\s)(?:(?:schema|s|sdo):|https?:\/\/schema\.org\/)?(?:price|lowPrice|priceCurrency|availability|url)(?:\s|$)/;
