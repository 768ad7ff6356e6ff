/**
 * The visible price of a product page, found without a selector: every element whose text (or
 * price attribute) reads as a price is a candidate, scored by what the page says about it: the
 * structured-data price it shows, known price markup of shop platforms, its distance from the
 * product title and the add-to-cart button, its names (itemprop, class, id, data attributes) and
 * emphasis; was/RRP, per-unit, instalment, delivery, saving and related-product prices are pushed
 * down. Pure: a parsed page in, ranked candidates out. Price checks without a selector and
 * AI Detect both read pages through it.
 */
import { PRICE_ATTRIBUTES, priceTextOf } from './element-text.ts';
import { attr, bodyOf, childElements, descendants, hasAttr, isElement, matcher, parentOf, queryAll, queryOne, textOf, textStart, wordsOf, type AnyNode, type Document, type Element } from './page.ts';
import { findPriceMentions, mayMentionMoney, readPrice, type PriceMention } from './price-text.ts';
import { regionCurrency } from './page-currency.ts';
import { structuredDataPrices, type StructuredPrice } from './structured-data.ts';

/** Below this a candidate is not taken for the page's main price: listings and price-less pages offer nothing. */
export const MIN_SCORE = 22;
const MAX_CANDIDATE_TEXT = 160;
/**
 * The most elements read as prices on a page, the first met. Reading a price is the costly step,
 * and a hostile page of 50,000 prices held the process for half a minute; the real pages of
 * bench/corpus read at most about 420, so none is cut short.
 */
export const MAX_PRICE_READS = 2_000;
/**
 * A price, a button, a heading or a sentence holds a few elements (a price at most about 150 on the
 * real pages of bench/corpus, and no element looked at there for a price more than about 700); one
 * holding thousands is a part of the page, and is not read: each level of a nested page would walk
 * it all again.
 */
const MAX_NODES_READ = 5_000;
/** The most of an element's text read for money or words, scripts inside it included (real pages reach about 48,000). */
const MAX_TEXT_READ = 100_000;

// ---------------------------------------------------------------------------------------------
// The page: its elements in order, the product title, the add-to-cart button, structured data

export type Page = {
  document: Document;
  elements: Element[];
  order: Map<Element, number>;
  depth: Map<Element, number>;
  /** Length of each element's visible text, and the elements whose text has a digit. */
  textLength: Map<Element, number>;
  withDigits: Set<Element>;
  title: Element | null;
  buy: Element | null;
  /** The smallest element holding both the title and the button: the product's own block. */
  productArea: Element | null;
  reference: StructuredPrice | null;
  /** Whether the page shows the reference price as a selling price (set when candidates are scored). */
  referenceShown: boolean;
  currency: string | null;
  /** Elements matched by a platform's price markup, with the platform's selector and name. */
  /** The platform price markup an element matches, if any (asked of price candidates only). */
  patternOf: (element: Element) => PlatformPattern | null;
};

const SKIPPED_TAGS = new Set(['head', 'script', 'style', 'template', 'noscript', 'select', 'option', 'svg', 'iframe', 'object', 'textarea', 'title']);
const HIDDEN_CLASS = /(?:^|\s)(?:hidden|d-none|is-hidden|hide|u-hidden|display-none|invisible)(?=\s|$)/;

export function isHidden(element: Element): boolean {
  if (hasAttr(element, 'hidden')) return true;
  if (element.name === 'input' && attr(element, 'type') === 'hidden') return true;
  if (/(?:display\s*:\s*none|visibility\s*:\s*hidden)/i.test(attr(element, 'style') ?? '')) return true;
  return HIDDEN_CLASS.test(attr(element, 'class') ?? '');
}

/** A microdata price kept in an attribute of an invisible element: still what extraction reads. */
function isMicrodataPrice(element: Element): boolean {
  return /(?:^|\s)(?:price|lowPrice)(?:\s|$)/.test(attr(element, 'itemprop') ?? '') && hasAttr(element, 'content');
}

