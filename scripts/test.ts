/**
 * The whole test suite: the type check, unit and integration tests (on PostgreSQL when
 * DATABASE_URL is set, then the database tests again on the embedded PGlite), then the browser
 * tests against the running product. Ends with one line `N passed, N failed`; exits non-zero when
 * anything failed.
 *
 * Which test files run where, by a rule this runner applies itself (see `classify` below):
 * - A DATABASE test is a test file whose imports reach db/testing.ts, directly or through other
 *   modules of this repository (db/testing.ts is the only source of test databases;
 *   api/testing/database.ts wraps it). Imports are read with Bun's transpiler, so type-only
 *   imports do not count. Only database tests run a second time, on the embedded PGlite: the
 *   others touch no database, and a second run would test nothing new.
 * - A UNIT test is a test file that is not a database test, does not mention Chromium (chromiumPath,
 *   CHROMIUM_PATH, playwright's chromium) and spawns no process (Bun.spawn, spawnSync,
 *   node:child_process: the product or one of its commands). `npm run test:unit` runs only these,
 *   in about 20 seconds on an idle machine.
 *
 * Each database test file gets a copy of a database migrated once per process (db/testing.ts);
 * TEST_TEMPLATES=0 makes and migrates every one from nothing instead, as before.
 *
 *   bun scripts/test.ts          everything, as above
 *   bun scripts/test.ts --unit   the unit tests only
 *   bun scripts/test.ts --list   which files are database, unit and other tests, and why
 */
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const bun = process.execPath;
const ROOT = resolve(import.meta.dir, '..');
const SUITES = ['./api', './events', './projections', './site/src', './scripts'];
/** The one module that hands out test databases. */
const TEST_DATABASES = join(ROOT, 'db/testing.ts');
/** What makes a test file more than a unit test, besides a database: a browser or a child process. */
const NEEDS_CHROMIUM = /chromium/i;
const SPAWNS = /\bBun\.spawn|\bspawnSync\b|\bchild_process\b/;

type Tally = { passed: number; failed: number };
type Classified = { file: string; database: boolean; unit: boolean; why: string };

/** The test files bun test would find under `dirs` (its default name patterns). */
function testFiles(dirs: string[]): string[] {
  const glob = new Bun.Glob('**/*{.test,_test,.spec,_spec}.{js,jsx,ts,tsx}');
  const files: string[] = [];
  for (const dir of dirs) {
    for (const path of glob.scanSync({ cwd: join(ROOT, dir), absolute: true })) {
      if (!/[\\/](node_modules|\.[^\\/]+)[\\/]/.test(relative(ROOT, path))) files.push(path);
    }
  }
  return files.sort();
}

const transpilers = new Map<string, Bun.Transpiler>();
const importsOf = new Map<string, string[]>();

/** The repository modules `file` imports (static and literal dynamic imports; type-only ones are erased). */
function localImports(file: string): string[] {
  const known = importsOf.get(file);
  if (known) return known;
  const ext = file.match(/\.(tsx?|jsx?|mjs)$/)?.[1];
  let found: string[] = [];
  if (ext) {
    const loader = ext === 'mjs' ? 'js' : ext as 'ts' | 'tsx' | 'js' | 'jsx';
    let transpiler = transpilers.get(loader);
    if (!transpiler) transpilers.set(loader, transpiler = new Bun.Transpiler({ loader }));
    const specifiers = transpiler.scanImports(readFileSync(file, 'utf8')).map((i) => i.path);
    for (const specifier of specifiers) {
      if (!specifier.startsWith('.') && !specifier.startsWith('/')) continue; // packages and builtins
      try {
        const target = Bun.resolveSync(specifier, dirname(file));
        if (target.startsWith(ROOT) && !target.includes('/node_modules/')) found.push(target);
      } catch { /* a missing module fails in bun test itself, with a better message */ }
    }
  }
  importsOf.set(file, found);
  return found;
}

/** The chain of imports from `file` to db/testing.ts, or null when it does not reach it. */
function pathToTestDatabases(file: string): string[] | null {
  const from = new Map<string, string>([[file, '']]);
  const queue = [file];
  while (queue.length) {
    const current = queue.shift()!;
    if (current === TEST_DATABASES) {
      const chain = [current];
      for (let at = from.get(current)!; at; at = from.get(at)!) chain.unshift(at);
      return chain;
    }
    for (const next of localImports(current)) if (!from.has(next)) { from.set(next, current); queue.push(next); }
  }
  return null;
}

