import { resolve } from 'node:path';
import { billingConfig } from './billing/config.ts';
import { aiConfig } from './ai/config.ts';

/** Configuration from the environment; every variable is documented in README and .env.example. */
export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(env: Record<string, string | undefined> = process.env) {
  const production = env.NODE_ENV === 'production';
  const port = Number(env.PORT ?? 3000);
  const publicUrl = (env.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/$/, '');
  const google = env.GOOGLE_CLIENT_ID
    ? {
        clientId: env.GOOGLE_CLIENT_ID,
        clientSecret: env.GOOGLE_CLIENT_SECRET ?? '',
        issuer: env.GOOGLE_ISSUER ?? 'https://accounts.google.com',
        redirectUri: `${publicUrl}/api/auth/google/callback`,
      }
    : null;
  if (production && !google) {
    throw new Error('NODE_ENV=production needs GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET: demo sign-in is never available in production.');
  }
  const billing = billingConfig(env, production);
  const checkAllowPrivate = env.CHECK_ALLOW_PRIVATE === 'true';
  if (production && checkAllowPrivate) {
    throw new Error('CHECK_ALLOW_PRIVATE=true is for tests only: price checks never reach private addresses in production.');
  }
  return {
    production,
    port,
    publicUrl,
    /** The origin browsers reach us at, when PUBLIC_URL states it (null: taken from each request). */
    publicOrigin: env.PUBLIC_URL ? new URL(publicUrl).origin : null,
    dataDir: resolve(env.DATA_DIR ?? '.data'),
    databaseUrl: env.DATABASE_URL || undefined,
    google,
    /** Demo sign-in: only without Google credentials and never in production. */
    demo: !google && !production,
    /** Stripe when STRIPE_SECRET_KEY is set, else the local demo billing (never in production). */
    billing,
    /** An OpenAI-compatible model when OPENAI_API_KEY is set; null means heuristics only. */
    ai: aiConfig(env),
    /** E-mail over SMTP when SMTP_URL is set, whatever the sign-in mode; else written as .eml files to DATA_DIR/outbox. */
    smtpUrl: env.SMTP_URL || null,
    /** The Telegram Bot API that Telegram channels post through (a loopback fake in tests). */
    telegramApiUrl: (env.TELEGRAM_API_URL || 'https://api.telegram.org').replace(/\/$/, ''),
    mailFrom: env.MAIL_FROM || `Pricewatch <alerts@${new URL(publicUrl).hostname}>`,
    /** Session lifetime; it slides forward while the user is active. */
    sessionDays: Number(env.SESSION_DAYS ?? 30),
    siteDir: resolve(env.SITE_DIR ?? 'site/dist'),
    /** Price checks may reach loopback and private addresses (tests only). */
    checkAllowPrivate,
    /** Run a price-check worker inside the server process (more run as `bun run worker`). */
    checkWorker: env.CHECK_WORKER !== 'off',
    /** Checks one worker process runs at the same time: fetches mostly wait on the network. */
    checkConcurrency: Math.max(1, Number(env.CHECK_CONCURRENCY) || 32),
    /** Check Now and AI Detect answer by then, their work going on after it: below the 30 s at which idle requests are closed. */
    answerWithinMs: Math.max(1, Number(env.ANSWER_WITHIN_MS) || 25_000),
    /** Minutes between checks of products on the built-in demo shop, in demo mode. */
    demoCheckMinutes: Math.max(1, Number(env.DEMO_CHECK_MINUTES) || 3),
  };
}
