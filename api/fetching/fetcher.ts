// Fetches competitor product pages politely and safely.
//
// Safety: every host is resolved here, every address is checked, and the connection is
// pinned to the checked addresses through the `lookup` option of node:http/node:https, so a
// DNS answer that changes between the check and the connect (rebinding) cannot slip through.
// Pinning through `lookup` keeps the hostname in the request, so https still sends SNI and
// verifies the certificate against the shop's name. Redirects are followed by hand and each
// hop goes through the same checks.

import dns from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import tls from 'node:tls';
import { describeError, detectBotChallenge, parseRetryAfter } from './fetch-errors.ts';
import { FetchError, failures, type FetchFailure } from '../../domain/check-failures.ts';
import { backoff } from '../../domain/backoff.ts';
import { hostnameOf, isBlockedAddress, isCloudMetadataAddress, parseAddress, validateTargetUrl, WEB_PORTS, webPortRefusal } from './address-guard.ts';
import { decodeText, ERROR_SAMPLE_BYTES, isRedirect, readAnswer, readResource, type Answer } from './answer-reading.ts';
import { createCookieJar, type CookieJar } from './cookie-jar.ts';
import { createHostLimiter } from './host-limiter.ts';

export type { FetchFailure, FetchFailureCode } from '../../domain/check-failures.ts';

export type FetchOptions = {
  /** Lift the private-address block (tests and the built-in demo shop only). */
  allowPrivate?: boolean;
  /** Limit for one request, from connecting to the last byte of the body. */
  timeoutMs?: number;
  connectTimeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  /** Further attempts after a network error, a 5xx or a 429. */
  retries?: number;
  userAgent?: string;
  /**
   * A data file (a store's JSON listing, a product feed) rather than a page: asked for as data,
   * and read whatever its content type, with the same guard, politeness, limits and failures.
   */
  data?: boolean;
};

export type FetchedPage = {
  ok: true;
  /** The address the page was finally served from, after redirects. */
  url: string;
  status: number;
  contentType: string | null;
  /** The answer's headers (a store's paging headers), lower-case names. */
  headers: Record<string, string>;
  /** The page's text, decoded with its charset when first read (a check of an unchanged page never reads it). */
  body: string;
  /** The page as it came, decompressed, when the fetch kept it. */
  raw?: Uint8Array;
  bytes: number;
  elapsedMs: number;
};

export type FetchResult = FetchedPage | FetchFailure;

export type ResolvedAddress = { address: string; family: 4 | 6 };

export type FetcherSettings = {
  /** Resolves a hostname to every address it has (default: the system resolver). */
  resolve?: (hostname: string) => Promise<ResolvedAddress[]>;
  /** Which addresses may be visited when `allowPrivate` is off (default: public ones). */
  isAllowedAddress?: (ip: string) => boolean;
  /** Ports a page's redirects and documents may use when `allowPrivate` is off (default: WEB_PORTS). */
  webPorts?: readonly number[];
  maxConcurrentPerHost?: number;
  /** Minimum time between the starts of two requests to the same host. */
  hostSpacingMs?: number;
  /** First retry waits this long, each further one twice as long. */
  retryBaseDelayMs?: number;
  /** A longer Retry-After is not waited for; the check fails instead. */
  maxRetryAfterMs?: number;
  /** Certificate authorities trusted in addition to the public ones (PEM). */
  extraCertificateAuthorities?: string[];
  /** Options applied to every call unless the call sets them. */
  defaults?: FetchOptions;
};

/**
 * Requests one shop gets at the same time. The fetcher holds it within a process; the check queue
 * holds it across every worker process (claimJobs counts a shop's pages being fetched).
 */
export const MAX_FETCHES_PER_HOST = 2;

const DEFAULT_USER_AGENT = `Mozilla/5.0 (compatible; Pricewatch/1.0${process.env.PUBLIC_URL ? `; +${process.env.PUBLIC_URL}` : ''})`;

const DEFAULT_OPTIONS: Required<FetchOptions> = {
  allowPrivate: false,
  timeoutMs: 15_000,
  connectTimeoutMs: 5_000,
  maxBytes: 3 * 1024 * 1024,
  maxRedirects: 5,
  retries: 2,
  userAgent: DEFAULT_USER_AGENT,
  data: false,
};

// ---------------------------------------------------------------------------------------
// The fetcher

export type Fetcher = {
  fetchPage(url: string, opts?: FetchOptions): Promise<FetchResult>;
  /** Any one request a rendered page makes, through the same address guard (see browser.ts). */
  fetchResource?(request: ResourceRequest, opts?: FetchOptions): Promise<ResourceResult>;
};

