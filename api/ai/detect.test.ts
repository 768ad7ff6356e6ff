import { describe, expect, test } from 'bun:test';
import { parsePage, queryAll, queryOne } from '../reading/page.ts';
import { detectPriceSelectors, isGeneratedName, positionalSelector, rankPriceCandidates, stableSelector } from './detect.ts';
import { extractPrice, extractPriceFromDocument } from '../reading/extract.ts';
import { readPage } from '../checks/read-page.ts';
import type { Renderer } from '../fetching/browser.ts';
import type { Fetcher } from '../fetching/fetcher.ts';
import { productPage } from '../demo-shop/pages.ts';
import { DEMO_PRODUCTS, demoPriceAt } from '../demo-shop/shop.ts';
import { loadCorpus } from '../../bench/corpus/corpus.ts';

const parse = parsePage;

function page(body: string, head = ''): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Product</title>${head}</head><body>${body}</body></html>`;
}

const jsonLd = (price: string, currency = 'GBP') =>
  `<script type="application/ld+json">${JSON.stringify({ '@context': 'https://schema.org', '@type': 'Product', name: 'Kettle', offers: { '@type': 'Offer', price, priceCurrency: currency } })}</script>`;

const RELATED = `
  <section class="related"><h2>You may also like</h2><ul>
    <li class="card"><a href="/p/2">Mug</a><span class="price">£9.99</span></li>
    <li class="card"><a href="/p/3">Teapot</a><span class="price">£34.00</span></li>
    <li class="card"><a href="/p/4">Toaster</a><span class="price">£49.00</span></li>
  </ul></section>`;

/** The product block every test page shares: a title, a price block and an add-to-cart form. */
const product = (priceBlock: string) => `
  <header><a href="/">Shop</a><a href="/basket" class="basket">Basket £0.00</a></header>
  <main><div class="product">
    <h1 class="product-title">Steel Kettle</h1>
    ${priceBlock}
    <form action="/cart/add" method="post"><button type="submit" class="add-to-cart">Add to basket</button></form>
  </div>${RELATED}</main>
  <footer>Free delivery on orders over £50</footer>`;

/** What a price check with the selector reads from the page. */
function checkedPrice(html: string, selector: string): number | null {
  const result = extractPrice(html, { selector });
  return result.ok && result.source === 'selector' ? result.price : null;
}

function detect(html: string, url?: string) {
  const found = detectPriceSelectors(parse(html), { url });
  // Every suggestion is verified: a price check with it reads the suggested price.
  for (const suggestion of found) expect(checkedPrice(html, suggestion.selector)).toBe(suggestion.price);
  return found;
}

describe('candidate scoring', () => {
  const scoreOf = (html: string, amount: number) => rankPriceCandidates(parse(html)).find((c) => c.amount === amount)!;

  test('the sale price outranks the was price, the saving, the instalment, the unit price and delivery', () => {
    const html = page(
      product(`
      <div class="price-box">
        <span class="price price--sale">£24.99</span>
        <span class="price price--old">£30.00</span>
        <span class="saving">£5.01</span>
      </div>
      <p class="instalments">or 3 payments of <b class="klarna-amount">£8.33</b></p>
      <p class="unit-price">£14.70</p>
      <p class="delivery-cost">£3.95</p>`),
    );
    const ranked = rankPriceCandidates(parse(html));
    expect(ranked[0]!.amount).toBe(24.99);
    expect(ranked[0]!.reasons).toContain('+10 named price');
    for (const distractor of [30, 5.01, 8.33, 14.7, 3.95]) expect(scoreOf(html, distractor).score).toBeLessThan(ranked[0]!.score - 20);
    expect(scoreOf(html, 30).reasons).toContain('-35 named was/old/RRP');
    expect(scoreOf(html, 3.95).reasons).toContain('-30 named delivery');
  });

  test('a price crossed out by <del>, <s> or <strike> is the was price, also when it is the only element of its own', () => {
    for (const tag of ['del', 's', 'strike']) {
      const html = page(product(`<div><b>Price:</b> £89.00 <${tag}>£120.00</${tag}></div>`));
      expect(scoreOf(html, 120).reasons).toContain('-35 struck through');
      expect(rankPriceCandidates(parse(html))[0]!.amount).toBe(89);
      expect(extractPrice(html)).toMatchObject({ ok: true, price: 89 });
    }
  });

  test('related products, the header basket and listings are pushed down', () => {
    const html = page(product('<p class="price">£24.99</p>'));
    expect(scoreOf(html, 9.99).reasons).toContain('-40 among other products');
    expect(scoreOf(html, 24.99).score).toBeGreaterThan(scoreOf(html, 34).score + 40);
  });

  test('the price the structured data names wins over a louder one that differs', () => {
    const html = page(product('<p class="price">£24.99</p><p class="price">£19.99</p>'), jsonLd('19.99'));
    const ranked = rankPriceCandidates(parse(html));
    expect(ranked[0]!.amount).toBe(19.99);
    expect(ranked[0]!.reasons).toContain('+30 shows the json-ld price');
  });

  test('a price near the title and the button beats the same markup far away', () => {
    const html = page(`<main><h1>Steel Kettle</h1><p class="amount">£24.99</p><button>Add to cart</button></main>
      <div class="x"><div><div><div><p class="amount">£12.00</p></div></div></div></div>`);
    expect(scoreOf(html, 24.99).score).toBeGreaterThan(scoreOf(html, 12).score);
  });
});

describe('detection', () => {
  test('suggests the sale price, best first, with what was matched', () => {
    const html = page(
      product(`
      <div class="product-price"><span class="price-now">£24.99</span><s class="price-was">Was £30.00</s></div>
      <p class="instalments">or 3 interest-free payments of £8.33</p>`),
      jsonLd('24.99'),
    );
    const [best, ...rest] = detect(html);
    expect(best!.selector).toBe('.price-now');
    expect(best!.price).toBe(24.99);
    expect(best!.description).toBe("Sale price £24.99 next to the add-to-cart button, matching the page's JSON-LD offer");
    expect(best!.confidence).toBeGreaterThan(80);
    expect(best!.confidence).toBeLessThanOrEqual(99);
    for (const other of rest) {
      expect(other.price).toBe(24.99);
      expect(other.confidence).toBeLessThanOrEqual(best!.confidence);
    }
  });

  test('pages without a price of their own get no suggestion', () => {
    // Sold out: only related products and the delivery threshold have prices.
    expect(detect(page(product('<p class="availability">Sold out</p>')))).toEqual([]);
    // A listing: every card has a price and a button.
    const cards = ['£39.99', '£34.99', '£59.00', '£24.00']
      .map(
        (price, i) => `<li class="grid__item"><h3><a href="/p/${i}">Kettle ${i}</a></h3><span class="price">${price}</span><button>Add to cart</button></li>`,
      )
      .join('');
    expect(detect(page(`<main><h1>Kettles</h1><ul class="grid">${cards}</ul></main>`))).toEqual([]);
    // Prose that mentions prices.
    expect(
      detect(
        page(
          '<article><h1>Best kettles</h1><p>Our pick usually sells for around <b>£65</b> in most shops.</p><p>The budget choice costs roughly <b>£20</b> if you shop around.</p></article>',
        ),
      ),
    ).toEqual([]);
  });

  test('a bare number is not taken for a price', () => {
    expect(detect(page('<main><h1>Espresso Machine 2-Group</h1><p class="model">Model 3000</p><button>Add to cart</button></main>'))).toEqual([]);
  });

  test('the demo shop pages: the visible price with the structured data behind it', () => {
    const at = new Date('2025-06-01T10:00:00Z');
    for (const demo of DEMO_PRODUCTS) {
      const url = `http://localhost:3000/demo-shop/products/${demo.slug}`;
      const html = productPage('http://localhost:3000', demo, { at });
      const [best] = detect(html, url);
      expect(best?.price).toBe(demoPriceAt(demo, at));
      expect(best!.selector).toBe('.price-now');
    }
  });

  test('split prices (whole and fraction in their own elements) are read as one', () => {
    const html = page(
      product(`<span class="product-price" data-testid="price"><span class="currency">£</span><span class="whole">24</span><sup class="cents">99</sup></span>`),
    );
    const [best] = detect(html);
    expect(best!.selector).toBe('.product-price');
    expect(best!.price).toBe(24.99);
  });

  test('a price shown in copies of one markup (a sticky bar, variants) is suggested by that shared name', () => {
    const copies = '<div class="tp-price"><div class="tp-price-current">£29.99</div></div>';
    const html = page(product(copies + copies));
    const [best] = detect(html);
    expect(best!.selector).toBe('.tp-price-current');
    expect(checkedPrice(html, best!.selector)).toBe(29.99);
  });

  test('a stated price the page does not show: the statement itself is the suggestion', () => {
    const html = page('<main><h1 class="product-title">Steel Kettle</h1><div id="app"></div></main>', jsonLd('24.99'));
    const [best] = detect(html);
    expect(best!.selector).toBe('script[type="application/ld+json"]');
    expect(best!.description).toContain('JSON-LD');
    expect(checkedPrice(html, best!.selector)).toBe(24.99);
  });
});

