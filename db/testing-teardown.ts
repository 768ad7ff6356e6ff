import { afterAll } from 'bun:test';

/**
 * Preloaded by bun test (bunfig.toml): after the last test file of the run, drops the template
 * databases db/testing.ts made on the PostgreSQL server, if it made any. db/testing.ts makes them
 * only when this file is loaded. Through globals rather than an import, so that runs without a
 * database load nothing more.
 */
(globalThis as Record<symbol, unknown>)[Symbol.for('pricewatch.testTeardown')] = true;

afterAll(async () => {
  const drop = (globalThis as Record<symbol, (() => Promise<void>) | undefined>)[Symbol.for('pricewatch.dropTestTemplates')];
  await drop?.();
});
