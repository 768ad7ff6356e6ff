/**
 * Reads the price of a product page, for people and scripts.
 *
 *   bun run extract <url | saved .html file> [--selector <css>]
 *
 * Prints one JSON object on stdout:
 *   {"price": 24.99, "currency": "GBP", "source": "selector", "selector": ".price"}   exit 0
 *   {"error": "<reason a person can act on>", "code": "<machine code>"}                 exit 1
 * Wrong usage prints a JSON error with code "usage" and exits 2. When structured data stood in
 * for a failing selector, the selector's problem is also written to stderr.
 */
import { readFile } from 'node:fs/promises';
import { extractPrice } from '../api/checks/extract.ts';
import { fetchPage } from '../api/checks/fetcher.ts';

const USAGE = 'Usage: bun run extract <url or path of a saved .html file> [--selector <css>]';

function finish(output: object, exitCode: number): never {
  console.log(JSON.stringify(output));
  process.exit(exitCode);
}

function parseArguments(args: string[]): { target: string; selector: string | null } {
  let target: string | null = null;
  let selector: string | null = null;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index];
    if (arg === '--selector' || arg === '-s') {
      if (index + 1 >= args.length) finish({ error: `--selector needs a CSS selector. ${USAGE}`, code: 'usage' }, 2);
      selector = args[++index];
    } else if (arg.startsWith('--selector=')) {
      selector = arg.slice('--selector='.length);
    } else if (arg === '--help' || arg === '-h') {
      console.error(USAGE);
      process.exit(0);
    } else if (arg.startsWith('-') || target !== null) {
      finish({ error: `Unexpected argument “${arg}”. ${USAGE}`, code: 'usage' }, 2);
    } else {
      target = arg;
    }
  }
  if (target === null) finish({ error: USAGE, code: 'usage' }, 2);
  return { target, selector };
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

const { target, selector } = parseArguments(process.argv.slice(2));
const { html, url } = await loadPage(target);
const result = extractPrice(html, { selector, url });
if (!result.ok) finish({ error: result.reason, code: result.code }, 1);
if (result.warning) console.error(result.warning);
finish({ price: result.price, currency: result.currency, source: result.source, selector: result.selector }, 0);
