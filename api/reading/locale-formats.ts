/**
 * Locales in price text: the decimal separator and the currency a page's language tag ("de-DE",
 * "es-CL") points to.
 */
import type { DecimalSeparator } from './price-text-types.ts';
import { CURRENCY_DECIMALS } from './currency-signs.ts';
import { REGION_CURRENCY } from './region-currencies.ts';

interface LocaleFacts {
  decimal: DecimalSeparator | null;
  currency: string | null;
}

const COMMA_LANGUAGES = new Set(
  (
    'de fr es it pt nl pl cs sk ro ru tr id vi da sv nb nn no fi el hu uk be bg mk sr hr sl bs sq lt lv et is ' + 'ca eu gl af az kk ky uz ka hy km lo tk'
  ).split(' '),
);
const DOT_LANGUAGES = new Set('en ja zh ko he iw th hi mn ms fil tl sw ur bn ne si ta te mr gu kn ml pa my fa ar ga cy mt am yo ha ig zu xh'.split(' '));
/** Countries whose format differs from their language's: Mexico and Central America, Switzerland, Maghreb. */
const DOT_REGIONS = new Set('MX US PR DO GT HN NI PA SV PE CH LI ZA'.split(' '));
const COMMA_REGIONS = new Set('MA DZ TN LY MR'.split(' '));

/** Currencies that settle a shared sign ("$", "kr", "¥", "Rs") from a page's country or language. */
const REGION_CURRENCIES: Record<string, string> = {
  US: 'USD',
  CA: 'CAD',
  AU: 'AUD',
  NZ: 'NZD',
  SG: 'SGD',
  HK: 'HKD',
  MX: 'MXN',
  TW: 'TWD',
  AR: 'ARS',
  CL: 'CLP',
  CO: 'COP',
  UY: 'UYU',
  DO: 'DOP',
  EC: 'USD',
  SV: 'USD',
  PR: 'USD',
  PA: 'USD',
  JM: 'JMD',
  TT: 'TTD',
  JP: 'JPY',
  CN: 'CNY',
  SE: 'SEK',
  NO: 'NOK',
  DK: 'DKK',
  IS: 'ISK',
  FO: 'DKK',
  GL: 'DKK',
  IN: 'INR',
  PK: 'PKR',
  LK: 'LKR',
  NP: 'NPR',
  MU: 'MUR',
  BO: 'BOB',
  VE: 'VES',
  BY: 'BYN',
  RU: 'RUB',
  ET: 'ETB',
  SA: 'SAR',
  QA: 'QAR',
  OM: 'OMR',
  YE: 'YER',
  AE: 'AED',
  MA: 'MAD',
  BN: 'BND',
  FJ: 'FJD',
  NA: 'NAD',
  BS: 'BSD',
};
const LANGUAGE_CURRENCIES: Record<string, string> = {
  ja: 'JPY',
  zh: 'CNY',
  sv: 'SEK',
  nb: 'NOK',
  nn: 'NOK',
  no: 'NOK',
  da: 'DKK',
  is: 'ISK',
  ne: 'NPR',
  si: 'LKR',
  ur: 'PKR',
  ko: 'KRW',
  be: 'BYN',
  am: 'ETB',
  fa: 'IRR',
};
/** Languages of many countries: a page's language alone does not tell its currency. */
const MANY_COUNTRY_LANGUAGES = new Set('en es fr ar pt de nl it sw ha ms ta bn zh ca el'.split(' '));

/** The currency of a language spoken mainly in one country (CLDR's likely region for it): "kk" tenge, "sv" kronor. */
const languageCurrencies = new Map<string, string | null>();

export function currencyOfLanguage(language: string): string | null {
  const code = language.toLowerCase();
  if (Object.hasOwn(LANGUAGE_CURRENCIES, code)) return LANGUAGE_CURRENCIES[code]!;
  if (MANY_COUNTRY_LANGUAGES.has(code) || !/^[a-z]{2,3}$/.test(code)) return null;
  let currency = languageCurrencies.get(code);
  if (currency === undefined) {
    try {
      const region = new Intl.Locale(code).maximize().region;
      currency = (region && REGION_CURRENCY.get(region)) ?? null;
    } catch {
      currency = null;
    }
    // Language codes are few (about 600); the cap keeps a hostile stream of them from growing it.
    if (languageCurrencies.size < 1000) languageCurrencies.set(code, currency);
  }
  return currency;
}

/** The decimal separator CLDR gives a locale, for languages the tables above leave open. */
function intlDecimal(locale: string): DecimalSeparator | null {
  try {
    if (Intl.NumberFormat.supportedLocalesOf(locale).length === 0) return null;
    const decimal = new Intl.NumberFormat(locale).formatToParts(1.5).find((part) => part.type === 'decimal')?.value;
    // Arabic digits' "٫" is read as ".".
    return decimal === '.' || decimal === '٫' ? '.' : decimal === ',' ? ',' : null;
  } catch {
    return null;
  }
}

/** The currency of a country (ISO 3166 code) where its sign is one several currencies share; null otherwise. */
export function currencyOfRegion(region: string): string | null {
  const code = region.toUpperCase();
  return (Object.hasOwn(REGION_CURRENCIES, code) && REGION_CURRENCIES[code]) || null;
}

const localeCache = new Map<string, LocaleFacts>();

export function localeFacts(locale: string | null | undefined): LocaleFacts {
  if (!locale) return { decimal: null, currency: null };
  const cached = localeCache.get(locale);
  if (cached) return cached;
  const [language = '', ...rest] = locale.trim().toLowerCase().split(/[-_]/);
  const region = rest.find((part) => /^(?:[a-z]{2}|\d{3})$/.test(part))?.toUpperCase() ?? null;
  let decimal: DecimalSeparator | null = COMMA_LANGUAGES.has(language) ? ',' : DOT_LANGUAGES.has(language) ? '.' : intlDecimal(locale.trim());
  if (decimal && region && DOT_REGIONS.has(region) && ['es', 'de', 'fr', 'it', 'rm', 'en'].includes(language)) decimal = '.';
  if (decimal && region && COMMA_REGIONS.has(region) && language === 'ar') decimal = ',';
  const currency = (region && REGION_CURRENCY.get(region)) || currencyOfLanguage(language);
  const facts = { decimal, currency };
  if (localeCache.size < 500) localeCache.set(locale, facts);
  return facts;
}

/**
 * The decimal separator a page most likely writes, from its language tag (`<html lang>`,
 * a country from the host's TLD as "xx-CL") or else the currency; null when neither tells.
 */
export function decimalSeparatorFor(locale: string | null, currency: string | null): DecimalSeparator | null {
  return localeFacts(locale).decimal ?? (currency ? (CURRENCY_DECIMALS.get(currency.trim().toUpperCase()) ?? null) : null);
}
