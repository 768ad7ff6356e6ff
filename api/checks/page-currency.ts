/**
 * The currency a page's country uses, from its language tag's region ("es-CL") or its address's
 * country domain (".com.au"): the hint that tells "$" in Santiago from "$" in Toronto when the
 * page states no currency of its own. Only signs shared by several currencies ask for it.
 */
import { pageLanguage, type Document } from './page.ts';

const REGION_CURRENCY: Record<string, string> = {
  US: 'USD', CA: 'CAD', AU: 'AUD', NZ: 'NZD', SG: 'SGD', HK: 'HKD', MX: 'MXN', TW: 'TWD', AR: 'ARS', CL: 'CLP', CO: 'COP',
  UY: 'UYU', DO: 'DOP', JM: 'JMD', TT: 'TTD', BR: 'BRL', JP: 'JPY', CN: 'CNY', SE: 'SEK', NO: 'NOK', DK: 'DKK', IS: 'ISK',
  IN: 'INR', PK: 'PKR', LK: 'LKR', NP: 'NPR', BO: 'BOB', VE: 'VES', BY: 'BYN', RU: 'RUB', ET: 'ETB',
};

/** Country domains that are not a country's ("co", "tv") or that many countries share are left out. */
function regionOfHost(url: string | undefined): string | null {
  if (!url) return null;
  try {
    const tld = new URL(url).hostname.split('.').pop()!.toUpperCase();
    return tld.length === 2 && REGION_CURRENCY[tld] ? tld : null;
  } catch {
    return null;
  }
}

export function regionCurrency(document: Document, url: string | undefined): string | null {
  const region = pageLanguage(document)?.split('-')[1]?.toUpperCase();
  return (region && REGION_CURRENCY[region]) || REGION_CURRENCY[regionOfHost(url) ?? ''] || null;
}
