/**
 * A fetched page as a light tree: htmlparser2 builds it (the parser linkedom also uses, without
 * linkedom's full DOM on top, which tripled the cost on real 600 KB pages), css-select runs CSS
 * selectors on it. See docs/decisions/0001-page-parsing-and-price-reading.md.
 *
 * Everything that reads pages (checks, AI Detect, the extract command) parses once with
 * `parsePage` and walks the tree with the helpers below.
 */
import { parseDocument } from 'htmlparser2';
import { selectAll, selectOne, compile, is } from 'css-select';
import { isTag, isText, type AnyNode, type Document, type Element } from 'domhandler';

export type { Document, Element, AnyNode };

export function parsePage(html: string): Document {
  return parseDocument(html);
}

/** Throws on a selector that is not valid CSS (or that css-select cannot run). */
export function compileSelector(selector: string): void {
  compile(selector);
}

export function queryAll(root: Document | Element, selector: string): Element[] {
  return selectAll(selector, root);
}

export function queryOne(root: Document | Element, selector: string): Element | null {
  return selectOne(selector, root);
}

export function matches(element: Element, selector: string): boolean {
  return is(element, selector);
}

export const isElement = (node: AnyNode | null | undefined): node is Element => !!node && isTag(node);

export function attr(element: Element, name: string): string | null {
  return element.attribs[name] ?? null;
}

export function hasAttr(element: Element, name: string): boolean {
  return element.attribs[name] !== undefined;
}

/** The parent element; null at the top (the document is not an element). */
export function parentOf(element: Element): Element | null {
  const parent = element.parent;
  return parent && isTag(parent) ? parent : null;
}

export function childElements(element: Element | Document): Element[] {
  return element.children.filter(isTag);
}

/** Every descendant element in document order. */
export function descendants(root: Element | Document): Element[] {
  const found: Element[] = [];
  const visit = (node: Element | Document) => {
    for (const child of node.children) {
      if (!isTag(child)) continue;
      found.push(child);
      visit(child);
    }
  };
  visit(root);
  return found;
}

/** All text under a node, as DOM textContent gives it (script text included). */
export function textOf(node: AnyNode): string {
  if (isText(node)) return node.data;
  if (!('children' in node)) return '';
  let text = '';
  for (const child of node.children) text += textOf(child);
  return text;
}

export function bodyOf(document: Document): Element | null {
  const html = childElements(document).find((element) => element.name === 'html');
  return (html && childElements(html).find((element) => element.name === 'body')) ?? html ?? null;
}

/** The page's language from `<html lang>`, e.g. "de-DE"; null when it does not say. */
export function pageLanguage(document: Document): string | null {
  const html = childElements(document).find((element) => element.name === 'html');
  const lang = html ? attr(html, 'lang')?.trim() : null;
  return lang && /^[A-Za-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$/.test(lang) ? lang.replace('_', '-') : null;
}

/** The words of a text, lower-cased, for telling which heading or object names the page's product. */
export function wordsOf(text: string): Set<string> {
  return new Set(text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((word) => word.length >= 2));
}
