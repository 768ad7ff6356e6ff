/**
 * Reads the price of a product page the way price checks do, for people and scripts.
 *
 *   bun run extract <url | saved .html file> [--url ADDRESS] [--selector CSS] [--detect]
 *
 * Prints one JSON object on stdout:
 *   {"price": 24.99, "currency": "GBP", "source": "selector", "selector": ".price", "availability": "InStock"}   exit 0
 *   {"error": "<reason a person can act on>", "code": "<machine code>", "availability": null}                    exit 1
 * With --detect, the verified selector suggestions AI Detect offers, best first ([] when there are none):
 *   {"suggestions": [{"selector", "description", "confidence", "price", "currency"}, ...], "availability": "InStock"}   exit 0
 * A suggestion's selector given back with --selector yields the same price.
 *
 * --url gives a saved file's original address: it picks the product variant and resolves the
 * page's relative links, as the address of a fetched page does. Wrong usage prints a JSON error
 * with code "usage" and exits 2. When structured data stood in for a failing selector, the
 * selector's problem is also written to stderr.
 */
import { readFile } from 'node:fs/promises';
import { detectPriceSelectors } from '../api/ai/detect.ts';
import { extractPriceFromDocument } from '../api/checks/extract.ts';
import { fetchPage } from '../api/checks/fetcher.ts';
import { parsePage } from '../api/checks/page.ts';

const USAGE = 'Usage: bun run extract <url or path of a saved .html file> [--url <original address>] [--selector <css>] [--detect]';

function finish(output: object, exitCode: number): never {
  console.log(JSON.stringify(output));
  process.exit(exitCode);
}

type Arguments = { target: string; selector: string | null; url: string | null; detect: boolean };

function parseArguments(args: string[]): Arguments {
  const parsed: Omit<Arguments, 'target'> & { target: string | null } = { target: null, selector: null, url: null, detect: false };
  const valueOf = (name: string, index: number): string => {
    if (index + 1 >= args.length) finish({ error: `--${name} needs a value. ${USAGE}`, code: 'usage' }, 2);
    return args[index + 1]!;
  };
  for (let index = 0; index < args.length; index++) {
    const arg = args[index]!;
    const [flag, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, null];
    if (flag === '--selector' || flag === '-s') parsed.selector = inline ?? valueOf('selector', index++);
    else if (flag === '--url') parsed.url = inline ?? valueOf('url', index++);
    else if (flag === '--detect' && inline === null) parsed.detect = true;
    else if (flag === '--help' || flag === '-h') {
      console.error(USAGE);
      process.exit(0);
    } else if (arg.startsWith('-') || parsed.target !== null) finish({ error: `Unexpected argument “${arg}”. ${USAGE}`, code: 'usage' }, 2);
    else parsed.target = arg;
  }
  if (parsed.target === null) finish({ error: USAGE, code: 'usage' }, 2);
  if (parsed.url !== null && !/^https?:\/\/[^/]/i.test(parsed.url)) finish({ error: `--url must be an http(s) address, not “${parsed.url}”. ${USAGE}`, code: 'usage' }, 2);
  if (parsed.detect && parsed.selector !== null) finish({ error: `--detect suggests selectors; leave out --selector. ${USAGE}`, code: 'usage' }, 2);
  return parsed as Arguments;
}

async function loadPage(target: string): Promise<{ html: string; url?: string }> {
  if (/^[a-z][a-z\d+.-]*:\/\//i.test(target)) {
    const page = await fetchPage(target);
    if (!page.ok) finish({ error: page.reason, code: page.code }, 1);
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
const loaded = await loadPage(args.target);
const url = args.url ?? loaded.url;
const document = parsePage(loaded.html);

if (args.detect) {
  const suggestions = detectPriceSelectors(document, { url }).map(({ selector, description, confidence, price, currency }) => ({ selector, description, confidence, price, currency }));
  finish({ suggestions, availability: extractPriceFromDocument(document, { url }).availability }, 0);
}
const result = extractPriceFromDocument(document, { selector: args.selector, url });
if (!result.ok) finish({ error: result.reason, code: result.code, availability: result.availability }, 1);
if (result.warning) console.error(result.warning);
finish({ price: result.price, currency: result.currency, source: result.source, selector: result.selector, availability: result.availability }, 0);
