/**
 * Reads the price of a product page the way price checks do, for people and scripts.
 *
 *   bun run extract <url | saved .html file> [--url ADDRESS] [--selector CSS] [--detect] [--render]
 *
 * Prints one JSON object on stdout:
 *   {"price": 24.99, "currency": "GBP", "source": "selector", "selector": ".price", "availability": "InStock",
 *    "identifiers": {"gtin": "05012345678900", "mpn": "KX-200", "sku": "KET-17", "brand": "Acme"}}              exit 0
 *   {"error": "<reason a person can act on>", "code": "<machine code>", "availability": null,
 *    "identifiers": {"gtin": null, "mpn": null, "sku": null, "brand": null}}                                     exit 1
 * `identifiers` are the product identifiers the page states (GTIN as 14 digits), each null when it
 * states none; a page that could not be read at all prints only the error and its code. A price
 * also comes with the page's `offers` ([{price, currency, availability, regularPrice, variant}],
 * one per variant), and the `variant` ({id, sku, gtin, options} | null) and `regularPrice` of the
 * offer the address selects when it is the price read.
 * With --detect, the verified selector suggestions AI Detect offers, best first ([] when there are none):
 *   {"suggestions": [{"selector", "description", "confidence", "price", "currency"}, ...], "availability": "InStock"}   exit 0
 * A suggestion's selector given back with --selector yields the same price.
 *
 * --url gives a saved file's original address: it picks the product variant and resolves the
 * page's relative links, as the address of a fetched page does. Wrong usage prints a JSON error
 * with code "usage" and exits 2. When structured data stood in for a failing selector, the
 * selector's problem is also written to stderr.
 *
 * An address is read the way checks read it: static first, rendered in Chromium when the static
 * HTML gives no price (or no suggestion) and the page has scripts, or is an app shell. --render
 * renders it in any case. "Rendered in the browser." is written to stderr when it was.
 */
import { readFile } from 'node:fs/promises';
import { detectPriceSelectors } from '../api/ai/detect.ts';
import { addressVariantFirst, detectVariants } from '../api/ai/variants.ts';
import { extractPriceFromDocument } from '../api/reading/extract.ts';
import { readOffers } from '../api/reading/offers.ts';
import { readIdentifiers, type ProductIdentifiers } from '../api/reading/identifiers.ts';
import { createFetcher } from '../api/fetching/fetcher.ts';
import { parsePage, type Document } from '../api/reading/page.ts';
import { needsRendering, readPage } from '../api/checks/read-page.ts';
import { looksScriptRendered } from '../api/reading/script-rendered.ts';

const USAGE = 'Usage: bun run extract <url or path of a saved .html file> [--url <original address>] [--selector <css>] [--detect] [--render]';

function finish(output: object, exitCode: number): never {
  console.log(JSON.stringify(output));
  // A launched browser is killed with the process (playwright-core's exit handler).
  process.exit(exitCode);
}

type Arguments = { target: string; selector: string | null; url: string | null; detect: boolean; render: boolean };

function parseArguments(args: string[]): Arguments {
  const parsed: Omit<Arguments, 'target'> & { target: string | null } = { target: null, selector: null, url: null, detect: false, render: false };
  const valueAfter = (name: string, index: number): string => {
    if (index + 1 >= args.length) finish({ error: `--${name} needs a value. ${USAGE}`, code: 'usage' }, 2);
    return args[index + 1]!;
  };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, null];
    if (flag === '--selector' || flag === '-s') parsed.selector = inline ?? valueAfter('selector', index++);
    else if (flag === '--url') parsed.url = inline ?? valueAfter('url', index++);
    else if (flag === '--detect' && inline === null) parsed.detect = true;
    else if (flag === '--render' && inline === null) parsed.render = true;
    else if (flag === '--help' || flag === '-h') {
      console.error(USAGE);
      process.exit(0);
    } else if (arg.startsWith('-') || parsed.target !== null) finish({ error: `Unexpected argument “${arg}”. ${USAGE}`, code: 'usage' }, 2);
    else parsed.target = arg;
  }
  if (parsed.target === null) finish({ error: USAGE, code: 'usage' }, 2);
  if (parsed.url !== null && !/^https?:\/\/[^/]/i.test(parsed.url))
    finish({ error: `--url must be an http(s) address, not “${parsed.url}”. ${USAGE}`, code: 'usage' }, 2);
  if (parsed.detect && parsed.selector !== null) finish({ error: `--detect suggests selectors; leave out --selector. ${USAGE}`, code: 'usage' }, 2);
  return parsed as Arguments;
}

async function loadPage(target: string, args: Arguments): Promise<{ html: string; url?: string }> {
  if (/^[a-z][a-z\d+.-]*:\/\//i.test(target)) {
    const url = args.url ?? target;
    const satisfied = args.detect
      ? (document: Document) => detectPriceSelectors(document, { url }).length > 0
      : (document: Document) => !needsRendering(extractPriceFromDocument(document, { selector: args.selector, url }), looksScriptRendered(document));
    const page = await readPage(target, {
      fetcher: createFetcher(),
      fetchOptions: { allowPrivate: process.env.CHECK_ALLOW_PRIVATE === 'true' },
      render: args.render ? 'always' : 'auto',
      satisfied,
    });
    if (!page.ok) finish({ error: page.reason, code: page.code }, 1);
    if (page.fetcher === 'browser') console.error('Rendered in the browser.');
    return { html: page.body, url: page.url };
  }
  try {
    return { html: await readFile(target, 'utf8') };
  } catch (error) {
    const detail = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'there is no such file' : String((error as Error).message);
    finish({ error: `Cannot read “${target}”: ${detail}.`, code: 'file-unreadable' }, 1);
  }
}

const args = parseArguments(process.argv.slice(2));
const loaded = await loadPage(args.target, args);
const url = args.url ?? loaded.url;
const document = parsePage(loaded.html);

if (args.detect) {
  const found = detectPriceSelectors(document, { url });
  const suggestions = (url ? addressVariantFirst(found, detectVariants(document, url)) : found).map(
    ({ selector, description, confidence, price, currency }) => ({
      selector,
      description,
      confidence,
      price,
      currency,
    }),
  );
  finish({ suggestions, availability: extractPriceFromDocument(document, { url }).availability }, 0);
}
// Always the four fields, so scripts reading the output need not tell a missing field from a null one.
const NO_IDENTIFIERS: ProductIdentifiers = { gtin: null, mpn: null, sku: null, brand: null };
const result = extractPriceFromDocument(document, { selector: args.selector, url });
// A page without a price can still state what product it is.
if (!result.ok)
  finish({ error: result.reason, code: result.code, availability: result.availability, identifiers: readIdentifiers(document, { url }) ?? NO_IDENTIFIERS }, 1);
if (result.warning) console.error(result.warning);
const identifiers = result.identifiers ?? NO_IDENTIFIERS;
// The page's offers (api/reading/offers.ts); the variant and regular price are those of the offer read.
const offers = readOffers(document, url, result.currency).map(({ selection: _, ...offer }) => offer);
const variant = result.variant ? { id: result.variant.id, sku: result.variant.sku, gtin: result.variant.gtin, options: result.variant.options } : null;
finish(
  {
    price: result.price,
    currency: result.currency,
    source: result.source,
    selector: result.selector,
    availability: result.availability,
    identifiers,
    variant,
    regularPrice: result.regularPrice ?? null,
    offers,
  },
  0,
);
