import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SCRIPT = join(import.meta.dir, 'extract.ts');

const PRODUCT_PAGE = `<!doctype html><html><head><title>Kettle</title>
<script type="application/ld+json">{"@type":"Product","name":"Kettle","offers":{"@type":"Offer","price":"24.99","priceCurrency":"GBP"}}</script>
</head><body><h1>Kettle</h1><p class="price"><del>£30.00</del> <ins>£24.99</ins></p></body></html>`;

const APP_SHELL = `<!doctype html><html><head><title>Kettle</title></head><body><div id="root"></div>
<script>setTimeout(() => { document.getElementById('root').innerHTML = '<h1>Kettle</h1><div class="buy"><span class="price">£19.99</span><button>Add to basket</button></div>'; }, 300);</script></body></html>`;

const NO_IDENTIFIERS = { gtin: null, mpn: null, sku: null, brand: null };
/** The kettle page states one offer: the product's own, no variants; its regular price is shown struck through. */
const ONE_OFFER = {
  variant: null,
  regularPrice: 30,
  offers: [{ source: 'json-ld', price: 24.99, currency: 'GBP', availability: null, regularPrice: null, variant: null }],
};

async function run(args: string[], env: Record<string, string> = {}) {
  const proc = Bun.spawn([process.execPath, SCRIPT, ...args], { stdout: 'pipe', stderr: 'pipe', env: { ...process.env, ...env } });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { output: JSON.parse(stdout), stderr, exitCode };
}

let folder: string;
let pagePath: string;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'pricewatch-extract-'));
  pagePath = join(folder, 'kettle.html');
  await writeFile(pagePath, PRODUCT_PAGE);
});
afterAll(() => rm(folder, { recursive: true, force: true }));

