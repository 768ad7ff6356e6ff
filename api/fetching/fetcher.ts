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
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import tls from 'node:tls';
import zlib from 'node:zlib';
import ipaddr from 'ipaddr.js';
import { describeError, detectBotChallenge, parseRetryAfter } from './fetch-errors.ts';
import { FetchError, failures, type FetchFailure } from '../../domain/check-failures.ts';

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
};

export type FetchedPage = {
  ok: true;
  /** The address the page was finally served from, after redirects. */
  url: string;
  status: number;
  contentType: string | null;
  body: string;
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

const DEFAULT_USER_AGENT = `Mozilla/5.0 (compatible; Pricewatch/1.0${
  process.env.PUBLIC_URL ? `; +${process.env.PUBLIC_URL}` : ''
})`;

const DEFAULT_OPTIONS: Required<FetchOptions> = {
  allowPrivate: false,
  timeoutMs: 15_000,
  connectTimeoutMs: 5_000,
  maxBytes: 3 * 1024 * 1024,
  maxRedirects: 5,
  retries: 2,
  userAgent: DEFAULT_USER_AGENT,
};

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const HTML_CONTENT_TYPES = new Set(['text/html', 'application/xhtml+xml']);
// Enough of an error page to recognise a bot challenge.
const ERROR_SAMPLE_BYTES = 64 * 1024;

// Ports browsers refuse to open (WHATWG Fetch "bad port" list): mail, shell, file sharing...
const BAD_PORTS = new Set([
  0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109,
  110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531,
  532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060,
  5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

const METADATA_HOSTNAMES = new Set(['metadata.google.internal', 'metadata.goog']);
// Instance services outside link-local: Azure's WireServer, Alibaba's and Oracle's metadata.
const METADATA_ADDRESSES = new Set(['168.63.129.16', '100.100.100.200', '192.0.0.192']);
// All of IPv4 link-local counts as metadata: the clouds keep their metadata, credential (AWS ECS
// 169.254.170.2), time and DNS services there, and no shop or loopback test server lives there.
// fd00:ec2::/32 is where AWS serves the same over IPv6 (::254 metadata, ::23 credentials, ::123 time).
const METADATA_RANGES = { metadata: [ipaddr.parseCIDR('169.254.0.0/16'), ipaddr.parseCIDR('fd00:ec2::/32')] };

// ---------------------------------------------------------------------------------------
// Address and URL checks

/** True when an address must never be fetched from the server: anything but public unicast. */
export function isBlockedAddress(ip: string): boolean {
  const address = parseAddress(ip);
  if (!address || isCloudMetadataAddress(ip)) return true;
  if (address.kind() === 'ipv4') return address.range() !== 'unicast';
  const v6 = address as ipaddr.IPv6;
  const carried = carriedIPv4(v6);
  if (carried?.translated) return isBlockedAddress(carried.ipv4);
  // Only global unicast (2000::/3) is public; ::/96 (IPv4-compatible), local-use NAT64, 6to4,
  // Teredo, documentation and the other special ranges are refused whatever they carry.
  return !v6.match(GLOBAL_UNICAST_V6) || v6.range() !== 'unicast';
}

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

// IPv6 ranges that carry an IPv4 address. Traffic to a translated one (mapped, RFC 6145, well-known
// NAT64) reaches that IPv4 address, so it is judged as that address; the others are refused by
// isBlockedAddress but still searched for metadata addresses, which stay closed in every mode.
const IPV4_CARRIERS = {
  translated: ['::ffff:0:0/96', '::ffff:0:0:0/96', '64:ff9b::/96'].map((cidr) => ipaddr.IPv6.parseCIDR(cidr)),
  // IPv4-compatible, and local-use NAT64 (RFC 8215) in its usual /96 layout.
  lastBits: ['::/96', '64:ff9b:1::/48'].map((cidr) => ipaddr.IPv6.parseCIDR(cidr)),
  sixToFour: [ipaddr.IPv6.parseCIDR('2002::/16')],
  teredo: [ipaddr.IPv6.parseCIDR('2001::/32')],
};

/** The IPv4 address an IPv6 address carries, if any. */
function carriedIPv4(address: ipaddr.IPv6): { ipv4: string; translated: boolean } | undefined {
  const form = ipaddr.subnetMatch(address, IPV4_CARRIERS, 'none');
  if (form === 'none') return undefined;
  const bytes = address.toByteArray();
  // 6to4 puts it right after its prefix; Teredo ends with its client's address, inverted.
  const ipv4 = form === 'sixToFour' ? bytes.slice(2, 6) : form === 'teredo' ? bytes.slice(12).map((b) => b ^ 0xff) : bytes.slice(12);
  return { ipv4: ipv4.join('.'), translated: form === 'translated' };
}

/** Metadata services stay closed even when private addresses are allowed, in whatever form they are written. */
export function isCloudMetadataAddress(ip: string): boolean {
  const address = parseAddress(ip);
  if (!address) return false;
  const carried = address.kind() === 'ipv6' ? carriedIPv4(address as ipaddr.IPv6) : undefined;
  if (carried) return isCloudMetadataAddress(carried.ipv4);
  return METADATA_ADDRESSES.has(address.toString()) || ipaddr.subnetMatch(address, METADATA_RANGES, 'other') === 'metadata';
}

function parseAddress(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const bare = ip.replace(/^\[|\]$/g, '');
  return ipaddr.isValid(bare) ? ipaddr.parse(bare) : undefined;
}

/** Checks scheme, credentials, port and host; does not touch the network. */
export function validateTargetUrl(url: string): { ok: true; url: URL } | FetchFailure {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return failures.badUrl('This is not a valid web address. Copy the full link of the product page, starting with https://.');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    return failures.badUrl('Only web pages can be checked: the link must start with http:// or https://.');
  if (parsed.username || parsed.password)
    return failures.badUrl('Links that contain a user name or password cannot be checked.');
  if (parsed.port && BAD_PORTS.has(Number(parsed.port)))
    return failures.badUrl(`Port ${parsed.port} is not used for web pages, so Pricewatch does not open it.`);
  const host = hostnameOf(parsed);
  if (!host) return failures.badUrl('This link has no host name.');
  if (METADATA_HOSTNAMES.has(host.replace(/\.$/, '').toLowerCase())) return failures.blockedAddress(host);
  return { ok: true, url: parsed };
}

/** Ports shops serve pages on; an address given on any other is refused (see uncheckableUrlReason). */
export const WEB_PORTS: readonly number[] = [80, 443, 8080, 8443];

/** Why a page's address is refused for its port, or null: the rule for addresses given and for redirects. */
function webPortRefusal(url: URL, webPorts: readonly number[] = WEB_PORTS): string | null {
  // An empty port is the scheme's own (80 or 443).
  if (!url.port || webPorts.includes(Number(url.port))) return null;
  return `Port ${url.port} is not a port shops serve pages on (${webPorts.slice(0, -1).join(', ')} or ${webPorts.at(-1)}), so Pricewatch does not open it.`;
}

// RFC 6761: names that always mean this machine, whatever a resolver says.
const LOOPBACK_NAME = /^(.+\.)?localhost\.?$/i;

/**
 * Why an address a user gives (a product page, AI Detect) could never be checked, or null. The
 * address is refused when it is given, not only when fetched, so it never sits in the product
 * list failing. Only the address itself is read: names are resolved, and their addresses vetted,
 * when the page is fetched. `allowPrivate` (tests on loopback servers with random ports, the
 * demo shop) lifts the address and port rules; credentials and metadata services stay refused.
 */
export function uncheckableUrlReason(url: string, opts: { allowPrivate?: boolean } = {}): string | null {
  const target = validateTargetUrl(url);
  if (!target.ok) return target.reason;
  const host = hostnameOf(target.url);
  if (isCloudMetadataAddress(host)) return failures.blockedAddress(host).reason;
  if (opts.allowPrivate) return null;
  if (parseAddress(host) ? isBlockedAddress(host) : LOOPBACK_NAME.test(host)) return failures.blockedAddress(host).reason;
  return webPortRefusal(target.url);
}

function hostnameOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

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

type Answer = { url: URL; status: number; headers: http.IncomingHttpHeaders; body: Buffer };

export function createFetcher(settings: FetcherSettings = {}): Fetcher {
  const resolve = settings.resolve ?? resolveWithSystem;
  const isAllowedAddress = settings.isAllowedAddress ?? ((ip: string) => !isBlockedAddress(ip));
  const webPorts = settings.webPorts ?? WEB_PORTS;
  const limiter = createHostLimiter(settings.maxConcurrentPerHost ?? MAX_FETCHES_PER_HOST, settings.hostSpacingMs ?? 250);
  const retryBaseDelayMs = settings.retryBaseDelayMs ?? 500;
  const maxRetryAfterMs = settings.maxRetryAfterMs ?? 30_000;
  const ca = settings.extraCertificateAuthorities?.length
    ? [...tls.rootCertificates, ...settings.extraCertificateAuthorities]
    : undefined;
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
        await sleep(backoff(attempt));
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
    const addresses = literal
      ? [{ address: literal.toString(), family: literal.kind() === 'ipv4' ? 4 : 6 } as ResolvedAddress]
      : await resolveHost(host);
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

  function exchange(
    url: URL,
    addresses: ResolvedAddress[],
    options: Required<FetchOptions>,
    cookies: CookieJar,
    resource?: ResourceRequest,
  ): Promise<Answer> {
    let request: http.ClientRequest | undefined;
    let response: http.IncomingMessage | undefined;
    const fail = (error: FetchError) => {
      request?.destroy(error);
      response?.destroy(error);
    };
    const totalTimer = setTimeout(() => fail(new FetchError(failures.timeout(options.timeoutMs))), options.timeoutMs);
    const connectTimer = setTimeout(
      () => fail(new FetchError(failures.connectTimeout(options.connectTimeoutMs), true)),
      options.connectTimeoutMs,
    );
    return new Promise<Answer>((resolveAnswer, reject) => {
      const client = url.protocol === 'https:' ? https : http;
      request = client.request(
        {
          protocol: url.protocol,
          hostname: hostnameOf(url),
          port: url.port || undefined,
          path: `${url.pathname}${url.search}`,
          method: resource?.method ?? 'GET',
          headers: resource ? resourceHeaders(resource.headers, options.userAgent) : requestHeaders(options.userAgent, cookies.header(url.hostname)),
          lookup: pinnedLookup(addresses),
          // No connection reuse: every request is pinned to addresses checked for this call.
          agent: false,
          ca,
        },
        (incoming) => {
          response = incoming;
          cookies.remember(url.hostname, incoming.headers['set-cookie']);
          const read = resource ? readResource(url, incoming, options.maxBytes) : readAnswer(url, incoming, options.maxBytes);
          read.then(resolveAnswer, reject);
        },
      );
      request.once('socket', (socket) => socket.once('connect', () => clearTimeout(connectTimer)));
      request.on('error', reject);
      request.end(resource?.body && resource.body.length ? resource.body : undefined);
    }).finally(() => {
      clearTimeout(totalTimer);
      clearTimeout(connectTimer);
    });
  }

  function retryDelay(attempt: number, retryAfter: string | undefined): number | null {
    const asked = parseRetryAfter(retryAfter);
    if (asked === null) return backoff(attempt);
    return asked <= maxRetryAfterMs ? asked : null;
  }

  function backoff(attempt: number): number {
    // Jitter keeps many workers from retrying a recovering shop in lockstep.
    return retryBaseDelayMs * 2 ** attempt * (1 + Math.random() * 0.25);
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
const DROPPED_REQUEST_HEADERS = new Set(['host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding', 'accept-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer']);
const cookiesNone: CookieJar = { remember() {}, header: () => undefined };

function withDefaults(opts: FetchOptions, defaults: FetchOptions = {}): Required<FetchOptions> {
  const pick = <K extends keyof FetchOptions>(key: K) =>
    (opts[key] ?? defaults[key] ?? DEFAULT_OPTIONS[key]) as Required<FetchOptions>[K];
  return {
    allowPrivate: pick('allowPrivate'),
    timeoutMs: pick('timeoutMs'),
    connectTimeoutMs: pick('connectTimeoutMs'),
    maxBytes: pick('maxBytes'),
    maxRedirects: pick('maxRedirects'),
    retries: pick('retries'),
    userAgent: pick('userAgent'),
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

function requestHeaders(userAgent: string, cookie: string | undefined): http.OutgoingHttpHeaders {
  return {
    'user-agent': userAgent,
    accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8',
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

function isRedirect({ status, headers }: Pick<Answer, 'status' | 'headers'>): boolean {
  return REDIRECT_STATUSES.has(status) && Boolean(headers.location);
}

function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

// ---------------------------------------------------------------------------------------
// Reading the answer

/** A page's resource: any status and type, redirects handed back, at most `maxBytes`. */
async function readResource(url: URL, response: http.IncomingMessage, maxBytes: number): Promise<Answer> {
  const status = response.statusCode ?? 0;
  const { headers } = response;
  if (isRedirect({ status, headers })) {
    response.destroy();
    return { url, status, headers, body: Buffer.alloc(0) };
  }
  if (Number(headers['content-length']) > maxBytes) {
    response.destroy();
    throw new FetchError(failures.tooLarge(maxBytes));
  }
  return { url, status, headers, body: await readBody(response, maxBytes, 'fail') };
}

async function readAnswer(url: URL, response: http.IncomingMessage, maxBytes: number): Promise<Answer> {
  const status = response.statusCode ?? 0;
  const { headers } = response;
  const answer = (body: Buffer): Answer => ({ url, status, headers, body });
  if (isRedirect({ status, headers })) {
    response.destroy();
    return answer(Buffer.alloc(0));
  }
  if (status < 200 || status >= 300) return answer(await readBody(response, ERROR_SAMPLE_BYTES, 'truncate'));

  const mediaType = headers['content-type']?.split(';')[0].trim().toLowerCase();
  if (mediaType && !HTML_CONTENT_TYPES.has(mediaType)) {
    response.destroy();
    throw new FetchError(failures.notHtml(mediaType));
  }
  if (Number(headers['content-length']) > maxBytes) {
    response.destroy();
    throw new FetchError(failures.tooLarge(maxBytes));
  }
  return answer(await readBody(response, maxBytes, 'fail'));
}

/** Reads and decompresses at most `limit` bytes, then stops the download. */
async function readBody(response: http.IncomingMessage, limit: number, overflow: 'fail' | 'truncate'): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of decompressed(response)) {
      const room = limit - size;
      if (chunk.length > room) {
        if (overflow === 'fail') throw new FetchError(failures.tooLarge(limit));
        chunks.push(chunk.subarray(0, room));
        size = limit;
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  } finally {
    response.destroy();
  }
  return Buffer.concat(chunks, size);
}

function decompressed(response: http.IncomingMessage): Readable {
  const encoding = String(response.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding === 'identity' || encoding === '') return response;
  const createDecoder = DECODERS[encoding];
  if (!createDecoder)
    throw new FetchError(failures.network(`The shop sent the page in an encoding Pricewatch cannot read (${encoding}).`));
  // pipeline passes a broken download on to the decoder, so the reader sees the error.
  return pipeline(response, createDecoder(), () => {});
}

const DECODERS: Record<string, () => zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress> = {
  gzip: () => zlib.createGunzip(),
  'x-gzip': () => zlib.createGunzip(),
  deflate: () => zlib.createInflate(),
  br: () => zlib.createBrotliDecompress(),
};

function toPage(answer: Answer, startedAt: number): FetchedPage {
  const contentType = answer.headers['content-type'] ?? null;
  return {
    ok: true,
    url: answer.url.href,
    status: answer.status,
    contentType,
    body: decodeText(answer.body, contentType),
    bytes: answer.body.length,
    elapsedMs: Math.round(performance.now() - startedAt),
  };
}

/** Decodes with the charset of the byte order mark, the Content-Type, or a meta tag, in that order. */
function decodeText(body: Uint8Array, contentType: string | null): string {
  const label =
    charsetFromByteOrderMark(body) ??
    charsetParameter(contentType) ??
    metaCharset(body) ??
    'utf-8';
  try {
    return new TextDecoder(label).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

function charsetFromByteOrderMark(body: Uint8Array): string | undefined {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  return undefined;
}

function charsetParameter(value: string | null | undefined): string | undefined {
  return value?.match(/charset\s*=\s*["']?\s*([\w.:-]+)/i)?.[1];
}

/** The `<meta charset>` or `<meta http-equiv="Content-Type">` in the first kilobyte, as browsers look for it. */
function metaCharset(body: Uint8Array): string | undefined {
  const head = Buffer.from(body.subarray(0, 1024)).toString('latin1');
  return head.match(/<meta[^>]*charset\s*=\s*["']?\s*([\w.:-]+)/i)?.[1];
}

// ---------------------------------------------------------------------------------------
// Politeness: per-host concurrency and spacing

type HostLimiter = { run<T>(host: string, task: () => Promise<T>): Promise<T> };

function createHostLimiter(maxConcurrent: number, spacingMs: number): HostLimiter {
  type HostState = { active: number; nextStartAt: number; waiting: Array<() => void>; timer?: ReturnType<typeof setTimeout> };
  const hosts = new Map<string, HostState>();

  function admit(host: string, state: HostState) {
    while (state.active < maxConcurrent && state.waiting.length > 0 && !state.timer) {
      const wait = state.nextStartAt - performance.now();
      if (wait > 0) {
        state.timer = setTimeout(() => {
          state.timer = undefined;
          admit(host, state);
        }, wait);
        return;
      }
      state.active++;
      state.nextStartAt = performance.now() + spacingMs;
      state.waiting.shift()!();
    }
    if (state.active === 0 && state.waiting.length === 0 && state.nextStartAt <= performance.now()) hosts.delete(host);
  }

  return {
    async run(host, task) {
      let state = hosts.get(host);
      if (!state) hosts.set(host, (state = { active: 0, nextStartAt: 0, waiting: [] }));
      const current = state;
      await new Promise<void>((start) => {
        current.waiting.push(start);
        admit(host, current);
      });
      try {
        return await task();
      } finally {
        current.active--;
        admit(host, current);
      }
    },
  };
}

// ---------------------------------------------------------------------------------------
// Cookies within one fetch: shops often set a session or consent cookie and redirect back
// to the same page, which loops without it. Nothing is kept between fetches.

type CookieJar = {
  remember(host: string, setCookie: string[] | undefined): void;
  header(host: string): string | undefined;
};

function createCookieJar(): CookieJar {
  const byHost = new Map<string, Map<string, string>>();
  return {
    remember(host, setCookie) {
      for (const line of setCookie ?? []) {
        const pair = line.split(';', 1)[0];
        const equals = pair.indexOf('=');
        if (equals <= 0) continue;
        if (!byHost.has(host)) byHost.set(host, new Map());
        byHost.get(host)!.set(pair.slice(0, equals).trim(), pair.slice(equals + 1).trim());
      }
    },
    header(host) {
      const cookies = byHost.get(host);
      return cookies?.size ? [...cookies].map(([name, value]) => `${name}=${value}`).join('; ') : undefined;
    },
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
