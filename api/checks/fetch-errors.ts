// Why a page could not be fetched: a machine code for the worker and the event log,
// and a sentence a shop owner can act on.

export type FetchFailureCode =
  | 'timeout'
  | 'dns'
  | 'blocked-address'
  | 'bot-protection'
  | 'http-status'
  | 'too-large'
  | 'too-many-redirects'
  | 'bad-url'
  | 'network'
  | 'not-html';

export type FetchFailure = { ok: false; code: FetchFailureCode; reason: string; status?: number };

/** Thrown inside the fetcher and turned into a FetchFailure at its edge. */
export class FetchError extends Error {
  constructor(
    readonly failure: FetchFailure,
    readonly retryable = false,
  ) {
    super(failure.reason);
  }
}

function failure(code: FetchFailureCode, reason: string, status?: number): FetchFailure {
  return status === undefined ? { ok: false, code, reason } : { ok: false, code, reason, status };
}

const seconds = (ms: number) => {
  const value = Math.round(ms / 100) / 10;
  return `${value} second${value === 1 ? '' : 's'}`;
};
const megabytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

export const failures = {
  timeout: (ms: number) => failure('timeout', `The shop did not answer within ${seconds(ms)}.`),
  connectTimeout: (ms: number) =>
    failure('timeout', `The shop's server could not be reached within ${seconds(ms)}.`),
  dns: (host: string) =>
    failure(
      'dns',
      `The address ${host} could not be found. Check the product link for typos, or whether the shop has moved.`,
    ),
  blockedAddress: (host: string) =>
    failure(
      'blocked-address',
      `${host} leads to a private or internal network address, which Pricewatch does not visit for safety reasons.`,
    ),
  botProtection: (vendor: string | null, status: number) =>
    failure(
      'bot-protection',
      `The shop's bot protection${vendor ? ` (${vendor})` : ''} blocked the automatic check. Update the price manually, or try again later.`,
      status,
    ),
  httpStatus: (status: number) => failure('http-status', httpStatusReason(status), status),
  tooLarge: (maxBytes: number) =>
    failure('too-large', `The page is larger than ${megabytes(maxBytes)}, so Pricewatch stopped downloading it.`),
  tooManyRedirects: (max: number) =>
    failure(
      'too-many-redirects',
      `The page redirected more than ${max} times. Open the link in a browser and use the address it finally shows.`,
    ),
  badUrl: (reason: string) => failure('bad-url', reason),
  network: (reason: string) => failure('network', reason),
  notHtml: (contentType: string) =>
    failure(
      'not-html',
      `The link leads to a file of type ${contentType}, not a web page. Use the address of the product page.`,
    ),
};

function httpStatusReason(status: number): string {
  if (status === 404 || status === 410)
    return `The shop says this page does not exist (HTTP ${status}). The product may have been removed or its link changed.`;
  if (status === 401 || status === 403) return `The shop refused access to this page (HTTP ${status}).`;
  if (status === 429) return `The shop asked Pricewatch to slow down (HTTP 429). The next check will try again.`;
  if (status >= 500) return `The shop's server had a problem (HTTP ${status}). The next check will try again.`;
  return `The shop answered with an unexpected status (HTTP ${status}).`;
}

const RETRYABLE_NETWORK_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
]);

/** Turns anything thrown while fetching into a failure, and tells whether another attempt may help. */
export function describeError(error: unknown): { failure: FetchFailure; retryable: boolean } {
  if (error instanceof FetchError) return { failure: error.failure, retryable: error.retryable };
  const code = String((error as { code?: unknown })?.code ?? '');
  return { failure: failures.network(networkReason(code, error)), retryable: RETRYABLE_NETWORK_CODES.has(code) };
}

function networkReason(code: string, error: unknown): string {
  if (code === 'ECONNREFUSED') return "The shop's server refused the connection.";
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNABORTED')
    return 'The shop closed the connection before sending the page.';
  if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return "The shop's server cannot be reached from Pricewatch.";
  if (/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code))
    return `The shop's security certificate is not valid (${code}), so the page cannot be checked safely.`;
  if (code.startsWith('Z_') || code === 'ERR_ZLIB' || /zlib|decompress|incorrect header/i.test(String(error)))
    return 'The shop sent a damaged compressed page.';
  const detail = code || (error instanceof Error ? error.message : String(error));
  return `Pricewatch could not download the page (${detail}).`;
}

// Bot protection: told apart from other refusals so the owner knows a retry or a
// different selector will not help, and so the last good price is kept.

type Headers = Record<string, string | string[] | undefined>;

const VENDOR_HEADERS: Array<[vendor: string, matches: (headers: Headers) => boolean]> = [
  ['Cloudflare', (h) => h['cf-mitigated'] !== undefined],
  ['DataDome', (h) => h['x-datadome'] !== undefined || h['x-dd-b'] !== undefined],
  ['Imperva', (h) => h['x-iinfo'] !== undefined],
];

const VENDOR_BODIES: Array<[vendor: string, pattern: RegExp]> = [
  [
    'Cloudflare',
    /<title>\s*(Just a moment\.\.\.|Attention Required! \| Cloudflare)|cf-browser-verification|cf_chl_opt|\/cdn-cgi\/challenge-platform\/h\//i,
  ],
  ['Akamai', /Access Denied[\s\S]{0,600}Reference #\d+\.[0-9a-f]+|errors\.edgesuite\.net/i],
  ['PerimeterX', /px-captcha|_pxCaptcha|perimeterx|Access to this page has been denied/i],
  ['DataDome', /captcha-delivery\.com|datadome/i],
  ['Imperva', /_Incapsula_Resource|Incapsula incident ID/i],
];

const GENERIC_CHALLENGE = /g-recaptcha|hcaptcha|cf-turnstile|captcha|are you a (human|robot)|verify you are (a )?human/i;

// On a normal page only a challenge's own title counts: ordinary product pages often load
// the protection vendor's scripts, or mention a captcha in a login form.
const CHALLENGE_TITLE =
  /<title>\s*(Just a moment\.\.\.|Attention Required! \| Cloudflare|Access to this page has been denied|Pardon Our Interruption|Robot or human\?)/i;

/**
 * Names the bot protection that answered instead of the shop, or returns
 * undefined when the answer is not a challenge. `null` means a challenge of unknown origin.
 */
export function detectBotChallenge(status: number, headers: Headers, bodySample: string): string | null | undefined {
  const mitigated = headers['cf-mitigated'];
  if (mitigated !== undefined && String(mitigated).toLowerCase().includes('challenge')) return 'Cloudflare';
  if (status < 400) {
    if (!CHALLENGE_TITLE.test(bodySample)) return undefined;
    return VENDOR_BODIES.find(([, pattern]) => pattern.test(bodySample))?.[0] ?? null;
  }
  const byBody = VENDOR_BODIES.find(([, pattern]) => pattern.test(bodySample))?.[0];
  if (byBody) return byBody;
  const byHeader = VENDOR_HEADERS.find(([, matches]) => matches(headers))?.[0];
  if (byHeader && (status === 403 || status === 429 || status === 503)) return byHeader;
  if (GENERIC_CHALLENGE.test(bodySample)) return byHeader ?? null;
  return undefined;
}