describe('bun run extract on a saved page', () => {
  test('with a selector', async () => {
    const { output, exitCode } = await run([pagePath, '--selector', 'p.price']);
    expect(output).toEqual({
      price: 24.99,
      currency: 'GBP',
      source: 'selector',
      selector: 'p.price',
      availability: 'InStock',
      identifiers: NO_IDENTIFIERS,
      ...ONE_OFFER,
    });
    expect(exitCode).toBe(0);
  });
  test('without a selector, from structured data', async () => {
    const { output, exitCode } = await run([pagePath]);
    expect(output).toEqual({
      price: 24.99,
      currency: 'GBP',
      source: 'json-ld',
      selector: null,
      availability: 'InStock',
      identifiers: NO_IDENTIFIERS,
      ...ONE_OFFER,
    });
    expect(exitCode).toBe(0);
  });
  test('a failing selector falls back to structured data and says why on stderr', async () => {
    const { output, stderr, exitCode } = await run([pagePath, '--selector=.nothing']);
    expect(output).toEqual({
      price: 24.99,
      currency: 'GBP',
      source: 'json-ld',
      selector: null,
      availability: 'InStock',
      identifiers: NO_IDENTIFIERS,
      ...ONE_OFFER,
    });
    expect(stderr).toContain('.nothing');
    expect(exitCode).toBe(0);
  });
  test('--detect prints the verified suggestions, and each selector given back yields the same price', async () => {
    const { output, exitCode } = await run([pagePath, '--detect', '--url', 'https://shop.example/kettle']);
    expect(exitCode).toBe(0);
    expect(output.availability).toBe('InStock');
    expect(output.suggestions.length).toBeGreaterThan(0);
    for (const suggestion of output.suggestions) {
      expect(Object.keys(suggestion).sort()).toEqual(['confidence', 'currency', 'description', 'price', 'selector']);
      const again = await run([pagePath, '--selector', suggestion.selector]);
      expect(again.output.price).toBe(suggestion.price);
    }
  });
  test('--detect on a page without a price is an empty list, exit 0', async () => {
    const empty = join(folder, 'nothing.html');
    await writeFile(empty, '<html><body><h1>About us</h1><p>We sell things.</p></body></html>');
    const { output, exitCode } = await run([empty, '--detect']);
    expect(output).toEqual({ suggestions: [], availability: null });
    expect(exitCode).toBe(0);
  });
  test('a sold-out page says so', async () => {
    const soldOut = join(folder, 'sold-out.html');
    await writeFile(soldOut, PRODUCT_PAGE.replace('"priceCurrency":"GBP"', '"priceCurrency":"GBP","availability":"https://schema.org/OutOfStock"'));
    const { output } = await run([soldOut, '--url', 'https://shop.example/kettle']);
    expect(output).toMatchObject({ price: 24.99, availability: 'OutOfStock' });
  });
  test('a page of variants: its offers, and the variant its address selects with its regular price and stock', async () => {
    const base = 'https://shop.example/products/trail-jacket';
    const variants = [
      ['S', '101', '89.00', 'InStock'],
      ['XL', '104', '99.00', 'OutOfStock'],
    ].map(([size, id, price, stock]) => ({
      '@type': 'Product',
      sku: `TJ-${size}`,
      size,
      url: `${base}?variant=${id}`,
      offers: {
        '@type': 'Offer',
        price,
        priceCurrency: 'GBP',
        availability: `https://schema.org/${stock}`,
        url: `${base}?variant=${id}`,
        priceSpecification: { '@type': 'UnitPriceSpecification', priceType: 'https://schema.org/StrikethroughPrice', price: '120.00', priceCurrency: 'GBP' },
      },
    }));
    const group = {
      '@context': 'https://schema.org',
      '@type': 'ProductGroup',
      name: 'Trail Jacket',
      variesBy: ['https://schema.org/size'],
      hasVariant: variants,
    };
    const file = join(folder, 'jacket.html');
    await writeFile(file, `<html><head><script type="application/ld+json">${JSON.stringify(group)}</script></head><body><h1>Trail Jacket</h1></body></html>`);
    const { output } = await run([file, '--url', `${base}?variant=104`]);
    expect(output).toMatchObject({
      price: 99,
      currency: 'GBP',
      availability: 'OutOfStock',
      regularPrice: 120,
      variant: { id: 'TJ-XL', sku: 'TJ-XL', gtin: null, options: { size: 'XL' } },
    });
    expect(output.offers.map((o: { price: number; availability: string }) => [o.price, o.availability])).toEqual([
      [89, 'InStock'],
      [99, 'OutOfStock'],
    ]);
  });

  test("the product's identifiers are printed beside its price, and beside an error when the page has no price", async () => {
    const stated = join(folder, 'stated.html');
    const identified = '"gtin13":"5012345678900","mpn":"KX-200","sku":"KET-17","brand":{"@type":"Brand","name":"Acme"}';
    await writeFile(stated, PRODUCT_PAGE.replace('"name":"Kettle",', `"name":"Kettle",${identified},`));
    const found = await run([stated]);
    expect(found.output).toEqual({
      price: 24.99,
      currency: 'GBP',
      source: 'json-ld',
      selector: null,
      availability: 'InStock',
      identifiers: { gtin: '05012345678900', mpn: 'KX-200', sku: 'KET-17', brand: 'Acme' },
      ...ONE_OFFER,
    });
    const noPrice = join(folder, 'stated-no-price.html');
    await writeFile(
      noPrice,
      `<html><head><script type="application/ld+json">{"@type":"Product","name":"Kettle",${identified}}</script></head><body><h1>Kettle</h1></body></html>`,
    );
    const failed = await run([noPrice]);
    expect(failed.exitCode).toBe(1);
    expect(failed.output).toMatchObject({ code: 'no-price', identifiers: { gtin: '05012345678900', mpn: 'KX-200', sku: 'KET-17', brand: 'Acme' } });
  });
  test('--url must be an address', async () => {
    const { output, exitCode } = await run([pagePath, '--url', 'kettle']);
    expect(output.code).toBe('usage');
    expect(exitCode).toBe(2);
  });
  test('an invalid selector is a JSON error', async () => {
    const { output, exitCode } = await run([pagePath, '--selector', 'p[']);
    expect(output.code).toBe('invalid-selector');
    expect(output.error).toContain('p[');
    expect(exitCode).toBe(1);
  });
  test('a page without a price is a JSON error', async () => {
    const empty = join(folder, 'empty.html');
    await writeFile(empty, '<html><body><h1>Nothing here</h1></body></html>');
    const { output, exitCode } = await run([empty]);
    expect(output.code).toBe('no-price');
    expect(output.identifiers).toEqual(NO_IDENTIFIERS);
    expect(exitCode).toBe(1);
  });
  test('a missing file is a JSON error', async () => {
    const { output, exitCode } = await run([join(folder, 'missing.html')]);
    expect(output).toMatchObject({ code: 'file-unreadable' });
    expect(output.error).toContain('no such file');
    expect(exitCode).toBe(1);
  });
  test('wrong usage exits 2', async () => {
    expect((await run([])).exitCode).toBe(2);
    expect((await run([pagePath, '--selector'])).exitCode).toBe(2);
    expect((await run([pagePath, '--colour', 'red'])).exitCode).toBe(2);
  });
});

