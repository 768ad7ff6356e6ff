/**
 * A sample of price texts as Intl.NumberFormat writes them (Bun's CLDR data): locales of shops
 * around the world, each with its own currency and a few foreign ones, in every currency display.
 */
import { REGION_CURRENCY } from '../../api/reading/region-currencies.ts';

export const LOCALES = (
  'en-US en-GB en-IE en-CA en-AU en-NZ en-IN en-ZA en-NG en-KE en-SG en-PH en-PK en-MY en-HK en-AE en-GH en-JM en-TT ' +
  'de-DE de-AT de-CH fr-FR fr-BE fr-CA fr-CH fr-MA fr-SN es-ES es-MX es-AR es-CL es-CO es-PE es-UY es-BO es-PY es-VE es-GT es-CR es-DO es-US ' +
  'pt-BR pt-PT it-IT it-CH nl-NL nl-BE sv-SE sv nb-NO nn-NO da-DK fi-FI is-IS pl-PL cs-CZ sk-SK hu-HU ro-RO ro-MD bg-BG hr-HR sr-RS sr-Latn-RS ' +
  'sl-SI bs-BA mk-MK sq-AL el-GR lt-LT lv-LV et-EE ru-RU ru-KZ ru-BY ru-UA uk-UA be-BY kk-KZ ky-KG uz-UZ tg-TJ az-AZ hy-AM ka-GE mn-MN tk-TM ' +
  'tr-TR he-IL ar-SA ar-AE ar-EG ar-MA ar-DZ ar-TN ar-KW ar-QA ar-BH ar-OM ar-JO ar-IQ ar-LB fa-IR ur-PK hi-IN bn-BD ne-NP si-LK ta-IN ' +
  'ja-JP zh-CN zh-TW zh-HK ko-KR th-TH vi-VN id-ID ms-MY fil-PH km-KH lo-LA my-MM sw-KE sw-TZ am-ET af-ZA zu-ZA ha-NG yo-NG ' +
  'ca-ES eu-ES gl-ES cy-GB ga-IE mt-MT lb-LU fo-FO kl-GL'
).split(' ');

const DISPLAYS = ['symbol', 'narrowSymbol', 'code', 'name'] as const;
const FOREIGN = ['USD', 'EUR', 'GBP', 'JPY', 'CHF', 'CNY'];
const AMOUNTS = [1234.5, 19.99, 7];

export type LocaleString = {
  locale: string;
  display: (typeof DISPLAYS)[number];
  currency: string;
  amount: number;
  text: string;
  /** Whether the text and the locale settle the currency: its sign is one currency's alone, or the locale's own. */
  settled: boolean;
};

export function localCurrency(locale: string): string | null {
  const region = new Intl.Locale(locale).maximize().region;
  return (region && REGION_CURRENCY.get(region)) ?? null;
}

export function localeStrings(locales: string[]): LocaleString[] {
  const samples: Omit<LocaleString, 'settled'>[] = [];
  const currenciesOfSign = new Map<string, Set<string>>();
  for (const locale of locales) {
    const local = localCurrency(locale);
    for (const currency of new Set([...(local ? [local] : []), ...FOREIGN])) {
      for (const display of DISPLAYS) {
        // Foreign currencies in one amount only: the sample stays about the locale's own.
        for (const value of currency === local ? AMOUNTS : AMOUNTS.slice(0, 1)) {
          const format = new Intl.NumberFormat(locale, { style: 'currency', currency, currencyDisplay: display });
          const parts = format.formatToParts(value);
          const sign = parts.find((part) => part.type === 'currency')?.value.trim() ?? '';
          if (!currenciesOfSign.has(sign)) currenciesOfSign.set(sign, new Set());
          currenciesOfSign.get(sign)!.add(currency);
          const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
          samples.push({ locale, display, currency, amount: Number(value.toFixed(digits)), text: format.format(value), sign } as never);
        }
      }
    }
  }
  return samples.map((sample) => {
    const { sign, ...rest } = sample as typeof sample & { sign: string };
    return { ...rest, settled: currenciesOfSign.get(sign)!.size === 1 || localCurrency(sample.locale) === sample.currency };
  });
}
