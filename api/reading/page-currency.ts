/**
 * The currency a page's country uses, from its language tag or its address's country domain: the
 * hint that tells "$" in Santiago from "$" in Toronto, and "kr" in Stockholm from "kr" in Oslo,
 * when the page states no currency of its own. Signs shared by several currencies, and short
 * words that are money only where the page pays in them ("L", "K"), ask for it.
 */
import { pageLanguage, type Document } from './page.ts';
import { currencyOfLanguage, currencyOfRegion } from './locale-formats.ts';
import { REGION_CURRENCY } from './region-currencies.ts';

function countryDomain(url: string | undefined): string | null {
  if (!url) return null;
  try {
    const tld = new URL(url).hostname.split('.').pop()!;
    return /^[a-z]{2}$/i.test(tld) ? tld : null;
  } catch {
    return null;
  }
}

/**
 * The page's country from its language tag ("sv-SE", "ro-MD"), else its country domain (only where
 * a sign is shared: ".com.au"; many domains are rented for their letters), else its language where
 * one country speaks it ("sv": "199 kr" is Swedish kronor).
 */
export function regionCurrency(document: Document, url: string | undefined): string | null {
  const [language, ...rest] = pageLanguage(document)?.split(/[-_]/) ?? [];
  const region = rest.find((part) => /^[a-z]{2}$/i.test(part))?.toUpperCase();
  const domain = countryDomain(url);
  return (region && REGION_CURRENCY.get(region)) || (domain && currencyOfRegion(domain)) || (language && currencyOfLanguage(language)) || null;
}
