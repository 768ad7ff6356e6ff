/**
 * Money as every place shows it (the app, e-mails, channel messages, check answers): English
 * style with the currency's own decimals and sign, '£1,299.99', 'JP¥1,280', 'KWD 1.234'. A code
 * Intl does not know is written out after the amount, '5.00 XYZ1', never shown as another currency.
 */
const formats = new Map<string, Intl.NumberFormat | null>();

function currencyFormat(code: string): Intl.NumberFormat | null {
  let format = formats.get(code);
  if (format === undefined) {
    try {
      format = new Intl.NumberFormat('en-GB', { style: 'currency', currency: code });
    } catch {
      format = null;
    }
    formats.set(code, format);
  }
  return format;
}

/** An amount in its currency (an ISO 4217 code; pounds when the shop's currency is unknown). */
export function formatMoney(amount: number, currency: string | null = 'GBP'): string {
  const code = (currency ?? 'GBP').toUpperCase();
  return currencyFormat(code)?.format(amount) ?? `${amount.toFixed(2)} ${code}`;
}

/** '-£2.00', '+£1.50': a difference of two prices. */
export function formatSignedMoney(amount: number, currency: string | null): string {
  const sign = amount > 0 ? '+' : amount < 0 ? '-' : '';
  return `${sign}${formatMoney(Math.abs(amount), currency)}`;
}

/** The sign prices in this currency are shown with: '£', '€', 'US$'; the code when Intl has none. */
export function currencySymbol(currency: string): string {
  const code = currency.toUpperCase();
  return (
    currencyFormat(code)
      ?.formatToParts(0)
      .find((part) => part.type === 'currency')?.value ?? code
  );
}

/** How many decimals the currency's prices have: 2 for pounds, 0 for yen, 3 for Kuwaiti dinars (2 for a code Intl does not know). */
export function currencyDecimals(currency: string): number {
  return currencyFormat(currency.toUpperCase())?.resolvedOptions().maximumFractionDigits ?? 2;
}
