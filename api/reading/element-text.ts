/**
 * An element's text as a price reader needs it.
 */
import { normalizePriceText } from './price-mentions.ts';
import { attr, hasAttr, isElement, textOf, type AnyNode, type Element } from './page.ts';

/** Enough for any price block; a selector matching the whole page gives "ambiguous" anyway. */
const MAX_TEXT = 5000;
/** Attributes that hold a price where the element's text does not show one. */
export const PRICE_ATTRIBUTES = ['content', 'value', 'data-price-amount', 'data-price'];
const SKIPPED_TAGS = new Set(['script', 'style', 'template', 'noscript', 'select', 'svg', 'iframe', 'object']);
/** Elements whose text never runs into the text next to them. */
const SEPARATE_TAGS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'br',
  'dd',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
  'sub',
  'sup',
  'small',
  'button',
  'label',
]);
/** Elements that cross a price out. */
export const STRUCK_TAGS = new Set(['del', 's', 'strike']);
const WAS_CLASS =
  /(?:^|[\s_-])(?:old|was|compare|compare-at|rrp|msrp|strike|strikethrough|crossed|line-through|original|before|non-sale|oldprice|wasprice)(?=$|[\s_-])/i;
const REGULAR_CLASS = /(?:^|[\s_-])regular(?=$|[\s_-])/i;
const FRACTION_CLASS = /(?:^|[\s_-])(?:fraction|fractional|cents?|decimals?|pence|minor)(?=$|[\s_-])/i;

/**
 * The element's visible text, with what markup says and text alone would lose: struck-out
 * and old prices are labelled "was", split cents ("24<sup>99</sup>") get their decimal point,
 * and blocks are kept apart ("<div>24.99</div><div>3</div>" is not 24.993).
 */
export function priceTextOf(root: Element): string {
  let text = '';
  // Nodes to read, and the text that closes an element once its children are read; a stack of
  // its own, as a call per level would overflow on deep pages.
  const stack: (AnyNode | string)[] = [root];
  while (stack.length > 0 && text.length <= MAX_TEXT) {
    const node = stack.pop()!;
    if (typeof node === 'string' || node.type === 'text') {
      text += typeof node === 'string' ? node : node.data;
      continue;
    }
    if (!isElement(node)) continue;
    const element = node;
    const tag = element.name;
    const isRoot = element === root;
    if (!isRoot && (SKIPPED_TAGS.has(tag) || isHidden(element))) continue;

    if (!isRoot && (tag === 'sup' || FRACTION_CLASS.test(classesOf(element)))) {
      // "19<sup>99</sup>", and "19<sup>,99</sup> €" with the separator inside.
      const split = /^([.,]?)(\d{1,2})$/.exec(textOf(element).trim());
      const afterWholeNumber = /\d\s*$/.test(text) && !/[.,]\d{1,2}\s*$/.test(text);
      if (split && afterWholeNumber) {
        // The separator written, else one the whole number does not group with ("1.299<sup>99</sup>").
        const separator = split[1] || (/\.\d{3}\s*$/.test(text) ? ',' : '.');
        text = `${text.trimEnd()}${separator}${split[2]}`;
        continue;
      }
    }
    const label = isRoot ? null : priceLabelOf(element);
    const separate = SEPARATE_TAGS.has(tag);
    if (separate) text += ' ';
    if (label) text += ` ${label} `;
    if (separate || label) stack.push(' ');
    for (let i = element.children.length - 1; i >= 0; i--) stack.push(element.children[i]!);
  }
  return normalizePriceText(text);
}

export function classesOf(element: Element): string {
  // "oldPrice" reads as "old-Price".
  return (attr(element, 'class') ?? '').replace(/([a-z])([A-Z])/g, '$1-$2');
}

export function isHidden(element: Element): boolean {
  return hasAttr(element, 'hidden') || /(?:display\s*:\s*none|visibility\s*:\s*hidden)/i.test(attr(element, 'style') ?? '');
}

/** A label the markup gives a price without writing it: crossed out, "old", "regular". */
function priceLabelOf(element: Element): string | null {
  const classes = classesOf(element);
  if (
    STRUCK_TAGS.has(element.name) ||
    /line-through/i.test(attr(element, 'style') ?? '') ||
    attr(element, 'data-a-strike') === 'true' ||
    attr(element, 'data-price-type') === 'oldPrice' ||
    WAS_CLASS.test(classes)
  ) {
    return 'was';
  }
  return REGULAR_CLASS.test(classes) ? 'regular price' : null;
}
