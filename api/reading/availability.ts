/**
 * Whether a product page offers its product now. What the page states for machines (schema.org
 * offers, microdata, `product:availability`) comes first; else what it shows people: a sold-out
 * notice in the product's availability block, a disabled buy button, an enabled one. Null when
 * the page does not say. Pure: a parsed page in.
 */
import { isHidden } from './element-text.ts';
import { attr, bodyOf, childElements, hasAttr, textOf, type Document, type Element } from './page.ts';
import { statedAvailability } from './structured-data.ts';
import type { Availability } from './structured-values.ts';
import { BUY_NAME, BUY_TEXT } from './page-analysis.ts';
import { inRelatedBlock } from './markup-words.ts';

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

export function pageAvailability(document: Document, opts: { url?: string } = {}): Availability | null {
  const stated = statedAvailability(document, opts.url);
  if (stated !== null && stated !== 'OutOfStock') return stated;
  const shown = shownAvailability(document);
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

function shownAvailability(document: Document): Availability | null {
  const body = bodyOf(document);
  if (!body) return null;
  let notice: Availability | null = null;
  let button: Availability | null = null;
  // In document order, with a stack of its own: a call per level would overflow on deep pages.
  const stack = childElements(body).reverse();
  while (stack.length > 0) {
    const child = stack.pop()!;
    if (skipped(child)) continue;
    const names = `${attr(child, 'class') ?? ''} ${attr(child, 'id') ?? ''}`;
    if (/^(?:button|input)$/.test(child.name) || attr(child, 'role') === 'button') {
      const label = `${textOf(child)} ${attr(child, 'value') ?? ''} ${attr(child, 'title') ?? ''}`.replace(/\s+/g, ' ');
      if ((BUY_TEXT.test(label) || BUY_NAME.test(names)) && !inRelatedBlock(child)) {
        const disabled =
          hasAttr(child, 'disabled') || attr(child, 'aria-disabled') === 'true' || /(?:^|\s)(?:disabled|is-disabled)(?:\s|$)/.test(attr(child, 'class') ?? '');
        button ??= disabled || SOLD_OUT.test(label) ? 'OutOfStock' : 'InStock';
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
  // A sold-out notice outweighs a buy button (shops often leave one in the markup); an enabled button outweighs nothing said.
  return notice === 'OutOfStock' ? notice : (button ?? notice);
}
