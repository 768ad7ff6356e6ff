/**
 * The vocabulary of reading prices out of text: the roles an amount can play, a mention of an
 * amount with its currency and role, and the options a caller reads text with.
 */

export type PriceRole =
  | 'price'
  | 'regular'
  | 'excl-tax'
  | 'unit'
  | 'period'
  | 'range-end'
  | 'was'
  | 'saving'
  | 'instalment'
  | 'shipping'
  | 'threshold'
  | 'multibuy'
  | 'estimate';

export interface PriceMention {
  /** Negative when written with a minus sign ("-£5.00"); such amounts are never a price. 0 for "Free". */
  amount: number;
  currency: string | null;
  /** False when the currency is a guess: no sign at all, or "$", "¥", "kr" without a hint. */
  currencyCertain: boolean;
  role: PriceRole;
  /** The mention as written, e.g. "£1,299.99". */
  text: string;
  start: number;
  end: number;
}

export type DecimalSeparator = '.' | ',';

export interface PriceTextOptions {
  /** ISO 4217 code to use when the text has no currency or an ambiguous sign such as "$". */
  currencyHint?: string | null;
  /**
   * BCP-47 tag of the page ("de-DE", "es-CL", "en-IN", "pt-BR", "de"): its decimal separator
   * reads "23.450" / "23,450", and its country settles "$", "kr", "¥" when no hint does.
   */
  locale?: string | null;
  /** The decimal separator, when the caller knows it: wins over the locale, currency and every guess. */
  decimalSeparator?: DecimalSeparator | null;
}
