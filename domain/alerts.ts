import { formatMoney } from './money.ts';

/**
 * What an alert is called and how it is coloured, in the app, the e-mails and the channel
 * messages alike: one table, so a shop owner sees the same words and colours everywhere.
 */
export const PRICE_ALERT_TYPES = ['price_drop', 'price_increase', 'threshold_met'] as const;
export const STOCK_ALERT_TYPES = ['out_of_stock', 'back_in_stock'] as const;
/** The shop owner's own product against the competitors linked to it. */
export const POSITION_ALERT_TYPES = ['undercut', 'cheapest'] as const;
export const ALERT_TYPES = [...PRICE_ALERT_TYPES, ...STOCK_ALERT_TYPES, ...POSITION_ALERT_TYPES] as const;
export type AlertType = (typeof ALERT_TYPES)[number];

/** Good news for the shop owner's buying (a drop, back in stock), bad news, a rule met, anything else. */
export type Tone = 'good' | 'bad' | 'warning' | 'neutral';

/** Each tone's colour where a hex value is needed (e-mails, Slack, Discord); the app uses its theme's. */
export const TONE_COLOURS: Record<Tone, `#${string}`> = { good: '#16a34a', bad: '#dc2626', warning: '#ea580c', neutral: '#71717a' };

const KINDS: Record<string, { label: string; tone: Tone }> = {
  price_drop: { label: 'Price Drop', tone: 'good' },
  price_increase: { label: 'Price Increase', tone: 'bad' },
  threshold_met: { label: 'Threshold Met', tone: 'warning' },
  out_of_stock: { label: 'Out of Stock', tone: 'bad' },
  back_in_stock: { label: 'Back in Stock', tone: 'good' },
  // Told from the seller's side: a competitor below the owner is bad news for their sales.
  undercut: { label: 'Undercut', tone: 'bad' },
  cheapest: { label: "You're cheapest", tone: 'good' },
  // A notice about the account rather than a product.
  channel_disabled: { label: 'Channel Off', tone: 'neutral' },
};

/** 'Price Drop', 'Out of Stock'; 'Alert' for a type this version does not know. */
export const alertLabel = (type: string): string => KINDS[type]?.label ?? 'Alert';
export const alertTone = (type: string): Tone => KINDS[type]?.tone ?? 'neutral';
export const alertColour = (type: string) => TONE_COLOURS[alertTone(type)];

/**
 * An alert whose price was seen longer ago than this is not sent by e-mail or to channels: news
 * that old helps nobody, and it keeps a log that predates sending (or a long outage) from flooding
 * inboxes. The alert still shows in the app.
 */
export const NEWS_MAX_AGE_MS = 24 * 3_600_000;

export const isPositionAlert = (type: string) => (POSITION_ALERT_TYPES as readonly string[]).includes(type);

/** What an alert is about, in e-mails and channel messages: the product, or for undercut and cheapest the owner's own product. */
export const alertSubjectName = (a: { productName: string; standing: { ownTitle: string } | null }) => a.standing?.ownTitle ?? a.productName;

/**
 * What an undercut or cheapest alert measures (AlertRaised's `standing`): the owner's product
 * against one competitor, in the alert's currency. `gap` is the owner's price minus the
 * competitor's (positive when undercut); `gapPercent` is that gap against the competitor's
 * price, null when it is 0.
 */
export type Standing = {
  ownProductId: string;
  ownTitle: string;
  ownPrice: number;
  competitorName: string;
  competitorHost: string;
  competitorPrice: number;
  gap: number;
  gapPercent: number | null;
};

export function standingOf(own: { ownProductId: string; title: string; price: number }, competitor: { name: string; host: string; price: number }): Standing {
  const gap = Math.round((own.price - competitor.price) * 1_000_000) / 1_000_000;
  return {
    ownProductId: own.ownProductId,
    ownTitle: own.title,
    ownPrice: own.price,
    competitorName: competitor.name,
    competitorHost: competitor.host,
    competitorPrice: competitor.price,
    gap,
    gapPercent: competitor.price > 0 ? Math.round((gap / competitor.price) * 1_000_000) / 10_000 : null,
  };
}

/** '£4.00, 4.2% below you', '£2.00, 2.0% above you', 'the same price'. */
export function gapText(s: Standing, currency: string | null): string {
  if (s.gap === 0) return 'the same price';
  const percent = s.gapPercent === null ? '' : `, ${Math.abs(s.gapPercent).toFixed(1)}%`;
  return `${formatMoney(Math.abs(s.gap), currency)}${percent} ${s.gap > 0 ? 'below' : 'above'} you`;
}

/** 'Acme (acme.example)', or the name alone when the page's host is unknown. */
export const competitorLabel = (s: Standing) => (s.competitorHost ? `${s.competitorName} (${s.competitorHost})` : s.competitorName);

/**
 * The sentence of an undercut or cheapest alert. A cheapest alert names the cheapest competitor
 * that counts; when none does because the one undercutting went out of stock, it says that.
 */
export function standingMessage(
  type: (typeof POSITION_ALERT_TYPES)[number],
  s: Standing,
  currency: string | null,
  opts: { outOfStock?: boolean } = {},
): string {
  const own = formatMoney(s.ownPrice, currency),
    theirs = formatMoney(s.competitorPrice, currency);
  if (type === 'undercut') return `${competitorLabel(s)} undercut your ${s.ownTitle}: ${theirs} against your ${own} (${gapText(s, currency)}).`;
  const where = opts.outOfStock ? 'is out of stock' : `is at ${theirs}`;
  return `You're the cheapest for ${s.ownTitle} again: ${own}, ${s.competitorName} ${where}.`;
}