function classify(files: string[]): Classified[] {
  return files.map((file) => {
    const chain = pathToTestDatabases(file);
    if (chain) return { file, database: true, unit: false, why: `imports ${chain.slice(1).map((f) => relative(ROOT, f)).join(' -> ')}` };
    const text = readFileSync(file, 'utf8');
    if (NEEDS_CHROMIUM.test(text)) return { file, database: false, unit: false, why: 'uses Chromium' };
    if (SPAWNS.test(text)) return { file, database: false, unit: false, why: 'spawns a process' };
    return { file, database: false, unit: true, why: 'no database, browser or process' };
  });
}

async function run(label: string, files: string[], env: Record<string, string | undefined>): Promise<Tally> {
  console.log(`\n=== ${label}: ${files.length} files ===`);
  if (!files.length) return { passed: 0, failed: 0 };
  const args = files.map((f) => `./${relative(ROOT, f)}`);
  const proc = Bun.spawn([bun, 'test', '--timeout', '30000', ...args], { cwd: ROOT, env: { ...process.env, ...env } as Record<string, string>, stdout: 'inherit', stderr: 'pipe' });
  // bun test writes its report to stderr: pass it through and read the totals from it.
  let report = '';
  const decoder = new TextDecoder();
  const reader = proc.stderr.getReader();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    const text = decoder.decode(chunk.value, { stream: true });
    report += text;
    process.stderr.write(text);
  }
  const code = await proc.exited;
  const count = (word: string) => Number(report.match(new RegExp(`^\\s*(\\d+) ${word}$`, 'm'))?.[1] ?? 0);
  const tally = { passed: count('pass'), failed: count('fail') };
  // A crash before the summary (or a failing hook) still counts as a failure.
  if (code !== 0 && tally.failed === 0) tally.failed = 1;
  return tally;
}

/** The type check: a changed API route breaks the site's typed client here, not on a user's screen. */
async function typecheck(): Promise<Tally> {
  console.log('\n=== type check (tsc --noEmit) ===');
  const proc = Bun.spawn([bun, 'x', 'tsc', '--noEmit', '-p', '.'], { cwd: ROOT, stdout: 'inherit', stderr: 'inherit' });
  const ok = (await proc.exited) === 0;
  console.log(ok ? '(pass) type check' : '(fail) type check');
  return { passed: ok ? 1 : 0, failed: ok ? 0 : 1 };
}

const classified = classify(testFiles(SUITES));
const database = classified.filter((c) => c.database).map((c) => c.file);
const unit = classified.filter((c) => c.unit).map((c) => c.file);
const all = classified.map((c) => c.file);

if (process.argv.includes('--list')) {
  for (const kind of ['database', 'unit', 'other'] as const) {
    const group = classified.filter((c) => kind === 'database' ? c.database : kind === 'unit' ? c.unit : !c.database && !c.unit);
    console.log(`\n${kind} tests (${group.length}):`);
    for (const c of group) console.log(`  ${relative(ROOT, c.file)}  (${c.why})`);
  }
  process.exit(0);
}

const results: Tally[] = [];
if (process.argv.includes('--unit')) {
  results.push(await run('unit tests (no database, browser or process)', unit, {}));
} else {
  results.push(await typecheck());
  const databaseUrl = process.env.DATABASE_URL;
  if (databaseUrl) {
    results.push(await run(`unit and integration tests on PostgreSQL (${new URL(databaseUrl).host})`, all, {}));
    if (process.env.TEST_EMBEDDED !== '0') results.push(await run('database tests again on embedded PGlite', database, { DATABASE_URL: '', TEST_PASS: 'embedded-again' }));
  } else {
    results.push(await run('unit and integration tests on embedded PGlite', all, {}));
  }
  results.push(await run('browser tests (Chromium)', testFiles(['./tests/browser']), {}));
}

const total = results.reduce((a, r) => ({ passed: a.passed + r.passed, failed: a.failed + r.failed }), { passed: 0, failed: 0 });
console.log(`\n${total.passed} passed, ${total.failed} failed`);
process.exit(total.failed ? 1 : 0);
