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
const SUITES = ['./api', './db', './domain', './events', './projections', './site/src', './scripts'];
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
  const found: string[] = [];
  if (ext) {
    const loader = ext === 'mjs' ? 'js' : (ext as 'ts' | 'tsx' | 'js' | 'jsx');
    let transpiler = transpilers.get(loader);
    if (!transpiler) transpilers.set(loader, (transpiler = new Bun.Transpiler({ loader })));
    const specifiers = transpiler.scanImports(readFileSync(file, 'utf8')).map((i) => i.path);
    for (const specifier of specifiers) {
      if (!specifier.startsWith('.') && !specifier.startsWith('/')) continue; // packages and builtins
      try {
        const target = Bun.resolveSync(specifier, dirname(file));
        if (target.startsWith(ROOT) && !target.includes('/node_modules/')) found.push(target);
      } catch {
        /* a missing module fails in bun test itself, with a better message */
      }
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
    for (const next of localImports(current))
      if (!from.has(next)) {
        from.set(next, current);
        queue.push(next);
      }
  }
  return null;
}

function classify(files: string[]): Classified[] {
  return files.map((file) => {
    const chain = pathToTestDatabases(file);
    if (chain)
      return {
        file,
        database: true,
        unit: false,
        why: `imports ${chain
          .slice(1)
          .map((f) => relative(ROOT, f))
          .join(' -> ')}`,
      };
    const text = readFileSync(file, 'utf8');
    if (NEEDS_CHROMIUM.test(text)) return { file, database: false, unit: false, why: 'uses Chromium' };
    if (SPAWNS.test(text)) return { file, database: false, unit: false, why: 'spawns a process' };
    return { file, database: false, unit: true, why: 'no database, browser or process' };
  });
}

/**
 * Runs one step. Steps that run side by side keep their output until they end, then print it as
 * one block, so the log reads step by step; `tally` reads the totals from what the step printed.
 */
async function step(
  label: string,
  cmd: string[],
  opts: { env?: Record<string, string | undefined>; alone: boolean; tally: (output: string, ok: boolean) => Tally },
): Promise<Tally> {
  const header = `\n=== ${label} ===\n`;
  if (opts.alone) process.stdout.write(header);
  const proc = Bun.spawn(cmd, { cwd: ROOT, env: { ...process.env, ...opts.env } as Record<string, string>, stdout: 'pipe', stderr: 'pipe' });
  let output = '';
  const pass = async (stream: ReadableStream<Uint8Array>, to: NodeJS.WriteStream) => {
    const decoder = new TextDecoder();
    const reader = stream.getReader();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      const text = decoder.decode(chunk.value, { stream: true });
      output += text;
      if (opts.alone) to.write(text);
    }
  };
  await Promise.all([pass(proc.stdout, process.stdout), pass(proc.stderr, process.stderr)]);
  const ok = (await proc.exited) === 0;
  if (!opts.alone) process.stdout.write(header + output);
  return opts.tally(output, ok);
}

/** bun test over `files`: its totals, and a failure when it crashed before them (or a hook failed). */
function run(label: string, files: string[], env: Record<string, string | undefined>, alone = true): Promise<Tally> {
  if (!files.length) return Promise.resolve({ passed: 0, failed: 0 });
  const args = files.map((f) => `./${relative(ROOT, f)}`);
  return step(`${label}: ${files.length} files`, [bun, 'test', '--timeout', '30000', ...args], {
    env,
    alone,
    tally(output, ok) {
      const count = (word: string) => Number(output.match(new RegExp(`^\\s*(\\d+) ${word}$`, 'm'))?.[1] ?? 0);
      const tally = { passed: count('pass'), failed: count('fail') };
      if (!ok && tally.failed === 0) tally.failed = 1;
      return tally;
    },
  });
}

/** A check that passes or fails as a whole. */
const check = (label: string, cmd: string[], alone: boolean) =>
  step(label, cmd, {
    alone,
    tally(_, ok) {
      console.log(`${ok ? '(pass)' : '(fail)'} ${label}`);
      return { passed: ok ? 1 : 0, failed: ok ? 0 : 1 };
    },
  });

const classified = classify(testFiles(SUITES));
const database = classified.filter((c) => c.database).map((c) => c.file);
const unit = classified.filter((c) => c.unit).map((c) => c.file);
const all = classified.map((c) => c.file);

if (process.argv.includes('--list')) {
  for (const kind of ['database', 'unit', 'other'] as const) {
    const group = classified.filter((c) => (kind === 'database' ? c.database : kind === 'unit' ? c.unit : !c.database && !c.unit));
    console.log(`\n${kind} tests (${group.length}):`);
    for (const c of group) console.log(`  ${relative(ROOT, c.file)}  (${c.why})`);
  }
  process.exit(0);
}

const results: Tally[] = [];
if (process.argv.includes('--unit')) {
  results.push(await run('unit tests (no database, browser or process)', unit, {}));
} else {
  // The type check, the format and lint check and the database passes run side by side: each
  // waits on something else much of the time (a database server, the disk), and they share nothing.
  // The type check: a changed API route breaks the site's typed client here, not on a user's screen.
  const steps = [
    check('type check (tsc --noEmit)', [bun, 'x', 'tsc', '--noEmit', '-p', '.'], false),
    check('format and lint (biome ci)', [bun, 'x', 'biome', 'ci', '.'], false),
  ];
  const databaseUrl = process.env.DATABASE_URL;
  if (databaseUrl) {
    steps.push(run(`unit and integration tests on PostgreSQL (${new URL(databaseUrl).host})`, all, {}, false));
    if (process.env.TEST_EMBEDDED !== '0')
      steps.push(run('database tests again on embedded PGlite', database, { DATABASE_URL: '', TEST_PASS: 'embedded-again' }, false));
  } else {
    steps.push(run('unit and integration tests on embedded PGlite', all, {}, false));
  }
  results.push(...(await Promise.all(steps)));
  results.push(await run('browser tests (Chromium)', testFiles(['./tests/browser']), {}));
}

const total = results.reduce((a, r) => ({ passed: a.passed + r.passed, failed: a.failed + r.failed }), { passed: 0, failed: 0 });
console.log(`\n${total.passed} passed, ${total.failed} failed`);
process.exit(total.failed ? 1 : 0);
