/**
 * Words in markup: the words an element's names (class, id, itemprop, data attributes) are made of,
 * what they say about a price, and the blocks they mark as page chrome or other products.
 */
import { attr, isElement, parentOf, type Element } from './page.ts';
import { shortTextOf, subtreeOf } from './element-tree.ts';

/** The words an element's names are made of: "oldPrice price-item--sale" -> old price price item sale. */
const nameWordsCache = new WeakMap<Element, string>();

export function nameWords(element: Element): string {
  let words = nameWordsCache.get(element);
  if (words === undefined) nameWordsCache.set(element, (words = namesOf(element)));
  return words;
}

function namesOf(element: Element): string {
  const parts = [attr(element, 'class'), attr(element, 'id'), attr(element, 'itemprop')];
  for (const [name, value] of Object.entries(element.attribs)) {
    if (!name.startsWith('data-')) continue;
    parts.push(name.slice(5));
    if (value.length <= 40 && !/\d/.test(value)) parts.push(value);
  }
  return parts
    .filter(Boolean)
    .join(' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[^A-Za-z]+/g, ' ')
    .toLowerCase();
}

const words = (pattern: string) => new RegExp(`\\b(?:${pattern})\\b`);
export const PRICE_WORDS = words('price|prices|pricing|prix|preis|precio|prezzo|cena|pris|amount|cost');
export const SELLING_WORDS = words('sale|now|current|final|special|offer|deal|selling|actual|promo|reduced|our|today|pay');
export const SALE_WORDS = words('sale|special|reduced|promo|deal|offer|discounted|clearance');
export const EMPHASIS_WORDS = words('big|large|lg|xl|xxl|bold|strong|main|primary|hero|headline|huge|display');
export const WAS_WORDS = words(
  'was|old|compare|rrp|msrp|srp|uvp|strike|strikethrough|struck|crossed|original|before|previous|prev|retail|list price|listprice|non sale|basis|estimate|estimates',
);
export const REGULAR_WORDS = words('regular|reg|standard');
export const UNIT_WORDS = words('unit|per|kg|kilo|litre|liter|measure|base price|comparison|ppu');
export const INSTALMENT_WORDS = words(
  'instal\\w*|install\\w*|klarna|afterpay|clearpay|affirm|laybuy|sezzle|paypal|finance|financing|credit|monthly|month|apr|payments?',
);
export const SHIPPING_WORDS = words('ship\\w*|deliver\\w*|postage|freight|carriage|dispatch');
export const SAVING_WORDS = words('save|saving|savings|you save|discount|off|percent|badge|reduction');
const RELATED_WORDS = words(
  'related|recommend\\w*|upsell\\w*|up sell|cross sell\\w*|crosssell\\w*|similar|also|recently|viewed|carousel|swiper|slick|slider|bundle\\w*|accessor\\w*|sponsored|mini cart|minicart|cart drawer|complete the look|frequently|search results?|facets?|filters?|refine|sort by',
);
const RELATED_HEADING = new RegExp(
  [
    'you (?:may|might) also',
    'related',
    'recommended',
    'customers (?:also|who)',
    'similar',
    'recently viewed',
    'frequently bought',
    'bought together',
    'more from',
    'complete the look',
    'people also',
    'often bought',
    'you might like',
    'inspired by',
    'sponsored',
    'oft zusammen gekauft',
    'kunden, die',
    'könnte ihnen auch gefallen',
    'ähnliche',
    'zuletzt angesehen',
    'passende',
    'gesponsert',
    'fréquemment achetés',
    'les clients ayant',
    'vous aimerez',
    'produits similaires',
    'articles similaires',
    'consultés récemment',
    'spesso comprati',
    'i clienti che hanno',
    'potrebbe interessarti',
    'prodotti simili',
    'correlati',
    'sponsorizzat',
    'comprados juntos',
    'los clientes que',
    'también te puede',
    'productos (?:similares|relacionados)',
    'relacionados',
    'patrocinado',
    'comprados (?:frequentemente|juntos)',
    'você também',
    'produtos (?:similares|relacionados)',
    'vaak samen gekocht',
    'vergelijkbare',
    'podobne produkty',
    'klienci kupili',
    'podobné produkty',
    'zákazníci (?:také|tiež)',
    'produse similare',
    'похожие товары',
    'с этим товаром',
    'よく一緒に購入',
    'この商品を買った人',
    '関連商品',
    '相关商品',
    '猜你喜欢',
    '看了又看',
    '相關商品',
    '함께 구매',
    '관련 상품',
    '비슷한 상품',
    'منتجات مشابهة',
    'قد يعجبك',
    'מוצרים דומים',
    'benzer ürünler',
  ].join('|'),
  'i',
);
const CHROME_TAGS = new Set(['nav', 'footer', 'aside', 'header']);

const chromeCache = new WeakMap<Element, boolean>();

/** Inside a header, nav, footer or aside (outside <main>) that does not hold the page's h1. */
export function inPageChrome(element: Element): boolean {
  // Up to the first ancestor whose answer is known (or is chrome itself), then the answer down again.
  const unknown: Element[] = [];
  let inside = false;
  for (let parent = parentOf(element); parent; parent = parentOf(parent)) {
    const known = chromeCache.get(parent);
    if (known !== undefined) {
      inside = known;
      break;
    }
    unknown.push(parent);
    // An aside inside <main> is the product's buy box as often as a sidebar.
    if (CHROME_TAGS.has(parent.name) && !subtreeOf(parent).h1 && !(parent.name === 'aside' && insideMain(parent))) {
      inside = true;
      break;
    }
  }
  for (const parent of unknown) chromeCache.set(parent, inside);
  return inside;
}

function insideMain(element: Element): boolean {
  for (let parent = parentOf(element); parent; parent = parentOf(parent)) if (parent.name === 'main' || attr(parent, 'role') === 'main') return true;
  return false;
}

/** Named as a block of other products or of filters itself ("facets", "related-products"). */
export function namedRelated(element: Element): boolean {
  return RELATED_WORDS.test(nameWords(element));
}

/** Inside a block of other products: related, recommended, a mini cart, a nested microdata product. */
const relatedCache = new WeakMap<Element, boolean>();

const openerCache = new WeakMap<Element, boolean>();

/** A heading that opens a block of other products; each heading is read once, however many elements follow it. */
function opensRelated(heading: Element | null): boolean {
  if (!heading) return false;
  let opens = openerCache.get(heading);
  if (opens === undefined) openerCache.set(heading, (opens = RELATED_HEADING.test(shortTextOf(heading))));
  return opens;
}

/** Walks up from the element: a related block, a heading that opens one, or a second product scope around it. */
export function inRelatedBlock(element: Element): boolean {
  // Every element passed before a product scope is counted has the same answer: they are cached with it.
  const same: Element[] = [];
  let products = 0;
  let related = false;
  for (let child = element, parent = parentOf(child); parent; child = parent, parent = parentOf(parent)) {
    if (products === 0) {
      const known = relatedCache.get(child);
      if (known !== undefined) {
        related = known;
        break;
      }
      same.push(child);
    }
    products += /Product/.test(attr(parent, 'itemtype') ?? '') ? 1 : 0;
    if (RELATED_WORDS.test(nameWords(parent)) || products > 1 || opensRelated(headingBefore(parent, child))) {
      related = true;
      break;
    }
  }
  for (const child of same) relatedCache.set(child, related);
  return related;
}

/** Per parent, the heading before each child read so far, and where reading stopped. */
const headingsCache = new WeakMap<Element, { before: Map<Element, Element | null>; next: number; last: Element | null }>();

/**
 * The heading that opens the part of `parent` holding `child`: the last h2-h4 (or heading wrapper) before it.
 * A parent's children are read once, as far as asked, for all of them: a read per child was quadratic in a long list.
 */
function headingBefore(parent: Element, child: Element): Element | null {
  let read = headingsCache.get(parent);
  if (!read) headingsCache.set(parent, (read = { before: new Map(), next: 0, last: null }));
  while (!read.before.has(child) && read.next < parent.children.length) {
    const sibling = parent.children[read.next++]!;
    if (!isElement(sibling)) continue;
    read.before.set(sibling, read.last);
    if (/^h[1-4]$/.test(sibling.name) || attr(sibling, 'role') === 'heading') read.last = sibling;
    else if (/\b(?:title|heading|header)\b/i.test(attr(sibling, 'class') ?? '') && subtreeOf(sibling).length < 120) read.last = sibling;
  }
  return read.before.get(child) ?? null;
}
