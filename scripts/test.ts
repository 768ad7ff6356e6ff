/**
 * The whole test suite: unit and integration tests (on PostgreSQL when DATABASE_URL is set, and
 * then again on the embedded PGlite), then the browser tests against the running product.
 * Ends with one line `N passed, N failed`; exits non-zero when anything failed.
 */
export {};

const bun = process.execPath;
const SUITES = ['./api', './events', './projections', './site/src', './scripts'];

type Tally = { passed: number; failed: number };

async function run(label: string, paths: string[], env: Record<string, string | undefined>): Promise<Tally> {
  console.log(`\n=== ${label} ===`);
  const proc = Bun.spawn([bun, 'test', '--timeout', '30000', ...paths], { env: { ...process.env, ...env } as Record<string, string>, stdout: 'inherit', stderr: 'pipe' });
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
  const proc = Bun.spawn([bun, 'x', 'tsc', '--noEmit', '-p', '.'], { stdout: 'inherit', stderr: 'inherit' });
  const ok = (await proc.exited) === 0;
  console.log(ok ? '(pass) type check' : '(fail) type check');
  return { passed: ok ? 1 : 0, failed: ok ? 0 : 1 };
}

const results: Tally[] = [await typecheck()];
const databaseUrl = process.env.DATABASE_URL;
if (databaseUrl) {
  results.push(await run(`unit and integration tests on PostgreSQL (${new URL(databaseUrl).host})`, SUITES, {}));
  if (process.env.TEST_EMBEDDED !== '0') results.push(await run('integration tests on embedded PGlite', SUITES, { DATABASE_URL: '', TEST_PASS: 'embedded-again' }));
} else {
  results.push(await run('unit and integration tests on embedded PGlite', SUITES, {}));
}
results.push(await run('browser tests (Chromium)', ['./tests/browser'], {}));

const total = results.reduce((a, r) => ({ passed: a.passed + r.passed, failed: a.failed + r.failed }), { passed: 0, failed: 0 });
console.log(`\n${total.passed} passed, ${total.failed} failed`);
process.exit(total.failed ? 1 : 0);
