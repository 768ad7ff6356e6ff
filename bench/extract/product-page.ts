/**
 * A realistic product page of about 100 KB, built the same way every time: the shape of a
 * Shopify theme page (inline CSS and scripts, SVG icons, a mega menu, gallery, price block,
 * reviews, related products, footer) with JSON-LD and OpenGraph price data.
 */

const WORDS =
  'stainless steel kettle rapid boil litre capacity cordless base limescale filter water window auto shut off ' +
  'brushed finish ergonomic handle quiet boil keep warm temperature control energy saving design kitchen'.split(' ');

/** Deterministic filler text. */
function words(count: number, seed: number): string {
  let state = seed;
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    state = (state * 1103515245 + 12345) % 2147483648;
    out.push(WORDS[state % WORDS.length]);
  }
  return out.join(' ');
}

function range<T>(count: number, make: (index: number) => T): T[] {
  return Array.from({ length: count }, (_, index) => make(index));
}

const icon = (name: string, seed: number) =>
  `<svg aria-hidden="true" focusable="false" class="icon icon-${name}" viewBox="0 0 24 24"><path fill="currentColor" d="${range(
    12,
    (i) => `M${(seed * 7 + i * 3) % 24} ${(seed + i * 5) % 24}l${i % 5}.${seed % 9} ${(i * 2) % 7}.5`,
  ).join(' ')}z"/></svg>`;

const css = range(
  160,
  (i) =>
    `.section-${i} .grid__item--${i}{display:flex;gap:${i % 12}px;padding:${i % 8}rem ${i % 5}rem;color:rgb(${i % 255},${(i * 3) % 255},${(i * 7) % 255})}`,
).join('');

const analytics = `window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag('js',new Date());${range(
  40,
  (i) => `gtag('event','view_item_${i}',{items:[{item_id:'SKU-${i}',price:${i}.99,quantity:1}]});`,
).join('')}`;

const shopMeta = JSON.stringify({
  product: {
    id: 7001,
    vendor: 'Pricewatch Demo',
    type: 'Kettle',
    variants: range(6, (i) => ({
      id: 4200 + i,
      price: 2999 + i * 100,
      name: `Kettle - ${['Steel', 'Black', 'Cream', 'Sage', 'Red', 'Blue'][i]}`,
      sku: `KT-${i}`,
    })),
  },
  page: { pageType: 'product', resourceType: 'product', resourceId: 7001 },
  translations: Object.fromEntries(range(80, (i) => [`key_${i}`, words(6, i)])),
});

const jsonLd = JSON.stringify({
  '@context': 'https://schema.org',
  '@graph': [
    { '@type': 'Organization', name: 'Pricewatch Demo Shop', url: 'https://shop.example', logo: 'https://shop.example/logo.png' },
    {
      '@type': 'BreadcrumbList',
      itemListElement: range(3, (i) => ({ '@type': 'ListItem', position: i + 1, name: words(2, i), item: `https://shop.example/c/${i}` })),
    },
    {
      '@type': 'Product',
      name: 'Rapid Boil Kettle 1.7L',
      sku: 'KT-0',
      description: words(60, 3),
      image: range(4, (i) => `https://cdn.shop.example/kettle-${i}.jpg`),
      brand: { '@type': 'Brand', name: 'Demo' },
      aggregateRating: { '@type': 'AggregateRating', ratingValue: '4.6', reviewCount: '212' },
      offers: range(6, (i) => ({
        '@type': 'Offer',
        url: `https://shop.example/products/kettle?variant=${4200 + i}`,
        price: (29.99 + i).toFixed(2),
        priceCurrency: 'GBP',
        availability: 'https://schema.org/InStock',
      })),
    },
  ],
});

const menu = range(
  8,
  (column) =>
    `<li class="mega-menu__column"><a class="mega-menu__link mega-menu__link--level-2" href="/collections/c-${column}">${words(2, column)}</a><ul class="list-unstyled">${range(
      24,
      (i) => `<li><a class="mega-menu__link link" href="/collections/c-${column}-${i}">${words(3, column * 31 + i)}</a></li>`,
    ).join('')}</ul></li>`,
).join('');

const gallery = range(
  8,
  (i) =>
    `<li class="product__media-item grid__item slider__slide" data-media-id="m-${i}"><div class="product-media-container media-type-image"><img src="//cdn.shop.example/kettle-${i}.jpg?v=1&width=1946" srcset="${[
      246, 493, 600, 713, 823, 990, 1100, 1206,
    ]
      .map((w) => `//cdn.shop.example/kettle-${i}.jpg?v=1&width=${w} ${w}w`)
      .join(
        ', ',
      )}" alt="${words(5, i)}" width="1946" height="1946" loading="lazy" sizes="(min-width: 1200px) 715px, calc(100vw - 30px)"></div>${icon('zoom', i)}</li>`,
).join('');