export function analysePage(document: Document, url: string | undefined, structured = structuredDataPrices(document, { url })): Page {
  const elements: Element[] = [];
  const order = new Map<Element, number>();
  const depth = new Map<Element, number>();
  const textLength = new Map<Element, number>();
  const withDigits = new Set<Element>();
  // One pass in document order; text lengths and digits come back up, so no block's text is built to learn it is too long.
  // A stack of its own (an element is met once going down and once coming back up): a call per level would overflow on deep pages.
  const root = bodyOf(document);
  const stack: { element: Element; level: number; up?: boolean }[] = root ? [{ element: root, level: depthOf(root) }] : [];
  while (stack.length > 0) {
    const { element, level, up } = stack.pop()!;
    if (up) {
      const parent = parentOf(element);
      const length = textLength.get(element)!;
      if (parent && element !== root) {
        textLength.set(parent, textLength.get(parent)! + length);
        if (withDigits.has(element)) withDigits.add(parent);
      }
      continue;
    }
    if (SKIPPED_TAGS.has(element.name)) continue;
    const hidden = isHidden(element);
    if (hidden && !isMicrodataPrice(element)) continue;
    order.set(element, order.size);
    depth.set(element, level);
    elements.push(element);
    let length = 0;
    if (!hidden) {
      for (const child of element.children) {
        if (child.type !== 'text') continue;
        length += child.data.length;
        if (/\d/.test(child.data)) withDigits.add(element);
      }
    }
    textLength.set(element, length);
    stack.push({ element, level, up: true });
    if (hidden) continue;
    for (let i = element.children.length - 1; i >= 0; i--) {
      const child = element.children[i]!;
      if (isElement(child)) stack.push({ element: child, level: level + 1 });
    }
  }
  // Microdata in <head> or hidden blocks is read by extraction too.
  for (const meta of queryAll(document, 'meta[itemprop]')) {
    if (!order.has(meta) && isMicrodataPrice(meta)) {
      order.set(meta, order.size);
      depth.set(meta, depthOf(meta));
      elements.push(meta);
    }
  }

  const title = findTitle(document, elements);
  const buy = findBuyButton(elements, title, depth, textLength);
  const page: Page = {
    document, elements, order, depth, textLength, withDigits, title, buy,
    productArea: title && buy ? commonAncestor(title, buy) : null,
    reference: structured[0] ?? null,
    referenceShown: false,
    currency: structured.find((price) => price.currency)?.currency ?? regionCurrency(document, url),
    patternOf: platformPatterns(),
  };
  if (page.productArea && /^(?:html|body)$/.test(page.productArea.name)) page.productArea = null;
  return page;
}

function depthOf(element: Element): number {
  let level = 0;
  for (let parent = parentOf(element); parent; parent = parentOf(parent)) level++;
  return level;
}

/**
 * The product's title: the h1 whose words the page's own title (or og:title) shares most, since
 * shops also put logos, banners and pop-up headings in h1s; else an itemprop name or a
 * product-title class.
 */
function findTitle(document: Document, visible: Element[]): Element | null {
  const headings = visible.filter((element) => element.name === 'h1' && !inPageChrome(element));
  const pageTitle = titleWords(document);
  if (headings.length > 1 && pageTitle.size > 0) {
    const overlap = (element: Element) => [...wordsOf(shortTextOf(element))].filter((word) => pageTitle.has(word)).length;
    const best = headings.reduce((a, b) => (overlap(b) > overlap(a) ? b : a));
    if (overlap(best) > 0) return best;
  }
  if (headings.length > 0) return headings[0]!;
  const named = visible.find((element) => /(?:^|\s)name(?:\s|$)/.test(attr(element, 'itemprop') ?? ''));
  if (named) return named;
  return visible.find((element) => /\bproduct[-_]?(?:title|name)\b/i.test(attr(element, 'class') ?? '')) ?? queryOne(document, 'h2');
}

function titleWords(document: Document): Set<string> {
  const title = queryOne(document, 'head > title, title');
  const og = queryOne(document, 'meta[property="og:title"]');
  return wordsOf(`${title ? textOf(title) : ''} ${og ? attr(og, 'content') ?? '' : ''}`);
}

export const BUY_TEXT = new RegExp(
  '(?:^|[^\\p{L}])(?:' +
    [
      'add to (?:my )?(?:cart|basket|bag|trolley|order)', 'buy (?:it )?now', 'pre-?order(?: now)?', 'subscribe now', 'start (?:my )?subscription',
      'in den (?:warenkorb|einkaufswagen)', 'in den korb', 'zum warenkorb hinzufügen', 'jetzt kaufen', 'ajouter au (?:panier|caddie)', 'acheter',
      'añadir al (?:carrito|carro|cesta)', 'agregar al (?:carrito|carro)', 'comprar(?: ahora)?', 'aggiungi al carrello', 'acquista(?: ora)?',
      'in (?:de )?winkel(?:wagen|mand)', 'bestellen', 'do koszyka', 'dodaj do koszyka', 'kup teraz', 'do košíku', 'přidat do košíku', 'vložiť do košíka',
      'adicionar ao carrinho', 'adicionar à sacola', 'lägg i varukorgen', 'köp', 'læg i kurv', 'legg i handlekurven', 'lisää ostoskoriin',
      'adaugă în coș', 'adauga in cos', 'kosárba', 'sepete ekle', 'в корзину', 'купить', 'до кошика', 'купити', 'Στο καλάθι',
      'カートに入れる', '購入', '加入购物车', '立即购买', '加入購物車', '直接購買', '立即購買', '장바구니', '구매하기', 'ใส่ตะกร้า', 'أضف إلى السلة', 'اشتر الآن',
      'הוסף לסל', 'thêm vào giỏ', 'mua ngay', 'masukkan keranjang', 'beli sekarang', 'add to bag',
    ].join('|') +
    ')(?![\\p{L}])',
  'iu',
);
export const BUY_NAME = /add[-_]?to[-_]?(?:cart|basket|bag)|addtocart|add-cart|buy[-_]?(?:now|box|button)|single_add_to_cart|product-form__submit|tocart|add[-_]?basket|cart[-_]?add/i;

