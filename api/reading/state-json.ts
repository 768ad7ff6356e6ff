/**
 * The JSON pages leave in their scripts for their own code: which scripts hold it, where an
 * assigned literal ends, and parsing it within a budget. Only what is JSON is read, never run.
 */
import { attr, hasAttr, textOf, type Element } from './page.ts';

/** JSON read per page at most (characters): the state of a large page is a few hundred KB. */
const MAX_STATE_CHARS = 2_000_000;

const STATE_ASSIGNMENT = /(?:__(?:NUXT|INITIAL_STATE|PRELOADED_STATE|APOLLO_STATE)__|\bvar meta)\s*=\s*/g;

export type StateBlock = { text: string; cents: boolean; fallback?: () => string | null };

/**
 * Shopify's product JSON (`{{ product | json }}`, data-product-json / ProductJson-* scripts, and
 * the analytics `var meta = {"product": ...}`) gives whole-number prices in cents: "price": 2499
 * is 24.99. Product objects shaped like Shopify's (variants with price_min/price_max or
 * compare_at_price_max) elsewhere are read the same way; decimals and strings are read as written.
 */
function isShopifyProductJson(script: Element): boolean {
  return hasAttr(script, 'data-product-json') || /^ProductJson-/i.test(attr(script, 'id') ?? '');
}

/** Whether a script holds state this reader understands (a selector may name it). */
export function isStateScript(script: Element): boolean {
  if (script.name !== 'script') return false;
  const type = (attr(script, 'type') ?? '').trim().toLowerCase();
  if (/ld\+json/.test(type)) return false;
  if (attr(script, 'id') === '__NEXT_DATA__' || /^(?:application|text)\/json$/.test(type)) return true;
  if (type && !/javascript|ecmascript|^module$/.test(type)) return false;
  if (hasAttr(script, 'src')) return false;
  STATE_ASSIGNMENT.lastIndex = 0;
  return STATE_ASSIGNMENT.test(textOf(script));
}

/** The JSON text of state scripts, marked ones first; what is not JSON is skipped later. */
export function stateBlocks(scripts: Element[]): StateBlock[] {
  const marked: StateBlock[] = [];
  const other: StateBlock[] = [];
  for (const script of scripts) {
    if (hasAttr(script, 'src')) continue;
    const type = (attr(script, 'type') ?? '').trim().toLowerCase();
    if (/ld\+json/.test(type)) continue;
    const text = textOf(script);
    // Every price key ends so ("price", "salePrice", "sale_price", "pricing"...): the cheapest test there is.
    if (!text.includes('rice') && !text.includes('ricing')) continue;
    if (attr(script, 'id') === '__NEXT_DATA__' || isShopifyProductJson(script)) {
      marked.push({ text, cents: isShopifyProductJson(script) });
    } else if (/^(?:application|text)\/json$/.test(type)) {
      other.push({ text, cents: false });
    } else if (!type || /javascript|ecmascript|^module$/.test(type)) {
      STATE_ASSIGNMENT.lastIndex = 0;
      const matches = [...text.matchAll(STATE_ASSIGNMENT)];
      matches.forEach((match, i) => {
        const start = match.index + match[0].length;
        const cents = match[0].startsWith('var meta');
        // Usually the last assignment runs to the script's last bracket: try that before scanning for its end.
        const last = Math.max(text.lastIndexOf('}'), text.lastIndexOf(']'));
        const bracket = text.charCodeAt(start) === 123 || text.charCodeAt(start) === 91;
        if (i === matches.length - 1 && bracket && last > start && /^[\s;]*$/.test(text.slice(last + 1))) {
          marked.push({ text: text.slice(start, last + 1), cents, fallback: () => assignedJson(text, start) });
        } else {
          const json = assignedJson(text, start);
          if (json) marked.push({ text: json, cents });
        }
      });
    }
  }
  return [...marked, ...other];
}

/** The JSON assigned at `start`: an object or array literal, or JSON.parse("...") of one; null for anything else. */
function assignedJson(text: string, start: number): string | null {
  const first = text.charCodeAt(start);
  if (first === 123 || first === 91) {
    const end = jsonEnd(text, start);
    return end > 0 ? text.slice(start, end) : null;
  }
  const call = /^JSON\.parse\(\s*"/.exec(text.slice(start, start + 20));
  if (!call) return null;
  const quote = start + call[0].length - 1;
  const end = stringEnd(text, quote);
  if (end < 0) return null;
  try {
    const inner = JSON.parse(text.slice(quote, end));
    return typeof inner === 'string' ? inner : null;
  } catch {
    return null;
  }
}

/** End (exclusive) of the double-quoted string starting at `quote`; -1 if it does not end. */
function stringEnd(text: string, quote: number): number {
  for (let i = quote + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92) i++;
    else if (c === 34) return i + 1;
  }
  return -1;
}

/** End (exclusive) of the balanced {...} or [...] at `start`, strings skipped; -1 if unbalanced. */
export function jsonEnd(text: string, start: number): number {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      i = stringEnd(text, i) - 1;
      if (i < 0) return -1;
    } else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      if (--depth === 0) return i + 1;
    }
  }
  return -1;
}

export function parseStateBlocks(blocks: StateBlock[]): { value: unknown; cents: boolean }[] {
  let budget = MAX_STATE_CHARS;
  const parsed: { value: unknown; cents: boolean }[] = [];
  const parse = (text: string | null) => {
    if (text === null || text.length > budget) return undefined;
    budget -= text.length;
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return undefined; // Not JSON (a JavaScript literal): not in scope.
    }
  };
  for (const { text, cents, fallback } of blocks) {
    let value = parse(text);
    if (value === undefined && fallback) value = parse(fallback());
    if (value !== undefined) parsed.push({ value, cents });
  }
  return parsed;
}
