/**
 * Pending sign-ins (operational, short-lived): the OAuth state, nonce and PKCE verifier of an
 * authorization request, and where to go afterwards. Kept server-side and deleted when used.
 */
export const OAUTH_STATE_DDL = `
CREATE TABLE IF NOT EXISTS oauth_states (
  state         text PRIMARY KEY,
  code_verifier text NOT NULL,
  nonce         text NOT NULL,
  redirect_to   text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now()
);
`;
