// The address guard of the fetcher: which addresses and ports may never be fetched (private and
// internal networks, cloud metadata services in every spelling, ports that are not for web pages),
// and the checks a page's address goes through before any request, as given and on every hop.

import ipaddr from 'ipaddr.js';
import { failures, type FetchFailure } from '../../domain/check-failures.ts';

// Ports browsers refuse to open (WHATWG Fetch "bad port" list): mail, shell, file sharing...
const BAD_PORTS = new Set([
  0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137,
  139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
  3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

const METADATA_HOSTNAMES = new Set(['metadata.google.internal', 'metadata.goog']);
// Instance services outside link-local: Azure's WireServer, Alibaba's and Oracle's metadata.
const METADATA_ADDRESSES = new Set(['168.63.129.16', '100.100.100.200', '192.0.0.192']);
// All of IPv4 link-local counts as metadata: the clouds keep their metadata, credential (AWS ECS
// 169.254.170.2), time and DNS services there, and no shop or loopback test server lives there.
// fd00:ec2::/32 is where AWS serves the same over IPv6 (::254 metadata, ::23 credentials, ::123 time).
const METADATA_RANGES = { metadata: [ipaddr.parseCIDR('169.254.0.0/16'), ipaddr.parseCIDR('fd00:ec2::/32')] };

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

export function parseAddress(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
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
  if (parsed.username || parsed.password) return failures.badUrl('Links that contain a user name or password cannot be checked.');
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
export function webPortRefusal(url: URL, webPorts: readonly number[] = WEB_PORTS): string | null {
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

export function hostnameOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}
