/**
 * Tree helpers of the visible-price reader: what an element holds (worked out once a page), its
 * text to read, its markup signature, common ancestors and distances between elements.
 */
import { attr, hasAttr, isElement, parentOf, queryOne, textStart, type AnyNode, type Document, type Element } from './page.ts';

/**
 * A price, a button, a heading or a sentence holds a few elements (a price at most about 150 on the
 * real pages of bench/corpus, and no element looked at there for a price more than about 700); one
 * holding thousands is a part of the page, and is not read: each level of a nested page would walk
 * it all again.
 */
export const MAX_NODES_READ = 5_000;
/** The most of an element's text read for money or words, scripts inside it included (real pages reach about 48,000). */
const MAX_TEXT_READ = 100_000;

/** What an element holds: its nodes, the length of its text (as `textOf` gives it), a digit, an h1, a link or a heading. */
type Subtree = { nodes: number; length: number; digit: boolean; h1: boolean; linkOrHeading: boolean };
const subtrees = new WeakMap<AnyNode, Subtree>();
/** What an empty element, or a comment, holds: itself (not kept per node, as most elements of a page are leaves). */
const NOTHING: Subtree = { nodes: 1, length: 0, digit: false, h1: false, linkOrHeading: false };

/**
 * What an element holds, worked out once a page from what its children hold: a walk of each
 * block asked about walked a nested page again for every level of it.
 */
export function subtreeOf(root: Element): Subtree {
  const stack: { node: AnyNode; up?: boolean }[] = [{ node: root }];
  while (stack.length > 0) {
    const { node, up } = stack.pop()!;
    if (!('children' in node) || subtrees.has(node)) continue;
    if (!up) {
      stack.push({ node, up: true });
      for (const child of node.children) if ('children' in child && child.children.length > 0 && !subtrees.has(child)) stack.push({ node: child });
      continue;
    }
    const held: Subtree = { ...NOTHING };
    for (const child of node.children) {
      if (child.type === 'text') {
        held.nodes++;
        held.length += child.data.length;
        held.digit ||= /\d/.test(child.data);
        continue;
      }
      const inner = subtrees.get(child) ?? NOTHING;
      held.nodes += inner.nodes;
      held.length += inner.length;
      held.digit ||= inner.digit;
      if (!isElement(child)) continue;
      // Elements as css-select finds them (`h1`, `a[href], h2, h3, h4`): it does not look inside templates.
      const inside = child.name !== 'template';
      held.h1 ||= child.name === 'h1' || (inside && inner.h1);
      held.linkOrHeading ||= /^h[234]$/.test(child.name) || (child.name === 'a' && hasAttr(child, 'href')) || (inside && inner.linkOrHeading);
    }
    subtrees.set(node, held);
  }
  return subtrees.get(root)!;
}

/** An element's text to read money or words from: none from one holding thousands of nodes (see MAX_NODES_READ). */
export function shortTextOf(element: Element): string {
  return subtreeOf(element).nodes > MAX_NODES_READ ? '' : textStart(element, MAX_TEXT_READ);
}

/** The element's tag and classes with its parent's: the same signature means the same markup. */
export function signature(element: Element): string {
  const own = (e: Element | null) => (e ? `${e.name}.${classList(e).sort().join('.')}` : '');
  return `${own(parentOf(element))}>${own(element)}`;
}

export function closest(element: Element, tag: string): Element | null {
  for (let e: Element | null = element; e; e = parentOf(e)) if (e.name === tag) return e;
  return null;
}

/** Per landmark (the title, the button): its ancestors, and the common ancestor found for each element walked. */
const landmarkCache = new WeakMap<Element, { ancestors: Set<Element>; common: Map<Element, Element | null> }>();

/** The innermost element holding both; what is found on the way up is kept, so many elements deep in a page share one walk. */
export function commonAncestor(element: Element, landmark: Element): Element | null {
  let known = landmarkCache.get(landmark);
  if (!known) {
    const ancestors = new Set<Element>();
    for (let e: Element | null = landmark; e; e = parentOf(e)) ancestors.add(e);
    landmarkCache.set(landmark, (known = { ancestors, common: new Map() }));
  }
  const passed: Element[] = [];
  let common: Element | null = null;
  for (let e: Element | null = element; e; e = parentOf(e)) {
    if (known.ancestors.has(e)) {
      common = e;
      break;
    }
    const found = known.common.get(e);
    if (found !== undefined) {
      common = found;
      break;
    }
    passed.push(e);
  }
  for (const e of passed) known.common.set(e, common);
  return common;
}

/**
 * How far a candidate is from a landmark (the title, the button): steps up from the landmark to
 * their common ancestor weigh most, steps down to the candidate a little, so the price element
 * beside the title is near, and so is its own wrapper, but not a block far up the page.
 */
export function treeDistance(candidate: Element, landmark: Element, depth: Map<Element, number>): number {
  const common = commonAncestor(candidate, landmark);
  if (!common) return Infinity;
  const level = (e: Element) => depth.get(e) ?? depthOf(e);
  return 4 * (level(landmark) - level(common)) + (level(candidate) - level(common));
}

/** True when `outer` is `inner` or holds it. */
export function contains(outer: Element, inner: Element): boolean {
  for (let e: Element | null = inner; e; e = parentOf(e)) if (e === outer) return true;
  return false;
}

export function ogType(document: Document): string {
  const meta = queryOne(document, 'meta[property="og:type"]');
  return (meta && attr(meta, 'content')) ?? '';
}

export function classList(element: Element): string[] {
  return (attr(element, 'class') ?? '').split(/\s+/).filter(Boolean);
}

export function depthOf(element: Element): number {
  let level = 0;
  for (let parent = parentOf(element); parent; parent = parentOf(parent)) level++;
  return level;
}