describe('bun run extract on a url', () => {
  let server: ReturnType<typeof Bun.serve>;
  beforeAll(() => {
    server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: (request) => {
        const { pathname } = new URL(request.url);
        if (pathname === '/kettle') return new Response(PRODUCT_PAGE, { headers: { 'content-type': 'text/html; charset=utf-8' } });
        if (pathname === '/app') return new Response(APP_SHELL, { headers: { 'content-type': 'text/html; charset=utf-8' } });
        return new Response('Not found', { status: 404, headers: { 'content-type': 'text/html' } });
      },
    });
  });
  afterAll(() => server.stop(true));

  test('fetches the page and reads the price', async () => {
    const { output, exitCode } = await run([`http://127.0.0.1:${server.port}/kettle`, '--selector', 'ins'], { CHECK_ALLOW_PRIVATE: 'true' });
    expect(output).toEqual({
      price: 24.99,
      currency: 'GBP',
      source: 'selector',
      selector: 'ins',
      availability: 'InStock',
      identifiers: NO_IDENTIFIERS,
      ...ONE_OFFER,
    });
    expect(exitCode).toBe(0);
  });
  test('a page that cannot be fetched is a JSON error', async () => {
    const { output, exitCode } = await run([`http://127.0.0.1:${server.port}/missing`], { CHECK_ALLOW_PRIVATE: 'true' });
    expect(output.code).toBe('http-status');
    expect(typeof output.error).toBe('string');
    expect(exitCode).toBe(1);
  });
  test('private addresses stay blocked unless allowed', async () => {
    const { output, exitCode } = await run([`http://127.0.0.1:${server.port}/kettle`], { CHECK_ALLOW_PRIVATE: 'false' });
    expect(output.code).toBe('blocked-address');
    expect(exitCode).toBe(1);
  });

  // The same rule as checks: a page whose price only scripts show is rendered in Chromium.
  const chromium = existsSync(process.env.CHROMIUM_PATH || '/usr/bin/chromium');
  test.skipIf(!chromium && process.env.REQUIRE_BROWSER !== '1')(
    'an app shell is rendered, and --render renders any page',
    async () => {
      const shell = await run([`http://127.0.0.1:${server.port}/app`], { CHECK_ALLOW_PRIVATE: 'true' });
      expect(shell.output).toMatchObject({ price: 19.99, currency: 'GBP' });
      expect(shell.stderr).toContain('Rendered in the browser.');
      const detect = await run([`http://127.0.0.1:${server.port}/app`, '--detect'], { CHECK_ALLOW_PRIVATE: 'true' });
      expect(detect.output.suggestions[0]).toMatchObject({ price: 19.99 });
      const forced = await run([`http://127.0.0.1:${server.port}/kettle`, '--render', '--selector', 'ins'], { CHECK_ALLOW_PRIVATE: 'true' });
      expect(forced.output).toEqual({
        price: 24.99,
        currency: 'GBP',
        source: 'selector',
        selector: 'ins',
        availability: 'InStock',
        identifiers: NO_IDENTIFIERS,
        ...ONE_OFFER,
      });
      expect(forced.stderr).toContain('Rendered in the browser.');
      const plain = await run([`http://127.0.0.1:${server.port}/kettle`, '--selector', 'ins'], { CHECK_ALLOW_PRIVATE: 'true' });
      expect(plain.stderr).not.toContain('Rendered');
    },
    60_000,
  );
});