/** The add-to-cart button nearest the title; none on a listing where every item has one. */
function findBuyButton(visible: Element[], title: Element | null, depth: Map<Element, number>, textLength: Map<Element, number>): Element | null {
  const buttons = visible.filter((element) => {
    const tag = element.name;
    if (tag !== 'button' && tag !== 'input' && tag !== 'a') return false;
    if ((textLength.get(element) ?? 0) > 80) return false;
    const label = `${shortTextOf(element)} ${attr(element, 'value') ?? ''} ${attr(element, 'aria-label') ?? ''} ${attr(element, 'title') ?? ''}`.replace(/\s+/g, ' ');
    const names = `${attr(element, 'class') ?? ''} ${attr(element, 'id') ?? ''} ${attr(element, 'name') ?? ''}`;
    return (BUY_TEXT.test(label) || BUY_NAME.test(names)) && !inRelatedBlock(element) && !inPageChrome(element);
  });
  if (buttons.length === 0) return null;
  // Many alike buttons are a listing's; a button with an id of its own is one of a kind.
  const alike = buttons.filter((button) => !attr(button, 'id'));
  if (alike.length >= 3 && new Set(alike.map(signature)).size < alike.length) return null;
  if (!title) return buttons[0]!;
  return buttons.reduce((best, button) => (treeDistance(button, title, depth) < treeDistance(best, title, depth) ? button : best));
}

// ---------------------------------------------------------------------------------------------
// Platform price markup (Shopify, WooCommerce, Magento, BigCommerce, PrestaShop, Amazon-style)

export type PlatformPattern = { platform: string; selector: string };

const PLATFORM_PATTERNS: PlatformPattern[] = [
  { platform: 'Shopify', selector: '.price__sale .price-item--sale' },
  { platform: 'Shopify', selector: '.price-item--sale' },
  { platform: 'Shopify', selector: '[data-product-price]' },
  { platform: 'Shopify', selector: '.product__price' },
  { platform: 'Shopify', selector: '.product-single__price' },
  { platform: 'WooCommerce', selector: '.summary .price ins .woocommerce-Price-amount' },
  { platform: 'WooCommerce', selector: '.summary .price > .woocommerce-Price-amount' },
  { platform: 'WooCommerce', selector: '.woocommerce-variation-price .woocommerce-Price-amount' },
  { platform: 'Magento', selector: '.product-info-main [data-price-type="finalPrice"]' },
  { platform: 'Magento', selector: '.product-info-main .special-price .price' },
  { platform: 'BigCommerce', selector: '.productView-price [data-product-price-with-tax]' },
  { platform: 'BigCommerce', selector: '.productView-price [data-product-price-without-tax]' },
  { platform: 'PrestaShop', selector: '.product-prices .current-price [itemprop="price"]' },
  { platform: 'PrestaShop', selector: '.product-prices .current-price-value' },
  { platform: 'Amazon', selector: '.priceToPay .a-offscreen' },
  { platform: 'Amazon', selector: '.apexPriceToPay .a-offscreen' },
  { platform: 'Amazon', selector: '#corePrice_feature_div .a-price .a-offscreen' },
  { platform: 'Amazon', selector: '#priceblock_ourprice' },
  { platform: 'Amazon', selector: '#priceblock_dealprice' },
];

// Compiled once: compiling the selectors for every candidate cost far more than matching them.
const ANY_PLATFORM_PATTERN = matcher(PLATFORM_PATTERNS.map((pattern) => pattern.selector).join(', '));
const PLATFORM_MATCHERS = PLATFORM_PATTERNS.map((pattern) => ({ pattern, matches: matcher(pattern.selector) }));

/** Matching only the elements that read as prices is far cheaper than querying the page for every pattern. */
function platformPatterns(): (element: Element) => PlatformPattern | null {
  const known = new Map<Element, PlatformPattern | null>();
  return (element) => {
    let pattern = known.get(element);
    if (pattern === undefined) {
      pattern = ANY_PLATFORM_PATTERN(element) ? PLATFORM_MATCHERS.find((m) => m.matches(element))?.pattern ?? null : null;
      known.set(element, pattern);
    }
    return pattern;
  };
}