/**
 * A request made by a page in the browser: any method, its own headers. A `document` (the page
 * itself or a frame) is held to the web ports, as a page's address is; other requests only avoid
 * the bad ports, since the page's scripts choose them anyway.
 */
export type ResourceRequest = {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: Buffer | null;
  followRedirects?: boolean;
  document?: boolean;
};
export type FetchedResource = { ok: true; url: string; status: number; headers: Record<string, string>; body: Buffer };
export type ResourceResult = FetchedResource | FetchFailure;

export function createFetcher(settings: FetcherSettings = {}): Fetcher {
  const resolve = settings.resolve ?? resolveWithSystem;
  const isAllowedAddress = settings.isAllowedAddress ?? ((ip: string) => !isBlockedAddress(ip));
  const webPorts = settings.webPorts ?? WEB_PORTS;
  const limiter = createHostLimiter(settings.maxConcurrentPerHost ?? MAX_FETCHES_PER_HOST, settings.hostSpacingMs ?? 250);
  const retryBaseDelayMs = settings.retryBaseDelayMs ?? 500;
  const maxRetryAfterMs = settings.maxRetryAfterMs ?? 30_000;
  const ca = settings.extraCertificateAuthorities?.length ? [...tls.rootCertificates, ...settings.extraCertificateAuthorities] : undefined;
  const inFlight = new Map<string, Promise<FetchResult>>();

  function fetchPage(url: string, opts: FetchOptions = {}): Promise<FetchResult> {
    const options = withDefaults(opts, settings.defaults);
    const target = validateTargetUrl(url);
    if (!target.ok) return Promise.resolve(target);
    // Every product tracking this url in the same round is served by one request.
    const key = `${target.url.href} ${JSON.stringify(options)}`;
    const pending = inFlight.get(key);
    if (pending) return pending;
    const result = fetchFollowingRedirects(target.url, options).finally(() => inFlight.delete(key));
    inFlight.set(key, result);
    return result;
  }

  async function fetchFollowingRedirects(start: URL, options: Required<FetchOptions>): Promise<FetchResult> {
    const startedAt = performance.now();
    const cookies = createCookieJar();
    try {
      let url = start;
      for (let redirects = 0; ; redirects++) {
        // The first address was vetted when it was given; a shop's redirects are held to the same ports.
        const answer = await fetchWithRetries(url, options, cookies, redirects > 0);
        if (!isRedirect(answer)) return toPage(answer, startedAt);
        if (redirects >= options.maxRedirects) throw new FetchError(failures.tooManyRedirects(options.maxRedirects));
        url = redirectTarget(url, String(answer.headers.location));
      }
    } catch (error) {
      return describeError(error).failure;
    }
  }

  async function fetchWithRetries(url: URL, options: Required<FetchOptions>, cookies: CookieJar, webPortsOnly: boolean): Promise<Answer> {
    for (let attempt = 0; ; attempt++) {
      const mayRetry = attempt < options.retries;
      let answer: Answer;
      try {
        answer = await fetchOnce(url, options, cookies, webPortsOnly);
      } catch (error) {
        if (!mayRetry || !describeError(error).retryable) throw error;
        await sleep(retryWait(attempt));
        continue;
      }
      const { status } = answer;
      if ((status >= 200 && status < 300) || isRedirect(answer)) return answer;
      const delay = mayRetry && isRetryableStatus(status) ? retryDelay(attempt, answer.headers['retry-after']) : null;
      if (delay === null) {
        // A shop still asking us to slow down turns the check away like a bot wall: the host is given a rest.
        if (status === 429) throw new FetchError(failures.rateLimited(parseRetryAfter(answer.headers['retry-after'])));
        throw new FetchError(failures.httpStatus(status));
      }
      await sleep(delay);
    }
  }

  async function fetchOnce(url: URL, options: Required<FetchOptions>, cookies: CookieJar, webPortsOnly: boolean): Promise<Answer> {
    const host = hostnameOf(url);
    const addresses = await vettedAddresses(url, options.allowPrivate, webPortsOnly);
    const answer = await limiter.run(host, () => exchange(url, addresses, options, cookies));
    if (!isRedirect(answer)) {
      const sample = answer.body.subarray(0, ERROR_SAMPLE_BYTES).toString('latin1');
      const vendor = detectBotChallenge(answer.status, answer.headers, sample);
      if (vendor !== undefined) {
        throw new FetchError(failures.botProtection(vendor, answer.status, parseRetryAfter(answer.headers['retry-after'])));
      }
    }
    return answer;
  }

  /**
   * The checked addresses of a url's host. With `webPortsOnly`, the port is checked too, after
   * the addresses, as when an address is given: a private address is the reason worth naming.
   */
  async function vettedAddresses(url: URL, allowPrivate: boolean, webPortsOnly: boolean): Promise<ResolvedAddress[]> {
    const host = hostnameOf(url);
    const literal = parseAddress(host);
    const addresses = literal ? [{ address: literal.toString(), family: literal.kind() === 'ipv4' ? 4 : 6 } as ResolvedAddress] : await resolveHost(host);
    const allowed = (ip: string) => !isCloudMetadataAddress(ip) && (allowPrivate || isAllowedAddress(ip));
    // One bad address refuses the host: the connection could land on any of them.
    if (addresses.some(({ address }) => !allowed(address))) throw new FetchError(failures.blockedAddress(host));
    // allowPrivate keeps the loopback test servers on their random ports reachable.
    const portRefusal = webPortsOnly && !allowPrivate ? webPortRefusal(url, webPorts) : null;
    if (portRefusal) throw new FetchError(failures.badUrl(portRefusal));
    return addresses;
  }

  async function resolveHost(host: string): Promise<ResolvedAddress[]> {
    let addresses: ResolvedAddress[];
    try {
      addresses = await resolve(host);
    } catch (error) {
      const temporary = (error as { code?: string }).code === 'EAI_AGAIN';
      throw new FetchError(failures.dns(host), temporary);
    }
    if (addresses.length === 0) throw new FetchError(failures.dns(host));
    return addresses;
  }

  function exchange(url: URL, addresses: ResolvedAddress[], options: Required<FetchOptions>, cookies: CookieJar, resource?: ResourceRequest): Promise<Answer> {
    let request: http.ClientRequest | undefined;
    let response: http.IncomingMessage | undefined;
    const fail = (error: FetchError) => {
      request?.destroy(error);
      response?.destroy(error);
    };
    const totalTimer = setTimeout(() => fail(new FetchError(failures.timeout(options.timeoutMs))), options.timeoutMs);
    const connectTimer = setTimeout(() => fail(new FetchError(failures.connectTimeout(options.connectTimeoutMs), true)), options.connectTimeoutMs);
    return new Promise<Answer>((resolveAnswer, reject) => {
      const client = url.protocol === 'https:' ? https : http;
      request = client.request(
        {
          protocol: url.protocol,
          hostname: hostnameOf(url),
          port: url.port || undefined,
          path: `${url.pathname}${url.search}`,
          method: resource?.method ?? 'GET',
          headers: resource
            ? resourceHeaders(resource.headers, options.userAgent)
            : requestHeaders(options.userAgent, cookies.header(url.hostname), options.data),
          lookup: pinnedLookup(addresses),
          // No connection reuse: every request is pinned to addresses checked for this call.
          agent: false,
          ca,
        },
        (incoming) => {
          response = incoming;
          cookies.remember(url.hostname, incoming.headers['set-cookie']);
          const read = resource ? readResource(url, incoming, options.maxBytes) : readAnswer(url, incoming, options.maxBytes, options.data);
          read.then(resolveAnswer, reject);
        },
      );
      request.once('socket', (socket) => socket.once('connect', () => clearTimeout(connectTimer)));
      request.on('error', reject);
      request.end(resource?.body?.length ? resource.body : undefined);
    }).finally(() => {
      clearTimeout(totalTimer);
      clearTimeout(connectTimer);
    });
  }

  // Jitter keeps many workers from retrying a recovering shop in lockstep.
  const retryWait = (attempt: number) => backoff(attempt + 1, { baseMs: retryBaseDelayMs, jitter: 0.2 });

  function retryDelay(attempt: number, retryAfter: string | undefined): number | null {
    const asked = parseRetryAfter(retryAfter);
    if (asked === null) return retryWait(attempt);
    return asked <= maxRetryAfterMs ? asked : null;
  }

  /**
   * One request of a page being rendered. Each host is resolved, checked and pinned exactly as for
   * a page. Redirects are followed here, every hop checked again, unless `followRedirects` is false
   * (the browser's own navigation follows them, so the page knows its final address).
   * No retries and no per-host spacing: a page's scripts and data calls are one visit.
   */
  async function fetchResource(request: ResourceRequest, opts: FetchOptions = {}): Promise<ResourceResult> {
    const options = withDefaults(opts, settings.defaults);
    const target = validateTargetUrl(request.url);
    if (!target.ok) return target;
    try {
      let url = target.url;
      let current = request;
      for (let redirects = 0; ; redirects++) {
        const addresses = await vettedAddresses(url, options.allowPrivate, request.document === true);
        const answer = await exchange(url, addresses, options, cookiesNone, current);
        if (isRedirect(answer) && request.followRedirects !== false) {
          if (redirects >= options.maxRedirects) throw new FetchError(failures.tooManyRedirects(options.maxRedirects));
          url = redirectTarget(url, String(answer.headers.location));
          // As browsers do: 303, and 301/302 after a POST, continue as a GET without the body.
          const asGet = answer.status === 303 || ((answer.status === 301 || answer.status === 302) && current.method === 'POST');
          current = { ...current, url: url.href, ...(asGet ? { method: 'GET', body: null } : {}) };
          continue;
        }
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(answer.headers)) {
          if (value === undefined || DROPPED_RESPONSE_HEADERS.has(name)) continue;
          headers[name] = Array.isArray(value) ? value.join(name === 'set-cookie' ? '\n' : ', ') : String(value);
        }
        return { ok: true, url: url.href, status: answer.status, headers, body: answer.body };
      }
    } catch (error) {
      return describeError(error).failure;
    }
  }

  return { fetchPage, fetchResource };
}

