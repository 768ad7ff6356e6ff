/** Anything that answers requests like the app: the app itself in tests. */
type Handler = { handle(request: Request): Promise<Response> };

/**
 * Signs a demo user in through the app, as a browser would, and returns their session cookie
 * header and id. A fresh user by default, so each test starts from nothing.
 */
export async function signInDemo(app: Handler, origin: string, email = `user-${crypto.randomUUID().slice(0, 8)}@example.com`) {
  const res = await app.handle(new Request(new URL(`/api/auth/demo?email=${encodeURIComponent(email)}`, origin)));
  const token = res.headers.get('set-cookie')?.match(/pw_session=([^;]*)/)?.[1];
  if (!token) throw new Error(`Demo sign-in failed: ${res.status} ${await res.text()}`);
  const cookie = `pw_session=${token}`;
  const user = (await (await app.handle(new Request(new URL('/api/auth/user', origin), { headers: { cookie } }))).json()) as { id: string };
  return { cookie, userId: user.id, email };
}
