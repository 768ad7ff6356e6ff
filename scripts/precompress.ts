/**
 * Writes a brotli (.br) and a gzip (.gz) copy beside every text asset of the built site, at the
 * highest levels: done once per build, so the server sends them at no cost per request
 * (api/site.ts picks one by Accept-Encoding). Part of `npm run build`.
 * Usage: bun scripts/precompress.ts [dir]   (default site/dist)
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

// Pages are compressed by the server, once the running origin is written into them (api/site.ts).
const TEXT = /\.(css|js|mjs|svg|txt|json|xml|webmanifest)$/;
/** Smaller files gain too little to be worth a second request path. */
const MIN_BYTES = 1024;

const brotli = promisify(brotliCompress);
const gz = promisify(gzip);

export async function precompress(dir: string): Promise<{ files: number; bytes: number; br: number; gzip: number }> {
  const files = (readdirSync(dir, { recursive: true }) as string[])
    .map((name) => join(dir, name))
    .filter((path) => TEXT.test(path) && statSync(path).isFile() && statSync(path).size >= MIN_BYTES);
  const totals = { files: files.length, bytes: 0, br: 0, gzip: 0 };
  // zlib runs on the thread pool: the files compress in parallel.
  await Promise.all(
    files.map(async (path) => {
      const data = readFileSync(path);
      const [br, gzipped] = await Promise.all([
        brotli(data, {
          params: {
            [constants.BROTLI_PARAM_QUALITY]: 11,
            [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
            [constants.BROTLI_PARAM_SIZE_HINT]: data.length,
          },
        }),
        gz(data, { level: 9 }),
      ]);
      writeFileSync(`${path}.br`, br);
      writeFileSync(`${path}.gz`, gzipped);
      totals.bytes += data.length;
      totals.br += br.length;
      totals.gzip += gzipped.length;
    }),
  );
  return totals;
}

if (import.meta.main) {
  const dir = process.argv[2] ?? 'site/dist';
  const started = performance.now();
  const t = await precompress(dir);
  const kb = (n: number) => `${(n / 1000).toFixed(1)} KB`;
  console.log(
    `Precompressed ${t.files} files in ${dir}: ${kb(t.bytes)} -> brotli ${kb(t.br)}, gzip ${kb(t.gzip)} (${Math.round(performance.now() - started)} ms)`,
  );
}
