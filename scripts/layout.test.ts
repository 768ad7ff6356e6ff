import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The layout's rules (docs/architecture.md), checked on every file: imports point one way and
 * never in a circle, and no source file grows past what one reading takes in.
 */
const ROOT = join(import.meta.dir, '..');
const FOLDERS = ['api', 'db', 'domain', 'events', 'projections', 'scripts', 'site/src', 'bench', 'tests'];
const MAX_LINES = 600;

const files = FOLDERS.flatMap((folder) => [...new Bun.Glob('**/*.{ts,tsx}').scanSync({ cwd: join(ROOT, folder) })].map((f) => join(folder, f))).filter(
  (f) => !f.includes('node_modules') && !f.startsWith('bench/corpus/'),
);
const known = new Set(files);
const transpilers = { ts: new Bun.Transpiler({ loader: 'ts' }), tsx: new Bun.Transpiler({ loader: 'tsx' }) };

/** Each file's imports of other files of the project, types included (a cycle of types is a cycle). */
const imports = new Map<string, string[]>(
  files.map((file) => {
    const source = readFileSync(join(ROOT, file), 'utf8');
    // scanImports drops type-only imports: read their specifiers from the text as well.
    const specifiers = [
      ...transpilers[file.endsWith('.tsx') ? 'tsx' : 'ts'].scanImports(source).map((i) => i.path),
      ...[...source.matchAll(/^\s*(?:import|export)\s+type\b[^;]*?from\s+['"]([^'"]+)['"]/gm)].map((m) => m[1]!),
    ];
    const targets = specifiers
      .filter((s) => s.startsWith('.'))
      .map((s) => {
        const base = relative(ROOT, resolve(ROOT, dirname(file), s));
        return [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`].find((candidate) => known.has(candidate));
      })
      .filter((t): t is string => !!t);
    return [file, [...new Set(targets)]];
  }),
);

describe('layout', () => {
  test('no file imports itself back through others', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...path.slice(path.indexOf(file)), file].join(' > '));
        return;
      }
      state.set(file, 'open');
      for (const next of imports.get(file) ?? []) visit(next, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    expect(cycles).toEqual([]);
  });

  test('the event store, the read models, the database and the vocabulary import nothing from the API', () => {
    const reaching = [...imports]
      .filter(([file]) => /^(events|projections|db|domain)\//.test(file))
      .flatMap(([file, targets]) => targets.filter((t) => t.startsWith('api/') || t.startsWith('site/')).map((t) => `${file} > ${t}`));
    expect(reaching).toEqual([]);
  });

  test('the vocabulary is pure: domain/ imports nothing but itself', () => {
    const outside = [...imports]
      .filter(([file]) => file.startsWith('domain/'))
      .flatMap(([file, targets]) => targets.filter((t) => !t.startsWith('domain/')).map((t) => `${file} > ${t}`));
    expect(outside).toEqual([]);
  });

  test(`no source file is over ${MAX_LINES} lines`, () => {
    const long = files
      .map((file) => ({ file, lines: readFileSync(join(ROOT, file), 'utf8').split('\n').length - 1 }))
      .filter((f) => f.lines > MAX_LINES)
      .map((f) => `${f.file}: ${f.lines}`);
    expect(long).toEqual([]);
  });
});
