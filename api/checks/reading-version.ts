/**
 * The version of the code that turns a page into an observation: a hash of its sources and of the
 * parsers it runs on. A check reuses its last reading of an unchanged page only when it was made
 * by the same code, so a better reading reaches every product at its next check.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dir, '..', '..');
const FILES = ['api/checks/check.ts', 'events/page-facts.ts', 'domain/gtin.ts'];
const PARSERS = ['htmlparser2', 'domhandler', 'css-select'];

let version: string | null = null;

export function readingVersion(): string {
  version ??= computeVersion();
  return version;
}

function computeVersion(): string {
  const hash = createHash('sha256');
  try {
    const reading = readdirSync(join(ROOT, 'api/reading'))
      .filter((name) => /\.(?:ts|json)$/.test(name) && !name.endsWith('.test.ts'))
      .sort()
      .map((name) => `api/reading/${name}`);
    for (const file of [...reading, ...FILES]) hash.update(file).update(readFileSync(join(ROOT, file)));
    for (const name of PARSERS) hash.update(name).update(JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version);
  } catch {
    // Sources not at hand (a bundle): a version of this process alone, so readings are reused only within it.
    hash.update(crypto.randomUUID());
  }
  return hash.digest('hex');
}
