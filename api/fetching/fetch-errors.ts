import { failures, FetchError, type FetchFailure } from '../../domain/check-failures.ts';

const RETRYABLE_NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN']);

/** Turns anything thrown while fetching into a failure, and tells whether another attempt may help. */
export function describeError(error: unknown): { failure: FetchFailure; retryable: boolean } {
  if (error instanceof FetchError) return { failure: error.failure, retryable: error.retryable };
  const code = String((error as { code?: unknown })?.code ?? '');
  return { failure: failures.network(networkReason(code, error)), retryable: RETRYABLE_NETWORK_CODES.has(code) };
}

function networkReason(code: string, error: unknown): string {
  if (code === 'ECONNREFUSED') return "The shop's server refused the connection.";
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNABORTED') return 'The shop closed the connection before sending the page.';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return "The shop's server cannot be reached from Pricewatch.";
  if (/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code))
    return `The shop's security certificate is not valid (${code}), so the page cannot be checked safely.`;
  if (code.startsWith('Z_') || code === 'ERR_ZLIB' || /zlib|decompress|incorrect header/i.test(String(error)))
    return 'The shop sent a damaged compressed page.';
  const detail = code || (error instanceof Error ? error.message : String(error));
  return `Pricewatch could not download the page (${detail}).`;
}

/** Retry-After in milliseconds (seconds or an HTTP date), or null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return null;
  if (/^\s*\d+\s*$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

// Bot protection: told apart from other refusals so the owner knows a retry or a
// different selector will not help, and so the last good price is kept.
//
// A vendor's headers, cookies and scripts are on ordinary pages of the shops it protects too,
// so they only name the vendor of a refusal (401, 403, 405, 429, 503). A successful status
// counts as a challenge only by the challenge's own title or a header that says "challenge".

type Headers = Record<string, string | string[] | undefined>;

type Vendor = {
  name: string;
  /** A header that only a challenge or a block carries, whatever the status. */
  challengeHeader?: (h: Headers) => boolean;
  /** Headers the vendor adds to every answer it serves. */
  header?: (h: Headers) => boolean;
  /** Cookies the vendor sets (names only). */
  cookie?: RegExp;
  body?: RegExp;
};

const text = (value: string | string[] | undefined) => (value === undefined ? '' : Array.isArray(value) ? value.join(',') : value).toLowerCase();
const hasHeaderPrefix = (h: Headers, prefix: string) => Object.keys(h).some((k) => k.toLowerCase().startsWith(prefix));

const VENDORS: readonly Vendor[] = [
  {
    name: 'Cloudflare',
    challengeHeader: (h) => text(h['cf-mitigated']).includes('challenge'),
    header: (h) => h['cf-mitigated'] !== undefined,
    cookie: /^(__cf_bm|cf_clearance|__cfruid)$/,
    body: /<title>\s*(Just a moment\.\.\.|Attention Required! \| Cloudflare)|cf-browser-verification|cf_chl_opt|\/cdn-cgi\/challenge-platform\/|Sorry, you have been blocked|used Cloudflare to restrict access/i,
  },
  {
    name: 'Akamai',
    header: (h) => h['akamai-grn'] !== undefined || hasHeaderPrefix(h, 'x-akamai-') || text(h.server) === 'akamaighost',
    cookie: /^(_abck|bm_sz|ak_bmsc|bm_sv)$/,
    // Its error pages write punctuation as entities: "Reference&#32;&#35;18&#46;5f2e1c17".
    body: /Access Denied[\s\S]{0,600}Reference(\s|&#32;)*(#|&#35;)(\s|&#32;)*\d+(\.|&#46;)[0-9a-f]+|errors(\.|&#46;)edgesuite(\.|&#46;)net/i,
  },
  {
    name: 'HUMAN (PerimeterX)',
    header: (h) => hasHeaderPrefix(h, 'x-px-'),
    cookie: /^_px(hd|vid|3|2|de|cc)?$/,
    body: /px-captcha|_pxCaptcha|_pxAppId|perimeterx|\/_px\/|Press &(amp;)? Hold|Access to this page has been denied/i,
  },
  {
    name: 'DataDome',
    header: (h) => h['x-datadome'] !== undefined || h['x-dd-b'] !== undefined || h['x-datadome-cid'] !== undefined,
    cookie: /^datadome$/i,
    body: /captcha-delivery\.com|datadome/i,
  },
  {
    name: 'Imperva',
    header: (h) => h['x-iinfo'] !== undefined || text(h['x-cdn']).includes('imperva') || text(h['x-cdn']).includes('incapsula'),
    cookie: /^(incap_ses_\d+_\d+|visid_incap_\d+|nlbi_\d+|reese84)$/,
    body: /_Incapsula_Resource|Incapsula incident ID|Request unsuccessful\. Incapsula/i,
  },
  {
    name: 'AWS WAF',
    challengeHeader: (h) => ['captcha', 'challenge'].includes(text(h['x-amzn-waf-action'])),
    body: /awswaf\.com|AwsWafIntegration/i,
  },
  {
    name: 'Vercel',
    challengeHeader: (h) => text(h['x-vercel-mitigated']).includes('challenge'),
    body: /Vercel Security Checkpoint/i,
  },
  { name: 'Kasada', header: (h) => hasHeaderPrefix(h, 'x-kpsdk-') },
];

// A 503 is as often an outage as a challenge: there only the page itself names the vendor.
const REFUSALS = new Set([401, 403, 405, 429, 503]);
const REFUSALS_BY_HEADER = new Set([401, 403, 405, 429]);

const GENERIC_CHALLENGE = /g-recaptcha|hcaptcha|cf-turnstile|captcha|are you a (human|robot)|verify you are (a )?human/i;

// On a normal page only a challenge's own title counts: ordinary product pages often load
// the protection vendor's scripts, or mention a captcha in a login form.
const CHALLENGE_TITLE =
  /<title>\s*(Just a moment\.\.\.|Attention Required! \| Cloudflare|Access to this page has been denied|Pardon Our Interruption|Robot or human\?|Vercel Security Checkpoint)/i;

function cookieNames(headers: Headers): string[] {
  const lines = headers['set-cookie'];
  return (Array.isArray(lines) ? lines : lines ? [lines] : []).map((line) => line.split('=', 1)[0]!.trim());
}

/**
 * Names the bot protection that answered instead of the shop, or returns
 * undefined when the answer is not a challenge. `null` means a challenge of unknown origin.
 */
export function detectBotChallenge(status: number, headers: Headers, bodySample: string): string | null | undefined {
  const lower: Headers = {};
  for (const [k, v] of Object.entries(headers)) lower[k.toLowerCase()] = v;
  const byChallengeHeader = VENDORS.find((v) => v.challengeHeader?.(lower));
  if (byChallengeHeader) return byChallengeHeader.name;
  const titled = CHALLENGE_TITLE.test(bodySample);
  // The common answer, a page with its own title and status: the vendors' body patterns are not run.
  if (!titled && !REFUSALS.has(status)) return undefined;
  const byBody = VENDORS.find((v) => v.body?.test(bodySample))?.name;
  if (titled) return byBody ?? null;
  if (byBody) return byBody;
  if (!REFUSALS_BY_HEADER.has(status)) return GENERIC_CHALLENGE.test(bodySample) ? null : undefined;
  const cookies = cookieNames(lower);
  const byHeader = VENDORS.find((v) => v.header?.(lower) || (v.cookie && cookies.some((c) => v.cookie!.test(c))))?.name;
  if (byHeader) return byHeader;
  if (GENERIC_CHALLENGE.test(bodySample)) return null;
  return undefined;
}
