/** Check health on the Products screen: how each shop's checks went lately, in words. */

import type { HostHealth } from '../../../api/check-health/routes';
import { formatTimeOrDay } from './format';

export type { HostHealth };

const FAILURE_WORDS: Record<string, string> = {
  blocked: 'turned away by bot protection or a rate limit',
  'bot-protection': 'turned away by bot protection or a rate limit',
  timeout: 'no answer in time',
  dns: 'address not found',
  'blocked-address': 'private network address',
  'http-status': 'refused or missing page',
  'too-large': 'page too large',
  'page-too-deep': 'page nested too deeply',
  'too-many-redirects': 'too many redirects',
  'bad-url': 'link not valid',
  network: 'connection problem',
  'not-html': 'not a web page',
  'no-price': 'no price on the page',
  'no-price-in-text': 'no price in the selected text',
  'selector-no-match': 'selector matched nothing',
  'invalid-selector': 'selector not valid',
  ambiguous: 'several prices, none clearly the one',
  interrupted: 'check interrupted',
  'needs-browser': 'needs a browser on the server',
  'browser-failed': 'browser could not render the page',
};

/** A failure code in words a shop owner reads ('blocked' → 'turned away by bot protection or a rate limit'). */
export function failureWords(code: string): string {
  return FAILURE_WORDS[code] ?? code.replace(/-/g, ' ');
}

/** '3 turned away by bot protection or a rate limit, 1 no answer in time', most frequent first. */
export function failureSummary(failures: Record<string, number>): string {
  return Object.entries(failures)
    .filter(([, n]) => n > 0)
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1))
    .map(([code, n]) => `${n} ${failureWords(code)}`)
    .join(', ');
}

/** '75%' of checks that found a price; a dash without checks. */
export function successRate(host: Pick<HostHealth, 'checks' | 'successes'>): string {
  if (host.checks <= 0) return '–';
  return `${Math.round((host.successes / host.checks) * 100)}%`;
}

/** 'Paused until 14:30' (the user's time zone), with the day when it is not today; null when not paused. */
export function pausedLabel(until: string | null, now: Date = new Date()): string | null {
  if (!until) return null;
  const date = new Date(until);
  if (Number.isNaN(date.getTime()) || date <= now) return null;
  return `Paused until ${formatTimeOrDay(date, now)}`;
}

/** Hosts with a problem: any failure in the window, or paused now. */
export const hasTrouble = (hosts: readonly HostHealth[]) => hosts.some((h) => h.backedOffUntil !== null || Object.values(h.failures).some((n) => n > 0));