describe('never nothing while a price can be read', () => {
  test('a price in plain markup, with nothing named near it, is offered where extraction reads it', () => {
    const html = page('<h1>Trail Jacket</h1><div>Now only £89.00 while stocks last, was £120.00 last week</div><button>Add to basket</button>');
    const read = extractPrice(html, { url: 'https://shop.example/p/jacket' });
    expect(read).toMatchObject({ ok: true, price: 89, source: 'page' });
    const [first, ...rest] = detectPriceSelectors(parse(html), { url: 'https://shop.example/p/jacket' });
    expect(rest).toEqual([]);
    expect(first).toMatchObject({ selector: 'body > div', price: 89, confidence: 50 });
    // A check that follows the suggestion reads the same price.
    expect(extractPrice(html, { selector: first!.selector, url: 'https://shop.example/p/jacket' })).toMatchObject({ ok: true, price: 89, source: 'selector' });
  });

  test('on every real page of bench/corpus where extraction finds a price, detection offers one that reads it', () => {
    const missing: string[] = [];
    for (const p of loadCorpus()) {
      const document = parse(p.html);
      if (!extractPriceFromDocument(document, { url: p.url }).ok) continue;
      const [first] = detectPriceSelectors(document, { url: p.url });
      if (!first || !extractPriceFromDocument(document, { selector: first.selector, url: p.url }).ok) missing.push(p.key);
    }
    expect(missing).toEqual([]);
  }, 60_000);
});

