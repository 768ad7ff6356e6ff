import { describe, expect, test } from 'bun:test';
import { detectBotChallenge, parseRetryAfter } from './fetch-errors.ts';
import { failures, normaliseFailureCode } from '../../domain/check-failures.ts';

// Answers as the vendors serve them (headers and the start of the body, trimmed).
type Sample = { name: string; status: number; headers: Record<string, string | string[]>; body: string; vendor: string | null };

const CLOUDFLARE_CHALLENGE = `<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title>
<meta http-equiv="refresh" content="390"><script>(function(){window._cf_chl_opt={cvId: '3',cZone: "shop.example",cType: 'managed'};
var cpo=document.createElement('script');cpo.src='/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray=8a1b';})();</script></head>
<body><div class="main-wrapper"><h1 class="zone-name-title h1">shop.example</h1><h2>Verifying you are human. This may take a few seconds.</h2></div></body></html>`;

const CLOUDFLARE_BLOCK = `<!DOCTYPE html><html><head><title>Attention Required! | Cloudflare</title></head><body>
<div id="cf-wrapper"><h1 data-translate="block_headline">Sorry, you have been blocked</h1>
<h2>You are unable to access</h2> shop.example</div><span>Cloudflare Ray ID: <strong>8a1b2c3d4e5f6a7b</strong></span></body></html>`;

const AKAMAI_DENIED = `<HTML><HEAD>
<TITLE>Access Denied</TITLE>
</HEAD><BODY>
<H1>Access Denied</H1>

You don't have permission to access "http&#58;&#47;&#47;www&#46;shop&#46;example&#47;p&#47;kettle" on this server.<P>
Reference&#32;&#35;18&#46;5f2e1c17&#46;1732460000&#46;3a4b5c6d
<P>https&#58;&#47;&#47;errors&#46;edgesuite&#46;net&#47;18&#46;5f2e1c17&#46;1732460000&#46;3a4b5c6d</P>
</BODY>
</HTML>`;

const AKAMAI_DENIED_PLAIN = `<HTML><HEAD><TITLE>Access Denied</TITLE></HEAD><BODY><H1>Access Denied</H1>
You don't have permission to access "http://www.shop.example/p/kettle" on this server.<P>
Reference #18.5f2e1c17.1732460000.3a4b5c6d<P>https://errors.edgesuite.net/18.5f2e1c17.1732460000.3a4b5c6d</P></BODY></HTML>`;

