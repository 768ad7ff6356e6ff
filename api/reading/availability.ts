/**
 * Whether a product page offers its product now. What the page states for machines (schema.org
 * offers, microdata, `product:availability`) comes first; else what it shows people: a sold-out
 * notice in the product's availability block, a disabled buy button, an enabled one. Null when
 * the page does not say. Pure: a parsed page in.
 */
import { isHidden } from './element-text.ts';
import { attr, bodyOf, childElements, hasAttr, parentOf, textOf, type Document, type Element } from './page.ts';
import { statedAvailability } from './structured-data.ts';
import type { Availability } from './structured-values.ts';
import { BUY_NAME, isBuyLabel } from './buy-words.ts';
import { inRelatedBlock } from './markup-words.ts';
import { markedElements } from './marked-elements.ts';

/** Sold-out notices in the main languages of European and Asian shops. */
const SOLD_OUT = new RegExp(
  '(?:^|[^\\p{L}])(?:' +
    [
      'out of stock',
      'sold out',
      'currently unavailable',
      'temporarily unavailable',
      'no longer available',
      'temporarily out of stock',
      'ausverkauft',
      'nicht (?:mehr )?(?:verfügbar|lieferbar|auf lager)',
      'derzeit nicht verfügbar',
      'vergriffen',
      'nicht vorrätig',
      'épuisé',
      'en rupture de stock',
      'rupture de stock',
      'actuellement indisponible',
      'temporairement indisponible',
      'plus disponible',
      'agotado',
      'sin stock',
      'fuera de stock',
      'esaurito',
      'attualmente non disponibile',
      'non più disponibile',
      'momentaneamente non disponibile',
      'uitverkocht',
      'niet (?:meer )?(?:leverbaar|op voorraad)',
      'esgotado',
      'sem estoque',
      'fora de estoque',
      'brak w magazynie',
      'wyprzedany',
      'vyprodáno',
      'není skladem',
      'nedostupné',
      'vypredané',
      'slutsåld',
      'ej i lager',
      'udsolgt',
      'ikke på lager',
      'utsolgt',
      'loppuunmyyty',
      'ei varastossa',
      'stoc epuizat',
      'elfogyott',
      'nincs készleten',
      'stokta yok',
      'tükendi',
      'нет в наличии',
      'распродано',
      'немає в наявності',
      'εξαντλημένο',
      '品切れ',
      '在庫切れ',
      '売り切れ',
      '販売終了',
      '缺货',
      '售罄',
      '已售完',
      '暂时缺货',
      '無庫存',
      '缺貨',
      '售完',
      '品절',
      '품절',
      '일시품절',
      'สินค้าหมด',
      'hết hàng',
      'stok habis',
      'نفدت الكمية',
      'نفذ من المخزون',
      'אזל מהמלאי',
      'לא במלאי',
    ].join('|') +
    ')(?![\\p{L}])',
  'iu',
);
/** A stock notice that opens with "not available" says it of the product (elsewhere the words are about an image or a size). */
const OPENS_UNAVAILABLE =
  /^(?:currently |temporarily |momentan |derzeit |actuellement |attualmente |momentaneamente )?(?:unavailable|not available|nicht verfügbar|non disponibile|no disponible|indisponible|indisponível|niet beschikbaar|niedostępny|nedostupné|недоступ\p{L}*|μη διαθέσιμο|غير متوفر|indisponibil|nem elérhető|ikke tilgængelig|inte tillgänglig)(?![\p{L}])/iu;
const IN_STOCK =
  /(?:^|[^\p{L}])(?:in stock|available|auf lager|lieferbar|sofort verfügbar|en stock|disponible|disponibile|op voorraad|em estoque|na skladě|skladem|w magazynie|dostępny|i lager|på lager|varastossa|в наличии|在庫あり|有货|有現貨|재고 있음|متوفر|במלאי|còn hàng|tersedia)(?![\p{L}])/iu;
/** Elements whose names say they tell the stock state. */
const STOCK_NAMES = /avail|stock|inventory|sold-?out|soldout|out-of-stock/i;
/** Pop-ups and sign-up forms hold notices for later ("tell me when it is back"), not the page's state. */
const NOT_NOW_NAMES = /dialog|popup|pop-up|modal|notify|notification|layer|tooltip|overlay|template|alert-me|back-?in-?stock|variation/i;
const HIDDEN_CLASS = /(?:^|\s)(?:hidden|a-hidden|d-none|is-hidden|hide|u-hidden|display-none|invisible|sr-only|visually-hidden)(?=\s|$)/;
const MAX_NOTICE = 300;

const availabilityCache = new WeakMap<Document, Map<string, Availability | null>>();

/** Read once per page and address: AI Detect checks a page with many selectors. */
export function pageAvailability(document: Document, opts: { url?: string } = {}): Availability | null {
  let byUrl = availabilityCache.get(document);
  if (!byUrl) availabilityCache.set(document, (byUrl = new Map()));
  const key = opts.url ?? '';
  if (!byUrl.has(key)) byUrl.set(key, readAvailability(document, opts.url));
  return byUrl.get(key)!;
}

