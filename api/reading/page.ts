/**
 * A fetched page as a light tree: htmlparser2 builds it (the parser linkedom also uses, without
 * linkedom's full DOM on top, which tripled the cost on real 600 KB pages), css-select runs CSS
 * selectors on it. See docs/decisions/0001-page-parsing-and-price-reading.md.
 *
 * Everything that reads pages (checks, AI Detect, the extract command) parses once with
 * `parsePage` and walks the tree with the helpers below.
 */
import { Parser } from 'htmlparser2';
import { selectAll, selectOne, compile, is } from 'css-select';
import { Document, DomHandler, isTag, isText, type AnyNode, type Element } from 'domhandler';
import { failures, type FetchFailure } from '../../domain/check-failures.ts';

export type { Document, Element, AnyNode };

/**
 * The deepest an element may sit in a page that is read. Shop pages nest a few dozen levels, and
 * Chromium's parser stops nesting at 512 (deeper elements go beside the 512th), so no page that
 * shows as written is deeper than that; twice that leaves room. Beyond it a page is hostile or
 * broken: building the tree grows quadratically with depth (200,000 levels took 0.6 s), and
 * walks that recurse, in the selector engine and its helpers, overflow the stack.
 */
export const MAX_PAGE_DEPTH = 1024;

class PageTooDeep extends Error {}

/** Builds the tree, and gives up at the first element deeper than MAX_PAGE_DEPTH. */
class CappedHandler extends DomHandler {
  override onopentag(name: string, attribs: Record<string, string>): void {
    // The stack holds the document and every open element.
    if (this.tagStack.length > MAX_PAGE_DEPTH) throw new PageTooDeep();
    super.onopentag(name, attribs);
  }
}

const refused = new WeakSet<Document>();

/** The page's tree; an empty one for a page nested too deeply, which `tooDeep` tells apart. */
export function parsePage(html: string): Document {
  const handler = new CappedHandler();
  try {
    new Parser(handler).end(html);
  } catch (error) {
    if (!(error instanceof PageTooDeep)) throw error;
    // Nothing of it is read: every reader finds an empty page, and checks say why.
    const empty = new Document([]);
    refused.add(empty);
    return empty;
  }
  return handler.root;
}

/** Why a parsed page cannot be read (nested too deeply), or null when it can. */
export function tooDeep(document: Document): FetchFailure | null {
  return refused.has(document) ? failures.pageTooDeep(MAX_PAGE_DEPTH) : null;
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

/** `matches` for one selector tried on many elements: compiled once, not on every call. */
export function matcher(selector: string): (element: Element) => boolean {
  const compiled = compile<AnyNode, Element>(selector);
  return (element) => compiled(element);
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

// Walks keep their own stack rather than recursing: a call per level would overflow on deep pages.

/** Descendant elements in document order, the first `limit` of them. */
export function descendants(root: Element | Document, limit = Infinity): Element[] {
  const found: Element[] = [];
  const stack: AnyNode[] = [...root.children].reverse();
  while (stack.length > 0 && found.length < limit) {
    const node = stack.pop()!;
    if (!isTag(node)) continue;
    found.push(node);
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
  }
  return found;
}

/** All text under a node, as DOM textContent gives it (script text included). */
export function textOf(node: AnyNode): string {
  return textStart(node, Infinity);
}

/** The first `limit` characters of `textOf`: a look at a block that may hold a whole script, or a whole page. */
export function textStart(node: AnyNode, limit: number): string {
  if (isText(node)) return node.data.slice(0, limit);
  let text = '';
  const stack: AnyNode[] = [node];
  while (stack.length > 0 && text.length < limit) {
    const next = stack.pop()!;
    if (isText(next)) text += next.data.length > limit - text.length ? next.data.slice(0, limit - text.length) : next.data;
    else if ('children' in next) for (let i = next.children.length - 1; i >= 0; i--) stack.push(next.children[i]!);
  }
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
  return new Set(
    text
      .toLowerCase()
      .split(/[^\p{L}\p{N}]+/u)
      .filter((word) => word.length >= 2),
  );
}
