import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { createFetcher, type FetcherSettings } from './fetcher.ts';
import { expectFailure, productPage } from './loopback-shop.ts';

// A self-signed certificate for shop.test (valid 2020-2120), trusted only by these tests.
const SHOP_TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgNG8VfERv+ES+ruro
agmNLdw+QtWzsxGNbCV+IBcrbF+hRANCAASZQCx7dL1z9LVnTpvvF8W+nZVJc2Gu
W2UW7cDRRQslAetME7tPXuVZXjfvSl4080Th2uaiAGKKwn5p8sJ5x5HV
-----END PRIVATE KEY-----`;
const SHOP_TEST_CERTIFICATE = `-----BEGIN CERTIFICATE-----
MIIBYDCCAQegAwIBAgIBATAKBggqhkjOPQQDAjAUMRIwEAYDVQQDDAlzaG9wLnRl
c3QwIBcNMjAwMTAxMDAwMDAwWhgPMjEyMDAxMDEwMDAwMDBaMBQxEjAQBgNVBAMM
CXNob3AudGVzdDBZMBMGByqGSM49AgEGCCqGSM49AwEHA0IABJlALHt0vXP0tWdO
m+8Xxb6dlUlzYa5bZRbtwNFFCyUB60wTu09e5VleN+9KXjTzROHa5qIAYorCfmny
wnnHkdWjSDBGMBQGA1UdEQQNMAuCCXNob3AudGVzdDAPBgNVHRMBAf8EBTADAQH/
MB0GA1UdDgQWBBT956Z0ZibiR4Sdcvo95fkq5yxS4jAKBggqhkjOPQQDAgNHADBE
AiBF3g6xEZSC1DXUfZeH/DPygKrNHcJEl2u/g832kCX/dAIgEQ9tNPONNb+cBfCs
PWF4r7UcRZDk+kZCzC6twzJIQrU=
-----END CERTIFICATE-----`;

describe('https with the connection pinned to the checked address', () => {
  let tlsServer: https.Server;
  let tlsPort: number;
  const handshakes: Array<{ servername: unknown; host: string | undefined }> = [];

  beforeAll(async () => {
    tlsServer = https.createServer({ key: SHOP_TEST_KEY, cert: SHOP_TEST_CERTIFICATE }, (request, response) => {
      handshakes.push({ servername: (request.socket as { servername?: unknown }).servername, host: request.headers.host });
      const delay = request.url === '/slow' ? 300 : 0;
      setTimeout(() => response.writeHead(200, { 'content-type': 'text/html' }).end(productPage), delay);
    });
    await new Promise<void>((listening) => tlsServer.listen(0, '127.0.0.1', listening));
    tlsPort = (tlsServer.address() as AddressInfo).port;
  });
  afterAll(() => tlsServer.close());

  const pinnedTo127 = (settings: FetcherSettings = {}) =>
    createFetcher({
      resolve: async () => [{ address: '127.0.0.1', family: 4 }],
      hostSpacingMs: 0,
      defaults: { allowPrivate: true, timeoutMs: 2_000, retries: 0 },
      ...settings,
    });

  test('sends SNI and verifies the certificate against the shop name', async () => {
    const fetcher = pinnedTo127({ extraCertificateAuthorities: [SHOP_TEST_CERTIFICATE] });
    const result = await fetcher.fetchPage(`https://shop.test:${tlsPort}/page`);
    if (!result.ok) throw new Error(result.reason);
    expect(result.body).toBe(productPage);
    expect(handshakes.at(-1)).toEqual({ servername: 'shop.test', host: `shop.test:${tlsPort}` });
  });

  test('the connect limit ends once the connection is made', async () => {
    const fetcher = pinnedTo127({ extraCertificateAuthorities: [SHOP_TEST_CERTIFICATE] });
    const result = await fetcher.fetchPage(`https://shop.test:${tlsPort}/slow`, { connectTimeoutMs: 100 });
    expect(result.ok).toBe(true);
  });

  test('refuses a certificate that does not match or is not trusted', async () => {
    const wrongName = await pinnedTo127({ extraCertificateAuthorities: [SHOP_TEST_CERTIFICATE] }).fetchPage(`https://other.test:${tlsPort}/page`);
    expectFailure(wrongName, 'network');
    expect(!wrongName.ok && wrongName.reason).toContain('certificate');
    const untrusted = await pinnedTo127().fetchPage(`https://shop.test:${tlsPort}/page`);
    expectFailure(untrusted, 'network');
  });
});
