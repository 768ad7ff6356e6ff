import { exportJWK, generateKeyPair, SignJWT } from 'jose';

/** The account the fake provider signs in; tests change it per case. */
export type FakeUser = {
  sub: string;
  email: string;
  email_verified: boolean;
  given_name?: string;
  family_name?: string;
  picture?: string;
};

/** Ways to make the next ID tokens wrong, one knob per check the relying party must make. */
export type Misbehaviour = {
  /** Sign with a key that is not in the JWKS (same key id). */
  badSignature?: boolean;
  audience?: string;
  expired?: boolean;
  nonce?: string;
  /** Answer discovery with 500. */
  failDiscovery?: boolean;
  /** Send the user back with ?error=access_denied instead of a code. */
  deny?: boolean;
};

export const DEFAULT_USER: FakeUser = {
  sub: '104857600000000000001',
  email: 'ada@example.com',
  email_verified: true,
  given_name: 'Ada',
  family_name: 'Lovelace',
  picture: 'https://lh3.googleusercontent.com/a/ada',
};

type Grant = { clientId: string; redirectUri: string; codeChallenge: string; nonce: string | null; user: FakeUser };

const sha256base64url = async (text: string) => Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))).toString('base64url');

/**
 * An OpenID provider on loopback speaking the real protocol (discovery, JWKS, authorization
 * endpoint, token endpoint with client authentication and PKCE), signing RS256 ID tokens.
 */
export async function startFakeOidc(client: { clientId: string; clientSecret: string }) {
  const kid = 'fake-key-1';
  const keys = await generateKeyPair('RS256', { extractable: true });
  const strangerKeys = await generateKeyPair('RS256');
  const jwks = { keys: [{ ...(await exportJWK(keys.publicKey)), kid, alg: 'RS256', use: 'sig' }] };
  const grants = new Map<string, Grant>();

  const fake = {
    issuer: '',
    user: { ...DEFAULT_USER } as FakeUser,
    misbehave: {} as Misbehaviour,
    /** Every authorization request as it arrived. */
    authorizations: [] as URLSearchParams[],
    discoveryRequests: 0,
    tokenRequests: 0,
    reset() {
      fake.user = { ...DEFAULT_USER };
      fake.misbehave = {};
      fake.authorizations = [];
      fake.tokenRequests = 0;
    },
    stop: () => server.stop(true),
  };

  const json = (body: unknown, status = 200) => Response.json(body, { status, headers: { 'cache-control': 'no-store' } });
  const oauthError = (error: string, status = 400) => json({ error, error_description: `fake provider: ${error}` }, status);

  async function idToken(grant: Grant) {
    const now = Math.floor(Date.now() / 1000);
    const iat = fake.misbehave.expired ? now - 7200 : now;
    const { sub, ...claims } = grant.user;
    const nonce = fake.misbehave.nonce ?? grant.nonce;
    return new SignJWT({ ...claims, ...(nonce ? { nonce } : {}) })
      .setProtectedHeader({ alg: 'RS256', kid, typ: 'JWT' })
      .setIssuer(fake.issuer)
      .setAudience(fake.misbehave.audience ?? grant.clientId)
      .setSubject(sub)
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(fake.misbehave.badSignature ? strangerKeys.privateKey : keys.privateKey);
  }

  function authorize(url: URL): Response {
    const q = url.searchParams;
    fake.authorizations.push(new URLSearchParams(q));
    const redirectUri = q.get('redirect_uri');
    if (q.get('client_id') !== client.clientId || !redirectUri) return new Response('unknown client or redirect_uri', { status: 400 });
    const back = new URL(redirectUri);
    const state = q.get('state');
    if (state) back.searchParams.set('state', state);
    if (fake.misbehave.deny) {
      back.searchParams.set('error', 'access_denied');
    } else if (q.get('response_type') !== 'code' || q.get('code_challenge_method') !== 'S256' || !q.get('code_challenge')) {
      back.searchParams.set('error', 'invalid_request');
    } else {
      const code = crypto.randomUUID();
      grants.set(code, { clientId: client.clientId, redirectUri, codeChallenge: q.get('code_challenge')!, nonce: q.get('nonce'), user: { ...fake.user } });
      back.searchParams.set('code', code);
      // Extra parameters as Google sends them; the relying party must tolerate them.
      back.searchParams.set('iss', fake.issuer);
      back.searchParams.set('scope', q.get('scope') ?? '');
      back.searchParams.set('authuser', '0');
    }
    return Response.redirect(back.href, 302);
  }

  async function token(request: Request): Promise<Response> {
    fake.tokenRequests++;
    const form = new URLSearchParams(await request.text());
    let id = form.get('client_id');
    let secret = form.get('client_secret');
    const basic = request.headers.get('authorization')?.match(/^Basic (.+)$/i);
    if (basic) [id, secret] = Buffer.from(basic[1]!, 'base64').toString().split(':').map(decodeURIComponent) as [string, string];
    if (id !== client.clientId || secret !== client.clientSecret) return oauthError('invalid_client', 401);
    if (form.get('grant_type') !== 'authorization_code') return oauthError('unsupported_grant_type');
    const code = form.get('code') ?? '';
    const grant = grants.get(code);
    grants.delete(code); // single use
    if (!grant || grant.redirectUri !== form.get('redirect_uri')) return oauthError('invalid_grant');
    if (!form.get('code_verifier') || (await sha256base64url(form.get('code_verifier')!)) !== grant.codeChallenge) return oauthError('invalid_grant');
    return json({ access_token: crypto.randomUUID(), token_type: 'Bearer', expires_in: 3600, scope: 'openid email profile', id_token: await idToken(grant) });
  }

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      switch (`${request.method} ${url.pathname}`) {
        case 'GET /.well-known/openid-configuration':
          fake.discoveryRequests++;
          if (fake.misbehave.failDiscovery) return new Response('unavailable', { status: 500 });
          return json({
            issuer: fake.issuer,
            authorization_endpoint: `${fake.issuer}/authorize`,
            token_endpoint: `${fake.issuer}/token`,
            jwks_uri: `${fake.issuer}/jwks`,
            response_types_supported: ['code'],
            subject_types_supported: ['public'],
            id_token_signing_alg_values_supported: ['RS256'],
            scopes_supported: ['openid', 'email', 'profile'],
            token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
            code_challenge_methods_supported: ['S256'],
            claims_supported: ['iss', 'aud', 'sub', 'iat', 'exp', 'nonce', 'email', 'email_verified', 'given_name', 'family_name', 'picture'],
          });
        case 'GET /jwks':
          return json(jwks);
        case 'GET /authorize':
          return authorize(url);
        case 'POST /token':
          return token(request);
      }
      return new Response('not found', { status: 404 });
    },
  });
  fake.issuer = `http://127.0.0.1:${server.port}`;
  return fake;
}

export type FakeOidc = Awaited<ReturnType<typeof startFakeOidc>>;
