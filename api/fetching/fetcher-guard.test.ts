import { describe, expect, test } from 'bun:test';
import { isBlockedAddress, isCloudMetadataAddress, uncheckableUrlReason, validateTargetUrl } from './address-guard.ts';

describe('isBlockedAddress', () => {
  const blocked = {
    loopback: ['127.0.0.1', '127.255.255.254', '::1'],
    private: ['10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1'],
    'link-local': ['169.254.1.1', 'fe80::1', 'fe80::1%eth0'],
    'cloud metadata': ['169.254.169.254', 'fd00:ec2::254', '168.63.129.16', '::ffff:168.63.129.16', '64:ff9b::a83f:8110'],
    'unique-local': ['fc00::1', 'fd12:3456::1'],
    multicast: ['224.0.0.1', '239.255.255.250', 'ff02::1', 'ff05::2'],
    unspecified: ['0.0.0.0', '0.1.2.3', '::'],
    broadcast: ['255.255.255.255'],
    CGNAT: ['100.64.0.1', '100.127.255.254', '100.100.100.200'],
    reserved: ['240.0.0.1', '192.0.0.8', '192.0.2.1', '198.51.100.1', '203.0.113.1', '198.18.0.1', '2001:db8::1'],
    'IPv4-mapped': ['::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '[::ffff:192.168.0.1]'],
    'IPv4-translated and IPv4-compatible': ['::ffff:0:127.0.0.1', '::127.0.0.1'],
    NAT64: ['64:ff9b::127.0.0.1', '64:ff9b::a00:1', '64:ff9b::169.254.169.254', '64:ff9b:1::1'],
    'other special IPv6': ['fec0::1', '2002:7f00:1::1', '2001::1', '100::1'],
    'not an address': ['', 'localhost', '1.2.3.4.5', 'shop.example'],
  };
  for (const [range, addresses] of Object.entries(blocked)) {
    test(`refuses ${range}`, () => {
      for (const ip of addresses) expect({ ip, blocked: isBlockedAddress(ip) }).toEqual({ ip, blocked: true });
    });
  }

  test('allows public addresses', () => {
    const open = [
      '8.8.8.8',
      '1.1.1.1',
      '93.184.216.34',
      '172.32.0.1',
      '172.15.255.255',
      '100.128.0.1',
      '2606:4700:4700::1111',
      '2a00:1450:4009:81f::200e',
      '::ffff:8.8.8.8',
      '64:ff9b::8.8.8.8',
    ];
    for (const ip of open) expect({ ip, blocked: isBlockedAddress(ip) }).toEqual({ ip, blocked: false });
  });

  test('knows the cloud metadata addresses in every form', () => {
    for (const ip of ['169.254.169.254', '::ffff:169.254.169.254', 'fd00:ec2::254', '64:ff9b::a9fe:a9fe']) expect(isCloudMetadataAddress(ip)).toBe(true);
    expect(isCloudMetadataAddress('127.0.0.1')).toBe(false);
  });

  test('finds metadata services in all of link-local and inside every IPv6 form that carries an IPv4 address', () => {
    const metadata = [
      // Azure WireServer; AWS ECS credentials, time and DNS: all of 169.254.0.0/16.
      '168.63.129.16',
      '169.254.170.2',
      '169.254.169.123',
      '169.254.169.253',
      '169.254.0.1',
      '::ffff:168.63.129.16',
      '64:ff9b::a83f:8110',
      // IPv4-compatible, local-use NAT64, 6to4, and Teredo (client address inverted).
      '::a9fe:a9fe',
      '::169.254.170.2',
      '64:ff9b:1::a9fe:a9fe',
      '2002:a9fe:a9fe::',
      '2002:a9fe:a9fe:1::1',
      '2001:0:4136:e378:8000:63bf:5601:5601',
      '[2002:a83f:8110::]',
      // AWS instance services over IPv6: metadata, pod credentials, time.
      'fd00:ec2::254',
      'fd00:ec2::23',
      'fd00:ec2::123',
    ];
    for (const ip of metadata) expect({ ip, metadata: isCloudMetadataAddress(ip) }).toEqual({ ip, metadata: true });
    const other = [
      '127.0.0.1',
      '10.0.0.1',
      '8.8.8.8',
      '168.63.129.17',
      '::1',
      '::',
      '::ffff:8.8.8.8',
      '2002:808:808::',
      '2001:0:4136:e378:8000:63bf:f7f7:f7f7',
      '64:ff9b::808:808',
      '64:ff9b:1::808:808',
      'fe80::1',
      'fd00::254',
      'not an address',
    ];
    for (const ip of other) expect({ ip, metadata: isCloudMetadataAddress(ip) }).toEqual({ ip, metadata: false });
  });
});

describe('validateTargetUrl', () => {
  test('accepts http and https pages', () => {
    for (const url of ['https://shop.example/p/1?x=2', 'http://shop.example:8080/', 'https://[2606:4700::1]/']) expect(validateTargetUrl(url).ok).toBe(true);
  });

  test('refuses other schemes, credentials, mail and shell ports, and garbage', () => {
    for (const url of [
      'ftp://shop.example/file',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'gopher://shop.example/',
      'https://user:secret@shop.example/',
      'http://shop.example:25/',
      'http://shop.example:22/',
      'not a url',
      '',
    ]) {
      const result = validateTargetUrl(url);
      expect(result.ok ? 'accepted' : result.code).toBe('bad-url');
    }
  });

  test('refuses metadata host names', () => {
    const result = validateTargetUrl('http://metadata.google.internal/computeMetadata/v1/');
    expect(result.ok ? 'accepted' : result.code).toBe('blocked-address');
  });
});

describe('uncheckableUrlReason (an address as the user gives it, before any fetch)', () => {
  const refusedWith = (url: string, allowPrivate = false) => uncheckableUrlReason(url, { allowPrivate });

  test('accepts public shop addresses on the ports shops use', () => {
    for (const url of [
      'https://shop.example/p/1?x=2',
      'http://shop.example/',
      'http://shop.example:80/',
      'https://shop.example:443/',
      'http://shop.example:8080/',
      'https://shop.example:8443/',
      'https://93.184.216.34/p',
      'https://[2606:4700::1]/',
      'http://[::ffff:8.8.8.8]/',
      'https://xn--bcher-kva.example/',
      'http://shop.internal.example/',
    ])
      expect({ url, reason: refusedWith(url) }).toEqual({ url, reason: null });
  });

  test('does not resolve names: a name is vetted when its page is fetched', () => {
    expect(refusedWith('https://127.0.0.1.nip.io/')).toBeNull();
  });

  test('refuses what validateTargetUrl refuses, with its reason', () => {
    expect(refusedWith('ftp://shop.example/file')).toBe('Only web pages can be checked: the link must start with http:// or https://.');
    expect(refusedWith('not a url')).toBe('This is not a valid web address. Copy the full link of the product page, starting with https://.');
  });

  test('refuses credentials in the address, even on loopback test servers', () => {
    for (const url of ['https://user:secret@shop.example/', 'https://user@shop.example/', 'http://:pw@127.0.0.1:4000/'])
      for (const allowPrivate of [false, true]) expect(refusedWith(url, allowPrivate)).toBe('Links that contain a user name or password cannot be checked.');
  });

  const literal: Record<string, string[]> = {
    loopback: [
      'http://127.0.0.1/',
      'http://127.1/',
      'http://0x7f.1/',
      'http://0x7f000001/',
      'http://2130706433/',
      'http://017700000001/',
      'http://127.0.0.1./',
      'http://[::1]/',
    ],
    private: [
      'http://10.0.0.1/',
      'http://10.1/',
      'http://0xa000001/',
      'http://172.16.0.1/',
      'http://192.168.1.1/',
      'http://[fc00::1]/',
      'http://[fd12:3456::1]/',
    ],
    'link-local': ['http://169.254.1.1/', 'http://[fe80::1]/', 'http://[febf::1]/'],
    unspecified: ['http://0.0.0.0/', 'http://0/', 'http://[::]/'],
    'IPv4-mapped and NAT64': ['http://[::ffff:127.0.0.1]/', 'http://[::ffff:7f00:1]/', 'http://[::ffff:10.0.0.1]/', 'http://[64:ff9b::7f00:1]/'],
    'other non-public': ['http://224.0.0.1/', 'http://255.255.255.255/', 'http://100.64.0.1/', 'http://[ff02::1]/'],
  };
  for (const [range, urls] of Object.entries(literal))
    test(`refuses ${range} addresses in every written form`, () => {
      for (const url of urls) {
        const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
        expect({ url, reason: refusedWith(url) }).toEqual({
          url,
          reason: `${host} leads to a private or internal network address, which Pricewatch does not visit for safety reasons.`,
        });
      }
    });

  test('refuses the loopback name localhost', () => {
    for (const url of ['http://localhost/', 'http://LOCALHOST./p', 'http://shop.localhost/']) expect(refusedWith(url)).toBeString();
  });

  test('refuses cloud metadata addresses, even on loopback test servers', () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:169.254.169.254]/',
      'http://[fd00:ec2::254]/',
      'http://metadata.google.internal/',
      'http://100.100.100.200/',
    ])
      for (const allowPrivate of [false, true])
        expect({ url, allowPrivate, refused: typeof refusedWith(url, allowPrivate) }).toEqual({ url, allowPrivate, refused: 'string' });
  });

  test('refuses every form of a metadata address, even on loopback test servers', () => {
    for (const url of [
      'http://168.63.129.16/machine?comp=goalstate',
      'http://169.254.170.2/v2/credentials/x',
      'http://169.254.169.123/',
      'http://[::a9fe:a9fe]/',
      'http://[::169.254.169.254]/',
      'http://[64:ff9b:1::a9fe:a9fe]/',
      'http://[2002:a9fe:a9fe::]/',
      'http://[2001:0:4136:e378:8000:63bf:5601:5601]/',
      'http://[::ffff:168.63.129.16]/',
      'http://[fd00:ec2::23]/',
    ]) {
      const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
      for (const allowPrivate of [false, true])
        expect({ url, allowPrivate, reason: refusedWith(url, allowPrivate) }).toEqual({
          url,
          allowPrivate,
          reason: `${host} leads to a private or internal network address, which Pricewatch does not visit for safety reasons.`,
        });
    }
  });

  test('refuses ports other than 80, 443, 8080 and 8443', () => {
    for (const port of [81, 3000, 5432, 6379, 8000, 8081, 9200, 65535]) {
      expect(refusedWith(`https://shop.example:${port}/`)).toBe(
        `Port ${port} is not a port shops serve pages on (80, 443, 8080 or 8443), so Pricewatch does not open it.`,
      );
    }
    for (const port of [1, 22, 25])
      expect(refusedWith(`https://shop.example:${port}/`)).toBe(`Port ${port} is not used for web pages, so Pricewatch does not open it.`);
    expect(refusedWith('http://shop.example:443/')).toBeNull();
    expect(refusedWith('https://shop.example:80/')).toBeNull();
  });

  test('allowPrivate (tests on loopback servers) lifts the address and port rules only', () => {
    for (const url of ['http://127.0.0.1:40123/kettle', 'http://localhost:3000/demo-shop/', 'http://[::1]:8000/', 'http://10.0.0.1:9999/'])
      expect({ url, reason: refusedWith(url, true) }).toEqual({ url, reason: null });
    // Mail and shell ports stay closed as they are when fetching.
    expect(refusedWith('http://127.0.0.1:25/', true)).toBeString();
  });
});