const priceBlock = `
<div class="price price--large price--on-sale price--show-badge">
  <div class="price__container">
    <div class="price__regular"><span class="visually-hidden visually-hidden--inline">Regular price</span><span class="price-item price-item--regular">£39.99 GBP</span></div>
    <div class="price__sale">
      <span class="visually-hidden visually-hidden--inline">Regular price</span><span><s class="price-item price-item--regular">£39.99 GBP</s></span>
      <span class="visually-hidden visually-hidden--inline">Sale price</span><span class="price-item price-item--sale price-item--last">£29.99 GBP</span>
    </div>
    <small class="unit-price caption hidden"><span class="visually-hidden">Unit price</span><span class="price-item price-item--last"><span></span><span aria-hidden="true">/</span><span class="visually-hidden">&nbsp;per&nbsp;</span><span></span></span></small>
  </div>
  <span class="badge price__badge-sale color-scheme-4">Sale</span>
</div>
<div class="product__tax caption rte">Tax included. <a href="/policies/shipping-policy">Shipping</a> calculated at checkout.</div>
<div class="installments">Pay in 3 interest-free instalments of £10.00 with Klarna</div>`;

const variants = range(
  6,
  (i) =>
    `<input type="radio" id="color-${i}" name="Colour" value="${['Steel', 'Black', 'Cream', 'Sage', 'Red', 'Blue'][i]}" form="product-form"${i === 0 ? ' checked' : ''}><label for="color-${i}">${['Steel', 'Black', 'Cream', 'Sage', 'Red', 'Blue'][i]}<span class="visually-hidden">Variant sold out or unavailable</span></label>`,
).join('');

const reviews = range(
  30,
  (i) =>
    `<div class="review" itemprop="review"><div class="review__header"><span class="review__author">${words(2, i + 100)}</span><span class="review__date">2026-0${(i % 9) + 1}-1${i % 9}</span>${icon('star', i)}</div><p class="review__body">${words(
      45,
      i + 200,
    )}</p><div class="review__votes">Was this helpful? <button type="button">Yes (${i})</button> <button type="button">No</button></div></div>`,
).join('');

const related = range(
  12,
  (i) =>
    `<li class="grid__item"><div class="card-wrapper product-card-wrapper"><div class="card card--standard card--media"><div class="card__inner ratio"><div class="card__media"><div class="media media--transparent"><img src="//cdn.shop.example/p-${i}.jpg?width=533" srcset="//cdn.shop.example/p-${i}.jpg?width=165 165w, //cdn.shop.example/p-${i}.jpg?width=360 360w, //cdn.shop.example/p-${i}.jpg?width=533 533w" alt="${words(
      3,
      i + 300,
    )}" loading="lazy" width="1000" height="1000"></div></div></div><div class="card__content"><div class="card__information"><h3 class="card__heading h5"><a href="/products/p-${i}" class="full-unstyled-link">${words(
      4,
      i + 400,
    )}</a></h3><div class="card-information"><div class="price"><div class="price__container"><div class="price__regular"><span class="visually-hidden visually-hidden--inline">Regular price</span><span class="price-item price-item--regular">£${9 + i}.99 GBP</span></div></div></div></div></div></div></div></div></li>`,
).join('');

const footer = range(
  4,
  (column) =>
    `<div class="footer-block grid__item"><h2 class="footer-block__heading">${words(2, column + 500)}</h2><ul class="footer-block__details-content list-unstyled">${range(
      15,
      (i) => `<li><a href="/pages/p-${column}-${i}" class="link list-menu__item--link">${words(2, column * 17 + i)}</a></li>`,
    ).join('')}</ul></div>`,
).join('');