// The body is handed over decoded and whole, so these no longer describe it.
const DROPPED_RESPONSE_HEADERS = new Set(['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive']);
// Hop-by-hop and encoding headers are the fetcher's business, not the page's.
const DROPPED_REQUEST_HEADERS = new Set([
  'host',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'accept-encoding',
  'upgrade',
  'proxy-connection',
  'te',
  'trailer',
]);
const cookiesNone: CookieJar = { remember() {}, header: () => undefined };

function withDefaults(opts: FetchOptions, defaults: FetchOptions = {}): Required<FetchOptions> {
  const pick = <K extends keyof FetchOptions>(key: K) => (opts[key] ?? defaults[key] ?? DEFAULT_OPTIONS[key]) as Required<FetchOptions>[K];
  return {
    allowPrivate: pick('allowPrivate'),
    timeoutMs: pick('timeoutMs'),
    connectTimeoutMs: pick('connectTimeoutMs'),
    maxBytes: pick('maxBytes'),
    maxRedirects: pick('maxRedirects'),
    retries: pick('retries'),
    userAgent: pick('userAgent'),
    data: pick('data'),
  };
}

async function resolveWithSystem(hostname: string): Promise<ResolvedAddress[]> {
  const found = await dns.lookup(hostname, { all: true, verbatim: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
}

/** Hands the HTTP client only addresses that were already checked. */
function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0].address, addresses[0].family);
  };
}

