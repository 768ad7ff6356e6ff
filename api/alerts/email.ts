import { formatMoney, formatSignedMoney } from '../../domain/money.ts';
import { alertColour, alertLabel, alertSubjectName, gapText, isPositionAlert, TONE_COLOURS } from '../../domain/alerts.ts';
import type { EventData } from '../../events/catalogue.ts';

/**
 * The e-mails' words: a price alert (one or several alerts of one user) and the weekly report,
 * each as plain text and HTML. Links are absolute: the product's page and the app's own pages.
 */

/** An alert as e-mails tell it: what was raised, as the log holds it. */
export type AlertMail = EventData<'AlertRaised'>;

export type ComposedMail = { subject: string; text: string; html: string };

const isStock = (a: AlertMail) => a.type === 'out_of_stock' || a.type === 'back_in_stock';
const isPrice = (a: AlertMail) => !isStock(a) && !isPositionAlert(a.type);
const price = (n: number | null, currency: string | null) => (n === null ? 'unknown' : formatMoney(n, currency));

/** '+5.0%', '-10.0%'. */
export function signedPercent(n: number): string {
  const rounded = Number(n.toFixed(1));
  return `${rounded > 0 ? '+' : ''}${rounded.toFixed(1)}%`;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The change between the two prices, or null when a stock alert lacks one of them. */
function change(a: AlertMail): string | null {
  if (a.currentPrice === null || a.previousPrice === null) return null;
  const percent = a.changePercent === null ? '' : `${signedPercent(a.changePercent)} `;
  return `${percent}(${formatSignedMoney(a.currentPrice - a.previousPrice, a.currency)})`;
}

/** The figures an alert's card lists; a stock alert lists the prices it knows; undercut and cheapest both sides and the gap. */
function figures(a: AlertMail): [label: string, value: string][] {
  if (a.standing) {
    return [
      ['Your price', price(a.standing.ownPrice, a.currency)],
      [a.standing.competitorName, price(a.standing.competitorPrice, a.currency)],
      ['Gap', gapText(a.standing, a.currency)],
    ];
  }
  if (!isStock(a))
    return [
      ['Previous price', price(a.previousPrice, a.currency)],
      ['Current price', price(a.currentPrice, a.currency)],
      ['Change', change(a) ?? '—'],
    ];
  const rows: [string, string][] = [];
  if (a.previousPrice !== null) rows.push(['Last known price', price(a.previousPrice, a.currency)]);
  if (a.currentPrice !== null) rows.push(['Price on the page', price(a.currentPrice, a.currency)]);
  return rows;
}

function alertSubject(alerts: readonly AlertMail[]): string {
  const [first] = alerts;
  if (alerts.length === 1 && first?.type === 'out_of_stock') return `Out of stock: ${first.productName}`;
  if (alerts.length === 1 && first?.type === 'back_in_stock') {
    return `Back in stock: ${first.productName}${first.currentPrice === null ? '' : ` at ${formatMoney(first.currentPrice, first.currency)}`}`;
  }
  if (alerts.length === 1 && first?.standing) {
    const s = first.standing;
    return first.type === 'undercut'
      ? `Undercut: ${s.competitorName} is at ${formatMoney(s.competitorPrice, first.currency)} for your ${s.ownTitle}`
      : `You're the cheapest for ${s.ownTitle} again`;
  }
  if (alerts.length === 1 && first && first.currentPrice !== null && first.changePercent !== null) {
    const what = first.type === 'price_increase' ? 'Price increase' : first.type === 'threshold_met' ? 'Price alert' : 'Price drop';
    return `${what}: ${first.productName} is now ${formatMoney(first.currentPrice, first.currency)} (${signedPercent(first.changePercent)})`;
  }
  const names = [...new Set(alerts.map(alertSubjectName))];
  return `${alerts.length} ${alerts.every(isPrice) ? 'price alerts' : 'alerts'}: ${names[0]}${names.length > 1 ? ` and ${names.length - 1} more` : ''}`;
}

function introOf(sorted: readonly AlertMail[]): string {
  if (sorted.length === 1) {
    switch (sorted[0]!.type) {
      case 'out_of_stock':
        return 'A product you monitor has gone out of stock.';
      case 'back_in_stock':
        return 'A product you monitor is back in stock.';
      case 'undercut':
        return 'A competitor went below your price.';
      case 'cheapest':
        return "You're the cheapest again.";
      default:
        return 'A price you monitor has changed.';
    }
  }
  return sorted.every(isPrice) ? `${sorted.length} prices you monitor have changed.` : `${sorted.length} products you monitor have changed.`;
}

function layout(title: string, body: string, footer: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title></head>
<body style="margin:0;padding:24px;background:#f4f4f5;font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;color:#18181b">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="max-width:560px;margin:0 auto;background:#ffffff;border-radius:8px;padding:24px">
<tr><td>
<p style="margin:0 0 16px;font-size:14px;font-weight:600;color:#2563eb">Pricewatch</p>
${body}
<p style="margin:24px 0 0;font-size:12px;color:#71717a">${footer}</p>
</td></tr></table></body></html>`;
}

function button(href: string, label: string): string {
  return `<a href="${escapeHtml(href)}" style="display:inline-block;background:#2563eb;color:#ffffff;text-decoration:none;padding:10px 16px;border-radius:6px;font-size:14px;font-weight:600">${escapeHtml(label)}</a>`;
}

/** One e-mail for the alerts of one user, oldest first. */
export function composeAlertEmail(alerts: readonly AlertMail[], publicUrl: string): ComposedMail {
  const sorted = [...alerts].sort((a, b) => a.trigger.position - b.trigger.position);
  const alertsUrl = `${publicUrl}/alerts`,
    settingsUrl = `${publicUrl}/settings`;
  const intro = introOf(sorted);

  const text = [
    intro,
    '',
    ...sorted.flatMap((a) => [
      `${alertSubjectName(a)} (${alertLabel(a.type)})`,
      `  ${a.message}`,
      ...[...figures(a), [a.standing ? 'Their page' : 'Product page', a.productUrl] as [string, string]].map(
        ([label, value]) => `  ${`${label}: `.padEnd(16)}${value}`,
      ),
      '',
    ]),
    `See all your alerts: ${alertsUrl}`,
    '',
    `You receive these e-mails because e-mail notifications are on. Change that in your settings: ${settingsUrl}`,
  ].join('\n');

  const cards = sorted
    .map(
      (a) => `
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border:1px solid #e4e4e7;border-radius:6px;margin:0 0 12px">
<tr><td style="padding:16px">
<p style="margin:0 0 4px"><span style="display:inline-block;font-size:12px;font-weight:600;color:${alertColour(a.type)}">${escapeHtml(alertLabel(a.type))}</span></p>
<p style="margin:0 0 8px;font-size:16px;font-weight:600">${escapeHtml(alertSubjectName(a))}</p>
<p style="margin:0 0 12px;font-size:14px;color:#52525b">${escapeHtml(a.message)}</p>
<table role="presentation" cellpadding="0" cellspacing="0" style="font-size:14px;margin:0 0 12px">
${figures(a)
  .map(
    ([label, value]) =>
      `<tr><td style="padding:2px 16px 2px 0;color:#71717a">${escapeHtml(label)}</td><td style="font-weight:600${label === 'Change' ? `;color:${(a.changePercent ?? 0) < 0 ? TONE_COLOURS.good : TONE_COLOURS.bad}` : ''}">${escapeHtml(value)}</td></tr>`,
  )
  .join('\n')}
</table>
<a href="${escapeHtml(a.productUrl)}" style="font-size:14px;color:#2563eb">${a.standing ? `View ${escapeHtml(a.standing.competitorName)}’s page` : 'View product page'}</a>
</td></tr></table>`,
    )
    .join('');

  const html = layout(
    alertSubject(sorted),
    `
<p style="margin:0 0 16px;font-size:16px">${escapeHtml(intro)}</p>
${cards}
<p style="margin:16px 0 0">${button(alertsUrl, 'See all alerts')}</p>`,
    `You receive these e-mails because e-mail notifications are on. <a href="${escapeHtml(settingsUrl)}" style="color:#71717a">Change your settings</a>.`,
  );

  return { subject: alertSubject(sorted), text, html };
}

// ---------------------------------------------------------------------------------------------

/** A week of one user's products, computed when the report is queued. */
export type WeeklyReport = {
  /** The local date of the Monday the report is for (YYYY-MM-DD). */
  weekOf: string;
  products: {
    name: string;
    url: string;
    currency: string | null;
    /** The price at the start of the week (or the first one seen in it) and now; null without prices. */
    startPrice: number | null;
    endPrice: number | null;
    low: number | null;
    high: number | null;
    changes: number;
  }[];
};

export function composeWeeklyEmail(report: WeeklyReport, publicUrl: string): ComposedMail {
  const historyUrl = `${publicUrl}/price-history`,
    settingsUrl = `${publicUrl}/settings`;
  const subject = `Your weekly price report, week of ${formatDay(report.weekOf)}`;
  const moved = report.products.filter((p) => p.changes > 0).length;
  const intro =
    report.products.length === 0
      ? 'You are not monitoring any products yet.'
      : `${moved} of your ${report.products.length} product${report.products.length === 1 ? '' : 's'} changed price in the last 7 days.`;
  const rows = [...report.products]
    .sort((a, b) => b.changes - a.changes || a.name.localeCompare(b.name))
    .map((p) => {
      const price = (n: number | null) => (n === null ? '—' : formatMoney(n, p.currency));
      // No percent from a price of 0; a fall to 0 is -100%.
      const pct = p.startPrice && p.endPrice !== null ? signedPercent(((p.endPrice - p.startPrice) / p.startPrice) * 100) : '—';
      const changes = `${p.changes} change${p.changes === 1 ? '' : 's'}`;
      return { p, price, pct, changes };
    });

  const text = [
    intro,
    '',
    ...rows.flatMap(({ p, price, pct, changes }) => [
      p.name,
      `  ${price(p.startPrice)} -> ${price(p.endPrice)} (${pct}), ${changes}; low ${price(p.low)}, high ${price(p.high)}`,
      `  ${p.url}`,
      '',
    ]),
    `Price history: ${historyUrl}`,
    '',
    `You receive this report because weekly reports are on. Change that in your settings: ${settingsUrl}`,
  ].join('\n');

  const cell = 'padding:8px 8px 8px 0;border-bottom:1px solid #e4e4e7;font-size:14px';
  const table = rows.length
    ? `
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="margin:0 0 16px">
<tr><th align="left" style="${cell};color:#71717a">Product</th><th align="right" style="${cell};color:#71717a">Start</th><th align="right" style="${cell};color:#71717a">Now</th><th align="right" style="${cell};color:#71717a">Change</th><th align="right" style="${cell};color:#71717a">Changes</th></tr>
${rows.map(({ p, price, pct }) => `<tr><td style="${cell}"><a href="${escapeHtml(p.url)}" style="color:#18181b">${escapeHtml(p.name)}</a></td><td align="right" style="${cell}">${escapeHtml(price(p.startPrice))}</td><td align="right" style="${cell}">${escapeHtml(price(p.endPrice))}</td><td align="right" style="${cell}">${pct}</td><td align="right" style="${cell}">${p.changes}</td></tr>`).join('\n')}
</table>`
    : '';

  const html = layout(
    subject,
    `
<p style="margin:0 0 16px;font-size:16px">${escapeHtml(intro)}</p>
${table}
<p style="margin:16px 0 0">${button(historyUrl, 'See price history')}</p>`,
    `You receive this report because weekly reports are on. <a href="${escapeHtml(settingsUrl)}" style="color:#71717a">Change your settings</a>.`,
  );
  return { subject, text, html };
}

function formatDay(date: string): string {
  return new Date(`${date}T12:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
}

export type NoticeMail = EventData<'NoticeRaised'>;

/** A notice about the account (an alert channel turned off): sent whatever the alert e-mail setting, since it says why alerts stopped. */
export function composeNoticeEmail(notice: NoticeMail, publicUrl: string): ComposedMail {
  const link = `${publicUrl}${notice.link}`;
  const text = [notice.message, '', `Open your settings: ${link}`].join('\n');
  const html = layout(
    notice.title,
    `
<p style="margin:0 0 16px;font-size:16px;font-weight:600">${escapeHtml(notice.title)}</p>
<p style="margin:0 0 16px;font-size:14px">${escapeHtml(notice.message)}</p>
<p style="margin:16px 0 0">${button(link, 'Open notification settings')}</p>`,
    'You receive this e-mail because it concerns how your alerts reach you.',
  );
  return { subject: notice.title, text, html };
}
