/**
 * Prices a page states in OpenGraph and other meta tags (Twitter's product cards, meta name="price"),
 * and the currency it declares for its prices.
 */
import { attr, textOf, type Document } from './page.ts';
import { markedElements, type MarkedElements } from './marked-elements.ts';
import { hasToken } from './microdata-rdfa.ts';
import { currencyCode, structuredAmount, type StructuredPrice } from './structured-values.ts';

export function openGraphPrices(marked: MarkedElements): StructuredPrice[] {
  const meta = (name: string) => marked.meta.get(name) ?? null;
  const pairs: [string, string][] = [
    ['product:sale_price:amount', 'product:sale_price:currency'],
    ['product:price:amount', 'product:price:currency'],
    ['og:price:amount', 'og:price:currency'],
  ];
  return pairs.flatMap(([amountName, currencyName]) => {
    const found = structuredAmount(meta(amountName), currencyCode(meta(currencyName)));
    return found ? [{ source: 'opengraph' as const, ...found }] : [];
  });
}

/** Labels of Twitter's product cards (label1/data1) that say the data is the price. */
const PRICE_LABEL =
  /^(?:(?:sale |our |current )?price|preis|prix|precio|prezzo|prijs|preço|pris|hinta|cena|ár|fiyat|цена|ціна|τιμή|価格|价格|價格|가격|ราคา|giá|harga|מחיר|السعر)\s*:?$/iu;

export function metaTagPrices(marked: MarkedElements): StructuredPrice[] {
  const meta = (name: string) => marked.meta.get(name) ?? null;
  const hint = declaredCurrencyOf(marked) ?? currencyCode(marked.metaNames.get('currency') ?? marked.metaNames.get('priceCurrency'));
  const written: string[] = [];
  const named = marked.metaNames.get('price');
  if (named) written.push(named);
  for (let i = 1; i <= 4; i++) {
    const label = meta(`twitter:label${i}`);
    const data = meta(`twitter:data${i}`);
    if (label && data && PRICE_LABEL.test(label.trim())) written.push(data);
  }
  return written.flatMap((value) => {
    const found = structuredAmount(value, hint);
    return found ? [{ source: 'meta' as const, ...found }] : [];
  });
}

/** The currency the page declares for its prices, even where it gives no amount. */
export function declaredCurrency(document: Document): string | null {
  return declaredCurrencyOf(markedElements(document));
}

export function declaredCurrencyOf(marked: MarkedElements): string | null {
  const itemprop = marked.itemprops.find((element) => hasToken(element.attribs.itemprop, /^priceCurrency$/)) ?? null;
  return (
    currencyCode(marked.meta.get('product:price:currency')) ??
    currencyCode(marked.meta.get('og:price:currency')) ??
    currencyCode(itemprop && (attr(itemprop, 'content') ?? textOf(itemprop)))
  );
}