const PERIMETERX = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Access to this page has been denied</title>
<script>window._pxAppId = 'PXu6b0qd2S';window._pxJsClientSrc = '/u6b0qd2S/init.js';window._pxHostUrl = '/u6b0qd2S/xhr';</script>
</head><body><div class="px-captcha-error-header">Before we continue...</div><p>Press &amp; Hold to confirm you are a human (and not a bot).</p>
<div id="px-captcha"></div><script src="/u6b0qd2S/captcha/captcha.js?a=c&u=0c2f"></script></body></html>`;

const DATADOME = `<html lang="en"><head><title>shop.example</title><style>#cmsg{animation: A 1.5s;}</style></head>
<body style="margin:0"><p id="cmsg">Please enable JS and disable any ad blocker</p>
<script data-cfasync="false">var dd={'rt':'c','cid':'AHrlqAAAAAMA','hsh':'2211F522B61E269B869FA6EAFFB5E1','t':'fe','s':17434,'e':'8a1f','host':'geo.captcha-delivery.com'}</script>
<script data-cfasync="false" src="https://ct.captcha-delivery.com/c.js"></script></body></html>`;

const INCAPSULA = `<html style="height:100%"><head><META NAME="ROBOTS" CONTENT="NOINDEX, NOFOLLOW"><meta name="format-detection" content="telephone=no">
<meta name="viewport" content="initial-scale=1.0"><meta http-equiv="X-UA-Compatible" content="IE=edge,chrome=1"></head>
<body style="margin:0px;height:100%"><iframe id="main-iframe" src="/_Incapsula_Resource?SWUDNSAI=31&xinfo=5-1234-0%200NNN%20RT&incident_id=1234-5678&edet=15&cinfo=04000000"
frameborder=0 width="100%" height="100%" marginheight="0px" marginwidth="0px">Request unsuccessful. Incapsula incident ID: 1234-5678</iframe></body></html>`;

const GENERIC_CAPTCHA = `<!doctype html><html><head><title>Security check</title>
<script src="https://www.google.com/recaptcha/api.js" async defer></script></head>
<body><h1>Please verify you are a human</h1><form method="post"><div class="g-recaptcha" data-sitekey="6Lc..."></div></form></body></html>`;

const PRODUCT_PAGE_WITH_SCRIPTS = `<!doctype html><html><head><title>Kettle | Shop</title>
<script src="https://js.datadome.co/tags.js"></script><script src="/u6b0qd2S/init.js"></script></head>
<body><h1>Kettle</h1><span class="price">£24.99</span><form id="login"><div class="g-recaptcha"></div></form></body></html>`;

const PLAIN_FORBIDDEN =
  "<html><head><title>403 Forbidden</title></head><body><h1>Forbidden</h1><p>You don't have permission to access this resource.</p><hr><address>Apache/2.4.57 Server</address></body></html>";
const NOT_FOUND =
  '<html><head><title>Page not found</title><script src="https://js.datadome.co/tags.js"></script></head><body><h1>Sorry, this product is gone</h1></body></html>';

const samples: Sample[] = [
  {
    name: 'Cloudflare managed challenge',
    status: 403,
    headers: { 'cf-mitigated': 'challenge', server: 'cloudflare', 'cf-ray': '8a1b2c3d4e5f6a7b-LHR' },
    body: CLOUDFLARE_CHALLENGE,
    vendor: 'Cloudflare',
  },
  { name: 'Cloudflare challenge, header only', status: 403, headers: { 'cf-mitigated': 'challenge' }, body: '', vendor: 'Cloudflare' },
  {
    name: 'Cloudflare challenge served as 503 without the header',
    status: 503,
    headers: { server: 'cloudflare' },
    body: CLOUDFLARE_CHALLENGE,
    vendor: 'Cloudflare',
  },
  {
    name: 'Cloudflare WAF block page',
    status: 403,
    headers: { server: 'cloudflare', 'cf-ray': '8a1b2c3d4e5f6a7b-LHR' },
    body: CLOUDFLARE_BLOCK,
    vendor: 'Cloudflare',
  },
  {
    name: 'Akamai Access Denied (entities)',
    status: 403,
    headers: { server: 'AkamaiGHost', 'content-type': 'text/html' },
    body: AKAMAI_DENIED,
    vendor: 'Akamai',
  },
  { name: 'Akamai Access Denied (plain)', status: 403, headers: { server: 'AkamaiGHost' }, body: AKAMAI_DENIED_PLAIN, vendor: 'Akamai' },
  {
    name: 'Akamai by its GRN header',
    status: 403,
    headers: { 'akamai-grn': '0.5f2e1c17.1732460000.3a4b5c6d' },
    body: '<html><body>Denied</body></html>',
    vendor: 'Akamai',
  },
  { name: 'Akamai by an x-akamai header', status: 403, headers: { 'x-akamai-transformed': '9 - 0 pmb=mRUM,1' }, body: '', vendor: 'Akamai' },
  {
    name: 'Akamai Bot Manager cookies',
    status: 403,
    headers: { 'set-cookie': ['_abck=0F3A~-1~YAAQ; Domain=.shop.example; Path=/', 'bm_sz=8C1D~YAAQ; Path=/'] },
    body: '',
    vendor: 'Akamai',
  },
  { name: 'HUMAN / PerimeterX Press & Hold', status: 403, headers: { 'content-type': 'text/html' }, body: PERIMETERX, vendor: 'HUMAN (PerimeterX)' },
  { name: 'HUMAN / PerimeterX by header', status: 403, headers: { 'x-px-block': '1' }, body: '', vendor: 'HUMAN (PerimeterX)' },
  { name: 'HUMAN / PerimeterX by cookie', status: 403, headers: { 'set-cookie': '_pxhd=abc:def; Path=/' }, body: '', vendor: 'HUMAN (PerimeterX)' },
  {
    name: 'DataDome captcha',
    status: 403,
    headers: { 'x-datadome': 'protected', 'x-dd-b': '1', 'set-cookie': 'datadome=AHrlqAAAAAMA; Max-Age=31536000; Path=/' },
    body: DATADOME,
    vendor: 'DataDome',
  },
  { name: 'DataDome by x-dd-b only', status: 403, headers: { 'x-dd-b': '2' }, body: '', vendor: 'DataDome' },
  { name: 'DataDome by cookie only', status: 403, headers: { 'set-cookie': ['datadome=AHrlq; Path=/'] }, body: '', vendor: 'DataDome' },
  { name: 'DataDome 429', status: 429, headers: { 'x-datadome': 'protected' }, body: '', vendor: 'DataDome' },
  { name: 'Imperva / Incapsula 403', status: 403, headers: { 'x-iinfo': '5-1234-0 0NNN RT' }, body: INCAPSULA, vendor: 'Imperva' },
  { name: 'Imperva by cookie', status: 403, headers: { 'set-cookie': 'visid_incap_2434=abc; path=/' }, body: '', vendor: 'Imperva' },
  { name: 'AWS WAF captcha', status: 405, headers: { 'x-amzn-waf-action': 'captcha' }, body: '', vendor: 'AWS WAF' },
  {
    name: 'Vercel checkpoint',
    status: 429,
    headers: { 'x-vercel-mitigated': 'challenge' },
    body: '<title>Vercel Security Checkpoint</title>',
    vendor: 'Vercel',
  },
  { name: 'a generic captcha page', status: 403, headers: {}, body: GENERIC_CAPTCHA, vendor: null },
  { name: 'a challenge title on a 200', status: 200, headers: {}, body: '<html><head><title>Pardon Our Interruption</title></head></html>', vendor: null },
];

describe('bot walls are recognised by status, headers and body', () => {
  for (const s of samples) {
    test(s.name, () => {
      expect(detectBotChallenge(s.status, s.headers, s.body)).toBe(s.vendor);
    });
  }
});

describe('ordinary answers are not bot walls', () => {
  const ordinary: Array<[string, number, Record<string, string | string[]>, string]> = [
    [
      'a product page that loads protection scripts',
      200,
      { 'set-cookie': ['_abck=1; Path=/', 'datadome=x; Path=/'], 'akamai-grn': '0.1' },
      PRODUCT_PAGE_WITH_SCRIPTS,
    ],
    ['a plain 403', 403, { server: 'Apache' }, PLAIN_FORBIDDEN],
    ['a 404 of a protected shop', 404, { 'x-datadome': 'protected', 'set-cookie': 'datadome=x' }, NOT_FOUND],
    ['a 503 outage behind Akamai', 503, { 'akamai-grn': '0.1', 'set-cookie': '_abck=1' }, '<h1>We are down for maintenance</h1>'],
    ['a plain 429', 429, { 'retry-after': '60' }, 'Too Many Requests'],
    ['a 500', 500, { 'cf-ray': '8a1b' }, '<h1>Internal Server Error</h1>'],
    // Imperva's own script sits on the pages it protects: a 200 needs a challenge title.
    ['an Imperva-protected page', 200, { 'x-iinfo': '5-1234-0 0NNN RT' }, INCAPSULA],
    ['a Cloudflare-proxied page', 200, { server: 'cloudflare', 'cf-ray': '8a1b', 'set-cookie': '__cf_bm=abc; path=/' }, PRODUCT_PAGE_WITH_SCRIPTS],
  ];
  for (const [name, status, headers, body] of ordinary) {
    test(name, () => expect(detectBotChallenge(status, headers, body)).toBeUndefined());
  }
});

describe('what the shop owner reads', () => {
  test('a bot wall names the vendor, says checks will resume, and offers the manual update', () => {
    const f = failures.botProtection('Cloudflare', 403);
    expect(f).toMatchObject({ code: 'blocked', status: 403 });
    expect(f.reason).toBe(
      "The shop's bot protection (Cloudflare) turned the check away. Pricewatch will try again later; meanwhile you can update the price by hand.",
    );
    expect(failures.botProtection(null, 403).reason).toStartWith("The shop's bot protection turned the check away.");
  });
  test('429 is blocked too, and carries the Retry-After', () => {
    expect(failures.rateLimited(60_000)).toMatchObject({ code: 'blocked', status: 429, retryAfterMs: 60_000 });
    expect(failures.rateLimited(null).reason).toStartWith('The shop asked us to slow down (HTTP 429).');
    expect(failures.rateLimited(null)).not.toHaveProperty('retryAfterMs');
  });
  test('other refusals, missing pages and server errors keep their own words', () => {
    expect(failures.httpStatus(403)).toMatchObject({ code: 'http-status', reason: 'The shop refused the request (HTTP 403).' });
    expect(failures.httpStatus(404).reason).toContain('does not exist');
    expect(failures.httpStatus(502).reason).toContain('had a problem');
  });
  test("old 'bot-protection' events read as blocked", () => {
    expect(normaliseFailureCode('bot-protection')).toBe('blocked');
    expect(normaliseFailureCode('blocked')).toBe('blocked');
    expect(normaliseFailureCode('timeout')).toBe('timeout');
  });
});

describe('Retry-After', () => {
  const now = Date.parse('2026-11-24T12:00:00Z');
  test('seconds', () => expect(parseRetryAfter('120', now)).toBe(120_000));
  test('an HTTP date', () => expect(parseRetryAfter('Tue, 24 Nov 2026 12:30:00 GMT', now)).toBe(30 * 60_000));
  test('a date in the past is now', () => expect(parseRetryAfter('Tue, 24 Nov 2026 11:00:00 GMT', now)).toBe(0));
  test('absent or unreadable', () => {
    expect(parseRetryAfter(undefined, now)).toBeNull();
    expect(parseRetryAfter('soon', now)).toBeNull();
  });
});
