import { afterAll, beforeAll } from 'bun:test';
import { createApp } from '../server.ts';
import { SETUP_TIMEOUT, testContext } from './database.ts';
import { signInDemo } from './sign-in.ts';

type Env = Record<string, string | undefined>;
export type TestContext = Awaited<ReturnType<typeof testContext>>;
export type TestApp = ReturnType<typeof createApp>;
export type SignedIn = Awaited<ReturnType<typeof signInDemo>>;

/**
 * The app on a fresh test database for the test file (or describe block) that calls this: opens
 * it in a beforeAll, closes it in an afterAll. `env` is the configuration (a function when it
 * depends on something an earlier beforeAll started); requests go to its PUBLIC_URL, else
 * http://localhost:3000. `ctx` and `app` are there from the first test on:
 *
 *   const api = useTestApp({ PUBLIC_URL: ORIGIN });
 *   const { request, signedIn } = api;
 *   test('...', async () => { const { cookie, userId } = await signedIn(); await addProduct(api.ctx, userId); ... });
 */
export function useTestApp(env: Env | (() => Env) = {}) {
  let ctx: TestContext | undefined;
  let app: TestApp | undefined;
  let origin = 'http://localhost:3000';
  beforeAll(async () => {
    const config = typeof env === 'function' ? env() : env;
    origin = config.PUBLIC_URL ?? origin;
    ctx = await testContext(config);
    app = createApp(ctx);
  }, SETUP_TIMEOUT);
  afterAll(async () => {
    await ctx?.close();
  }, SETUP_TIMEOUT);
  const opened = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useTestApp: the app opens in beforeAll; use it in tests and hooks');
    return value;
  };
  return {
    get ctx(): TestContext {
      return opened(ctx);
    },
    get app(): TestApp {
      return opened(app);
    },
    get origin() {
      return origin;
    },
    /** The app's answer to `path` (resolved against the origin), as if it came over HTTP. */
    request: (path: string, init: RequestInit = {}) => opened(app).handle(new Request(new URL(path, origin), init)),
    /** A fresh demo user, signed in: their session cookie header, id and e-mail. */
    signedIn: (email?: string): Promise<SignedIn> => signInDemo(opened(app), origin, email),
  };
}
