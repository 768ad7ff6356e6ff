/**
 * What an alert is called and how it is coloured, in the app, the e-mails and the channel
 * messages alike: one table, so a shop owner sees the same words and colours everywhere.
 */
export const PRICE_ALERT_TYPES = ['price_drop', 'price_increase', 'threshold_met'] as const;
export const STOCK_ALERT_TYPES = ['out_of_stock', 'back_in_stock'] as const;
export const ALERT_TYPES = [...PRICE_ALERT_TYPES, ...STOCK_ALERT_TYPES] as const;
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