export function productPage(): string {
  return `<!doctype html>
<html class="no-js" lang="en-GB">
<head>
<meta charset="utf-8"><meta http-equiv="X-UA-Compatible" content="IE=edge"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Rapid Boil Kettle 1.7L – Pricewatch Demo Shop</title>
<meta name="description" content="${words(25, 1)}">
<link rel="canonical" href="https://shop.example/products/kettle">
<meta property="og:site_name" content="Pricewatch Demo Shop"><meta property="og:url" content="https://shop.example/products/kettle">
<meta property="og:title" content="Rapid Boil Kettle 1.7L"><meta property="og:type" content="product"><meta property="og:description" content="${words(25, 2)}">
<meta property="og:image" content="http://cdn.shop.example/kettle-0.jpg"><meta property="og:price:amount" content="29.99"><meta property="og:price:currency" content="GBP">
<meta name="twitter:card" content="summary_large_image">
${range(6, (i) => `<link rel="preload" href="//cdn.shop.example/fonts/f-${i}.woff2" as="font" type="font/woff2" crossorigin>`).join('\n')}
<style>${css}</style>
<script>${analytics}</script>
<script id="shop-meta" type="application/json">${shopMeta}</script>
<script type="application/ld+json">${jsonLd}</script>
</head>
<body class="gradient template-product">
<a class="skip-to-content-link button visually-hidden" href="#MainContent">Skip to content</a>
<div class="announcement-bar" role="region"><p class="announcement-bar__message h5">Free delivery on orders over £50</p></div>
<header class="header header--middle-left page-width">
  <a href="/" class="header__heading-link link">${icon('logo', 1)}<span class="h2">Pricewatch Demo Shop</span></a>
  <nav class="header__inline-menu"><ul class="list-menu list-menu--inline" role="list"><li><details class="mega-menu"><summary>Shop</summary><div class="mega-menu__content"><ul class="mega-menu__list page-width">${menu}</ul></div></details></li></ul></nav>
  <div class="header__icons">${icon('search', 2)}${icon('account', 3)}<a href="/cart" class="header__icon header__icon--cart link" id="cart-icon-bubble">${icon('cart', 4)}<span class="visually-hidden">Cart</span></a></div>
</header>
<main id="MainContent" class="content-for-layout focus-none" role="main">
<section class="page-width section-template--product-padding">
  <nav class="breadcrumbs"><a href="/">Home</a> / <a href="/collections/kitchen">Kitchen</a> / <span>Kettles</span></nav>
  <div class="product product--large product--left grid grid--1-col grid--2-col-tablet">
    <div class="grid__item product__media-wrapper"><ul class="product__media-list contains-media grid grid--peek list-unstyled slider slider--mobile" role="list">${gallery}</ul></div>
    <div class="product__info-wrapper grid__item">
      <section id="ProductInfo-template--product" class="product__info-container product__column-sticky">
        <p class="product__text inline-richtext caption-with-letter-spacing">Demo</p>
        <div class="product__title"><h1>Rapid Boil Kettle 1.7L</h1></div>
        <div class="no-js-hidden" id="price-template--product" role="status">${priceBlock}</div>
        <variant-radios class="no-js-hidden" data-section="template--product"><fieldset class="js product-form__input"><legend class="form__label">Colour</legend>${variants}</fieldset></variant-radios>
        <div class="product-form__input product-form__quantity"><label class="quantity__label form__label" for="Quantity">Quantity</label><quantity-input class="quantity"><button class="quantity__button" name="minus" type="button">${icon('minus', 5)}</button><input class="quantity__input" type="number" name="quantity" id="Quantity" min="1" value="1"><button class="quantity__button" name="plus" type="button">${icon('plus', 6)}</button></quantity-input></div>
        <product-form class="product-form"><form method="post" action="/cart/add" id="product-form" class="form"><input type="hidden" name="id" value="4200"><button type="submit" name="add" class="product-form__submit button button--full-width button--secondary"><span>Add to cart</span></button></form></product-form>
        <div class="product__accordion accordion"><details open><summary><h2 class="h4 accordion__title">Description</h2>${icon('caret', 7)}</summary><div class="accordion__content rte">${range(6, (i) => `<p>${words(70, i + 600)}</p>`).join('')}</div></details></div>
      </section>
    </div>
  </div>
</section>
<section class="reviews page-width"><h2>Customer reviews</h2>${reviews}</section>
<section class="related-products page-width"><h2 class="related-products__heading h2">You may also like</h2><ul class="grid product-grid grid--4-col-desktop grid--2-col-tablet-down" role="list">${related}</ul></section>
</main>
<footer class="footer color-scheme-1 gradient section-sections--footer-padding"><div class="footer__content-top page-width"><div class="footer__blocks-wrapper grid grid--1-col grid--2-col grid--4-col-tablet">${footer}</div>
<form method="post" action="/contact#contact_form" class="footer__newsletter newsletter-form"><input type="email" name="contact[email]" placeholder="Email"><button type="submit">${icon('arrow', 8)}</button></form></div>
<div class="footer__content-bottom"><ul class="list-unstyled list-payment" role="list">${range(10, (i) => `<li class="list-payment__item">${icon(`payment-${i}`, i + 9)}</li>`).join('')}</ul><small class="copyright__content">© 2026, Pricewatch Demo Shop</small></div></footer>
<script>${range(30, (i) => `document.querySelectorAll('.section-${i}').forEach(function(e){e.classList.add('loaded-${i}')});`).join('')}</script>
</body>
</html>`;
}