// ---------------------------------------------------------------------------------------------
// Words in markup

/** The words an element's names are made of: "oldPrice price-item--sale" -> old price price item sale. */
const nameWordsCache = new WeakMap<Element, string>();

function nameWords(element: Element): string {
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
const PRICE_WORDS = words('price|prices|pricing|prix|preis|precio|prezzo|cena|pris|amount|cost');
const SELLING_WORDS = words('sale|now|current|final|special|offer|deal|selling|actual|promo|reduced|our|today|pay');
const SALE_WORDS = words('sale|special|reduced|promo|deal|offer|discounted|clearance');
const EMPHASIS_WORDS = words('big|large|lg|xl|xxl|bold|strong|main|primary|hero|headline|huge|display');
const WAS_WORDS = words('was|old|compare|rrp|msrp|srp|uvp|strike|strikethrough|struck|crossed|original|before|previous|prev|retail|list price|listprice|non sale|basis');
const REGULAR_WORDS = words('regular|reg|standard');
const UNIT_WORDS = words('unit|per|kg|kilo|litre|liter|measure|base price|comparison|ppu');
const INSTALMENT_WORDS = words('instal\\w*|install\\w*|klarna|afterpay|clearpay|affirm|laybuy|sezzle|paypal|finance|financing|credit|monthly|month|apr|payments?');
const SHIPPING_WORDS = words('ship\\w*|deliver\\w*|postage|freight|carriage|dispatch');
const SAVING_WORDS = words('save|saving|savings|you save|discount|off|percent|badge|reduction');
const RELATED_WORDS = words(
  'related|recommend\\w*|upsell\\w*|up sell|cross sell\\w*|crosssell\\w*|similar|also|recently|viewed|carousel|swiper|slick|slider|bundle\\w*|accessor\\w*|sponsored|mini cart|minicart|cart drawer|complete the look|frequently|search results?|facets?|filters?|refine|sort by',
);
const RELATED_HEADING = new RegExp(
  [
    'you (?:may|might) also', 'related', 'recommended', 'customers (?:also|who)', 'similar', 'recently viewed', 'frequently bought', 'bought together',
    'more from', 'complete the look', 'people also', 'often bought', 'you might like', 'inspired by', 'sponsored',
    'oft zusammen gekauft', 'kunden, die', 'könnte ihnen auch gefallen', 'ähnliche', 'zuletzt angesehen', 'passende', 'gesponsert',
    'fréquemment achetés', 'les clients ayant', 'vous aimerez', 'produits similaires', 'articles similaires', 'consultés récemment',
    'spesso comprati', 'i clienti che hanno', 'potrebbe interessarti', 'prodotti simili', 'correlati', 'sponsorizzat',
    'comprados juntos', 'los clientes que', 'también te puede', 'productos (?:similares|relacionados)', 'relacionados', 'patrocinado',
    'comprados (?:frequentemente|juntos)', 'você também', 'produtos (?:similares|relacionados)', 'vaak samen gekocht', 'vergelijkbare',
    'podobne produkty', 'klienci kupili', 'podobné produkty', 'zákazníci (?:také|tiež)', 'produse similare', 'похожие товары', 'с этим товаром',
    'よく一緒に購入', 'この商品を買った人', '関連商品', '相关商品', '猜你喜欢', '看了又看', '相關商品', '함께 구매', '관련 상품', '비슷한 상품',
    'منتجات مشابهة', 'قد يعجبك', 'מוצרים דומים', 'benzer ürünler',
  ].join('|'),
  'i',
);
const CHROME_TAGS = new Set(['nav', 'footer', 'aside', 'header']);

const chromeCache = new WeakMap<Element, boolean>();

/** Inside a header, nav, footer or aside that does not hold the page's h1. */
function inPageChrome(element: Element): boolean {
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
    if (CHROME_TAGS.has(parent.name) && !subtreeOf(parent).h1) {
      inside = true;
      break;
    }
  }
  for (const parent of unknown) chromeCache.set(parent, inside);
  return inside;
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

// ---------------------------------------------------------------------------------------------
// Candidates and their scores

export type Candidate = {
  element: Element;
  amount: number;
  currency: string | null;
  mention: PriceMention;
  /** The element's text as a price reader sees it ('' for a meta element). */
  text: string;
  score: number;
  /** What the score is made of, for explaining and testing it. */
  reasons: string[];
  nearTitle: boolean;
  nearBuy: boolean;
  inBuyForm: boolean;
  /** Named a sale price, or shown beside a was price (worked out when asked: only descriptions need it). */
  readonly sale: boolean;
  matchesReference: boolean;
};

const DISTRACTING_ROLES = new Set<PriceMention['role']>(['shipping', 'instalment', 'unit', 'period', 'saving', 'threshold', 'multibuy']);

/** What extraction would read from the element alone: its text, else a price attribute. */
function readElement(element: Element, currency: string | null): { amount: number; currency: string | null; mention: PriceMention; text: string } | null {
  const text = isMicrodataPrice(element) && element.name === 'meta' ? '' : priceTextOf(element);
  const tries = text && text.length <= MAX_CANDIDATE_TEXT && /\d/.test(text) ? [text] : [];
  for (const attribute of PRICE_ATTRIBUTES) {
    const value = attr(element, attribute)?.trim();
    if (value && /\d/.test(value) && value.length <= 40) tries.push(value);
  }
  for (const written of tries) {
    const reading = readPrice(written, { currencyHint: currency });
    if (reading.ok) return { amount: reading.amount, currency: reading.currency, mention: reading.mention, text };
  }
  return null;
}

export function scoreCandidates(page: Page): Candidate[] {
  const referenceDigits = page.reference ? String(Math.trunc(page.reference.amount)) : null;
  const read: Omit<Candidate, 'score' | 'reasons' | 'nearTitle' | 'nearBuy' | 'inBuyForm' | 'sale' | 'matchesReference'>[] = [];
  let reads = 0;
  for (const element of page.elements) {
    const shortWithDigits = (page.textLength.get(element) ?? 0) <= MAX_CANDIDATE_TEXT * 4 && page.withDigits.has(element);
    const inMarkup = isMicrodataPrice(element) || hasPriceAttribute(element);
    if ((!shortWithDigits && !inMarkup) || subtreeOf(element).nodes > MAX_NODES_READ) continue;
    if (!inMarkup && !mayBeMoney(shortTextOf(element), referenceDigits)) continue;
    if (++reads > MAX_PRICE_READS) break;
    // The title is never the price, nor is a block around it ("EOS R50" reads as 50 rand).
    // (A price element inside the title, as classified ads write it, is fine: it has a currency sign.)
    if (page.title && contains(element, page.title)) continue;
    const found = readElement(element, page.currency);
    // A bare number ("2-Group", a quantity, an id) is a price only where structured data says so.
    if (found && found.amount > 0 && (hasCurrencySign(found.mention) || samePrice(found.amount, page.reference?.amount ?? NaN))) read.push({ element, ...found });
  }
  // The stated price counts as shown when the page shows it as a selling price, not only crossed out or in markup.
  const referenceShown = page.reference !== null && read.some((c) => samePrice(c.amount, page.reference!.amount) && shownAsSellingPrice(c.element, c.mention));
  page.referenceShown = referenceShown;
  // Repeated markup with different prices is a list of products, not this product.
  const bySignature = new Map<string, Set<number>>();
  for (const c of read) {
    const key = signature(c.element);
    bySignature.set(key, (bySignature.get(key) ?? new Set()).add(c.amount));
  }
  const buyForm = page.buy ? closest(page.buy, 'form') : null;

  const scored = read.map((c): Candidate => {
    const { element } = c;
    const reasons: string[] = [];
    let score = 0;
    const add = (points: number, why: string) => {
      score += points;
      if (points !== 0) reasons.push(`${points > 0 ? '+' : ''}${points} ${why}`);
    };
    // "with-list-price", "has-compare-price" describe a sale price that has a was price beside it.
    const state = /\b(?:with|has)\s+(?:list|compare|old|was|original|regular)(?:\s+(?:at\s+)?price)?\b/g;
    const own = nameWords(element).replace(state, '');
    const near = ancestorWords(element, 3).replace(state, '');
    const label = `${own} ${near}`;

    const matchesReference = referenceShown && samePrice(c.amount, page.reference!.amount);
    if (matchesReference) add(30, `shows the ${page.reference!.source} price`);
    else if (referenceShown) add(-25, `differs from the ${page.reference!.source} price`);
    if (/(?:^|\s)price(?:\s|$)/.test(attr(element, 'itemprop') ?? '')) add(20, 'itemprop price');
    const pattern = page.patternOf(element);
    if (pattern) add(15, `${pattern.platform} price markup`);

    if (PRICE_WORDS.test(own)) add(10, 'named price');
    else if (PRICE_WORDS.test(near)) add(4, 'inside a price block');
    if (SELLING_WORDS.test(own)) add(8, 'named sale/now/final');
    else if (SELLING_WORDS.test(near)) add(3, 'inside a sale/now/final block');
    if (EMPHASIS_WORDS.test(own) || isEmphasised(element)) add(5, 'emphasised');

    if (WAS_WORDS.test(label)) add(-35, 'named was/old/RRP');
    else if (struckThrough(element)) add(-35, 'struck through');
    else if (REGULAR_WORDS.test(own)) add(-12, 'named regular');
    if (UNIT_WORDS.test(label)) add(-25, 'named per-unit');
    if (INSTALMENT_WORDS.test(label)) add(-30, 'named instalment/finance');
    if (SHIPPING_WORDS.test(label)) add(-30, 'named delivery');
    if (SAVING_WORDS.test(own)) add(-25, 'named saving');
    if (c.mention.role !== 'price') add(-15, `reads as a ${c.mention.role} price`);
    const text = c.text || c.mention.text;
    if (findPriceMentions(text).some((mention) => DISTRACTING_ROLES.has(mention.role))) add(-10, 'next to a delivery, instalment, unit or saving amount');

    if (inRelatedBlock(element)) add(-40, 'among other products');
    if (inPageChrome(element)) add(-30, 'in the page header, navigation or footer');
    if (bySignature.get(signature(element))!.size >= 3) add(-25, 'repeated markup with other prices');
    else if (inListItem(element)) add(-40, 'one of a list of products');

    const titleDistance = page.title ? treeDistance(element, page.title, page.depth) : Infinity;
    const buyDistance = page.buy ? treeDistance(element, page.buy, page.depth) : Infinity;
    add(Math.max(0, 24 - titleDistance), 'near the title');
    add(Math.max(0, 18 - buyDistance), 'near the add-to-cart button');
    if (page.buy && contains(element, page.buy)) add(-15, 'holds the add-to-cart button');
    const inBuyForm = !!buyForm && contains(buyForm, element);
    if (inBuyForm) add(6, 'in the product form');
    if (page.productArea) add(contains(page.productArea, element) ? 10 : -10, contains(page.productArea, element) ? 'in the product block' : 'outside the product block');
    if (page.title && followsClosely(page, element)) add(6, 'right after the title');

    if (inRunningText(element)) add(-15, 'in running text');
    if (element.name === 'meta' || isHidden(element)) add(-25, 'not shown');
    // The tightest element around the price makes the sturdiest selector; wide blocks lose points.
    add(Math.round((12 * c.mention.text.length) / Math.max(text.length, c.mention.text.length)) - 6, 'tightness');
    add(-Math.min(15, Math.max(0, descendants(element, 19).length - 4)), 'nested elements');

    return {
      ...c,
      score,
      reasons,
      nearTitle: titleDistance <= 12,
      nearBuy: buyDistance <= 10,
      inBuyForm,
      get sale() {
        return SALE_WORDS.test(label) || besideWasPrice(element);
      },
      matchesReference,
    };
  });
  // Ties go to the element seen first, then to the innermost (its selector is the tightest).
  return scored.sort((a, b) => b.score - a.score || page.order.get(a.element)! - page.order.get(b.element)!);
}

function shownAsSellingPrice(element: Element, mention: PriceMention): boolean {
  if (element.name === 'meta' || isHidden(element) || mention.role !== 'price' || struckThrough(element)) return false;
  return !WAS_WORDS.test(`${nameWords(element)} ${ancestorWords(element, 2)}`);
}

/**
 * A quick look before the full reading: a currency next to the digits, or the stated price's
 * digits (a bare number counts only then). Reading every number on a page costs the most.
 */
function mayBeMoney(text: string, referenceDigits: string | null): boolean {
  if (mayMentionMoney(text)) return true;
  return referenceDigits !== null && text.replace(/\D+/g, '').includes(referenceDigits);
}

/** Inside one of several alike items (cards of a listing), each with its own link or heading and figures. */
function inListItem(element: Element): boolean {
  for (let item = element, level = 0; parentOf(item) && level < 6; item = parentOf(item)!, level++) {
    if (isListItem(item)) return true;
  }
  return false;
}

/** Per parent: its children grouped by tag and classes, and the answer for each group asked about. */
const listItemCache = new WeakMap<Element, { groups: Map<string, Element[]>; answers: Map<string, boolean> }>();

const markupOf = (element: Element) => `${element.name}.${attr(element, 'class') ?? ''}`;

/** Three or more siblings of the same tag and classes, each with a link or heading (a[href], h2-h4) and figures. */
function isListItem(item: Element): boolean {
  const parent = parentOf(item)!;
  let known = listItemCache.get(parent);
  if (!known) {
    // Grouped once a parent, each group looked at once: a long list of unlike siblings was gone through for each.
    const groups = new Map<string, Element[]>();
    for (const child of childElements(parent)) {
      const group = groups.get(markupOf(child));
      if (group) group.push(child);
      else groups.set(markupOf(child), [child]);
    }
    listItemCache.set(parent, (known = { groups, answers: new Map() }));
  }
  const key = markupOf(item);
  let answer = known.answers.get(key);
  if (answer === undefined) {
    const sameMarkup = known.groups.get(key)!;
    // Fewer than three alike need no look inside, and three are enough.
    let alike = 0;
    if (sameMarkup.length >= 3) {
      for (const sibling of sameMarkup) if (subtreeOf(sibling).linkOrHeading && subtreeOf(sibling).digit && ++alike === 3) break;
    }
    known.answers.set(key, (answer = alike >= 3));
  }
  return answer;
}

const proseCache = new WeakMap<Element, boolean>();

/** A price mentioned inside a sentence of prose ("usually sells for around <b>£165</b>"). */
function inRunningText(element: Element): boolean {
  const block = parentOf(element);
  if (!block || !/^(?:p|li|blockquote)$/.test(block.name)) return false;
  const around = subtreeOf(block).length - subtreeOf(element).length;
  if (around < 30) return false;
  // Read once a block, however many prices it holds. Three words in a row: `[a-z]{3,}` and a last
  // `[a-z]{2,}` would say the same, but backtrack quadratically through a long run of letters.
  let prose = proseCache.get(block);
  if (prose === undefined) proseCache.set(block, (prose = /[a-z]{3}\s+[a-z]{2,}\s+[a-z]{2}/i.test(shortTextOf(block))));
  return prose;
}

/** Crossed out by an inline style, which extraction's text reading does not see. */
function struckThrough(element: Element): boolean {
  for (let e: Element | null = element, level = 0; e && level < 3; e = parentOf(e), level++) {
    if (/line-through/i.test(attr(e, 'style') ?? '')) return true;
  }
  return false;
}

function hasCurrencySign(mention: PriceMention): boolean {
  return /[^\d\s.,'’–—-]/.test(mention.text);
}

function hasPriceAttribute(element: Element): boolean {
  return PRICE_ATTRIBUTES.some((attribute) => /\d/.test(attr(element, attribute) ?? ''));
}

function ancestorWords(element: Element, levels: number): string {
  const found: string[] = [];
  for (let parent = parentOf(element), level = 0; parent && level < levels; parent = parentOf(parent), level++) {
    found.push(nameWords(parent));
  }
  return found.join(' ');
}

function isEmphasised(element: Element): boolean {
  if (/^(?:strong|b|h2|h3|h4|big)$/.test(element.name)) return true;
  const style = attr(element, 'style') ?? '';
  const size = /font-size\s*:\s*(\d+(?:\.\d+)?)(px|rem|em)/i.exec(style);
  if (size && Number(size[1]) * (size[2] === 'px' ? 1 : 16) >= 18) return true;
  return /font-weight\s*:\s*(?:bold|[6-9]00)/i.test(style);
}

/** Shown within a few elements after the title, as shops lay out a product. */
function followsClosely(page: Page, element: Element): boolean {
  const distance = page.order.get(element)! - page.order.get(page.title!)!;
  return distance > 0 && distance <= 25;
}

/** A crossed-out or "was" price next to it makes it a sale price. */
function besideWasPrice(element: Element): boolean {
  const parent = parentOf(element);
  const container = (parent && parentOf(parent)) ?? parent;
  if (!container) return false;
  const text = priceTextOf(container);
  return text.length <= 300 && findPriceMentions(text).some((mention) => mention.role === 'was');
}

const NO_PRODUCT_PENALTY = 15;

/** Structured data with a price, an add-to-cart button, OpenGraph product or a platform's price markup. */
function sellsAProduct(page: Page, candidates: Candidate[]): boolean {
  return (
    page.reference !== null ||
    page.buy !== null ||
    candidates.some((c) => page.patternOf(c.element) !== null) ||
    /product/i.test(ogType(page.document))
  );
}

/** Points by which the best candidate must beat one with another price: a tie means the page does not say. */
const MIN_LEAD = 5;

/** The page's main price: the best-scored candidate's, if it clears the bar and leads clearly. */
export function mainPrice(page: Page, candidates: Candidate[]): number | null {
  const best = candidates[0];
  // Without any sign of a product for sale, a price needs stronger evidence of its own.
  if (!best || best.score < MIN_SCORE + (sellsAProduct(page, candidates) ? 0 : NO_PRODUCT_PENALTY)) return null;
  const rival = candidates.find((c) => !samePrice(c.amount, best.amount));
  return rival && best.score - rival.score < MIN_LEAD ? null : best.amount;
}
export const samePrice = (a: number, b: number) => Math.abs(a - b) < 0.005;

/**
 * Whether the page shows the stated price as a selling price somewhere: the quick answer for a
 * page whose statement holds, without scoring every price on it. Stops at the first showing.
 */
export function statedPriceShown(document: Document, stated: StructuredPrice): boolean {
  const body = bodyOf(document);
  if (!body) return false;
  // Innermost first: an element is read once its children are, when its text is known to be short.
  // A stack of its own (each element going down, then back up): a call per level would overflow on deep pages.
  const length = new Map<Element, number>();
  let reads = 0;
  const stack: { element: Element; up?: boolean }[] = [{ element: body }];
  while (stack.length > 0) {
    const { element, up } = stack.pop()!;
    if (!up) {
      if (SKIPPED_TAGS.has(element.name) || isHidden(element)) continue;
      let own = 0;
      for (const child of element.children) if (child.type === 'text') own += child.data.length;
      length.set(element, own);
      stack.push({ element, up: true });
      for (let i = element.children.length - 1; i >= 0; i--) {
        const child = element.children[i]!;
        if (isElement(child)) stack.push({ element: child });
      }
      continue;
    }
    const total = length.get(element)!;
    const parent = parentOf(element);
    if (parent && element !== body) length.set(parent, length.get(parent)! + total);
    if (total === 0 || total > MAX_CANDIDATE_TEXT || !mayMentionMoney(shortTextOf(element))) continue;
    if (++reads > MAX_PRICE_READS) return false;
    const found = readElement(element, stated.currency);
    if (found && samePrice(found.amount, stated.amount) && shownAsSellingPrice(element, found.mention)) return true;
  }
  return false;
}

export type VisiblePrice = { amount: number; currency: string | null; text: string; score: number; element: Element; referenceShown: boolean };

/** The price the page shows for its product, if one clearly leads; `referenceShown`: the stated price is among the page's prices. */
export function visiblePrice(document: Document, opts: { url?: string; structured?: StructuredPrice[] } = {}): VisiblePrice | null {
  const page = analysePage(document, opts.url, opts.structured);
  const candidates = scoreCandidates(page);
  const main = mainPrice(page, candidates);
  const best = main === null ? null : candidates.find((c) => samePrice(c.amount, main))!;
  if (!best) return null;
  return { amount: best.amount, currency: best.currency, text: best.mention.text, score: best.score, element: best.element, referenceShown: page.referenceShown };
}

export function classList(element: Element): string[] {
  return (attr(element, 'class') ?? '').split(/\s+/).filter(Boolean);
}


// ---------------------------------------------------------------------------------------------
// Tree helpers

/** What an element holds: its nodes, the length of its text (as `textOf` gives it), a digit, an h1, a link or a heading. */
type Subtree = { nodes: number; length: number; digit: boolean; h1: boolean; linkOrHeading: boolean };
const subtrees = new WeakMap<AnyNode, Subtree>();
/** What an empty element, or a comment, holds: itself (not kept per node, as most elements of a page are leaves). */
const NOTHING: Subtree = { nodes: 1, length: 0, digit: false, h1: false, linkOrHeading: false };

/**
 * What an element holds, worked out once a page from what its children hold: a walk of each
 * block asked about walked a nested page again for every level of it.
 */
function subtreeOf(root: Element): Subtree {
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
function shortTextOf(element: Element): string {
  return subtreeOf(element).nodes > MAX_NODES_READ ? '' : textStart(element, MAX_TEXT_READ);
}

/** The element's tag and classes with its parent's: the same signature means the same markup. */
function signature(element: Element): string {
  const own = (e: Element | null) => (e ? `${e.name}.${classList(e).sort().join('.')}` : '');
  return `${own(parentOf(element))}>${own(element)}`;
}

function closest(element: Element, tag: string): Element | null {
  for (let e: Element | null = element; e; e = parentOf(e)) if (e.name === tag) return e;
  return null;
}

/** Per landmark (the title, the button): its ancestors, and the common ancestor found for each element walked. */
const landmarkCache = new WeakMap<Element, { ancestors: Set<Element>; common: Map<Element, Element | null> }>();

/** The innermost element holding both; what is found on the way up is kept, so many elements deep in a page share one walk. */
function commonAncestor(element: Element, landmark: Element): Element | null {
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
function treeDistance(candidate: Element, landmark: Element, depth: Map<Element, number>): number {
  const common = commonAncestor(candidate, landmark);
  if (!common) return Infinity;
  const level = (e: Element) => depth.get(e) ?? depthOf(e);
  return 4 * (level(landmark) - level(common)) + (level(candidate) - level(common));
}

/** True when `outer` is `inner` or holds it. */
function contains(outer: Element, inner: Element): boolean {
  for (let e: Element | null = inner; e; e = parentOf(e)) if (e === outer) return true;
  return false;
}

function ogType(document: Document): string {
  const meta = queryOne(document, 'meta[property="og:type"]');
  return (meta && attr(meta, 'content')) ?? '';
}
