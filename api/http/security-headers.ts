import { Elysia } from 'elysia';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'htmlparser2';
import { getElementsByTagName, textContent } from 'domutils';
import type { Config } from '../config.ts';

/** CSP sources allowing exactly the inline scripts of a page: their SHA-256 hashes. */
export function inlineScriptHashes(html: string): string[] {
  return getElementsByTagName('script', parseDocument(html))
    .filter((script) => !script.attribs.src && textContent(script) !== '')
    .map((script) => `'sha256-${createHash('sha256').update(textContent(script)).digest('base64')}'`);
}

/** The hashes of every inline script of the built site (Astro's island loader, the theme script). */
function siteScriptHashes(siteDir: string): string[] {
  let names: string[] = [];
  try {
    names = readdirSync(siteDir, { recursive: true }) as string[];
  } catch {
    return [];
  }
  const hashes = names.filter((name) => name.endsWith('.html')).flatMap((name) => inlineScriptHashes(readFileSync(join(siteDir, name), 'utf8')));
  return [...new Set(hashes)].sort();
}

/**
 * The Content-Security-Policy of every response. Scripts: our own files and the site's inline
 * scripts by hash, nothing inline besides. Styles may be inline: Radix's scroll lock and Stripe's
 * payment form add <style> elements at run time, and a style cannot run code. Images: our own,
 * data: URIs, and the shops' product images, which come from any host (over https; over http too
 * when the product itself is served over http, as in development). Stripe's script, frames and
 * API only when billing goes through Stripe.
 */
export function contentSecurityPolicy(config: Config, scriptHashes: string[]): string {
  const stripe = config.billing.provider === 'stripe';
  const directives: Record<string, string[]> = {
    'default-src': ["'self'"],
    'script-src': ["'self'", ...scriptHashes, ...(stripe ? ['https://js.stripe.com', 'https://*.js.stripe.com'] : [])],
    'style-src': ["'self'", "'unsafe-inline'"],
    'img-src': ["'self'", 'data:', 'https:', ...(config.publicUrl.startsWith('http:') ? ['http:'] : [])],
    'connect-src': ["'self'", ...(stripe ? ['https://api.stripe.com'] : [])],
    ...(stripe ? { 'frame-src': ['https://js.stripe.com', 'https://*.js.stripe.com', 'https://hooks.stripe.com'] } : {}),
    'object-src': ["'none'"],
    'base-uri': ["'self'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
  };
  return Object.entries(directives)
    .map(([name, sources]) => `${name} ${sources.join(' ')}`)
    .join('; ');
}

/**
 * Security headers on every response (pages, assets, API): the CSP above, no MIME sniffing, only
 * the origin as referrer to other sites, and in production HTTPS only (HSTS). The script hashes are
 * read from the built site when the server starts.
 */
export function securityHeaders(config: Config) {
  const headers: Record<string, string> = {
    'content-security-policy': contentSecurityPolicy(config, siteScriptHashes(config.siteDir)),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'strict-origin-when-cross-origin',
    ...(config.production ? { 'strict-transport-security': 'max-age=31536000; includeSubDomains' } : {}),
  };
  return new Elysia({ name: 'security-headers' }).onRequest(({ set }) => {
    Object.assign(set.headers, headers);
  });
}
