import { DEMO_PRODUCTS, demoPriceAt, demoWasPrice, type DemoProduct } from './shop.ts';
import { DEMO_SHOP_PATH } from './address.ts';

/**
 * The demo shop's pages, written like a real shop's: a visible price next to a crossed-out 'was'
 * price, a saving and an instalment offer, related products with their own prices, JSON-LD,
 * OpenGraph product tags and an og:image, so checks meet the distractors real pages have.
 */

const gbp = (amount: number) => `£${amount.toFixed(2)}`;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

export const productPath = (slug: string) => `${DEMO_SHOP_PATH}/products/${slug}`;
export const imagePath = (slug: string) => `${DEMO_SHOP_PATH}/images/${slug}.svg`;

function layout(origin: string, title: string, head: string, body: string): string {
  return `<!doctype html>
<html lang="en-GB">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)} | Northwind Demo Store</title>
${head}
<style>
  body { font-family: system-ui, sans-serif; margin: 0; color: #111827; background: #f9fafb; }
  header, footer { background: #111827; color: #f9fafb; padding: 12px 24px; }
  header a, footer a { color: inherit; }
  .notice { background: #fef3c7; padding: 8px 24px; font-size: 14px; }
  main { max-width: 960px; margin: 0 auto; padding: 24px; }
  .product { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 32px; }
  .product img { width: 100%; border-radius: 12px; }
  .price-now { font-size: 32px; font-weight: 700; }
  .price-was { color: #6b7280; margin-left: 8px; }
  .price-save { color: #059669; margin-left: 8px; }
  .related ul { display: grid; grid-template-columns: repeat(auto-fill, minmax(180px, 1fr)); gap: 16px; list-style: none; padding: 0; }
  .card { background: #fff; border-radius: 8px; padding: 12px; }
  .card img { width: 100%; }
  @media (max-width: 640px) { .product { grid-template-columns: 1fr; } }
</style>
</head>
<body>
<header><a href="${origin}${DEMO_SHOP_PATH}">Northwind Demo Store</a> · <nav style="display:inline">Audio · Kitchen · Running · Outdoor</nav> · Basket (0)</header>
<p class="notice">This is the demo shop built into Pricewatch's demo mode. Its prices change by themselves every few minutes. Nothing here is for sale.</p>
<main>${body}</main>
<footer>Free UK delivery on orders over £50 · Returns within 30 days · © Northwind Demo Store</footer>
</body>
</html>`;
}

function card(origin: string, product: DemoProduct, at: Date): string {
  return `<li class="card"><a href="${origin}${productPath(product.slug)}"><img src="${origin}${imagePath(product.slug)}" alt="" width="180" height="180">
    <span class="card-title">${escapeHtml(product.name)}</span></a>
    <span class="card-price">${gbp(demoPriceAt(product, at))}</span></li>`;
}

/**
 * Each product's barcode (GTIN-13, valid check digit) and manufacturer part number, stated in the
 * JSON-LD as shops do, so the demo's observations carry product identifiers. The demo owner's
 * store (my-store.ts) sells the same products under the same barcodes.
 */
export const IDENTIFIERS: Record<string, { gtin13: string; mpn: string }> = {
  'aurora-anc-headphones': { gtin13: '5060412001472', mpn: 'SQ-AUR-ANC1' },
  'precision-burr-grinder': { gtin13: '5056171003826', mpn: 'KF-PCB48' },
  'stride-trail-shoes': { gtin13: '5052384011269', mpn: 'NP-STR-TR5' },
  'glow-smart-kettle': { gtin13: '5038061005905', mpn: 'HT-GLW17' },
  'rover-daypack-25': { gtin13: '5052384013485', mpn: 'NP-RVR-25' },
};

