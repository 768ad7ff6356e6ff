/**
 * The regular price a page shows beside the price read: in the small block around the price's
 * element, an amount above it that is struck through (`<del>`, `<s>`, line-through) or worded as a
 * was or regular price ("Was £69.99", "RRP", "UVP", "Original price was:"). Pure.
 */
import { STRUCK_TAGS } from './element-text.ts';
import { attr, descendants, parentOf, textOf, type Element } from './page.ts';
import { findPriceMentions } from './price-mentions.ts';

/** Levels above the price's element looked in: its price block, and the block holding that. */
const LEVELS = 3;
/** A block of more elements is more than the price's own: a product grid, the page. */
const MAX_BLOCK_ELEMENTS = 60;
/** A was-price far above the price is another amount (a bundle, a finance total). */
const MAX_RATIO = 10;

export function regularPriceNear(element: Element, price: number, currency: string | null): number | null {
  const above = (amount: number, mentioned: string | null) =>
    amount > price && amount <= price * MAX_RATIO && (!currency || !mentioned || mentioned === currency);
  let block: Element | null = element;
  for (let level = 0; block && level < LEVELS; level++) {
    const inside = descendants(block, MAX_BLOCK_ELEMENTS + 1);
    if (inside.length > MAX_BLOCK_ELEMENTS) break;
    for (const struck of [block, ...inside].filter(isStruck)) {
      const found = findPriceMentions(textOf(struck), { currencyHint: currency }).find((m) => above(m.amount, m.currency));
      if (found) return found.amount;
    }
    const worded = findPriceMentions(textOf(block), { currencyHint: currency }).find(
      (m) => (m.role === 'was' || m.role === 'regular') && above(m.amount, m.currency),
    );
    if (worded) return worded.amount;
    block = parentOf(block);
    if (block?.name === 'body') break;
  }
  return null;
}

const isStruck = (element: Element) => STRUCK_TAGS.has(element.name) || /line-through/i.test(attr(element, 'style') ?? '');