function requestHeaders(userAgent: string, cookie: string | undefined, data: boolean): http.OutgoingHttpHeaders {
  return {
    'user-agent': userAgent,
    accept: data ? 'application/json,application/xml;q=0.9,text/*;q=0.8,*/*;q=0.5' : 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8',
    'accept-language': 'en-GB,en;q=0.9',
    'accept-encoding': 'gzip, deflate, br',
    ...(cookie ? { cookie } : {}),
  };
}

function resourceHeaders(fromPage: Record<string, string>, userAgent: string): http.OutgoingHttpHeaders {
  const headers: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(fromPage)) {
    const lower = name.toLowerCase();
    if (!DROPPED_REQUEST_HEADERS.has(lower)) headers[lower] = value;
  }
  headers['user-agent'] = userAgent;
  headers['accept-encoding'] = 'gzip, deflate, br';
  return headers;
}

/** Only web documents are shop pages: a hop to chrome://, devtools://, data: or about: is refused. */
export const isWebAddress = (address: string) => /^https?:\/\//i.test(address);

function redirectTarget(from: URL, location: string): URL {
  let next: string;
  try {
    next = new URL(location, from).href;
  } catch {
    throw new FetchError(failures.badUrl('The shop redirected to an address that is not valid.'));
  }
  if (!isWebAddress(next)) throw new FetchError(failures.notAWebPage(next));
  const checked = validateTargetUrl(next);
  if (!checked.ok) throw new FetchError(checked);
  return checked.url;
}

function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

function toPage(answer: Answer, startedAt: number): FetchedPage {
  const contentType = answer.headers['content-type'] ?? null;
  let body: string | undefined;
  return {
    ok: true,
    url: answer.url.href,
    status: answer.status,
    contentType,
    headers: Object.fromEntries(Object.entries(answer.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)])),
    get body() {
      body ??= decodeText(answer.body, contentType);
      return body;
    },
    raw: answer.body,
    bytes: answer.body.length,
    elapsedMs: Math.round(performance.now() - startedAt),
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------

/** Per-host limits hold for the whole process, so checks, Check Now, AI Detect and the command line share one fetcher. */
export const sharedFetcher = createFetcher();

/** Fetches a page with the shared per-host limits. CHECK_ALLOW_PRIVATE=true allows loopback and private hosts. */
export function fetchPage(url: string, opts: FetchOptions = {}): Promise<FetchResult> {
  return sharedFetcher.fetchPage(url, {
    ...opts,
    allowPrivate: opts.allowPrivate ?? process.env.CHECK_ALLOW_PRIVATE === 'true',
  });
}
