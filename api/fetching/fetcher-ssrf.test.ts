import { describe, expect, test } from 'bun:test';
import { createFetcher, fetchPage } from './fetcher.ts';
import { isBlockedAddress, uncheckableUrlReason, WEB_PORTS } from './address-guard.ts';
import { expectFailure, hits, origin, server, serveLoopbackShop, testFetcher } from './loopback-shop.ts';

serveLoopbackShop();

describe('server-side request forgery', () => {
  const port = () => server.port;
  // The shop answers on 127.0.0.1; this guard treats that one address as public.
  const onlyShopIsPublic = (ip: string) => ip === '127.0.0.1';
  const resolveNames = async (hostname: string) => {
    const names: Record<string, string> = { 'shop.test': '127.0.0.1', 'internal.test': '10.0.0.5' };
    if (!names[hostname]) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return [{ address: names[hostname], family: 4 as const }];
  };

  test('refuses a name that resolves to loopback', async () => {
    const fetcher = createFetcher({ resolve: resolveNames, hostSpacingMs: 0 });
    const result = await fetcher.fetchPage(`http://shop.test:${port()}/page?ssrf=name`);
    expectFailure(result, 'blocked-address');
    expect(hits.get('/page?ssrf=name')).toBeUndefined();
  });

  test('connects to the checked address, not to a later DNS answer', async () => {
    // A rebinding name: public on the first lookup, internal afterwards.
    let lookups = 0;
    const rebinding = async () => [{ address: lookups++ === 0 ? '127.0.0.1' : '10.0.0.5', family: 4 as const }];
    const fetcher = createFetcher({
      resolve: rebinding,
      isAllowedAddress: onlyShopIsPublic,
      hostSpacingMs: 0,
      defaults: { allowPrivate: false, retries: 0 },
    });
    const result = await fetcher.fetchPage(`http://rebinding.test:${port()}/page?ssrf=rebinding`);
    expect(result.ok).toBe(true);
    expect(lookups).toBe(1);
    expect(hits.get('/page?ssrf=rebinding')).toBe(1);
  });

  test('refuses address literals in every spelling', async () => {
    const fetcher = createFetcher({ hostSpacingMs: 0 });
    for (const host of ['127.0.0.1', '[::1]', '[::ffff:127.0.0.1]', '0x7f.1', '2130706433', '169.254.169.254'])
      expectFailure(await fetcher.fetchPage(`http://${host}:${port()}/page?ssrf=literal`), 'blocked-address');
    expect(hits.get('/page?ssrf=literal')).toBeUndefined();
  });

  test('checks every redirect hop', async () => {
    const fetcher = createFetcher({
      resolve: resolveNames,
      isAllowedAddress: onlyShopIsPublic,
      hostSpacingMs: 0,
      defaults: { allowPrivate: false, timeoutMs: 1_000 },
    });
    const allowed = await fetcher.fetchPage(`http://shop.test:${port()}/page?ssrf=allowed`);
    expect(allowed.ok).toBe(true);
    for (const target of [`http://127.0.0.2:${port()}/page`, `http://internal.test:${port()}/page`]) {
      const redirected = await fetcher.fetchPage(`http://shop.test:${port()}/redirect-to?target=${encodeURIComponent(target)}`);
      expectFailure(redirected, 'blocked-address');
    }
    const toFtp = await fetcher.fetchPage(`${origin}/redirect-to?target=${encodeURIComponent('ftp://shop.test/')}`);
    expectFailure(toFtp, 'bad-url');
  });

  test('keeps metadata addresses closed even when private addresses are allowed', async () => {
    const fetcher = createFetcher({
      resolve: async () => [{ address: '169.254.169.254', family: 4 }],
      defaults: { allowPrivate: true },
    });
    expectFailure(await fetcher.fetchPage('http://instance-data.test/latest/meta-data/'), 'blocked-address');
  });

  // Names that resolve to metadata services, so every path is tried without leaving this machine.
  const metadataNames: Record<string, string> = {
    'wireserver.test': '168.63.129.16',
    'ecs-credentials.test': '169.254.170.2',
    'compatible.test': '::a9fe:a9fe',
    'nat64-local.test': '64:ff9b:1::a9fe:a9fe',
    '6to4.test': '2002:a9fe:a9fe::',
    'teredo.test': '2001:0:4136:e378:8000:63bf:5601:5601',
  };
  const metadataLiterals = [
    '168.63.129.16',
    '169.254.170.2',
    '[::a9fe:a9fe]',
    '[64:ff9b:1::a9fe:a9fe]',
    '[2002:a9fe:a9fe::]',
    '[2001:0:4136:e378:8000:63bf:5601:5601]',
  ];

  test('keeps every metadata service closed in every mode: by name, by literal and on a redirect hop', async () => {
    const resolve = async (hostname: string) => {
      const address = metadataNames[hostname];
      return address ? [{ address, family: address.includes(':') ? (6 as const) : (4 as const) }] : resolveNames(hostname);
    };
    for (const allowPrivate of [true, false]) {
      const fetcher = createFetcher({
        resolve,
        // The production guard, plus the loopback shop.
        isAllowedAddress: (ip) => ip === '127.0.0.1' || !isBlockedAddress(ip),
        hostSpacingMs: 0,
        defaults: { allowPrivate, retries: 0, timeoutMs: 1_000, connectTimeoutMs: 300 },
      });
      const urls = [...Object.keys(metadataNames), ...metadataLiterals].map((host) => `http://${host}/latest/meta-data/`);
      for (const url of urls) {
        const hop = `http://shop.test:${port()}/redirect-to?target=${encodeURIComponent(url)}`;
        for (const [path, result] of [
          ['page', await fetcher.fetchPage(url)],
          ['resource', await fetcher.fetchResource!({ url, method: 'GET', headers: {} })],
          ['page hop', await fetcher.fetchPage(hop)],
          ['resource hop', await fetcher.fetchResource!({ url: hop, method: 'GET', headers: {} })],
        ] as const)
          expect({ url, allowPrivate, path, code: result.ok ? 'ok' : result.code }).toEqual({ url, allowPrivate, path, code: 'blocked-address' });
      }
    }
  });

  test('redirect hops stay on the ports shops serve pages on, as addresses given by users do', async () => {
    const guarded = createFetcher({
      resolve: resolveNames,
      isAllowedAddress: onlyShopIsPublic,
      hostSpacingMs: 0,
      defaults: { allowPrivate: false, retries: 0, timeoutMs: 1_000 },
    });
    const offPort = (tag: string) => `http://shop.test:${port()}/page?hop=${tag}`;
    const via = (target: string) => `http://shop.test:${port()}/redirect-to?target=${encodeURIComponent(target)}`;
    const refusal = `Port ${port()} is not a port shops serve pages on (80, 443, 8080 or 8443), so Pricewatch does not open it.`;
    expect(uncheckableUrlReason(offPort('x'))).toBe(refusal);

    const page = await guarded.fetchPage(via(offPort('page')));
    expectFailure(page, 'bad-url');
    expect(!page.ok && page.reason).toBe(refusal);
    // A page's document (main page or frame) is held to the same rule, itself and its hops.
    const document = await guarded.fetchResource!({ url: offPort('document'), method: 'GET', headers: {}, document: true });
    expect(document).toMatchObject({ ok: false, code: 'bad-url', reason: refusal });
    const documentHop = await guarded.fetchResource!({ url: via(offPort('document-hop')), method: 'GET', headers: {}, document: true });
    expect(documentHop).toMatchObject({ ok: false, code: 'bad-url', reason: refusal });
    for (const tag of ['page', 'document', 'document-hop']) expect(hits.get(`/page?hop=${tag}`)).toBeUndefined();

    // A subresource keeps the browser's rule only: the page's scripts could ask for that port directly.
    expect(await guarded.fetchResource!({ url: via(offPort('subresource')), method: 'GET', headers: {} })).toMatchObject({ ok: true, status: 200 });
    // A private hop is named as such before its port is looked at, as when an address is given.
    expectFailure(await guarded.fetchPage(via(`http://internal.test:${port()}/page`)), 'blocked-address');
    // The browser's bad ports stay closed on every hop.
    expectFailure(await guarded.fetchResource!({ url: via('http://shop.test:25/'), method: 'GET', headers: {} }), 'bad-url');
  });

  test('allowPrivate (tests on loopback) follows hops to any port but the bad ones; a fetcher may name more web ports', async () => {
    const open = testFetcher();
    const via = (target: string) => `${origin}/redirect-to?target=${encodeURIComponent(target)}`;
    expect((await open.fetchPage(via(`${origin}/page?hop=open-page`))).ok).toBe(true);
    expect(await open.fetchResource!({ url: via(`${origin}/page?hop=open-document`), method: 'GET', headers: {}, document: true })).toMatchObject({
      ok: true,
      status: 200,
    });
    expectFailure(await open.fetchPage(via('http://127.0.0.1:25/')), 'bad-url');

    const shopPort = createFetcher({
      resolve: resolveNames,
      isAllowedAddress: onlyShopIsPublic,
      webPorts: [...WEB_PORTS, server.port!],
      hostSpacingMs: 0,
      defaults: { allowPrivate: false, retries: 0, timeoutMs: 1_000 },
    });
    const hop = await shopPort.fetchPage(
      `http://shop.test:${port()}/redirect-to?target=${encodeURIComponent(`http://shop.test:${port()}/page?hop=named-port`)}`,
    );
    expect(hop.ok).toBe(true);
    expect(hits.get('/page?hop=named-port')).toBe(1);
  });

  test('CHECK_ALLOW_PRIVATE opens loopback for the shared fetcher', async () => {
    const before = process.env.CHECK_ALLOW_PRIVATE;
    try {
      delete process.env.CHECK_ALLOW_PRIVATE;
      expectFailure(await fetchPage(`${origin}/page?env=off`), 'blocked-address');
      process.env.CHECK_ALLOW_PRIVATE = 'true';
      expect((await fetchPage(`${origin}/page?env=on`)).ok).toBe(true);
    } finally {
      if (before === undefined) delete process.env.CHECK_ALLOW_PRIVATE;
      else process.env.CHECK_ALLOW_PRIVATE = before;
    }
  });
});
