import { afterAll, describe, expect, test } from 'bun:test';
import { Elysia } from 'elysia';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../config.ts';
import { DomainError } from '../../events/decider.ts';
import { errorHandling } from './errors.ts';
import { inlineScriptHashes, securityHeaders } from './security-headers.ts';

const siteDir = mkdtempSync(join(tmpdir(), 'pricewatch-csp-'));
writeFileSync(
  join(siteDir, 'index.html'),
  '<!doctype html><html><head><script>alert(1)</script><script type="module" src="/_astro/a.js"></script></head><body></body></html>',
);
afterAll(() => rmSync(siteDir, { recursive: true, force: true }));

const PRODUCTION = {
  NODE_ENV: 'production',
  PUBLIC_URL: 'https://pricewatch.example',
  SITE_DIR: siteDir,
  GOOGLE_CLIENT_ID: 'id',
  GOOGLE_CLIENT_SECRET: 'secret',
  STRIPE_SECRET_KEY: 'sk_test',
  STRIPE_PUBLISHABLE_KEY: 'pk_test',
  STRIPE_WEBHOOK_SECRET: 'whsec',
  STRIPE_PRICE_STARTER: 'price_s',
  STRIPE_PRICE_GROWTH: 'price_g',
  STRIPE_PRICE_PRO: 'price_p',
};

function app(env: Record<string, string>) {
  return new Elysia()
    .use(securityHeaders(loadConfig(env)))
    .use(errorHandling)
    .get('/json', () => ({ ok: true }))
    .get('/file', () => new Response('body { color: red }', { headers: { 'content-type': 'text/css' } }))
    .get('/fails', () => {
      throw new DomainError('Not valid.', 400, 'name');
    });
}

const directives = (csp: string) =>
  new Map(
    csp.split('; ').map((d) => {
      const [name, ...sources] = d.split(' ');
      return [name!, sources];
    }),
  );

describe('security headers', () => {
  test('inline scripts are allowed by their SHA-256, scripts with a src need none', () => {
    expect(inlineScriptHashes('<script>alert(1)</script><script src="/a.js"></script><script type="module"></script>')).toEqual([
      "'sha256-bhHHL3z2vDgxUt0W3dWQOrprscmda2Y5pLsLg4GF+pI='",
    ]);
  });

  test('every response carries them: JSON, files, errors and unknown paths', async () => {
    const dev = app({ SITE_DIR: siteDir });
    for (const path of ['/json', '/file', '/fails', '/nowhere']) {
      const res = await dev.handle(new Request(`http://localhost${path}`));
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
      expect(res.headers.get('strict-transport-security')).toBeNull();
    }
  });

  test("the policy: our scripts and the built pages' inline ones only; product images from any shop", async () => {
    const res = await app({ SITE_DIR: siteDir }).handle(new Request('http://localhost/json'));
    const csp = directives(res.headers.get('content-security-policy')!);
    expect(csp.get('default-src')).toEqual(["'self'"]);
    expect(csp.get('script-src')).toEqual(["'self'", "'sha256-bhHHL3z2vDgxUt0W3dWQOrprscmda2Y5pLsLg4GF+pI='"]);
    expect(csp.get('style-src')).toEqual(["'self'", "'unsafe-inline'"]);
    // Served over http (development), the shops' http images show too.
    expect(csp.get('img-src')).toEqual(["'self'", 'data:', 'https:', 'http:']);
    expect(csp.get('connect-src')).toEqual(["'self'"]);
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(csp.get('base-uri')).toEqual(["'self'"]);
    expect(csp.get('form-action')).toEqual(["'self'"]);
    expect(csp.has('frame-src')).toBe(false);
  });

  test("in production: HTTPS only (HSTS), https images, and Stripe's payment form", async () => {
    const res = await app(PRODUCTION).handle(new Request('https://pricewatch.example/json'));
    expect(res.headers.get('strict-transport-security')).toBe('max-age=31536000; includeSubDomains');
    const csp = directives(res.headers.get('content-security-policy')!);
    expect(csp.get('img-src')).toEqual(["'self'", 'data:', 'https:']);
    expect(csp.get('script-src')).toContain('https://js.stripe.com');
    expect(csp.get('frame-src')).toEqual(['https://js.stripe.com', 'https://*.js.stripe.com', 'https://hooks.stripe.com']);
    expect(csp.get('connect-src')).toEqual(["'self'", 'https://api.stripe.com']);
    expect(csp.get('script-src')).not.toContain("'unsafe-inline'");
  });
});