function readAvailability(document: Document, url: string | undefined): Availability | null {
  const stated = statedAvailability(document, url);
  if (stated === 'PreOrder' || stated === 'BackOrder') return stated;
  if (stated === 'InStock') {
    // Stated in stock while the product's own block says sold out and has no buy button to press
    // (none, or disabled): the statement is stale, or a template's default. Only the block around
    // the h1 is read, and no further than an enabled buy button: most pages stop there.
    const block = productBlock(document);
    if (!block || !soldOutNoticeIn(block)) return stated;
    return shownSigns(block, BLOCK_BUDGET).button === 'InStock' ? stated : 'OutOfStock';
  }
  const body = bodyOf(document);
  const { notice, button } = body ? shownSigns(body, Infinity) : { notice: null, button: null };
  // The stock block's notice outweighs the buy button: themes print a button disabled until their
  // scripts run or an option is chosen (Magento, WooCommerce's variable products).
  const shown = notice ?? button;
  // Stated sold out while the page sells it: the statement is another variant's, or stale.
  if (stated === 'OutOfStock' && shown === 'InStock') return shown;
  return stated ?? shown;
}

const SKIPPED = new Set(['script', 'style', 'template', 'noscript', 'svg', 'a', 'header', 'footer', 'nav', 'aside', 'dialog', 'select', 'iframe']);

/** Hidden, a pop-up, or page chrome: nothing in it speaks of the product on show. */
function skipped(element: Element): boolean {
  const names = `${attr(element, 'class') ?? ''} ${attr(element, 'id') ?? ''}`;
  return SKIPPED.has(element.name) || isHidden(element) || HIDDEN_CLASS.test(attr(element, 'class') ?? '') || NOT_NOW_NAMES.test(names);
}

/**
 * What the page shows people: the stock block's notice, the notice outside rows of a table or
 * list (where each row is another offer or variant), and the buy button's state; null where none.
 */
function shownSigns(root: Element, budget: number): { notice: Availability | null; button: Availability | null } {
  // A budget of elements, when only the product's block is asked about: it stops at an enabled buy button too.
  const untilEnabledButton = budget !== Infinity;
  let notice: Availability | null = null;
  let button: Availability | null = null;
  // In document order, with a stack of its own: a call per level would overflow on deep pages.
  const stack = childElements(root).reverse();
  while (stack.length > 0 && budget-- > 0) {
    const child = stack.pop()!;
    if (skipped(child)) continue;
    const names = `${attr(child, 'class') ?? ''} ${attr(child, 'id') ?? ''}`;
    if (/^(?:button|input)$/.test(child.name) || attr(child, 'role') === 'button') {
      const label = `${textOf(child)} ${attr(child, 'value') ?? ''} ${attr(child, 'title') ?? ''}`.replace(/\s+/g, ' ');
      if ((isBuyLabel(label) || BUY_NAME.test(names)) && !inRelatedBlock(child)) {
        const disabled =
          hasAttr(child, 'disabled') || attr(child, 'aria-disabled') === 'true' || /(?:^|\s)(?:disabled|is-disabled)(?:\s|$)/.test(attr(child, 'class') ?? '');
        button ??= disabled || SOLD_OUT.test(label) ? 'OutOfStock' : 'InStock';
        if (untilEnabledButton && button === 'InStock') break;
      }
      continue;
    }
    if (STOCK_NAMES.test(names)) {
      const text = textOf(child).replace(/\s+/g, ' ').trim();
      if (text && text.length <= MAX_NOTICE && !inRelatedBlock(child)) {
        if (SOLD_OUT.test(text) || OPENS_UNAVAILABLE.test(text)) notice = 'OutOfStock';
        else if (IN_STOCK.test(text)) notice ??= 'InStock';
      }
    }
    const children = childElements(child);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return { notice, button };
}

/** Levels above the h1 that make the product's block: its title, price, stock and buy button. */
const BLOCK_LEVELS = 3;
/** Elements of that block read at most: its stock notice and button are near the title. */
const BLOCK_BUDGET = 400;

/** The block around the page's first h1, short of <body>; null without an h1. */
function productBlock(document: Document): Element | null {
  const [h1] = markedElements(document).h1s;
  let block: Element | null = h1 ?? null;
  for (let level = 0; block && level < BLOCK_LEVELS; level++) {
    const parent = parentOf(block);
    if (!parent || parent.name === 'body' || parent.name === 'html') break;
    block = parent;
  }
  return block;
}

/** Whether the block shows a sold-out notice of its own (outside rows of offers): the cheap look, buttons left alone. */
function soldOutNoticeIn(block: Element): boolean {
  const stack = childElements(block).reverse();
  for (let budget = BLOCK_BUDGET; stack.length > 0 && budget > 0; budget--) {
    const child = stack.pop()!;
    if (skipped(child)) continue;
    if (STOCK_NAMES.test(`${attr(child, 'class') ?? ''} ${attr(child, 'id') ?? ''}`)) {
      const text = textOf(child).replace(/\s+/g, ' ').trim();
      if (text && text.length <= MAX_NOTICE && (SOLD_OUT.test(text) || OPENS_UNAVAILABLE.test(text)) && !inRow(child) && !inRelatedBlock(child)) return true;
    }
    const children = childElements(child);
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]!);
  }
  return false;
}

/** Inside a table row or list item: one of several offers or variants, not the product's own stock. */
function inRow(element: Element): boolean {
  for (let e: Element | null = element, level = 0; e && level < 8; e = parentOf(e), level++) if (e.name === 'tr' || e.name === 'li') return true;
  return false;
}
