/**
 * Pending sign-ins (operational, short-lived): the OAuth state, nonce and PKCE verifier of an
 * authorization request, where to go afterwards, and the handle of the browser that started it
 * (also in that browser's sign-in cookie). Kept server-side and deleted when used.
 */
export const OAUTH_STATE_DDL = `
CREATE TABLE IF NOT EXISTS oauth_states (
  state         text PRIMARY KEY,
  code_verifier text NOT NULL,
  nonce         text NOT NULL,
  redirect_to   text NOT NULL,
  browser       text,
  created_at    timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE oauth_states ADD COLUMN IF NOT EXISTS browser text;
`;