/** A product page as it looked at `at`; `price` overrides the selling price (tests). */
export function productPage(origin: string, product: DemoProduct, opts: { at: Date; price?: number }): string {
  const price = opts.price ?? demoPriceAt(product, opts.at);
  const was = Math.max(demoWasPrice(product), price);
  const url = `${origin}${productPath(product.slug)}`;
  const image = `${origin}${imagePath(product.slug)}`;
  const jsonLd = {
    '@context': 'https://schema.org',
    '@type': 'Product',
    name: product.name,
    brand: { '@type': 'Brand', name: product.brand },
    image,
    description: product.description,
    sku: product.slug.toUpperCase(),
    ...IDENTIFIERS[product.slug],
    url,
    offers: { '@type': 'Offer', price: price.toFixed(2), priceCurrency: 'GBP', availability: 'https://schema.org/InStock', url },
  };
  const head = `
<meta name="description" content="${escapeHtml(product.description)}">
<link rel="canonical" href="${url}">
<meta property="og:type" content="product">
<meta property="og:title" content="${escapeHtml(product.name)}">
<meta property="og:url" content="${url}">
<meta property="og:image" content="${image}">
<meta property="product:price:amount" content="${price.toFixed(2)}">
<meta property="product:price:currency" content="GBP">
<script type="application/ld+json">${JSON.stringify(jsonLd).replace(/</g, '\\u003c')}</script>`;
  const related = DEMO_PRODUCTS.filter((p) => p.slug !== product.slug)
    .map((p) => card(origin, p, opts.at))
    .join('\n');
  const body = `
<nav class="breadcrumbs"><a href="${origin}${DEMO_SHOP_PATH}">Home</a> › ${escapeHtml(product.category)} › ${escapeHtml(product.name)}</nav>
<article class="product">
  <img src="${image}" alt="${escapeHtml(product.name)}" width="400" height="400">
  <div class="product-info">
    <p class="brand">${escapeHtml(product.brand)}</p>
    <h1>${escapeHtml(product.name)}</h1>
    <p class="rating">★★★★☆ 4.4 (212 reviews)</p>
    <div class="product-price" data-testid="product-price">
      <span class="price-now">${gbp(price)}</span>
      <s class="price-was">Was ${gbp(was)}</s>
      ${was > price ? `<span class="price-save">Save ${gbp(was - price)}</span>` : ''}
    </div>
    <p class="instalments">or 3 interest-free payments of ${gbp(Math.ceil((price / 3) * 100) / 100)}</p>
    <p>${escapeHtml(product.description)}</p>
    <button type="button">Add to basket</button>
    <p class="delivery">Free delivery on orders over £50. In stock: dispatched within 24 hours.</p>
  </div>
</article>
<section class="related"><h2>You may also like</h2><ul>${related}</ul></section>`;
  return layout(origin, product.name, head, body);
}

export function indexPage(origin: string, at: Date): string {
  const body = `<h1>All products</h1>
<p>Track any of these pages in Pricewatch with the price selector <code>.product-price .price-now</code>, or let it detect the price.</p>
<section class="related"><ul>${DEMO_PRODUCTS.map((p) => card(origin, p, at)).join('\n')}</ul></section>`;
  return layout(origin, 'All products', '', body);
}

const SHAPES: Record<string, string> = {
  'aurora-anc-headphones':
    '<path d="M110 230 a90 90 0 0 1 180 0" fill="none" stroke="#fff" stroke-width="18"/><rect x="88" y="215" width="44" height="80" rx="18" fill="#fff"/><rect x="268" y="215" width="44" height="80" rx="18" fill="#fff"/>',
  'precision-burr-grinder':
    '<path d="M140 90 h120 l-20 70 h-80 z" fill="#fff" opacity=".85"/><rect x="135" y="160" width="130" height="150" rx="14" fill="#fff"/><circle cx="200" cy="215" r="18" fill-opacity=".3"/>',
  'stride-trail-shoes':
    '<path d="M80 270 q10-70 70-80 l40 30 q60 10 120 30 q30 10 20 40 z" fill="#fff"/><path d="M80 290 h230" stroke="#fff" stroke-width="12"/>',
  'glow-smart-kettle':
    '<path d="M130 300 l20-150 h100 l20 150 z" fill="#fff"/><path d="M270 170 q50 10 30 90" fill="none" stroke="#fff" stroke-width="14"/><rect x="150" y="130" width="100" height="20" rx="8" fill="#fff"/>',
  'rover-daypack-25':
    '<rect x="125" y="100" width="150" height="210" rx="40" fill="#fff"/><rect x="150" y="210" width="100" height="70" rx="14" fill-opacity=".25"/><path d="M160 100 q40-40 80 0" fill="none" stroke="#fff" stroke-width="12"/>',
};

/** A simple drawing of the product for its og:image and the cards. */
export function productImage(product: DemoProduct): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 400 400" width="400" height="400" role="img" aria-label="${escapeHtml(product.name)}">
<rect width="400" height="400" fill="${product.colour}"/>${SHAPES[product.slug] ?? ''}
<text x="200" y="360" text-anchor="middle" font-family="system-ui, sans-serif" font-size="22" fill="#fff">${escapeHtml(product.brand)}</text>
</svg>`;
}