describe('selector stability', () => {
  test('generated names are recognised', () => {
    for (const name of [
      'css-1x2y3z',
      'sc-bdVaJa',
      'ember123',
      'product-price-12345',
      'Price_price__3kX9a',
      'x1a2b3c',
      'jsx-2871263',
      'svelte-1k2j3h',
      '_30jeq3',
    ]) {
      expect(isGeneratedName(name)).toBe(true);
    }
    for (const name of [
      'price',
      'price-item--sale',
      'productView-price',
      'a-offscreen',
      'priceToPay',
      'woocommerce-Price-amount',
      'price__sale',
      'h5',
      'col-md-6',
      'withTax',
    ]) {
      expect(isGeneratedName(name)).toBe(false);
    }
  });

  test('the shortest unique selector by name, never by generated or state classes', () => {
    const document = parse(
      page(`<main><h1>Kettle</h1>
      <div class="css-1x2y3z price-wrap on-sale"><span class="sc-bdVaJa kXrJPq" data-testid="product-price">£24.99</span></div>
      <div class="price-wrap"><span class="price">£3.00</span></div></main>`),
    );
    const element = queryOne(document, '[data-testid="product-price"]')!;
    expect(stableSelector(document, element)).toBe('[data-testid="product-price"]');
    const wrap = queryOne(document, '.on-sale')!;
    expect(stableSelector(document, wrap)).toBeNull(); // only generated, state and shared names
  });

  test('a non-unique name is qualified by an ancestor', () => {
    const document = parse(page(`<main><div class="summary"><p class="price">£24.99</p></div><div class="related"><p class="price">£9.99</p></div></main>`));
    expect(stableSelector(document, queryOne(document, '.summary .price')!)).toBe('.summary .price');
  });

  test('a price attribute that holds the amount is used by presence, not value', () => {
    const document = parse(page('<main><span data-price-amount="24.99" class="x1a2b3c">£24.99</span></main>'));
    expect(stableSelector(document, queryOne(document, 'span')!)).toBe('[data-price-amount]');
  });

  test('by position only from a named ancestor, and only when nothing has a name', () => {
    const html = page(
      '<div id="main"><h1>Sketchbook</h1><p>96 pages, sewn by hand.</p><p><b>Price:</b> £15.00</p><form><input type="submit" value="Buy Now"></form></div>',
    );
    const document = parse(html);
    expect(positionalSelector(document, queryAll(document, 'p')[1]!)).toBe('#main > p:nth-of-type(2)');
    const [best] = detect(html);
    expect(best!.selector).toBe('#main > p:nth-of-type(2)');
    expect(best!.description).toContain('position');
  });
});

describe('pages nested deeply', () => {
  const nested = (depth: number, inner: string) => `${'<div class="wrap">'.repeat(depth)}${inner}${'</div>'.repeat(depth)}`;
  // A megabyte of <div>s never closed: what a hostile shop page can send.
  const tooDeep = page(`${'<div>'.repeat(200_000)}<span class="price">£24.99</span>`);
  const serving = (html: string): Fetcher => ({
    fetchPage: async (url) => ({ ok: true, url, status: 200, contentType: 'text/html', headers: {}, body: html, bytes: html.length, elapsedMs: 1 }),
  });
  const noBrowser = {
    render: async () => {
      throw new Error('a page refused is not rendered');
    },
  } as unknown as Renderer;

  test('200,000 levels: no suggestion, and reading it for AI Detect fails with the reason', async () => {
    expect(detectPriceSelectors(parse(tooDeep))).toEqual([]);
    const read = await readPage('https://shop.example/kettle', {
      fetcher: serving(tooDeep),
      renderer: noBrowser,
      satisfied: (document) => detectPriceSelectors(document).length > 0,
    });
    expect(read).toEqual({ ok: false, code: 'page-too-deep', reason: 'The page is nested too deeply to be read safely (more than 1,024 levels of elements).' });
  });

  test('500 levels: the same suggestion as without the nesting, verified', async () => {
    const block = product('<div class="price-box"><span class="product-price">£24.99</span></div>');
    const [flat] = detect(page(block));
    const html = page(nested(500, block));
    const [best] = detect(html);
    expect(best).toEqual(flat!);
    expect(best!.price).toBe(24.99);
    const read = await readPage('https://shop.example/kettle', { fetcher: serving(html), renderer: noBrowser, satisfied: () => true });
    expect(read.ok && detectPriceSelectors(read.document)[0]).toEqual(flat!);
  });
});
