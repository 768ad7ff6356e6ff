/**
 * The currency a page's country uses, from its language tag's region ("es-CL") or its address's
 * country domain (".com.au"): the hint that tells "$" in Santiago from "$" in Toronto when the
 * page states no currency of its own. Only signs shared by several currencies ask for it.
 */
import { pageLanguage, type Document } from './page.ts';
import { currencyOfRegion } from './locale-formats.ts';

function countryDomain(url: string | undefined): string | null {
  if (!url) return null;
  try {
    const tld = new URL(url).hostname.split('.').pop()!;
    return /^[a-z]{2}$/i.test(tld) ? tld : null;
  } catch {
    return null;
  }
}

export function regionCurrency(document: Document, url: string | undefined): string | null {
  const region = pageLanguage(document)?.split('-')[1];
  const domain = countryDomain(url);
  return (region && currencyOfRegion(region)) || (domain && currencyOfRegion(domain)) || null;
}
