// Why a page could not be fetched or read: a machine code for the worker, the event log and
// the check health read model, and a sentence a shop owner can act on.

export type FetchFailureCode =
  | 'timeout'
  | 'dns'
  | 'blocked-address'
  | 'blocked'
  | 'http-status'
  | 'too-large'
  | 'too-many-redirects'
  | 'bad-url'
  | 'network'
  | 'not-html'
  | 'page-too-deep';

/** `retryAfterMs`: how long a shop that turned the check away asked us to wait (Retry-After). */
export type FetchFailure = { ok: false; code: FetchFailureCode; reason: string; status?: number; retryAfterMs?: number };

/** Events recorded before bot walls and rate limits were one code carry the old name. */
export const LEGACY_BLOCKED_CODES: readonly string[] = ['bot-protection'];
/** The code of a failure, with old names read as today's. */
export const normaliseFailureCode = (code: string) => (LEGACY_BLOCKED_CODES.includes(code) ? 'blocked' : code);

/** Thrown inside the fetcher and turned into a FetchFailure at its edge. */
export class FetchError extends Error {
  constructor(
    readonly failure: FetchFailure,
    readonly retryable = false,
  ) {
    super(failure.reason);
  }
}

function failure(code: FetchFailureCode, reason: string, status?: number, retryAfterMs?: number | null): FetchFailure {
  const f: FetchFailure = status === undefined ? { ok: false, code, reason } : { ok: false, code, reason, status };
  if (retryAfterMs !== undefined && retryAfterMs !== null) f.retryAfterMs = retryAfterMs;
  return f;
}

const TRY_LATER = 'Pricewatch will try again later; meanwhile you can update the price by hand.';

const seconds = (ms: number) => {
  const value = Math.round(ms / 100) / 10;
  return `${value} second${value === 1 ? '' : 's'}`;
};
const megabytes = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

export const failures = {
  timeout: (ms: number) => failure('timeout', `The shop did not answer within ${seconds(ms)}.`),
  connectTimeout: (ms: number) => failure('timeout', `The shop's server could not be reached within ${seconds(ms)}.`),
  dns: (host: string) => failure('dns', `The address ${host} could not be found. Check the product link for typos, or whether the shop has moved.`),
  blockedAddress: (host: string) =>
    failure('blocked-address', `${host} leads to a private or internal network address, which Pricewatch does not visit for safety reasons.`),
  botProtection: (vendor: string | null, status: number, retryAfterMs?: number | null) =>
    failure('blocked', `The shop's bot protection${vendor ? ` (${vendor})` : ''} turned the check away. ${TRY_LATER}`, status, retryAfterMs),
  rateLimited: (retryAfterMs?: number | null) => failure('blocked', `The shop asked us to slow down (HTTP 429). ${TRY_LATER}`, 429, retryAfterMs),
  httpStatus: (status: number) => failure('http-status', httpStatusReason(status), status),
  tooLarge: (maxBytes: number) => failure('too-large', `The page is larger than ${megabytes(maxBytes)}, so Pricewatch stopped downloading it.`),
  tooManyRedirects: (max: number) =>
    failure('too-many-redirects', `The page redirected more than ${max} times. Open the link in a browser and use the address it finally shows.`),
  badUrl: (reason: string) => failure('bad-url', reason),
  /** A redirect or a page's script went to chrome://, data:, about: and the like. */
  notAWebPage: (address: string) =>
    failure(
      'bad-url',
      `The page sent us on to ${address.length > 60 ? `${address.slice(0, 60)}…` : address}, which is not a web page, so Pricewatch did not open it.`,
    ),
  network: (reason: string) => failure('network', reason),
  notHtml: (contentType: string) =>
    failure('not-html', `The link leads to a file of type ${contentType}, not a web page. Use the address of the product page.`),
  pageTooDeep: (maxDepth: number) =>
    failure('page-too-deep', `The page is nested too deeply to be read safely (more than ${maxDepth.toLocaleString('en-GB')} levels of elements).`),
};

function httpStatusReason(status: number): string {
  if (status === 404 || status === 410)
    return `The shop says this page does not exist (HTTP ${status}). The product may have been removed or its link changed.`;
  if (status === 401 || status === 403) return `The shop refused the request (HTTP ${status}).`;
  if (status >= 500) return `The shop's server had a problem (HTTP ${status}). The next check will try again.`;
  return `The shop answered with an unexpected status (HTTP ${status}).`;
}
